// Plays durak and kazaki with the cheapest cards it can: low ranks first, trumps last; takes or passes last.
import { Answer, run, type Action, type Observation } from "./referee.js";

function act(observation: Observation, legal: Action[]) {
  const trump = observation.trump;
  const cost = (action: Action): number => {
    const mine = action.kind === "defend" ? action.cards.slice(1) : action.cards; // defend(a,c): c is mine
    if (mine.length === 0) return 1000; // take, pass
    return mine.reduce((sum, card) => sum + card.rank + (card.suit === trump ? 100 : 0), 0) / mine.length;
  };
  let best = legal[0]!;
  for (const action of legal) if (cost(action) < cost(best)) best = action; // the first one on ties
  return new Answer(best, `cost ${cost(best)}`);
}

process.exitCode = await run(act, { name: "lowest-ts", games: ["durak", "kazaki"] });
