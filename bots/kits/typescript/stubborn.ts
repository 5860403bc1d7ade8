import { run, type Action, type Observation } from "./referee.js";

function act(observation: Observation, legal: Action[]) {
  // observation: the wire-form object of docs/WIRE.md; legal: the legal actions (canonical order)
  return legal.find((a) => a.kind === "take") ?? legal[0]!;
}

process.exitCode = await run(act, { name: "stubborn" });
