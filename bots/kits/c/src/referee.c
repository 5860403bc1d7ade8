/* The protocol loop of the C kit: docs/PROTOCOL.md (version 1) on msgpack-c's streaming unpacker. */
#include "referee.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VERSION 1                               /* the protocol version the kit speaks */
#define MAX_INCOMING ((size_t)16 * 1024 * 1024) /* a referee frame larger than this is refused */
#define READ_CHUNK ((size_t)64 * 1024)

/* The note as the reply's `debug`: valid UTF-8 (an invalid byte becomes '?', since a str that is not UTF-8 is a
 * `malformed` fault) and at most NOTE_BYTES bytes (the referee keeps 2,000 characters; a frame over 64 KiB is an
 * `oversized` fault), cut at a character's boundary. Returns its length in `out`. */
#define NOTE_BYTES 8000
static size_t clean_note(const char* note, char* out) {
    const unsigned char* s = (const unsigned char*)note;
    size_t n = strlen(note), i = 0, used = 0;
    while (i < n) {
        unsigned char c = s[i];
        size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : (c >> 4) == 0xE ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        bool ok = len > 0 && i + len <= n;
        for (size_t k = 1; ok && k < len; ++k) ok = (s[i + k] & 0xC0) == 0x80;
        if (ok && len >= 3) { /* no overlong forms, no surrogates, nothing above U+10FFFF */
            unsigned char d = s[i + 1];
            ok = !(c == 0xE0 && d < 0xA0) && !(c == 0xED && d >= 0xA0) && !(c == 0xF0 && d < 0x90) &&
                 !(c == 0xF4 && d >= 0x90);
        }
        if (!ok) len = 1;
        if (used + len > NOTE_BYTES) break;
        if (ok) {
            memcpy(out + used, note + i, len);
        } else {
            out[used] = '?';
        }
        used += len;
        i += len;
    }
    return used;
}

static void fail(const char* why) {
    fprintf(stderr, "referee-kit: %s; exiting\n", why);
    fflush(stderr);
    _Exit(1);
}

/* ------------------------------------------------------------------------------------------------ values */

bool referee_str_eq(referee_str s, const char* text) {
    size_t n = strlen(text);
    return s.len == n && (n == 0 || memcmp(s.ptr, text, n) == 0);
}

static referee_str str_of(const msgpack_object* o) {
    referee_str s = {NULL, 0};
    if (o != NULL && o->type == MSGPACK_OBJECT_STR) {
        s.ptr = o->via.str.ptr;
        s.len = o->via.str.size;
    }
    return s;
}

const msgpack_object* referee_get(const msgpack_object* map, const char* key) {
    if (map == NULL || map->type != MSGPACK_OBJECT_MAP) return NULL;
    for (uint32_t i = 0; i < map->via.map.size; ++i) {
        const msgpack_object* k = &map->via.map.ptr[i].key;
        if (k->type == MSGPACK_OBJECT_STR && referee_str_eq(str_of(k), key)) return &map->via.map.ptr[i].val;
    }
    return NULL;
}

const msgpack_object* referee_item(const msgpack_object* array, size_t index) {
    if (array == NULL || array->type != MSGPACK_OBJECT_ARRAY || index >= array->via.array.size) return NULL;
    return &array->via.array.ptr[index];
}

size_t referee_len(const msgpack_object* value) {
    if (value == NULL) return 0;
    if (value->type == MSGPACK_OBJECT_ARRAY) return value->via.array.size;
    if (value->type == MSGPACK_OBJECT_MAP) return value->via.map.size;
    return 0;
}

referee_str referee_string(const msgpack_object* value) { return str_of(value); }

int64_t referee_int(const msgpack_object* value, int64_t otherwise) {
    if (value == NULL) return otherwise;
    if (value->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) return value->via.i64;
    if (value->type == MSGPACK_OBJECT_POSITIVE_INTEGER && value->via.u64 <= (uint64_t)INT64_MAX) {
        return (int64_t)value->via.u64;
    }
    return otherwise;
}

uint64_t referee_uint(const msgpack_object* value, uint64_t otherwise) {
    if (value != NULL && value->type == MSGPACK_OBJECT_POSITIVE_INTEGER) return value->via.u64;
    return otherwise;
}

bool referee_bool(const msgpack_object* value, bool otherwise) {
    if (value != NULL && value->type == MSGPACK_OBJECT_BOOLEAN) return value->via.boolean;
    return otherwise;
}

double referee_remaining_ms(const referee_deadline* deadline) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double spent = (double)(now.tv_sec - deadline->received.tv_sec) * 1e3 +
                   (double)(now.tv_nsec - deadline->received.tv_nsec) / 1e6;
    return (double)deadline->deadline_ms - spent;
}

/* ------------------------------------------------------------------------------------------------ cards, actions */

bool referee_card_parse(referee_str text, referee_card* card) {
    if (text.len < 2 || text.len > 3) return false;
    char suit = text.ptr[text.len - 1];
    const char* r = text.ptr;
    size_t n = text.len - 1;
    int rank = -1;
    if (strchr("CDHS", suit) != NULL) {
        if (n == 2 && r[0] == '1' && r[1] == '0') rank = 10;
        else if (n == 1 && r[0] >= '2' && r[0] <= '9') rank = r[0] - '0';
        else if (n == 1 && r[0] == 'J') rank = 11;
        else if (n == 1 && r[0] == 'Q') rank = 12;
        else if (n == 1 && r[0] == 'K') rank = 13;
        else if (n == 1 && r[0] == 'A') rank = 14;
    } else if (suit != '\0' && strchr("KRTF", suit) != NULL) {
        if (n == 1 && r[0] >= '0' && r[0] <= '9') rank = r[0] - '0';
    }
    if (rank < 0) return false;
    card->rank = rank;
    card->suit = suit;
    return true;
}

void referee_action_parse(referee_str text, referee_action* action) {
    action->text = text;
    action->kind = text;
    action->nargs = 0;
    const char* open = text.len > 0 ? memchr(text.ptr, '(', text.len) : NULL;
    if (open == NULL || text.ptr[text.len - 1] != ')') return;
    action->kind.len = (size_t)(open - text.ptr);
    const char* p = open + 1;
    const char* end = text.ptr + text.len - 1;
    while (action->nargs < REFEREE_MAX_ARGS) {
        const char* comma = memchr(p, ',', (size_t)(end - p));
        const char* stop = comma != NULL ? comma : end;
        action->args[action->nargs].ptr = p;
        action->args[action->nargs].len = (size_t)(stop - p);
        action->nargs++;
        if (comma == NULL) break;
        p = comma + 1;
    }
}

/* ------------------------------------------------------------------------------------------------ the protocol */

typedef struct server {
    const referee_bot* bot;
    int out; /* our private copy of stdout */
    msgpack_sbuffer buffer;
    msgpack_packer packer;
    msgpack_unpacker unpacker;
    msgpack_unpacked message;
    msgpack_unpacked game; /* the latest new_game, kept for its options */
    int seat;
    referee_str* legal;
    size_t legal_cap;
} server;

static void pack_str(server* s, const char* ptr, size_t len) {
    msgpack_pack_str(&s->packer, len);
    msgpack_pack_str_body(&s->packer, ptr, len);
}

static void pack_cstr(server* s, const char* text) { pack_str(s, text, strlen(text)); }

/* Writes the packed frame in one go (one write(2) unless the pipe is full). */
static void send_frame(server* s) {
    const char* data = s->buffer.data;
    size_t left = s->buffer.size;
    while (left > 0) {
        ssize_t n = write(s->out, data, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) _Exit(0); /* the referee closed our stdout: it is gone */
        data += n;
        left -= (size_t)n;
    }
    msgpack_sbuffer_clear(&s->buffer);
}

static int on_hello(server* s, const msgpack_object* m) {
    const msgpack_object* versions = referee_get(m, "versions");
    bool offered = false;
    for (size_t i = 0; i < referee_len(versions); ++i) offered = offered || referee_int(referee_item(versions, i), -1) == VERSION;
    if (!offered) {
        char text[256] = "no common protocol version (I speak [1], offered [";
        for (size_t i = 0; i < referee_len(versions) && strlen(text) < 200; ++i) {
            snprintf(text + strlen(text), sizeof text - strlen(text), "%s%lld", i ? ", " : "",
                     (long long)referee_int(referee_item(versions, i), -1));
        }
        strcat(text, "])");
        fprintf(stderr, "referee-kit: %s\n", text);
        msgpack_pack_map(&s->packer, 2);
        pack_cstr(s, "type"), pack_cstr(s, "error");
        pack_cstr(s, "message"), pack_cstr(s, text);
        send_frame(s);
        return 2;
    }
    const referee_bot* bot = s->bot;
    msgpack_pack_map(&s->packer, 4 + (bot->seats != NULL) + (bot->hello_options != NULL));
    pack_cstr(s, "type"), pack_cstr(s, "hello");
    pack_cstr(s, "version"), msgpack_pack_int(&s->packer, VERSION);
    pack_cstr(s, "name"), pack_cstr(s, bot->name != NULL && bot->name[0] ? bot->name : "c-bot");
    pack_cstr(s, "games");
    if (bot->games != NULL) {
        size_t n = 0;
        while (bot->games[n] != NULL) n++;
        msgpack_pack_array(&s->packer, n);
        for (size_t i = 0; i < n; ++i) pack_cstr(s, bot->games[i]);
    } else {
        msgpack_pack_nil(&s->packer);
    }
    if (bot->seats != NULL) {
        pack_cstr(s, "seats");
        msgpack_pack_array(&s->packer, bot->nseats);
        for (size_t i = 0; i < bot->nseats; ++i) msgpack_pack_int(&s->packer, bot->seats[i]);
    }
    if (bot->hello_options != NULL) {
        pack_cstr(s, "options");
        bot->hello_options(&s->packer);
    }
    send_frame(s);
    return -1;
}

static void on_new_game(server* s) {
    msgpack_unpacked old = s->game; /* keep this new_game (its options) until the next one */
    s->game = s->message;
    s->message = old;
    const msgpack_object* m = &s->game.data;
    referee_game_info info;
    info.game = str_of(referee_get(m, "game"));
    info.options = referee_get(m, "options");
    info.seat = (int)referee_int(referee_get(m, "seat"), 0);
    info.seats = (int)referee_int(referee_get(m, "seats"), 0);
    info.teams = referee_get(m, "teams");
    if (info.teams != NULL && info.teams->type != MSGPACK_OBJECT_ARRAY) info.teams = NULL;
    info.bot_seed = referee_uint(referee_get(m, "bot_seed"), 0);
    info.game_no = referee_uint(referee_get(m, "game_no"), 0);
    s->seat = info.seat;
    if (s->bot->new_game != NULL) s->bot->new_game(s->bot->state, &info);
}

static void on_request(server* s, const msgpack_object* m) {
    referee_decision d;
    clock_gettime(CLOCK_MONOTONIC, &d.deadline.received);
    const msgpack_object* legal = referee_get(m, "legal");
    size_t n = referee_len(legal);
    if (legal == NULL || legal->type != MSGPACK_OBJECT_ARRAY || n == 0) fail("a request without legal actions");
    if (n > s->legal_cap) { /* grows once to the largest request seen, then reused */
        s->legal = realloc(s->legal, n * sizeof *s->legal);
        if (s->legal == NULL) fail("out of memory");
        s->legal_cap = n;
    }
    for (size_t i = 0; i < n; ++i) {
        const msgpack_object* item = referee_item(legal, i);
        if (item->type != MSGPACK_OBJECT_STR) fail("a legal action that is not a string");
        s->legal[i] = str_of(item);
    }
    const msgpack_object* id = referee_get(m, "id");
    const msgpack_object* bank = referee_get(m, "bank_ms");
    d.seat = s->seat;
    d.id = referee_uint(id, 0);
    d.nlegal = n;
    d.legal = s->legal;
    d.observation = referee_get(m, "observation");
    d.deadline.deadline_ms = referee_int(referee_get(m, "deadline_ms"), 0);
    d.deadline.has_bank = bank != NULL && (bank->type == MSGPACK_OBJECT_POSITIVE_INTEGER ||
                                           bank->type == MSGPACK_OBJECT_NEGATIVE_INTEGER);
    d.deadline.bank_ms = referee_int(bank, 0);
    referee_answer answer = s->bot->act(s->bot->state, &d);
    if (answer.index >= n) {
        fprintf(stderr, "referee-kit: act() chose action %zu of %zu; playing the first\n", answer.index, n);
        answer.index = 0;
    }
    msgpack_pack_map(&s->packer, answer.note != NULL ? 4 : 3);
    pack_cstr(s, "type"), pack_cstr(s, "action");
    pack_cstr(s, "id");
    if (id != NULL) {
        msgpack_pack_object(&s->packer, *id); /* the id unchanged */
    } else {
        msgpack_pack_nil(&s->packer);
    }
    pack_cstr(s, "action"), pack_str(s, s->legal[answer.index].ptr, s->legal[answer.index].len);
    if (answer.note != NULL) {
        static char note[NOTE_BYTES];
        size_t len = clean_note(answer.note, note);
        pack_cstr(s, "debug"), pack_str(s, note, len);
    }
    send_frame(s);
}

/* One message; the exit status when the bot must stop, else -1. */
static int dispatch(server* s) {
    const msgpack_object* m = &s->message.data;
    if (m->type != MSGPACK_OBJECT_MAP) fail("a frame from the referee is not a map");
    referee_str kind = str_of(referee_get(m, "type"));
    if (referee_str_eq(kind, "request")) {
        on_request(s, m);
    } else if (referee_str_eq(kind, "new_game")) {
        on_new_game(s);
    } else if (referee_str_eq(kind, "game_over")) {
        if (s->bot->game_over != NULL) s->bot->game_over(s->bot->state, referee_get(m, "result"));
    } else if (referee_str_eq(kind, "hello")) {
        return on_hello(s, m);
    } else if (referee_str_eq(kind, "bye")) {
        if (s->bot->close != NULL) s->bot->close(s->bot->state);
        return 0;
    }
    return -1; /* unknown message types are ignored (section 6) */
}

int referee_run(const referee_bot* bot) {
    static server s; /* one per process */
    s.bot = bot;
    /* Frames go to a private copy of stdout; fd 1 becomes stderr, so a stray printf cannot corrupt the stream
     * (docs/PROTOCOL.md section 2). */
    fflush(stdout);
    s.out = dup(1);
    if (s.out < 0 || dup2(2, 1) < 0) fail("cannot set up stdout");
    fcntl(s.out, F_SETFD, FD_CLOEXEC);
    signal(SIGPIPE, SIG_IGN); /* a referee that went away is seen as EPIPE, and we exit */
    msgpack_sbuffer_init(&s.buffer);
    msgpack_packer_init(&s.packer, &s.buffer, msgpack_sbuffer_write);
    if (!msgpack_unpacker_init(&s.unpacker, READ_CHUNK)) fail("out of memory");
    msgpack_unpacked_init(&s.message);
    msgpack_unpacked_init(&s.game);
    for (;;) {
        if (!msgpack_unpacker_reserve_buffer(&s.unpacker, READ_CHUNK)) fail("out of memory");
        ssize_t got = read(0, msgpack_unpacker_buffer(&s.unpacker), msgpack_unpacker_buffer_capacity(&s.unpacker));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) fail("cannot read stdin");
        if (got == 0) { /* end of input: the referee is gone (section 10) */
            if (msgpack_unpacker_message_size(&s.unpacker) > 0) {
                fprintf(stderr, "referee-kit: end of input in the middle of a frame\n");
            }
            return 0;
        }
        msgpack_unpacker_buffer_consumed(&s.unpacker, (size_t)got);
        for (;;) {
            msgpack_unpack_return ret = msgpack_unpacker_next(&s.unpacker, &s.message);
            if (ret == MSGPACK_UNPACK_CONTINUE) break;
            if (ret == MSGPACK_UNPACK_PARSE_ERROR) fail("malformed frame from the referee (not msgpack)");
            if (ret < 0) fail("a frame from the referee is too large to decode");
            int status = dispatch(&s);
            if (status >= 0) return status;
        }
        if (msgpack_unpacker_message_size(&s.unpacker) > MAX_INCOMING) {
            fail("a frame from the referee is larger than 16 MiB");
        }
    }
}
