//! thinker: thinks (here: draws actions at random) until half of its time is gone, then plays the action it drew
//! most, with a note saying why (the replay viewer shows it beside the decision).
use std::time::{Duration, Instant};

use referee_kit::{run, Answer, Decision, Hello};

fn main() {
    let mut state: u64 = 1; // xorshift64
    let mut votes: Vec<u64> = Vec::new();
    let mut act = |decision: &Decision| -> Answer {
        let left_ms = decision.deadline.remaining_ms();
        let stop = Instant::now() + Duration::from_secs_f64(left_ms.max(0.0) / 2000.0); // the other half: a margin
        votes.clear();
        votes.resize(decision.legal.len(), 0);
        votes[0] = 1;
        let n = votes.len() as u64;
        while Instant::now() < stop {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            votes[(state % n) as usize] += 1; // a real bot would search here
        }
        let best = (0..votes.len()).max_by_key(|&i| (votes[i], std::cmp::Reverse(i))).unwrap_or(0);
        let why = format!("{} draws chose {}; {:.0} ms were left", votes[best], decision.legal.text(best), left_ms);
        Answer::new(best).note(why)
    };
    std::process::exit(run(&Hello::new("thinker"), &mut act));
}
