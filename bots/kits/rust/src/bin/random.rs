//! random: a uniformly random legal action, drawn from a generator seeded with each game's bot_seed, so the same
//! game is played the same way every time (referee check, case 8.1).
use referee_kit::{run, Answer, Bot, Decision, GameInfo, Hello};

/// splitmix64: small, fast, and good enough to pick among a few actions.
struct RandomBot {
    state: u64,
}

impl Bot for RandomBot {
    fn new_game(&mut self, info: &GameInfo) {
        self.state = info.bot_seed;
    }

    fn act(&mut self, decision: &Decision) -> Answer {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        Answer::from((z % decision.legal.len() as u64) as usize)
    }
}

fn main() {
    std::process::exit(run(&Hello::new("random"), &mut RandomBot { state: 0 }));
}
