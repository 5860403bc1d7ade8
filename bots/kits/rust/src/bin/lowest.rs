//! lowest: plays durak and kazaki with the cheapest cards it can: low ranks first, trumps last; takes or passes last.
use referee_kit::{run, Answer, Decision, Hello};

fn act(decision: &Decision) -> Answer {
    let observation = decision.observation();
    let trump = observation["trump"].as_str().unwrap_or("");
    let cost = |i: usize| -> f64 {
        let action = decision.legal.action(i);
        let skip = if action.kind == "defend" { 1 } else { 0 }; // defend(a,c): c is mine
        let (mut sum, mut count) = (0.0, 0);
        for card in action.cards().skip(skip) {
            let trumps = trump.len() == 1 && trump.starts_with(card.suit);
            sum += card.rank as f64 + if trumps { 100.0 } else { 0.0 };
            count += 1;
        }
        if count == 0 {
            1000.0 // take, pass
        } else {
            sum / count as f64
        }
    };
    let mut best = 0;
    let mut best_cost = cost(0);
    for i in 1..decision.legal.len() {
        let c = cost(i);
        if c < best_cost {
            best = i;
            best_cost = c;
        }
    }
    Answer::new(best).note(format!("cost {}, the lowest of {}", best_cost, decision.legal.len()))
}

fn main() {
    std::process::exit(run(&Hello::new("lowest").games(&["durak", "kazaki"]), &mut act));
}
