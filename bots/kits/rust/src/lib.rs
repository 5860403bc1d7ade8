//! The Rust starter kit for the referee's bot protocol (docs/PROTOCOL.md, version 1), on the `rmp` msgpack crate.
//!
//! A bot is a closure (or a type implementing [`Bot`]) that is given each request's [`Decision`] and returns an
//! [`Answer`]: the index of one of the legal actions, and optionally a note (the reply's `debug`). [`run`] does the
//! rest: the handshake, the frames, `new_game` / `game_over` / `bye`, end of input, and it keeps stdout for frames
//! only (`println!` goes to stderr once `run` has started).
//!
//! ```no_run
//! use referee_kit::{run, Answer, Decision, Hello};
//!
//! fn main() {
//!     std::process::exit(run(&Hello::new("first"), &mut |_: &Decision| Answer::from(0)));
//! }
//! ```

use std::cell::{Ref, RefCell};
use std::fmt;
use std::fs::File;
use std::io::{Read, Write};
use std::ops::Index;
use std::time::Instant;

/// The protocol version the kit speaks.
const VERSION: u64 = 1;
/// A referee frame larger than this is refused; so is a header that announces more.
const MAX_INCOMING: usize = 16 * 1024 * 1024;
/// How deep an observation or a result may nest.
const MAX_DEPTH: usize = 256;
const READ_CHUNK: usize = 64 * 1024;
/// The longest note (the reply's `debug`) sent, in bytes.
const NOTE_BYTES: usize = 8000;

// ------------------------------------------------------------------------------------------------ values

/// A msgpack value of a referee message: the observation, the options, the result (docs/WIRE.md). Indexing never
/// panics: `obs["table"][0]["cover"]` is [`Value::Nil`] when any step is absent.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Nil,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Bin(Vec<u8>),
    Array(Vec<Value>),
    Map(Vec<(Value, Value)>),
    Ext(i8, Vec<u8>),
}

static NIL: Value = Value::Nil;

impl Value {
    /// A map's value for a string key.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(entries) => entries.iter().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v),
            _ => None,
        }
    }
    pub fn is_nil(&self) -> bool {
        matches!(self, Value::Nil)
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::Int(i) => Some(i),
            Value::UInt(u) => i64::try_from(u).ok(),
            _ => None,
        }
    }
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::UInt(u) => Some(u),
            Value::Int(i) => u64::try_from(i).ok(),
            _ => None,
        }
    }
    /// An array's items (empty for anything else).
    pub fn as_array(&self) -> &[Value] {
        match self {
            Value::Array(items) => items,
            _ => &[],
        }
    }
    /// A map's entries (empty for anything else).
    pub fn as_map(&self) -> &[(Value, Value)] {
        match self {
            Value::Map(entries) => entries,
            _ => &[],
        }
    }
    /// Items of an array, entries of a map, else 0.
    pub fn len(&self) -> usize {
        match self {
            Value::Array(items) => items.len(),
            Value::Map(entries) => entries.len(),
            _ => 0,
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Index<&str> for Value {
    type Output = Value;
    fn index(&self, key: &str) -> &Value {
        self.get(key).unwrap_or(&NIL)
    }
}

impl Index<usize> for Value {
    type Output = Value;
    fn index(&self, index: usize) -> &Value {
        self.as_array().get(index).unwrap_or(&NIL)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}
impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}
impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Str(s.to_string())
    }
}

// ------------------------------------------------------------------------------------------------ cards, actions

/// A card (docs/WIRE.md, Cards): `"10D"` is rank 10, suit `'D'`. Ranks: 2..10, J=11, Q=12, K=13, A=14 for the
/// standard deck (suits C D H S); 0..9 for the Cossacks-Robbers deck of kazaki (suits K R T F).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Card {
    pub rank: u8,
    pub suit: char,
}

impl Card {
    /// The card a text names, or None when it is not a card (`"take"`, `"3"`, `"none"`).
    pub fn parse(text: &str) -> Option<Card> {
        let bytes = text.as_bytes();
        if bytes.len() < 2 || bytes.len() > 3 {
            return None;
        }
        let suit = bytes[bytes.len() - 1] as char;
        let rank = &text[..text.len() - 1];
        let rank = match suit {
            'C' | 'D' | 'H' | 'S' => match rank {
                "J" => 11,
                "Q" => 12,
                "K" => 13,
                "A" => 14,
                "10" => 10,
                r if r.len() == 1 && (b'2'..=b'9').contains(&r.as_bytes()[0]) => r.as_bytes()[0] - b'0',
                _ => return None,
            },
            'K' | 'R' | 'T' | 'F' if rank.len() == 1 && rank.as_bytes()[0].is_ascii_digit() => rank.as_bytes()[0] - b'0',
            _ => return None,
        };
        Some(Card { rank, suit })
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let standard = matches!(self.suit, 'C' | 'D' | 'H' | 'S');
        match self.rank {
            11..=14 if standard => write!(f, "{}{}", ["J", "Q", "K", "A"][(self.rank - 11) as usize], self.suit),
            rank => write!(f, "{}{}", rank, self.suit),
        }
    }
}

/// An action in its wire form: `"defend(7C,8H)"` has kind `"defend"` and args `"7C"`, `"8H"`. It borrows the
/// request's text: no allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Action<'a> {
    pub text: &'a str,
    pub kind: &'a str,
    inside: &'a str,
}

impl<'a> Action<'a> {
    pub fn parse(text: &'a str) -> Action<'a> {
        match text.find('(') {
            Some(open) if text.ends_with(')') => Action { text, kind: &text[..open], inside: &text[open + 1..text.len() - 1] },
            _ => Action { text, kind: text, inside: "" },
        }
    }
    /// The arguments, in order.
    pub fn args(&self) -> impl Iterator<Item = &'a str> {
        let inside = self.inside;
        inside.split(',').filter(move |_| !inside.is_empty())
    }
    /// The arguments that are cards, in order.
    pub fn cards(&self) -> impl Iterator<Item = Card> + 'a {
        let inside = self.inside;
        inside.split(',').filter_map(Card::parse)
    }
}

impl fmt::Display for Action<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text)
    }
}

// ------------------------------------------------------------------------------------------------ the bot's side

/// A request's clock (docs/PROTOCOL.md section 8): `deadline_ms` is the move limit plus the time bank left;
/// `bank_ms` the bank alone (None from a referee older than it); `received` the moment the kit read the request.
#[derive(Clone, Copy, Debug)]
pub struct Deadline {
    pub deadline_ms: i64,
    pub bank_ms: Option<i64>,
    pub received: Instant,
}

impl Deadline {
    /// What is left of `deadline_ms` now, in milliseconds; negative when late.
    pub fn remaining_ms(&self) -> f64 {
        self.deadline_ms as f64 - self.received.elapsed().as_secs_f64() * 1000.0
    }
}

/// `new_game` (docs/PROTOCOL.md section 5.4).
#[derive(Clone, Debug, Default)]
pub struct GameInfo {
    pub game: String,
    /// every option of the game with its value, defaults filled in (a map)
    pub options: Value,
    pub seat: u32,
    pub seats: u32,
    /// the teams, in team games
    pub teams: Option<Vec<Vec<u32>>>,
    pub bot_seed: u64,
    pub game_no: u64,
}

impl Default for Value {
    fn default() -> Value {
        Value::Nil
    }
}

/// The legal actions of a request, in canonical order, never empty: texts borrowed from the request.
#[derive(Clone, Copy)]
pub struct Legal<'a> {
    frame: &'a [u8],
    ranges: &'a [(usize, usize)],
}

impl<'a> Legal<'a> {
    pub fn len(&self) -> usize {
        self.ranges.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
    /// The index-th action's text (panics past the end, like a slice).
    pub fn text(&self, index: usize) -> &'a str {
        let (start, end) = self.ranges[index];
        std::str::from_utf8(&self.frame[start..end]).unwrap_or("") // checked when the request was read
    }
    pub fn action(&self, index: usize) -> Action<'a> {
        Action::parse(self.text(index))
    }
    pub fn iter(&self) -> impl Iterator<Item = Action<'a>> + 'a {
        let legal = *self;
        (0..legal.len()).map(move |i| legal.action(i))
    }
}

/// One request to act: valid during [`Bot::act`].
pub struct Decision<'a> {
    pub seat: u32,
    pub id: u64,
    pub legal: Legal<'a>,
    pub deadline: Deadline,
    observation_bytes: &'a [u8],
    observation: RefCell<Option<Value>>,
}

impl Decision<'_> {
    /// The seat's observation (docs/WIRE.md), decoded when first asked for: a bot that never looks at it does not
    /// pay for it.
    pub fn observation(&self) -> Ref<'_, Value> {
        if self.observation.borrow().is_none() {
            let mut pos = 0;
            let value = if self.observation_bytes.is_empty() {
                Value::Map(Vec::new())
            } else {
                decode(self.observation_bytes, &mut pos, 0).unwrap_or_else(|why| fail(&why))
            };
            *self.observation.borrow_mut() = Some(value);
        }
        Ref::map(self.observation.borrow(), |o| o.as_ref().unwrap_or(&NIL))
    }
}

/// What `act` returns: the index of the chosen legal action, and an optional note for the replay (docs/PROTOCOL.md
/// 5.6, the reply's `debug`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub index: usize,
    pub note: Option<String>,
}

impl Answer {
    pub fn new(index: usize) -> Answer {
        Answer { index, note: None }
    }
    pub fn note(mut self, note: impl Into<String>) -> Answer {
        self.note = Some(note.into());
        self
    }
}

impl From<usize> for Answer {
    fn from(index: usize) -> Answer {
        Answer::new(index)
    }
}

/// A bot: `act` is required, the rest optional. A closure `FnMut(&Decision) -> Answer` is a bot.
pub trait Bot {
    fn new_game(&mut self, _info: &GameInfo) {}
    fn act(&mut self, decision: &Decision) -> Answer;
    fn game_over(&mut self, _result: &Value) {}
    fn close(&mut self) {}
}

impl<F: FnMut(&Decision) -> Answer> Bot for F {
    fn act(&mut self, decision: &Decision) -> Answer {
        self(decision)
    }
}

/// What the bot's hello says (docs/PROTOCOL.md 5.2): its name, and what it plays (None: everything).
#[derive(Clone, Debug, Default)]
pub struct Hello {
    pub name: String,
    pub games: Option<Vec<String>>,
    pub seats: Option<Vec<u32>>,
    /// by game, by option, the values the bot plays: `[("durak", [("transfer", [true])])]`
    pub options: Option<Vec<(String, Vec<(String, Vec<Value>)>)>>,
}

impl Hello {
    pub fn new(name: &str) -> Hello {
        Hello { name: name.to_string(), ..Hello::default() }
    }
    pub fn games(mut self, games: &[&str]) -> Hello {
        self.games = Some(games.iter().map(|g| g.to_string()).collect());
        self
    }
    pub fn seats(mut self, seats: &[u32]) -> Hello {
        self.seats = Some(seats.to_vec());
        self
    }
    /// Plays `game` only with these values of `option`: `.option("durak", "transfer", vec![true.into()])`.
    pub fn option(mut self, game: &str, option: &str, values: Vec<Value>) -> Hello {
        let options = self.options.get_or_insert_with(Vec::new);
        let index = match options.iter().position(|(g, _)| g == game) {
            Some(i) => i,
            None => {
                options.push((game.to_string(), Vec::new()));
                options.len() - 1
            }
        };
        options[index].1.push((option.to_string(), values));
        self
    }
}

/// Serves the referee on stdin/stdout until `bye` or end of input. Returns the exit status, for
/// `std::process::exit(run(...))`: 0; 2 when the referee offers no protocol version the kit speaks (it answers
/// `error`). A malformed frame ends the process with status 1 and a message on stderr.
pub fn run<B: Bot>(hello: &Hello, bot: &mut B) -> i32 {
    let mut server = Server { bot, hello, out: Out::new(), seat: 0, legal: Vec::with_capacity(64) };
    let mut stdin = std::io::stdin().lock();
    let mut buf = vec![0u8; READ_CHUNK * 2];
    let (mut start, mut end) = (0usize, 0usize);
    loop {
        // every complete frame in buf[start..end]
        loop {
            match skip(&buf[start..end], 0) {
                Ok(Some(len)) => {
                    if let Some(status) = server.handle(&buf[start..start + len]) {
                        return status;
                    }
                    start += len;
                }
                Ok(None) => break,
                Err(why) => fail(&format!("malformed frame from the referee ({})", why)),
            }
        }
        if start == end {
            start = 0;
            end = 0;
        } else if end - start > MAX_INCOMING {
            fail("a frame from the referee is larger than 16 MiB");
        }
        if buf.len() - end < READ_CHUNK {
            if start > 0 {
                buf.copy_within(start..end, 0);
                end -= start;
                start = 0;
            }
            if buf.len() - end < READ_CHUNK {
                buf.resize(buf.len() * 2, 0);
            }
        }
        match stdin.read(&mut buf[end..]) {
            Ok(0) => {
                if end > start {
                    eprintln!("referee-kit: end of input in the middle of a frame");
                }
                return 0; // end of input: the referee is gone (section 10)
            }
            Ok(n) => end += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => fail(&format!("cannot read stdin: {}", e)),
        }
    }
}

// ------------------------------------------------------------------------------------------------ the protocol

fn fail(why: &str) -> ! {
    eprintln!("referee-kit: {}; exiting", why);
    std::process::exit(1)
}

extern "C" {
    fn dup(fd: i32) -> i32;
    fn dup2(old: i32, new: i32) -> i32;
}

/// Frames go to a private copy of stdout; fd 1 becomes stderr, so a stray `println!` cannot corrupt the stream
/// (docs/PROTOCOL.md section 2). Each answer is one `write` (Rust ignores SIGPIPE: a gone referee is an error).
struct Out {
    file: File,
    buf: Vec<u8>,
}

impl Out {
    fn new() -> Out {
        use std::os::unix::io::FromRawFd;
        let _ = std::io::stdout().flush();
        // SAFETY: plain descriptor calls; the new descriptor is owned by `file` alone.
        let fd = unsafe { dup(1) };
        if fd < 0 || unsafe { dup2(2, 1) } < 0 {
            fail("cannot set up stdout");
        }
        Out { file: unsafe { File::from_raw_fd(fd) }, buf: Vec::with_capacity(1024) }
    }

    fn str(&mut self, text: &str) {
        let _ = rmp::encode::write_str(&mut self.buf, text);
    }

    fn send(&mut self) {
        if self.file.write_all(&self.buf).is_err() {
            std::process::exit(0); // the referee closed our stdout: it is gone
        }
        self.buf.clear();
    }
}

fn write_value(out: &mut Vec<u8>, value: &Value) {
    use rmp::encode::*;
    let _ = match value {
        Value::Nil => write_nil(out).map_err(|_| ()),
        Value::Bool(b) => write_bool(out, *b).map_err(|_| ()),
        Value::Int(i) => write_sint(out, *i).map(|_| ()).map_err(|_| ()),
        Value::UInt(u) => write_uint(out, *u).map(|_| ()).map_err(|_| ()),
        Value::Float(f) => write_f64(out, *f).map_err(|_| ()),
        Value::Str(s) => write_str(out, s).map_err(|_| ()),
        Value::Bin(b) => write_bin(out, b).map_err(|_| ()),
        Value::Ext(kind, data) => write_ext_meta(out, data.len() as u32, *kind)
            .map(|_| out.extend_from_slice(data))
            .map_err(|_| ()),
        Value::Array(items) => {
            let _ = write_array_len(out, items.len() as u32);
            items.iter().for_each(|item| write_value(out, item));
            Ok(())
        }
        Value::Map(entries) => {
            let _ = write_map_len(out, entries.len() as u32);
            for (k, v) in entries {
                write_value(out, k);
                write_value(out, v);
            }
            Ok(())
        }
    };
}

/// Where the values of a request's keys are in its frame: (start, end).
#[derive(Default)]
struct Fields {
    id: Option<(usize, usize)>,
    legal: Option<(usize, usize)>,
    deadline_ms: Option<(usize, usize)>,
    bank_ms: Option<(usize, usize)>,
    observation: Option<(usize, usize)>,
}

struct Server<'h, 'b, B: Bot> {
    bot: &'b mut B,
    hello: &'h Hello,
    out: Out,
    seat: u32,
    legal: Vec<(usize, usize)>,
}

impl<B: Bot> Server<'_, '_, B> {
    /// One complete frame; the exit status when the bot must stop. One walk over its keys finds the message's type
    /// and, for a request, where each value the kit reads is.
    fn handle(&mut self, frame: &[u8]) -> Option<i32> {
        let (entries, mut pos) = match head(frame, 0) {
            Ok(Some((Head::Map(n), after))) => (n, after),
            Ok(_) => fail("a frame from the referee is not a map"),
            Err(why) => fail(&why),
        };
        let mut kind = None;
        let mut fields = Fields::default();
        for _ in 0..entries {
            let key = str_at(frame, pos);
            pos = skip_in(frame, pos);
            let end = skip_in(frame, pos);
            let at = Some((pos, end));
            match key {
                Some("type") => kind = str_at(frame, pos),
                Some("id") => fields.id = at,
                Some("legal") => fields.legal = at,
                Some("deadline_ms") => fields.deadline_ms = at,
                Some("bank_ms") => fields.bank_ms = at,
                Some("observation") => fields.observation = at,
                _ => {}
            }
            pos = end;
        }
        match kind {
            Some("request") => {
                self.request(frame, &fields);
                None
            }
            Some("new_game") | Some("game_over") | Some("hello") => {
                let mut at = 0;
                let message = decode(frame, &mut at, 0).unwrap_or_else(|why| fail(&why));
                match kind {
                    Some("new_game") => self.new_game(&message),
                    Some("game_over") => self.bot.game_over(&message["result"]),
                    _ => return self.answer_hello(&message),
                }
                None
            }
            Some("bye") => {
                self.bot.close();
                Some(0)
            }
            _ => None, // unknown message types are ignored (section 6)
        }
    }

    fn answer_hello(&mut self, message: &Value) -> Option<i32> {
        let offered: Vec<Value> = message["versions"].as_array().to_vec();
        if !offered.iter().any(|v| v.as_u64() == Some(VERSION)) {
            let shown: Vec<String> = offered.iter().map(|v| format!("{:?}", v)).collect();
            let text = format!("no common protocol version (I speak [1], offered [{}])", shown.join(", "));
            eprintln!("referee-kit: {}", text);
            let _ = rmp::encode::write_map_len(&mut self.out.buf, 2);
            self.out.str("type");
            self.out.str("error");
            self.out.str("message");
            self.out.str(&text);
            self.out.send();
            return Some(2);
        }
        let hello = self.hello;
        let mut fields: Vec<(Value, Value)> = vec![
            ("type".into(), "hello".into()),
            ("version".into(), Value::UInt(VERSION)),
            ("name".into(), Value::Str(if hello.name.is_empty() { "rust-bot".into() } else { hello.name.clone() })),
            (
                "games".into(),
                match &hello.games {
                    Some(games) => Value::Array(games.iter().map(|g| g.as_str().into()).collect()),
                    None => Value::Nil,
                },
            ),
        ];
        if let Some(seats) = &hello.seats {
            fields.push(("seats".into(), Value::Array(seats.iter().map(|&s| Value::UInt(s.into())).collect())));
        }
        if let Some(options) = &hello.options {
            let by_game = options
                .iter()
                .map(|(game, per_game)| {
                    let per_option = per_game.iter().map(|(o, vs)| (o.as_str().into(), Value::Array(vs.clone())));
                    (game.as_str().into(), Value::Map(per_option.collect()))
                })
                .collect();
            fields.push(("options".into(), Value::Map(by_game)));
        }
        write_value(&mut self.out.buf, &Value::Map(fields));
        self.out.send();
        None
    }

    fn new_game(&mut self, message: &Value) {
        let teams = message["teams"].as_array();
        let info = GameInfo {
            game: message["game"].as_str().unwrap_or("").to_string(),
            options: message["options"].clone(),
            seat: message["seat"].as_u64().unwrap_or(0) as u32,
            seats: message["seats"].as_u64().unwrap_or(0) as u32,
            teams: if teams.is_empty() {
                None
            } else {
                Some(teams.iter().map(|t| t.as_array().iter().map(|s| s.as_u64().unwrap_or(0) as u32).collect()).collect())
            },
            bot_seed: message["bot_seed"].as_u64().unwrap_or(0),
            game_no: message["game_no"].as_u64().unwrap_or(0),
        };
        self.seat = info.seat;
        self.bot.new_game(&info);
    }

    /// The hot path: reads what a request needs straight from the frame's bytes, decodes the observation only if
    /// the bot asks for it, and reuses its buffers.
    fn request(&mut self, frame: &[u8], fields: &Fields) {
        let received = Instant::now();
        let int = |at: Option<(usize, usize)>| at.and_then(|(pos, _)| int_at(frame, pos));
        let id = int(fields.id).and_then(|i| u64::try_from(i).ok()).unwrap_or(0);
        let id_bytes = fields.id.map_or(&frame[0..0], |(pos, end)| &frame[pos..end]);
        let deadline_ms = int(fields.deadline_ms).and_then(|i| i64::try_from(i).ok()).unwrap_or(0);
        let bank_ms = int(fields.bank_ms).and_then(|i| i64::try_from(i).ok());
        let observation = fields.observation.map_or(&frame[0..0], |(pos, end)| &frame[pos..end]);
        self.legal.clear();
        if let Some((pos, _)) = fields.legal {
            let (n, mut at) = match head(frame, pos) {
                Ok(Some((Head::Array(n), after))) => (n, after),
                _ => fail("'legal' is not an array"),
            };
            for _ in 0..n {
                match head(frame, at) {
                    Ok(Some((Head::Str(len), after))) if std::str::from_utf8(&frame[after..after + len]).is_ok() => {
                        self.legal.push((after, after + len));
                        at = after + len;
                    }
                    _ => fail("a legal action that is not a string"),
                }
            }
        }
        if self.legal.is_empty() {
            fail("a request without legal actions");
        }
        let decision = Decision {
            seat: self.seat,
            id,
            legal: Legal { frame, ranges: &self.legal },
            deadline: Deadline { deadline_ms, bank_ms, received },
            observation_bytes: observation,
            observation: RefCell::new(None),
        };
        let answer = self.bot.act(&decision);
        let mut index = answer.index;
        if index >= self.legal.len() {
            eprintln!("referee-kit: act() chose action {} of {}; playing the first", index, self.legal.len());
            index = 0;
        }
        let out = &mut self.out;
        let _ = rmp::encode::write_map_len(&mut out.buf, if answer.note.is_some() { 4 } else { 3 });
        out.str("type");
        out.str("action");
        out.str("id");
        if id_bytes.is_empty() {
            let _ = rmp::encode::write_nil(&mut out.buf);
        } else {
            out.buf.extend_from_slice(id_bytes); // the id unchanged, as it came
        }
        out.str("action");
        let (start, end) = self.legal[index];
        let _ = rmp::encode::write_str_len(&mut out.buf, (end - start) as u32);
        out.buf.extend_from_slice(&frame[start..end]);
        if let Some(note) = &answer.note {
            // at most NOTE_BYTES (the referee keeps 2,000 characters; a frame over 64 KiB is an `oversized` fault)
            let mut end = note.len().min(NOTE_BYTES);
            while !note.is_char_boundary(end) {
                end -= 1;
            }
            out.str("debug");
            out.str(&note[..end]);
        }
        out.send();
    }
}

// ------------------------------------------------------------------------------------------------ msgpack reading

/// One value's header: what it is and, for strings, bin, ext, arrays and maps, how long it is.
enum Head {
    Nil,
    Bool(bool),
    UInt(u64),
    Int(i64),
    Float(f64),
    Str(usize),
    Bin(usize),
    Ext(i8, usize),
    Array(usize),
    Map(usize),
}

/// `n` big-endian bytes at `pos`, or None when the buffer ends first.
#[inline]
fn be(buf: &[u8], pos: usize, n: usize) -> Option<u64> {
    let bytes = buf.get(pos..pos + n)?;
    Some(bytes.iter().fold(0u64, |acc, &b| (acc << 8) | b as u64))
}

/// The header of the value at `pos` and the position after the header; Ok(None) when the buffer ends first; an error
/// for a byte that is not msgpack or a length beyond the limit.
#[inline]
fn head(buf: &[u8], pos: usize) -> Result<Option<(Head, usize)>, String> {
    use rmp::Marker::*;
    let byte = match buf.get(pos) {
        Some(&b) => b,
        None => return Ok(None),
    };
    let at = pos + 1;
    // The markers most frames are made of, without the call into rmp (not inlined across crates without LTO).
    match byte {
        0x00..=0x7f => return Ok(Some((Head::UInt(byte as u64), at))),
        0x80..=0x8f => return Ok(Some((Head::Map((byte & 0x0f) as usize), at))),
        0x90..=0x9f => return Ok(Some((Head::Array((byte & 0x0f) as usize), at))),
        0xa0..=0xbf => return Ok(Some((Head::Str((byte & 0x1f) as usize), at))),
        _ => {}
    }
    let sized = |n: usize, make: fn(usize) -> Head| -> Result<Option<(Head, usize)>, String> {
        Ok(match be(buf, at, n) {
            Some(len) if len as usize > MAX_INCOMING => {
                return Err(format!("a header at byte {} announces {} items or bytes", pos, len));
            }
            Some(len) => Some((make(len as usize), at + n)),
            None => None,
        })
    };
    let ext = |n: usize, fixed: usize| -> Result<Option<(Head, usize)>, String> {
        let len = if n == 0 { Some(fixed as u64) } else { be(buf, at, n) };
        Ok(match (len, buf.get(at + n)) {
            (Some(len), _) if len as usize > MAX_INCOMING => return Err(format!("an ext at byte {} is too long", pos)),
            (Some(len), Some(&kind)) => Some((Head::Ext(kind as i8, len as usize), at + n + 1)),
            _ => None,
        })
    };
    let number = |n: usize, make: &dyn Fn(u64) -> Head| -> Option<(Head, usize)> { be(buf, at, n).map(|v| (make(v), at + n)) };
    Ok(match rmp::Marker::from_u8(byte) {
        FixPos(n) => Some((Head::UInt(n as u64), at)),
        FixNeg(n) => Some((Head::Int(n as i64), at)),
        FixMap(n) => Some((Head::Map(n as usize), at)),
        FixArray(n) => Some((Head::Array(n as usize), at)),
        FixStr(n) => Some((Head::Str(n as usize), at)),
        Null => Some((Head::Nil, at)),
        True => Some((Head::Bool(true), at)),
        False => Some((Head::Bool(false), at)),
        U8 => number(1, &Head::UInt),
        U16 => number(2, &Head::UInt),
        U32 => number(4, &Head::UInt),
        U64 => number(8, &Head::UInt),
        I8 => number(1, &|v| Head::Int(v as u8 as i8 as i64)),
        I16 => number(2, &|v| Head::Int(v as u16 as i16 as i64)),
        I32 => number(4, &|v| Head::Int(v as u32 as i32 as i64)),
        I64 => number(8, &|v| Head::Int(v as i64)),
        F32 => number(4, &|v| Head::Float(f32::from_bits(v as u32) as f64)),
        F64 => number(8, &|v| Head::Float(f64::from_bits(v))),
        Str8 => return sized(1, Head::Str),
        Str16 => return sized(2, Head::Str),
        Str32 => return sized(4, Head::Str),
        Bin8 => return sized(1, Head::Bin),
        Bin16 => return sized(2, Head::Bin),
        Bin32 => return sized(4, Head::Bin),
        Array16 => return sized(2, Head::Array),
        Array32 => return sized(4, Head::Array),
        Map16 => return sized(2, Head::Map),
        Map32 => return sized(4, Head::Map),
        FixExt1 => return ext(0, 1),
        FixExt2 => return ext(0, 2),
        FixExt4 => return ext(0, 4),
        FixExt8 => return ext(0, 8),
        FixExt16 => return ext(0, 16),
        Ext8 => return ext(1, 0),
        Ext16 => return ext(2, 0),
        Ext32 => return ext(4, 0),
        Reserved => return Err(format!("byte 0x{:02x} at {} is not msgpack", byte, pos)),
    })
}

/// The length of the complete value at the start of `buf` (a frame), Ok(None) when more bytes are needed. Walks the
/// value without recursion or allocation: a count of the values still to read.
fn skip(buf: &[u8], mut pos: usize) -> Result<Option<usize>, String> {
    let start = pos;
    let mut pending: u64 = 1;
    while pending > 0 {
        pending -= 1;
        let (h, after) = match head(buf, pos)? {
            Some(found) => found,
            None => return Ok(None),
        };
        pos = after;
        match h {
            Head::Str(len) | Head::Bin(len) | Head::Ext(_, len) => pos += len,
            Head::Array(n) => pending += n as u64,
            Head::Map(n) => pending += 2 * n as u64,
            _ => {}
        }
        if pos > buf.len() {
            return Ok(None);
        }
    }
    Ok(Some(pos - start))
}

/// Within a complete frame: the position after the value at `pos`.
fn skip_in(frame: &[u8], pos: usize) -> usize {
    match skip(frame, pos) {
        Ok(Some(len)) => pos + len,
        _ => fail("a truncated value inside a frame"),
    }
}

/// The string at `pos`, if it is one (and valid UTF-8).
fn str_at(frame: &[u8], pos: usize) -> Option<&str> {
    match head(frame, pos) {
        Ok(Some((Head::Str(len), after))) => frame.get(after..after + len).and_then(|b| std::str::from_utf8(b).ok()),
        _ => None,
    }
}

/// The integer at `pos`, if it is one.
fn int_at(frame: &[u8], pos: usize) -> Option<i128> {
    match head(frame, pos) {
        Ok(Some((Head::UInt(u), _))) => Some(u as i128),
        Ok(Some((Head::Int(i), _))) => Some(i as i128),
        _ => None,
    }
}

/// Decodes the complete value at `pos` into a [`Value`].
fn decode(buf: &[u8], pos: &mut usize, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("values nested more than {} deep", MAX_DEPTH));
    }
    let (h, after) = head(buf, *pos)?.ok_or("a truncated value")?;
    *pos = after;
    let mut bytes = |len: usize| -> Result<Vec<u8>, String> {
        let slice = buf.get(*pos..*pos + len).ok_or("a truncated value")?;
        *pos += len;
        Ok(slice.to_vec())
    };
    Ok(match h {
        Head::Nil => Value::Nil,
        Head::Bool(b) => Value::Bool(b),
        Head::UInt(u) => Value::UInt(u),
        Head::Int(i) => Value::Int(i),
        Head::Float(f) => Value::Float(f),
        Head::Str(len) => match String::from_utf8(bytes(len)?) {
            Ok(s) => Value::Str(s),
            Err(e) => Value::Bin(e.into_bytes()), // not UTF-8: kept as bytes
        },
        Head::Bin(len) => Value::Bin(bytes(len)?),
        Head::Ext(kind, len) => Value::Ext(kind, bytes(len)?),
        Head::Array(n) => {
            let mut items = Vec::with_capacity(n.min(1024));
            for _ in 0..n {
                items.push(decode(buf, pos, depth + 1)?);
            }
            Value::Array(items)
        }
        Head::Map(n) => {
            let mut entries = Vec::with_capacity(n.min(1024));
            for _ in 0..n {
                let key = decode(buf, pos, depth + 1)?;
                entries.push((key, decode(buf, pos, depth + 1)?));
            }
            Value::Map(entries)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_and_actions() {
        assert_eq!(Card::parse("10D"), Some(Card { rank: 10, suit: 'D' }));
        assert_eq!(Card::parse("0K"), Some(Card { rank: 0, suit: 'K' }));
        assert_eq!(Card::parse("KC").map(|c| c.to_string()), Some("KC".to_string()));
        assert_eq!(Card::parse("none"), None);
        let a = Action::parse("defend(7C,8H)");
        assert_eq!(a.kind, "defend");
        assert_eq!(a.args().collect::<Vec<_>>(), vec!["7C", "8H"]);
        assert_eq!(Action::parse("take").args().count(), 0);
    }
}
