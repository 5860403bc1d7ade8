use referee_kit::{run, Answer, Decision, Hello};

// Takes whenever it may, and otherwise plays the first legal action.
fn act(decision: &Decision) -> Answer {
    let take = decision.legal.iter().position(|action| action.kind == "take");
    Answer::from(take.unwrap_or(0))
}

fn main() {
    std::process::exit(run(&Hello::new("stubborn"), &mut act));
}
