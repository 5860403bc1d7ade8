// The TypeScript starter kit for referee bots: write a function, the kit speaks the protocol (docs/PROTOCOL.md, v1).
//
//   import { run, type Observation, type Action } from "./referee.js";
//   function act(observation: Observation, legal: Action[]) {
//     return legal.find((a) => a.kind === "take") ?? legal[0]!;
//   }
//   process.exitCode = await run(act, { name: "stubborn" });
//
// run() does the handshake, answers every request with the function's choice (an Action, its text, or an Answer with
// a note), ignores unknown messages and returns on `bye` or end of input. Stdout carries frames only: console.log and
// friends are sent to stderr. It mirrors the Python SDK (protocol/sdk.py, docs/SDK.md).

import { readSync, writeSync } from "node:fs";

import { Decoder, Encoder, ExtData, type DecoderOptions } from "@msgpack/msgpack";

/** The protocol versions this kit speaks (PROTOCOL.md section 11). */
export const PROTOCOL_VERSIONS: readonly number[] = [1];

// ------------------------------------------------------------------------------------------------ cards, actions

const FACE: Record<string, number> = { J: 11, Q: 12, K: 13, A: 14 };
const STANDARD_SUITS = "CDHS";
const KAZAKI_SUITS = "KRTF";

/** A card: `rank` is numeric (standard deck 2..14 with J=11, Q=12, K=13, A=14; Cossacks-Robbers 0..9). */
export class Card {
  private static readonly parsed = new Map<string, Card>();

  private constructor(readonly rank: number, readonly suit: string, readonly text: string) {}

  /** "10D" → Card(10, "D"); the suit is always the last character (WIRE.md, Cards). Throws on anything else. */
  static parse(text: string): Card {
    const card = Card.tryParse(text);
    if (card === undefined) throw new Error(`invalid card: ${JSON.stringify(text)}`);
    return card;
  }

  /** The card `text` is, or undefined when it is none. */
  static tryParse(text: string): Card | undefined {
    let card = Card.parsed.get(text);
    if (card === undefined) {
      const rank = text.slice(0, -1);
      const suit = text.slice(-1);
      let value: number | undefined;
      if (KAZAKI_SUITS.includes(suit) && /^[0-9]$/.test(rank)) value = Number(rank);
      else if (STANDARD_SUITS.includes(suit) && suit !== "") {
        value = FACE[rank] ?? (/^([2-9]|10)$/.test(rank) ? Number(rank) : undefined);
      }
      if (value === undefined) return undefined;
      card = new Card(value, suit, text);
      Card.parsed.set(text, card);
    }
    return card;
  }

  toString(): string {
    return this.text;
  }
}

/** An action argument: a card, a number (a seat, a count of tricks) or a suit letter / "none". */
export type Arg = Card | number | string;

/** One action: `kind` and `args` (WIRE.md, Actions); `text` is its wire form, the string to answer with. */
export class Action {
  private static readonly parsed = new Map<string, Action>();

  /** The card arguments, in order. */
  readonly cards: readonly Card[];

  private constructor(readonly kind: string, readonly args: readonly Arg[], readonly text: string) {
    this.cards = args.filter((a): a is Card => a instanceof Card);
  }

  /**
   * "defend(7D,8D)" → kind "defend", args [Card 7D, Card 8D]; "take" → kind "take", args []. An argument that is no
   * card, number or suit stays a string, and a text not of the form kind(args) is an action of that kind without
   * arguments: a future action parses, and a bot can still answer with its text.
   */
  static parse(text: string): Action {
    let action = Action.parsed.get(text);
    if (action === undefined) {
      const open = text.indexOf("(");
      action = open > 0 && text.endsWith(")")
        ? new Action(text.slice(0, open), text.slice(open + 1, -1).split(",").map(parseArg), text)
        : new Action(text, [], text);
      if (Action.parsed.size < 50_000) Action.parsed.set(text, action);
    }
    return action;
  }

  toString(): string {
    return this.text;
  }
}

function parseArg(token: string): Arg {
  if (/^[0-9]+$/.test(token)) return Number(token);
  if (token === "none" || (token.length === 1 && STANDARD_SUITS.includes(token))) return token;
  return Card.tryParse(token) ?? token;
}

// ------------------------------------------------------------------------------------------------ what a bot is given

/**
 * A msgpack value as the kit gives it: integers are numbers (bigint only beyond 2^53), maps are plain objects; `bin`
 * and extension types (which version 1 never sends) are a Uint8Array, an ExtData, or a Date for a timestamp.
 */
export type Value =
  | null | boolean | number | bigint | string | Value[] | { [key: string]: Value | undefined }
  | Uint8Array | ExtData | Date;

/** An event of the observation (WIRE.md, Events): `type` and the event's own keys. */
export interface GameEvent {
  type: string;
  seat?: number;
  cards?: string[];
  card?: string;
  [key: string]: Value | undefined;
}

/**
 * The seat's observation, exactly as the request carried it (WIRE.md): the keys every game has are typed here; each
 * game's own keys are there too (`observation["table"]`). Cards are strings like "10D" (`Card.parse` reads them).
 */
export interface Observation {
  game: string;
  seat: number;
  seats: number;
  phase: string;
  hand: string[];
  hand_sizes: number[];
  /** the trump suit; "none" (no-trump) or null in some games and phases */
  trump: string | null;
  events: GameEvent[];
  [key: string]: Value | undefined;
}

/** The observation of `durak` and `kazaki` (WIRE.md, "The observation (kazaki and durak)"). */
export interface DurakObservation extends Observation {
  trump: string;
  trump_card: string;
  trump_card_holder: number | null;
  stock: number;
  discard: number;
  active: boolean[];
  finishing_order: number[][];
  attacker: number | null;
  defender: number | null;
  cap: number | null;
  priority: number[];
  table: { card: string; owner: number; cover: string | null; thrown_in: boolean }[];
  redeals: number;
  bouts: number;
}

/**
 * The clock of one request (PROTOCOL.md section 8). `deadlineMs` is the move limit plus what is left of the time bank,
 * `bankMs` the bank alone (null from a referee that does not send it), `received` when the kit read the request
 * (`performance.now()` milliseconds). Keep a margin: the referee's clock started before the kit's.
 */
export class Deadline {
  constructor(readonly deadlineMs: number, readonly bankMs: number | null, readonly received: number) {}

  /** What is left of `deadlineMs` now (or at `now`, a `performance.now()` reading); negative when late. */
  remainingMs(now: number = performance.now()): number {
    return this.deadlineMs - (now - this.received);
  }
}

/** A game starts (`new_game`, PROTOCOL.md 5.4). `botSeed` is the full unsigned 64-bit seed, as a bigint. */
export interface GameInfo {
  game: string;
  options: Record<string, boolean | number | string>;
  seat: number;
  seats: number;
  teams: number[][] | null;
  botSeed: bigint;
  gameNo: number;
}

/** One request: the seat, the legal actions (canonical order, never empty), the observation and the clock. */
export interface Decision {
  seat: number;
  legal: Action[];
  observation: Observation;
  deadline: Deadline | null;
}

/** An action with a note on why (the reply's `debug`, PROTOCOL.md 5.6): the replay shows it beside the decision. */
export class Answer {
  constructor(readonly action: Action | string, readonly note: string) {}
}

/** What a bot answers: one of the legal actions, its text, or an Answer. */
export type Choice = Action | string | Answer;

/** A bot as an object, for one that keeps state (its own random generator, what it learnt). */
export interface Bot {
  readonly name: string;
  newGame?(info: GameInfo): void;
  act(decision: Decision): Choice;
  gameOver?(result: Record<string, Value>): void;
  close?(): void;
}

/** What the bot's hello declares it plays (PROTOCOL.md 5.2); absent or null: anything. */
export interface Declared {
  games?: string[] | null;
  seats?: number[];
  options?: Record<string, Record<string, (boolean | number | string)[]>>;
}

// ------------------------------------------------------------------------------------------------ a seeded generator

/** A small seeded random generator (splitmix64 → xoshiro128**), so that a bot plays the same game the same way. */
export class Rng {
  private s: Uint32Array;

  constructor(seed: bigint | number) {
    let x = BigInt.asUintN(64, BigInt(seed));
    const words: number[] = [];
    for (let i = 0; i < 2; i++) {
      x = BigInt.asUintN(64, x + 0x9e3779b97f4a7c15n);
      let z = x;
      z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
      z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
      z ^= z >> 31n;
      words.push(Number(z & 0xffffffffn), Number(z >> 32n));
    }
    this.s = Uint32Array.from(words);
    if (this.s.every((w) => w === 0)) this.s[0] = 1;
  }

  /** A uniform 32-bit unsigned integer. */
  next(): number {
    const s = this.s as unknown as [number, number, number, number];
    const result = Math.imul(rotl(Math.imul(s[1], 5), 7), 9) >>> 0;
    const t = s[1] << 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  }

  /** A uniform integer in [0, n), n ≥ 1. */
  below(n: number): number {
    return Math.floor((this.next() / 4294967296) * n);
  }

  /** One item of a non-empty array. */
  choice<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

// ------------------------------------------------------------------------------------------------ the protocol

const MAX_INCOMING = 16 * 1024 * 1024; // referee frames are far smaller (PROTOCOL.md section 4)
// bot_seed and request ids need 64-bit integers: decoded as bigint, then turned into numbers where that is exact.
const decoding: DecoderOptions = {
  useBigInt64: true, maxStrLength: MAX_INCOMING, maxBinLength: MAX_INCOMING, maxArrayLength: MAX_INCOMING,
  maxMapLength: MAX_INCOMING, maxExtLength: MAX_INCOMING,
};
const encoding = { useBigInt64: true };

/** Integers as numbers where that is exact, recursively (msgpack int64/uint64 encodings come as bigint). */
function plain(value: unknown): Value {
  if (typeof value === "bigint") {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = plain(value[i]);
    return value;
  }
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) record[key] = plain(record[key]);
  }
  return value as Value;
}

function int(value: unknown, otherwise: number): number {
  if (typeof value === "number" && Number.isInteger(value)) return value;
  return typeof value === "bigint" ? Number(value) : otherwise;
}

/** Log a line on stderr (stdout is the protocol's). */
export function log(...args: unknown[]): void {
  console.error(...args);
}

class FunctionBot implements Bot {
  constructor(
    readonly name: string,
    private readonly fn: (observation: Observation, legal: Action[], deadline: Deadline | null) => Choice,
  ) {}

  act(decision: Decision): Choice {
    return this.fn(decision.observation, decision.legal, decision.deadline);
  }
}

/**
 * Run a bot given as a function `act(observation, legal, deadline)` until the referee is done. `name` is the name of
 * its hello; `games`, `seats` and `options` what it declares it plays (PROTOCOL.md 5.2; absent: anything).
 * Resolves to the exit status: 0, or 2 when the referee offers no protocol version this kit speaks.
 */
export function run(
  act: (observation: Observation, legal: Action[], deadline: Deadline | null) => Choice,
  declared: Declared & { name: string },
): Promise<number> {
  return runBot(new FunctionBot(declared.name, act), declared);
}

/** Serve the referee on stdin/stdout with a bot object; resolves to the exit status, as `run`. */
export function runBot(bot: Bot, declared: Declared = {}): Promise<number> {
  // Nothing but frames may reach stdout (PROTOCOL.md section 2): every console method writes to stderr.
  console.log = console.info = console.debug = console.error;
  const encoder = new Encoder(encoding);
  const decoder = new Decoder(decoding);
  const send = (message: Record<string, unknown>): void => {
    // One write per frame, straight to the file descriptor: nothing to flush. A referee that closed our stdout is
    // done with us: go.
    if (!writeFrame(encoder.encode(message))) process.exit(0);
  };
  const hello: Record<string, unknown> = { games: declared.games ?? null };
  if (declared.seats !== undefined) hello["seats"] = declared.seats;
  if (declared.options !== undefined) hello["options"] = declared.options;
  let seat = 0;

  /** One message from the referee; an exit status when the conversation is over. */
  const handle = (message: Record<string, unknown>): number | undefined => {
    switch (message["type"]) {
      case "request": {
        const received = performance.now();
        const texts = Array.isArray(message["legal"]) ? (message["legal"] as unknown[]) : [];
        const legal = texts.map((text) => Action.parse(String(text)));
        const deadlineMs = message["deadline_ms"];
        const bankMs = message["bank_ms"];
        const bank = typeof bankMs === "number" || typeof bankMs === "bigint" ? Number(bankMs) : null;
        const deadline = typeof deadlineMs === "number" || typeof deadlineMs === "bigint"
          ? new Deadline(Number(deadlineMs), bank, received)
          : null;
        const observation = plain(message["observation"] ?? {}) as Observation;
        const choice = bot.act({ seat, legal, observation, deadline });
        const action = choice instanceof Answer ? choice.action : choice;
        const reply: Record<string, unknown> = { type: "action", id: message["id"], action: String(action) };
        if (choice instanceof Answer && choice.note) reply["debug"] = String(choice.note);
        send(reply);
        return undefined;
      }
      case "new_game": {
        seat = int(message["seat"], 0);
        const seed = message["bot_seed"];
        const teams = message["teams"];
        bot.newGame?.({
          game: String(message["game"]),
          options: (plain(message["options"] ?? {}) ?? {}) as GameInfo["options"],
          seat,
          seats: int(message["seats"], 0),
          teams: Array.isArray(teams) ? (plain(teams) as number[][]) : null,
          botSeed: typeof seed === "bigint" ? seed : typeof seed === "number" ? BigInt(seed) : 0n,
          gameNo: int(message["game_no"], 0),
        });
        return undefined;
      }
      case "game_over":
        bot.gameOver?.((plain(message["result"] ?? {}) ?? {}) as Record<string, Value>);
        return undefined;
      case "hello": {
        const versions = Array.isArray(message["versions"]) ? (message["versions"] as unknown[]) : [];
        const common = versions.map((v) => int(v, -1)).filter((v) => PROTOCOL_VERSIONS.includes(v));
        if (common.length === 0) {
          const text = `no common protocol version (I speak ${JSON.stringify(PROTOCOL_VERSIONS)}, offered ${
            JSON.stringify(versions, (_, v) => (typeof v === "bigint" ? String(v) : v))})`;
          log(text);
          send({ type: "error", message: text });
          return 2;
        }
        send({ type: "hello", version: Math.max(...common), name: bot.name, ...hello });
        return undefined;
      }
      case "bye":
        bot.close?.();
        return 0;
      default:
        return undefined; // unknown message types are ignored (PROTOCOL.md section 6)
    }
  };

  // Blocking reads and writes on the file descriptors, as the Python SDK does: a bot answers one request at a time,
  // and the event loop would only add work between the bytes and the bot.
  const chunk = new Uint8Array(1 << 16);
  let pending = new Uint8Array(0); // bytes of a frame not complete yet
  for (;;) {
    const got = readChunk(chunk);
    if (got === 0) return Promise.resolve(0); // end of input: the referee is gone
    let bytes = chunk.subarray(0, got);
    if (pending.length > 0) {
      const joined = new Uint8Array(pending.length + got);
      joined.set(pending);
      joined.set(bytes, pending.length);
      bytes = joined;
    }
    let start = 0;
    for (;;) {
      const end = frameEnd(bytes, start);
      if (end < 0) break;
      let frame: unknown;
      try {
        frame = decoder.decode(bytes.subarray(start, end));
      } catch (error) {
        log(`referee bot kit: bad data from the referee: ${error instanceof Error ? error.message : String(error)}`);
        return Promise.resolve(1);
      }
      start = end;
      if (frame === null || typeof frame !== "object" || Array.isArray(frame) || frame instanceof Uint8Array) {
        const got = Array.isArray(frame) ? "an array" : typeof frame;
        log(`referee bot kit: expected a msgpack map from the referee, got ${got}`);
        return Promise.resolve(1);
      }
      const status = handle(frame as Record<string, unknown>);
      if (status !== undefined) return Promise.resolve(status);
    }
    pending = bytes.slice(start); // a copy: `chunk` is read into again
    if (pending.length > MAX_INCOMING) {
      log(`referee bot kit: bad data from the referee: a frame larger than ${MAX_INCOMING} bytes`);
      return Promise.resolve(1);
    }
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Read what stdin has (blocking); 0 at its end. A non-blocking stdin that has nothing yet is waited for. */
function readChunk(into: Uint8Array): number {
  for (;;) {
    try {
      return readSync(0, into, 0, into.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") Atomics.wait(pause, 0, 0, 1); // 1 ms, then again
      else if (code === "EOF" || code === "EPIPE" || code === "ECONNRESET") return 0;
      else throw error;
    }
  }
}

/** Write a whole frame on stdout (blocking); false when the referee has closed it. */
function writeFrame(bytes: Uint8Array): boolean {
  let done = 0;
  while (done < bytes.length) {
    try {
      done += writeSync(1, bytes, done, bytes.length - done);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") Atomics.wait(pause, 0, 0, 1);
      else return false;
    }
  }
  return true;
}

/**
 * Where the msgpack value that starts at `start` ends, or -1 when `bytes` holds only part of it. msgpack says the
 * length of everything, so a frame's end is found from its headers alone; the library then decodes exactly that
 * frame, with no attempt on a part of one. A byte that starts no value (0xc1) ends the frame there, for the decoder
 * to refuse.
 */
export function frameEnd(bytes: Uint8Array, start: number): number {
  const n = bytes.length;
  let pos = start;
  let values = 1; // values still to pass over
  const size = (at: number, width: number): number => {
    // a big-endian length of `width` bytes at `at`, or -1 when it has not arrived
    if (at + width > n) return -1;
    let length = 0;
    for (let i = 0; i < width; i++) length = length * 256 + bytes[at + i]!;
    return length;
  };
  while (values > 0) {
    if (pos >= n) return -1;
    const head = bytes[pos++]!;
    values--;
    if (head <= 0x7f || head >= 0xe0 || head === 0xc0 || head === 0xc2 || head === 0xc3) continue;
    if (head <= 0x8f) { values += 2 * (head & 0x0f); continue; } // fixmap
    if (head <= 0x9f) { values += head & 0x0f; continue; } // fixarray
    if (head <= 0xbf) { pos += head & 0x1f; continue; } // fixstr
    let length: number;
    switch (head) {
      case 0xcc: case 0xd0: pos += 1; continue;
      case 0xcd: case 0xd1: pos += 2; continue;
      case 0xca: case 0xce: case 0xd2: pos += 4; continue;
      case 0xcb: case 0xcf: case 0xd3: pos += 8; continue;
      case 0xd4: pos += 2; continue; // fixext 1, 2, 4, 8, 16: a type byte and the data
      case 0xd5: pos += 3; continue;
      case 0xd6: pos += 5; continue;
      case 0xd7: pos += 9; continue;
      case 0xd8: pos += 17; continue;
      case 0xc4: case 0xd9: length = size(pos, 1); pos += 1; break; // bin8, str8
      case 0xc5: case 0xda: length = size(pos, 2); pos += 2; break; // bin16, str16
      case 0xc6: case 0xdb: length = size(pos, 4); pos += 4; break; // bin32, str32
      case 0xc7: length = size(pos, 1); pos += 2; break; // ext8: the length, then a type byte
      case 0xc8: length = size(pos, 2); pos += 3; break;
      case 0xc9: length = size(pos, 4); pos += 5; break;
      case 0xdc: length = size(pos, 2); if (length < 0) return -1; pos += 2; values += length; continue; // array16
      case 0xdd: length = size(pos, 4); if (length < 0) return -1; pos += 4; values += length; continue; // array32
      case 0xde: length = size(pos, 2); if (length < 0) return -1; pos += 2; values += 2 * length; continue; // map16
      case 0xdf: length = size(pos, 4); if (length < 0) return -1; pos += 4; values += 2 * length; continue; // map32
      default: return pos; // 0xc1: never used
    }
    if (length < 0) return -1;
    pos += length;
  }
  return pos <= n ? pos : -1;
}
