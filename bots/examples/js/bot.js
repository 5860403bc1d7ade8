#!/usr/bin/env node
// An example bot for the referee, written from docs/PROTOCOL.md (protocol version 1) alone.
//
// The referee writes msgpack maps to our stdin and reads msgpack maps from our stdout (a bare stream, no length
// prefix: PROTOCOL.md section 3). Stdout carries frames only; every log line goes to stderr (section 2).
//
// Policy, for the durak family (kazaki, durak): defend with the cheapest card that beats (plain before trump, low
// before high), otherwise take; decline every offer (throw-in, withdrawal, redeal) with `pass`; attack with the
// cheapest single card. Anything else: the first legal action. The bot keeps no memory between requests.
//
// Usage: npm install (in this folder), then
//   referee play durak --bot heuristic --bot 'cmd:node bots/examples/js/bot.js'

import { decodeMultiStream, encode } from "@msgpack/msgpack";

const NAME = "js-example";
const VERSIONS = [1]; // protocol versions this bot speaks (section 11)
const GAMES = ["durak", "kazaki"]; // the games it plays; null would mean "any game" (section 5.2)

// Logs go to stderr; make sure nothing, not even a stray console.log, can reach stdout (section 2).
const log = (...args) => console.error(`[${NAME}]`, ...args);
console.log = log;
console.info = log;

// msgpack: bot_seed is an unsigned 64-bit integer, so decode 64-bit integers exactly, as BigInt (section 3).
const codecOptions = { useBigInt64: true };

/** Write one frame. Node hands the bytes to the OS at once (or queues them itself if the pipe is full): no flush. */
function send(message) {
  process.stdout.write(encode(message, codecOptions));
}

// The referee closes the pipe when it is done; a failed write then just means we should go.
process.stdout.on("error", () => process.exit(0));

// ------------------------------------------------------------------------------------------------ cards, actions

const FACES = { J: 11, Q: 12, K: 13, A: 14 };

/** "10D" → { rank: 10, suit: "D" }; the suit is always the last character (WIRE.md, Cards). */
function parseCard(text) {
  const rank = text.slice(0, -1);
  return { rank: FACES[rank] ?? Number.parseInt(rank, 10), suit: text.slice(-1) };
}

/** "defend(7D,8D)" → { kind: "defend", args: ["7D", "8D"] }; "take" → { kind: "take", args: [] }. */
function parseAction(text) {
  const open = text.indexOf("(");
  if (open < 0) return { text, kind: text, args: [] };
  return { text, kind: text.slice(0, open), args: text.slice(open + 1, -1).split(",") };
}

/** What a card costs to give away: any trump is dearer than any plain card, then by rank. */
function cost(cardText, trump) {
  const card = parseCard(cardText);
  return (card.suit === trump ? 100 : 0) + card.rank;
}

/** The action with the lowest `price`; the first one on ties. */
function cheapest(actions, price) {
  let best = actions[0];
  for (const action of actions) if (price(action) < price(best)) best = action;
  return best;
}

/** Choose one string from `legal` (section 5.6: answer with one of them, unchanged), and say why. */
function choose(observation, legal) {
  const actions = legal.map(parseAction);
  const trump = observation?.trump;
  const of = (kind) => actions.filter((a) => a.kind === kind);

  const defends = of("defend"); // defend(attack_card, covering_card)
  if (defends.length > 0) return [cheapest(defends, (a) => cost(a.args[1], trump)).text, "the cheapest cover"];
  if (legal.includes("take")) return ["take", "nothing covers it"];
  if (legal.includes("pass")) return ["pass", "declines"]; // throw-in, withdrawal and redeal offers
  const singles = of("attack").filter((a) => a.args.length === 1);
  if (singles.length > 0) return [cheapest(singles, (a) => cost(a.args[0], trump)).text, "the cheapest single"];
  return [legal[0], "the first legal action"];
}

// ------------------------------------------------------------------------------------------------ the protocol

function onHello(message) {
  const offered = Array.isArray(message.versions) ? message.versions.map(Number) : [];
  const common = offered.filter((v) => VERSIONS.includes(v));
  if (common.length === 0) {
    const text = `no common protocol version (I speak ${JSON.stringify(VERSIONS)}, offered ${JSON.stringify(offered)})`;
    log(text);
    process.stdout.write(encode({ type: "error", message: text }), () => process.exit(2));
    return false;
  }
  send({ type: "hello", version: Math.max(...common), name: NAME, games: GAMES });
  log(`connected to ${message.referee ?? "a referee"}, protocol version ${Math.max(...common)}`);
  return true;
}

function onRequest(message) {
  let action, why;
  try {
    [action, why] = choose(message.observation ?? {}, message.legal);
  } catch (error) {
    log(`policy failed (${error}); playing the first legal action`);
    [action, why] = [message.legal[0], `policy failed: ${error}`];
  }
  send({ type: "action", id: message.id, action, debug: why }); // debug: a note the replay shows (section 5.6)
}

async function main() {
  // A streaming decoder over stdin: yields each map as soon as its last byte has arrived (section 3).
  for await (const message of decodeMultiStream(process.stdin, codecOptions)) {
    if (message === null || typeof message !== "object" || Array.isArray(message)) continue;
    switch (message.type) {
      case "hello":
        if (!onHello(message)) return;
        break;
      case "new_game":
        log(`game ${message.game_no}: ${message.game}, seat ${message.seat} of ${message.seats}`);
        break;
      case "request":
        onRequest(message);
        break;
      case "game_over":
        break; // message.result could be learnt from; this bot does not
      case "bye":
        process.exit(0);
        break;
      default:
        break; // unknown message types are ignored (section 6)
    }
  }
  process.exit(0); // end of input: the referee is gone (section 10)
}

main().catch((error) => {
  log(`fatal: ${error?.stack ?? error}`);
  process.exit(1);
});
