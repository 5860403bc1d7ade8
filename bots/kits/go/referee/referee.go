// Package referee is the Go starter kit for referee bots: write a function, the package speaks the bot protocol
// (docs/PROTOCOL.md, version 1) on stdin and stdout with github.com/vmihailenco/msgpack/v5.
//
//	func act(obs *referee.Observation, legal []referee.Action, deadline *referee.Deadline) (referee.Action, string) {
//		return legal[0], "" // an action of legal, and a note on why ("" for none)
//	}
//
//	func main() { os.Exit(referee.Run("first", act, referee.Declared{})) }
//
// Run does the handshake, answers every request with the function's choice, ignores unknown messages and returns
// on bye or end of input. It mirrors the Python SDK (protocol/sdk.py, docs/SDK.md).
package referee

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// ProtocolVersions are the protocol versions this kit speaks (PROTOCOL.md section 11).
var ProtocolVersions = []int{1}

// Deadline is the clock of one request (PROTOCOL.md section 8).
type Deadline struct {
	DeadlineMs int       // the move limit plus what is left of the seat's time bank
	BankMs     int       // what is left of the bank alone (0 without a bank)
	HasBank    bool      // false from a referee that does not send bank_ms
	Received   time.Time // when the kit read the request
}

// Remaining is what is left of DeadlineMs now (negative when late). Keep a margin: the referee's clock started first.
func (d *Deadline) Remaining() time.Duration {
	return time.Duration(d.DeadlineMs)*time.Millisecond - time.Since(d.Received)
}

// GameInfo says which game starts (new_game, PROTOCOL.md 5.4).
type GameInfo struct {
	Game    string
	Options Map // every option of the game, defaults filled in: bool, int or string values
	Seat    int
	Seats   int
	Teams   [][]int // nil outside team games
	BotSeed uint64  // a seed for the bot's own randomness (the same game gets the same seed)
	GameNo  int
}

// Decision is one request: the seat, the legal actions (canonical order, never empty), the observation, the clock.
type Decision struct {
	Seat        int
	Legal       []Action
	Observation *Observation
	Deadline    *Deadline // nil only from a referee that sends no deadline_ms
}

// Bot is a bot as an object, for one that keeps state; embed BaseBot for the methods it does not need.
type Bot interface {
	Name() string
	NewGame(info *GameInfo)
	// Act returns one of d.Legal and a note on why ("" for none): the note is the reply's debug (PROTOCOL.md 5.6),
	// shown beside the decision in the replay viewer.
	Act(d *Decision) (Action, string)
	GameOver(result Map)
	Close()
}

// BaseBot has do-nothing NewGame (it keeps the info), GameOver and Close.
type BaseBot struct{ Info *GameInfo }

func (b *BaseBot) NewGame(info *GameInfo) { b.Info = info }
func (b *BaseBot) GameOver(Map)           {}
func (b *BaseBot) Close()                 {}

// Declared is what the bot's hello says it plays (PROTOCOL.md 5.2); nil: anything.
type Declared struct {
	Games   []string                    // game ids; nil: any game
	Seats   []int                       // seat counts; nil: every one (not sent)
	Options map[string]map[string][]any // by game, option values: {"durak": {"transfer": {true}}}; nil: not sent
}

// ActFunc is a bot as a function: one of legal, and a note ("" for none).
type ActFunc func(obs *Observation, legal []Action, deadline *Deadline) (Action, string)

type functionBot struct {
	BaseBot
	name string
	act  ActFunc
}

func (b *functionBot) Name() string { return b.name }
func (b *functionBot) Act(d *Decision) (Action, string) {
	return b.act(d.Observation, d.Legal, d.Deadline)
}

// Log writes a line on stderr (stdout is the protocol's).
func Log(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

// Run serves the referee with a bot given as a function until the referee is done, and returns the exit status:
// 0, 2 when the referee offers no protocol version this kit speaks, 1 when it sends bytes that are not msgpack maps.
func Run(name string, act ActFunc, declared Declared) int {
	return RunBot(&functionBot{name: name, act: act}, declared)
}

// RunBot serves the referee on stdin and stdout with a bot object; it returns the exit status, as Run.
func RunBot(bot Bot, declared Declared) int {
	return Serve(bot, declared, os.Stdin, protocolStdout())
}

const maxDepth = 512 // nesting of a referee frame (version 1 frames nest a few levels)

var errTooDeep = errors.New("arrays and maps nested too deep")

// Serve is RunBot on any reader and writer (a test can give it pipes).
func Serve(bot Bot, declared Declared, in io.Reader, out io.Writer) int {
	reader := bufio.NewReaderSize(in, 1<<16)
	writer := bufio.NewWriterSize(out, 4096)
	dec := msgpack.NewDecoder(reader)
	enc := msgpack.NewEncoder(writer)
	send := func(write func() error) bool {
		if err := write(); err != nil {
			return false
		}
		return writer.Flush() == nil // one flush per frame: an answer in a buffer never arrives
	}
	seat := 0
	for {
		frame, err := decodeValue(dec, 0)
		if err != nil {
			if err == io.EOF {
				return 0 // end of input: the referee is gone
			}
			Log("referee bot kit: bad data from the referee: %v", err)
			return 1
		}
		message, ok := frame.(Map)
		if !ok {
			Log("referee bot kit: expected a msgpack map from the referee, got %T", frame)
			return 1
		}
		switch message["type"] {
		case "request":
			received := time.Now()
			texts := List(message["legal"])
			legal := make([]Action, 0, len(texts))
			for _, text := range texts {
				legal = append(legal, ParseAction(Str(text)))
			}
			var deadline *Deadline
			if ms, ok := Int(message["deadline_ms"]); ok {
				bank, hasBank := Int(message["bank_ms"])
				deadline = &Deadline{DeadlineMs: ms, BankMs: bank, HasBank: hasBank, Received: received}
			}
			obs := newObservation(Dict(message["observation"]))
			action, note := bot.Act(&Decision{Seat: seat, Legal: legal, Observation: obs, Deadline: deadline})
			if !send(func() error { return encodeAction(enc, message["id"], action.Text, note) }) {
				return 0 // the referee closed our stdout: it is done with us
			}
		case "new_game":
			seat, _ = Int(message["seat"])
			info := &GameInfo{Game: Str(message["game"]), Options: Dict(message["options"]), Seat: seat}
			info.Seats, _ = Int(message["seats"])
			info.GameNo, _ = Int(message["game_no"])
			switch seed := message["bot_seed"].(type) {
			case int:
				info.BotSeed = uint64(seed)
			case uint64:
				info.BotSeed = seed
			}
			for _, team := range List(message["teams"]) {
				var seats []int
				for _, s := range List(team) {
					n, _ := Int(s)
					seats = append(seats, n)
				}
				info.Teams = append(info.Teams, seats)
			}
			bot.NewGame(info)
		case "game_over":
			bot.GameOver(Dict(message["result"]))
		case "hello":
			version := -1
			for _, offered := range List(message["versions"]) {
				if v, ok := Int(offered); ok && v > version && contains(ProtocolVersions, v) {
					version = v
				}
			}
			if version < 0 {
				text := fmt.Sprintf("no common protocol version (I speak %v, offered %v)", ProtocolVersions, message["versions"])
				Log("%s", text)
				send(func() error { return enc.Encode(Map{"type": "error", "message": text}) })
				return 2
			}
			hello := Map{"type": "hello", "version": version, "name": bot.Name(), "games": declared.Games}
			if declared.Games == nil {
				hello["games"] = nil
			}
			if declared.Seats != nil {
				hello["seats"] = declared.Seats
			}
			if declared.Options != nil {
				hello["options"] = declared.Options
			}
			if !send(func() error { return enc.Encode(hello) }) {
				return 0
			}
		case "bye":
			bot.Close()
			return 0
		}
		// unknown message types are ignored (PROTOCOL.md section 6)
	}
}

func contains(items []int, item int) bool {
	for _, i := range items {
		if i == item {
			return true
		}
	}
	return false
}

func encodeAction(enc *msgpack.Encoder, id any, action, note string) error {
	n := 3
	if note != "" {
		n = 4
	}
	if err := enc.EncodeMapLen(n); err != nil {
		return err
	}
	enc.EncodeString("type")
	enc.EncodeString("action")
	enc.EncodeString("id")
	switch v := id.(type) { // the request's id, unchanged
	case int:
		enc.EncodeInt(int64(v))
	case uint64:
		enc.EncodeUint(v)
	default:
		enc.EncodeNil()
	}
	enc.EncodeString("action")
	if note != "" {
		enc.EncodeString(action)
		enc.EncodeString("debug")
		return enc.EncodeString(note)
	}
	return enc.EncodeString(action)
}

// decodeValue decodes one msgpack value into the kit's types (see Map). Unlike the library's DecodeInterface it
// accepts extension types of any id (as RawMessage), keeps integers as int, and bounds the nesting.
func decodeValue(dec *msgpack.Decoder, depth int) (any, error) {
	c, err := dec.PeekCode()
	if err != nil {
		return nil, err
	}
	switch {
	case msgpcode.IsFixedMap(c) || c == msgpcode.Map16 || c == msgpcode.Map32:
		if depth >= maxDepth {
			return nil, errTooDeep
		}
		n, err := dec.DecodeMapLen()
		if err != nil {
			return nil, noEOF(err)
		}
		m := make(Map, min(n, 64))
		for i := 0; i < n; i++ {
			key, err := decodeValue(dec, depth+1)
			if err != nil {
				return nil, noEOF(err)
			}
			value, err := decodeValue(dec, depth+1)
			if err != nil {
				return nil, noEOF(err)
			}
			if k, ok := key.(string); ok { // version 1 keys are strings; others are skipped
				m[k] = value
			}
		}
		return m, nil
	case msgpcode.IsFixedArray(c) || c == msgpcode.Array16 || c == msgpcode.Array32:
		if depth >= maxDepth {
			return nil, errTooDeep
		}
		n, err := dec.DecodeArrayLen()
		if err != nil {
			return nil, noEOF(err)
		}
		list := make([]any, 0, min(n, 1024))
		for i := 0; i < n; i++ {
			item, err := decodeValue(dec, depth+1)
			if err != nil {
				return nil, noEOF(err)
			}
			list = append(list, item)
		}
		return list, nil
	case msgpcode.IsExt(c) || msgpcode.IsFixedExt(c):
		raw, err := dec.DecodeRaw()
		return raw, noEOF(err)
	}
	value, err := dec.DecodeInterfaceLoose()
	if err != nil {
		return nil, noEOF(err)
	}
	switch v := value.(type) {
	case uint64:
		if v <= math.MaxInt64 {
			return int(v), nil
		}
	case int64:
		return int(v), nil
	}
	return value, nil
}

// noEOF: the end of input inside a frame is a truncated frame, not the referee's goodbye.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}
