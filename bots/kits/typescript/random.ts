// Plays a legal action drawn at random, from a generator seeded with the game's bot_seed: the same game is played
// the same way every time (referee check, case 8.1). Plays every game.
import { Rng, runBot, type Bot, type Decision, type GameInfo } from "./referee.js";

class RandomBot implements Bot {
  readonly name = "random-ts";
  private rng = new Rng(0);

  newGame(info: GameInfo): void {
    this.rng = new Rng(info.botSeed);
  }

  act(decision: Decision) {
    return this.rng.choice(decision.legal);
  }
}

process.exitCode = await runBot(new RandomBot());
