// The C++ starter kit for the referee's bot protocol (docs/PROTOCOL.md, version 1), on msgpack-cxx.
//
// A bot is a function (or a class deriving from referee::Bot) that is given each request's Decision and returns an
// Answer: the index of one of the legal actions, and optionally a note (the reply's `debug`). referee::run() does
// the rest: the handshake, the frames, new_game / game_over / bye, end of input, and it keeps stdout for frames only
// (std::cout and printf go to stderr once run() has started).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

// msgpack-cxx is not included here (it is slow to compile): a bot that wants its msgpack::object includes
// "referee/msgpack.hpp".
namespace referee {

// A card (docs/WIRE.md, Cards): "10D" is rank 10, suit 'D'. Ranks: 2..10, J=11, Q=12, K=13, A=14 for the standard
// deck (suits C D H S); 0..9 for the Cossacks-Robbers deck of kazaki (suits K R T F).
struct Card {
    int rank = 0;
    char suit = 0;

    // The card a text names, or nothing when it is not a card ("take", "3", "none").
    static std::optional<Card> parse(std::string_view text);
    std::string text() const;
    bool operator==(const Card& other) const { return rank == other.rank && suit == other.suit; }
};

// An action in its wire form: "defend(7C,8H)" has kind "defend" and args {"7C", "8H"}. The views point into the
// request: an Action lives as long as the Decision it came from.
struct Action {
    std::string_view text;
    std::string_view kind;
    std::vector<std::string_view> args;

    static Action parse(std::string_view text);
    std::vector<Card> cards() const;  // the arguments that are cards, in order
};

// A read-only view of a msgpack value of a referee message: the observation, the options, the result. Looking up a
// key that is absent, or indexing past the end, gives a nil Value, so `obs["table"][0]["cover"]` never throws.
class Value {
public:
    Value() = default;
    explicit Value(const void* object) : object_(object) {}  // a const msgpack::object*

    bool is_nil() const;  // nil, or absent
    bool is_bool() const;
    bool is_int() const;
    bool is_str() const;
    bool is_array() const;
    bool is_map() const;

    bool as_bool(bool otherwise = false) const;
    std::int64_t as_int(std::int64_t otherwise = 0) const;  // an integer that fits, else `otherwise`
    std::uint64_t as_uint(std::uint64_t otherwise = 0) const;
    std::string_view as_str(std::string_view otherwise = {}) const;

    std::size_t size() const;                     // items of an array, entries of a map, else 0
    Value operator[](std::size_t index) const;    // an array's item
    Value operator[](int index) const { return index < 0 ? Value() : (*this)[static_cast<std::size_t>(index)]; }
    Value operator[](std::string_view key) const; // a map's value for a string key
    Value operator[](const char* key) const { return (*this)[std::string_view(key)]; }
    std::string_view key(std::size_t index) const; // a map's index-th key (empty when not a string)
    Value value(std::size_t index) const;          // a map's index-th value

    const void* raw() const { return object_; }  // the msgpack::object, or null: referee/msgpack.hpp's object()

private:
    const void* object_ = nullptr;
};

// A request's clock (docs/PROTOCOL.md section 8): deadline_ms is the move limit plus the time bank left; bank_ms the
// bank alone (absent from a referee older than it); received the moment the kit read the request.
struct Deadline {
    std::int64_t deadline_ms = 0;
    std::optional<std::int64_t> bank_ms;
    std::chrono::steady_clock::time_point received;

    double remaining_ms() const;  // what is left of deadline_ms now; negative when late
};

// new_game (docs/PROTOCOL.md section 5.4). `options` is valid until the next new_game.
struct GameInfo {
    std::string game;
    Value options;
    int seat = 0;
    int seats = 0;
    std::vector<std::vector<int>> teams;  // empty when the game has none
    std::uint64_t bot_seed = 0;
    std::uint64_t game_no = 0;
};

// One request to act. Everything in it is valid during Bot::act only.
struct Decision {
    int seat = 0;
    std::uint64_t id = 0;
    const std::vector<std::string_view>& legal;  // the legal actions' texts, canonical order, never empty
    Value observation;                           // the seat's observation (docs/WIRE.md)
    Deadline deadline;

    Action action(std::size_t index) const { return Action::parse(legal.at(index)); }
};

// What act() returns: the index of the chosen legal action, and an optional note for the replay (5.6, `debug`).
struct Answer {
    std::size_t index = 0;
    std::string note;

    Answer(std::size_t chosen = 0) : index(chosen) {}  // NOLINT: an index is an Answer
    Answer(std::size_t chosen, std::string why) : index(chosen), note(std::move(why)) {}
};

class Bot {
public:
    virtual ~Bot() = default;
    virtual void new_game(const GameInfo& /*info*/) {}
    virtual Answer act(const Decision& decision) = 0;
    virtual void game_over(Value /*result*/) {}
    virtual void close() {}
};

// What the bot's hello says (docs/PROTOCOL.md 5.2). Unset: "any" (games), and not sent (seats, options).
using OptionValue = std::variant<bool, std::int64_t, std::string>;
struct Hello {
    std::string name;
    std::optional<std::vector<std::string>> games = std::nullopt;
    std::optional<std::vector<int>> seats = std::nullopt;
    // by game, by option, the values the bot plays: {{"durak", {{"transfer", {true}}}}}
    std::optional<std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::vector<OptionValue>>>>>>
        options = std::nullopt;
};

// Serve the referee on stdin/stdout until `bye` or end of input. Returns the exit status: 0; 2 when the referee
// offers no protocol version the kit speaks (it answers `error`); 1 after a malformed frame (a message on stderr).
int run(Bot& bot, const Hello& hello);
int run(const std::function<Answer(const Decision&)>& act, const Hello& hello);

}  // namespace referee
