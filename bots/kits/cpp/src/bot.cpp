// The protocol loop of the C++ kit: docs/PROTOCOL.md (version 1) on msgpack-cxx's streaming unpacker.
#include "referee/bot.hpp"
#include "referee/msgpack.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>

#include <fcntl.h>
#include <unistd.h>

namespace referee {

namespace {

constexpr int kVersion = 1;                                 // the protocol versions the kit speaks
constexpr std::size_t kMaxIncoming = 16u * 1024u * 1024u;   // a referee frame larger than this is refused
constexpr std::size_t kReadChunk = 64u * 1024u;

int rank_of(std::string_view rank, bool standard) {
    if (standard) {
        if (rank == "J") return 11;
        if (rank == "Q") return 12;
        if (rank == "K") return 13;
        if (rank == "A") return 14;
        if (rank == "10") return 10;
        if (rank.size() == 1 && rank[0] >= '2' && rank[0] <= '9') return rank[0] - '0';
        return -1;
    }
    if (rank.size() == 1 && rank[0] >= '0' && rank[0] <= '9') return rank[0] - '0';
    return -1;
}

bool is_str(const msgpack::object& o, std::string_view text) {
    return o.type == msgpack::type::STR && std::string_view(o.via.str.ptr, o.via.str.size) == text;
}

// The key's value in a map object, or null.
const msgpack::object* lookup(const msgpack::object& map, std::string_view key) {
    if (map.type != msgpack::type::MAP) return nullptr;
    for (std::uint32_t i = 0; i < map.via.map.size; ++i) {
        if (is_str(map.via.map.ptr[i].key, key)) return &map.via.map.ptr[i].val;
    }
    return nullptr;
}

// The note as the reply's `debug`: valid UTF-8 (an invalid byte becomes '?', since a str that is not UTF-8 is a
// `malformed` fault) and at most kNoteBytes bytes (the referee keeps 2,000 characters; a frame over 64 KiB is an
// `oversized` fault), cut at a character's boundary.
constexpr std::size_t kNoteBytes = 8000;

void clean_note(std::string_view note, std::string& out) {
    out.clear();
    const auto* s = reinterpret_cast<const unsigned char*>(note.data());
    std::size_t n = note.size(), i = 0;
    while (i < n) {
        unsigned char c = s[i];
        std::size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : (c >> 4) == 0xE ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        bool ok = len > 0 && i + len <= n;
        for (std::size_t k = 1; ok && k < len; ++k) ok = (s[i + k] & 0xC0) == 0x80;
        if (ok && len >= 3) {  // no overlong forms, no surrogates, nothing above U+10FFFF
            unsigned char d = s[i + 1];
            ok = !(c == 0xE0 && d < 0xA0) && !(c == 0xED && d >= 0xA0) && !(c == 0xF0 && d < 0x90) &&
                 !(c == 0xF4 && d >= 0x90);
        }
        if (!ok) len = 1;
        if (out.size() + len > kNoteBytes) break;
        if (ok) {
            out.append(note.data() + i, len);
        } else {
            out.push_back('?');
        }
        i += len;
    }
}

[[noreturn]] void fail(const std::string& why) {
    std::fprintf(stderr, "referee-kit: %s; exiting\n", why.c_str());
    std::fflush(stderr);
    std::_Exit(1);
}

class Channel {
public:
    Channel() {
        // Frames go to a private copy of stdout; fd 1 becomes stderr, so a stray std::cout or printf cannot corrupt
        // the stream (docs/PROTOCOL.md section 2).
        out_ = ::dup(1);
        if (out_ < 0 || ::dup2(2, 1) < 0) fail("cannot set up stdout");
        ::fcntl(out_, F_SETFD, FD_CLOEXEC);
        std::signal(SIGPIPE, SIG_IGN);  // a referee that went away is seen as EPIPE, and we exit
    }

    // Write the packed answer in one go (one write(2) unless the pipe is full).
    void send() {
        const char* data = buffer_.data();
        std::size_t left = buffer_.size();
        while (left > 0) {
            ssize_t n = ::write(out_, data, left);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) std::_Exit(0);  // the referee closed our stdout: it is gone
            data += n;
            left -= static_cast<std::size_t>(n);
        }
        buffer_.clear();
    }

    msgpack::packer<msgpack::sbuffer>& pack() { return packer_; }

    void str(std::string_view text) {
        packer_.pack_str(static_cast<std::uint32_t>(text.size()));
        packer_.pack_str_body(text.data(), static_cast<std::uint32_t>(text.size()));
    }

private:
    int out_ = -1;
    msgpack::sbuffer buffer_{1024};
    msgpack::packer<msgpack::sbuffer> packer_{buffer_};
};

void pack_option(Channel& out, const OptionValue& value) {
    if (const bool* b = std::get_if<bool>(&value)) {
        out.pack().pack(*b);
    } else if (const std::int64_t* i = std::get_if<std::int64_t>(&value)) {
        out.pack().pack(*i);
    } else {
        out.str(std::get<std::string>(value));
    }
}

void send_hello(Channel& out, const Hello& hello) {
    auto& pk = out.pack();
    pk.pack_map(4 + (hello.seats ? 1 : 0) + (hello.options ? 1 : 0));
    out.str("type"), out.str("hello");
    out.str("version"), pk.pack(kVersion);
    out.str("name"), out.str(hello.name.empty() ? std::string_view("cpp-bot") : std::string_view(hello.name));
    out.str("games");
    if (hello.games) {
        pk.pack_array(static_cast<std::uint32_t>(hello.games->size()));
        for (const auto& game : *hello.games) out.str(game);
    } else {
        pk.pack_nil();
    }
    if (hello.seats) {
        out.str("seats");
        pk.pack_array(static_cast<std::uint32_t>(hello.seats->size()));
        for (int seats : *hello.seats) pk.pack(seats);
    }
    if (hello.options) {
        out.str("options");
        pk.pack_map(static_cast<std::uint32_t>(hello.options->size()));
        for (const auto& [game, options] : *hello.options) {
            out.str(game);
            pk.pack_map(static_cast<std::uint32_t>(options.size()));
            for (const auto& [option, values] : options) {
                out.str(option);
                pk.pack_array(static_cast<std::uint32_t>(values.size()));
                for (const auto& value : values) pack_option(out, value);
            }
        }
    }
    out.send();
}

class Server {
public:
    Server(Bot& bot, const Hello& hello) : bot_(bot), hello_(hello) {}

    int serve() {
        for (;;) {
            unpacker_.reserve_buffer(kReadChunk);
            ssize_t got = ::read(0, unpacker_.buffer(), unpacker_.buffer_capacity());
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) fail(std::string("cannot read stdin: ") + std::strerror(errno));
            if (got == 0) {  // end of input: the referee is gone (section 10)
                if (unpacker_.nonparsed_size() > 0) {
                    std::fprintf(stderr, "referee-kit: end of input in the middle of a frame\n");
                }
                return 0;
            }
            unpacker_.buffer_consumed(static_cast<std::size_t>(got));
            try {
                while (unpacker_.next(message_)) {
                    int status = dispatch(message_.get());
                    if (status >= 0) return status;
                }
            } catch (const msgpack::unpack_error& error) {
                fail(std::string("malformed frame from the referee (") + error.what() + ")");
            } catch (const msgpack::type_error&) {
                fail("malformed frame from the referee (a value of the wrong type)");
            }
            if (unpacker_.nonparsed_size() > kMaxIncoming) fail("a frame from the referee is larger than 16 MiB");
        }
    }

private:
    // Handles one message; returns the exit status when the bot must stop, else -1.
    int dispatch(const msgpack::object& message) {
        if (message.type != msgpack::type::MAP) fail("a frame from the referee is not a map");
        const msgpack::object* type = lookup(message, "type");
        if (type == nullptr || type->type != msgpack::type::STR) return -1;  // not a message we know
        std::string_view kind(type->via.str.ptr, type->via.str.size);
        if (kind == "request") {
            request(message);
        } else if (kind == "new_game") {
            new_game();
        } else if (kind == "game_over") {
            const msgpack::object* result = lookup(message, "result");
            bot_.game_over(Value(result));
        } else if (kind == "hello") {
            return hello(message);
        } else if (kind == "bye") {
            bot_.close();
            return 0;
        }
        return -1;  // unknown message types are ignored (section 6)
    }

    int hello(const msgpack::object& message) {
        Value versions(lookup(message, "versions"));
        bool offered = false;
        for (std::size_t i = 0; i < versions.size(); ++i) offered = offered || versions[i].as_int(-1) == kVersion;
        if (!offered) {
            std::string text = "no common protocol version (I speak [1], offered [";
            for (std::size_t i = 0; i < versions.size(); ++i) {
                text += (i ? ", " : "") + std::to_string(versions[i].as_int(-1));
            }
            text += "])";
            std::fprintf(stderr, "referee-kit: %s\n", text.c_str());
            auto& pk = out_.pack();
            pk.pack_map(2);
            out_.str("type"), out_.str("error");
            out_.str("message"), out_.str(text);
            out_.send();
            return 2;
        }
        send_hello(out_, hello_);
        return -1;
    }

    void new_game() {
        game_ = std::move(message_);  // keeps `options` alive until the next new_game
        const msgpack::object& m = game_.get();
        Value v(&m);
        info_.game = std::string(v["game"].as_str());
        info_.options = v["options"];
        info_.seat = static_cast<int>(v["seat"].as_int());
        info_.seats = static_cast<int>(v["seats"].as_int());
        info_.bot_seed = v["bot_seed"].as_uint();
        info_.game_no = v["game_no"].as_uint();
        info_.teams.clear();
        Value teams = v["teams"];
        for (std::size_t t = 0; t < teams.size(); ++t) {
            std::vector<int> team;
            for (std::size_t s = 0; s < teams[t].size(); ++s) team.push_back(static_cast<int>(teams[t][s].as_int()));
            info_.teams.push_back(std::move(team));
        }
        seat_ = info_.seat;
        bot_.new_game(info_);
    }

    void request(const msgpack::object& message) {
        auto received = std::chrono::steady_clock::now();
        Value m(&message);
        legal_.clear();  // reused: no allocation once it has grown
        Value legal = m["legal"];
        for (std::size_t i = 0; i < legal.size(); ++i) {
            if (!legal[i].is_str()) fail("a legal action that is not a string");
            legal_.push_back(legal[i].as_str());
        }
        if (legal_.empty()) fail("a request without legal actions");
        Value id = m["id"];
        Deadline deadline{m["deadline_ms"].as_int(0), std::nullopt, received};
        if (m["bank_ms"].is_int()) deadline.bank_ms = m["bank_ms"].as_int();
        Decision decision{seat_, id.as_uint(), legal_, m["observation"], deadline};
        Answer answer = bot_.act(decision);
        std::size_t chosen = answer.index;
        if (chosen >= legal_.size()) {
            std::fprintf(stderr, "referee-kit: act() chose action %zu of %zu; playing the first\n", chosen,
                         legal_.size());
            chosen = 0;
        }
        auto& pk = out_.pack();
        pk.pack_map(answer.note.empty() ? 3 : 4);
        out_.str("type"), out_.str("action");
        out_.str("id");
        if (object(id) != nullptr) {
            pk.pack(*object(id));  // the id unchanged, whatever its width
        } else {
            pk.pack_nil();
        }
        out_.str("action"), out_.str(legal_[chosen]);
        if (!answer.note.empty()) {
            clean_note(answer.note, note_);
            out_.str("debug"), out_.str(note_);
        }
        out_.send();
    }

    Bot& bot_;
    const Hello& hello_;
    Channel out_;
    // Limits on what one frame may announce (arrays, maps, strings, bin, ext, nesting): a header that announces
    // more is refused at once, instead of allocating for it.
    msgpack::unpacker unpacker_{nullptr, nullptr, MSGPACK_UNPACKER_INIT_BUFFER_SIZE,
                                msgpack::unpack_limit(1u << 20, 1u << 20, kMaxIncoming, kMaxIncoming,
                                                      kMaxIncoming, 256)};
    msgpack::object_handle message_;
    msgpack::object_handle game_;
    GameInfo info_;
    int seat_ = 0;
    std::vector<std::string_view> legal_;
    std::string note_;
};

class FunctionBot : public Bot {
public:
    explicit FunctionBot(const std::function<Answer(const Decision&)>& act) : act_(act) {}
    Answer act(const Decision& decision) override { return act_(decision); }

private:
    const std::function<Answer(const Decision&)>& act_;
};

}  // namespace

// ------------------------------------------------------------------------------------------------ cards, actions

std::optional<Card> Card::parse(std::string_view text) {
    if (text.size() < 2 || text.size() > 3) return std::nullopt;
    char suit = text.back();
    bool standard = suit == 'C' || suit == 'D' || suit == 'H' || suit == 'S';
    bool cossacks = suit == 'K' || suit == 'R' || suit == 'T' || suit == 'F';
    if (!standard && !cossacks) return std::nullopt;
    int rank = rank_of(text.substr(0, text.size() - 1), standard);
    if (rank < 0) return std::nullopt;
    return Card{rank, suit};
}

std::string Card::text() const {
    static const char* const faces[] = {"J", "Q", "K", "A"};
    bool standard = suit == 'C' || suit == 'D' || suit == 'H' || suit == 'S';
    std::string out = standard && rank >= 11 && rank <= 14 ? faces[rank - 11] : std::to_string(rank);
    out += suit;
    return out;
}

Action Action::parse(std::string_view text) {
    Action action;
    action.text = text;
    std::size_t open = text.find('(');
    if (open == std::string_view::npos || text.back() != ')') {
        action.kind = text;
        return action;
    }
    action.kind = text.substr(0, open);
    std::string_view inside = text.substr(open + 1, text.size() - open - 2);
    while (true) {
        std::size_t comma = inside.find(',');
        action.args.push_back(inside.substr(0, comma));
        if (comma == std::string_view::npos) break;
        inside.remove_prefix(comma + 1);
    }
    return action;
}

std::vector<Card> Action::cards() const {
    std::vector<Card> out;
    for (std::string_view arg : args) {
        if (auto card = Card::parse(arg)) out.push_back(*card);
    }
    return out;
}

// ------------------------------------------------------------------------------------------------ values

namespace {
const msgpack::object* obj(const void* object) { return static_cast<const msgpack::object*>(object); }
}  // namespace

bool Value::is_nil() const { return object_ == nullptr || obj(object_)->type == msgpack::type::NIL; }
bool Value::is_bool() const { return object_ != nullptr && obj(object_)->type == msgpack::type::BOOLEAN; }
bool Value::is_int() const {
    return object_ != nullptr &&
           (obj(object_)->type == msgpack::type::POSITIVE_INTEGER || obj(object_)->type == msgpack::type::NEGATIVE_INTEGER);
}
bool Value::is_str() const { return object_ != nullptr && obj(object_)->type == msgpack::type::STR; }
bool Value::is_array() const { return object_ != nullptr && obj(object_)->type == msgpack::type::ARRAY; }
bool Value::is_map() const { return object_ != nullptr && obj(object_)->type == msgpack::type::MAP; }

bool Value::as_bool(bool otherwise) const { return is_bool() ? obj(object_)->via.boolean : otherwise; }

std::int64_t Value::as_int(std::int64_t otherwise) const {
    if (object_ == nullptr) return otherwise;
    if (obj(object_)->type == msgpack::type::NEGATIVE_INTEGER) return obj(object_)->via.i64;
    if (obj(object_)->type == msgpack::type::POSITIVE_INTEGER && obj(object_)->via.u64 <= INT64_MAX) {
        return static_cast<std::int64_t>(obj(object_)->via.u64);
    }
    return otherwise;
}

std::uint64_t Value::as_uint(std::uint64_t otherwise) const {
    if (object_ != nullptr && obj(object_)->type == msgpack::type::POSITIVE_INTEGER) return obj(object_)->via.u64;
    return otherwise;
}

std::string_view Value::as_str(std::string_view otherwise) const {
    return is_str() ? std::string_view(obj(object_)->via.str.ptr, obj(object_)->via.str.size) : otherwise;
}

std::size_t Value::size() const {
    if (is_array()) return obj(object_)->via.array.size;
    if (is_map()) return obj(object_)->via.map.size;
    return 0;
}

Value Value::operator[](std::size_t index) const {
    return is_array() && index < obj(object_)->via.array.size ? Value(&obj(object_)->via.array.ptr[index]) : Value();
}

Value Value::operator[](std::string_view key) const { return object_ ? Value(lookup(*obj(object_), key)) : Value(); }

std::string_view Value::key(std::size_t index) const {
    return is_map() && index < obj(object_)->via.map.size ? Value(&obj(object_)->via.map.ptr[index].key).as_str()
                                                      : std::string_view();
}

Value Value::value(std::size_t index) const {
    return is_map() && index < obj(object_)->via.map.size ? Value(&obj(object_)->via.map.ptr[index].val) : Value();
}

double Deadline::remaining_ms() const {
    std::chrono::duration<double, std::milli> spent = std::chrono::steady_clock::now() - received;
    return static_cast<double>(deadline_ms) - spent.count();
}

// ------------------------------------------------------------------------------------------------ run

int run(Bot& bot, const Hello& hello) {
    Server server(bot, hello);
    return server.serve();
}

int run(const std::function<Answer(const Decision&)>& act, const Hello& hello) {
    FunctionBot bot(act);
    return run(bot, hello);
}

}  // namespace referee
