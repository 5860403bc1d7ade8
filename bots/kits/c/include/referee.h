/* The C starter kit for the referee's bot protocol (docs/PROTOCOL.md, version 1), on msgpack-c.
 *
 * A bot is a referee_bot: a name, the games it plays, and callbacks. act() is given each request's decision and
 * returns an answer: the index of one of the legal actions, and optionally a note (the reply's `debug`).
 * referee_run() does the rest: the handshake, the frames, new_game / game_over / bye, end of input, and it keeps
 * stdout for frames only (printf and puts go to stderr once referee_run() has started).
 *
 * Strings from the referee are referee_str: a pointer and a length, not NUL-terminated, valid during the callback
 * they are given to. Observations, options and results are msgpack-c's msgpack_object; referee_get() and friends
 * read them. */
#ifndef REFEREE_H
#define REFEREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <msgpack.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct referee_str {
    const char* ptr;
    size_t len;
} referee_str;

bool referee_str_eq(referee_str s, const char* text);

/* A card (docs/WIRE.md, Cards): "10D" is rank 10, suit 'D'. Ranks: 2..10, J=11, Q=12, K=13, A=14 for the standard
 * deck (suits C D H S); 0..9 for the Cossacks-Robbers deck of kazaki (suits K R T F). */
typedef struct referee_card {
    int rank;
    char suit;
} referee_card;

/* Is `text` a card? Then *card is it. */
bool referee_card_parse(referee_str text, referee_card* card);

#define REFEREE_MAX_ARGS 16
/* An action in its wire form: "defend(7C,8H)" has kind "defend" and args "7C", "8H". */
typedef struct referee_action {
    referee_str text;
    referee_str kind;
    size_t nargs;
    referee_str args[REFEREE_MAX_ARGS];
} referee_action;

void referee_action_parse(referee_str text, referee_action* action);

/* Reading msgpack values: a key of a map (NULL when absent or not a map), an array's item, and scalars with a
 * fallback. Every function accepts NULL. */
const msgpack_object* referee_get(const msgpack_object* map, const char* key);
const msgpack_object* referee_item(const msgpack_object* array, size_t index);
size_t referee_len(const msgpack_object* value); /* items of an array, entries of a map, else 0 */
referee_str referee_string(const msgpack_object* value); /* {NULL, 0} when not a string */
int64_t referee_int(const msgpack_object* value, int64_t otherwise);
uint64_t referee_uint(const msgpack_object* value, uint64_t otherwise);
bool referee_bool(const msgpack_object* value, bool otherwise);

/* A request's clock (docs/PROTOCOL.md section 8): deadline_ms is the move limit plus the time bank left; bank_ms
 * the bank alone (has_bank false from a referee older than it); received the moment the kit read the request
 * (CLOCK_MONOTONIC). */
typedef struct referee_deadline {
    int64_t deadline_ms;
    bool has_bank;
    int64_t bank_ms;
    struct timespec received;
} referee_deadline;

double referee_remaining_ms(const referee_deadline* deadline); /* negative when late */

/* new_game (docs/PROTOCOL.md 5.4); `options` and `teams` (NULL without teams) are valid until the next new_game. */
typedef struct referee_game_info {
    referee_str game;
    const msgpack_object* options;
    int seat;
    int seats;
    const msgpack_object* teams;
    uint64_t bot_seed;
    uint64_t game_no;
} referee_game_info;

/* One request to act; valid during act() only. */
typedef struct referee_decision {
    int seat;
    uint64_t id;
    size_t nlegal; /* never 0 */
    const referee_str* legal; /* the legal actions' texts, canonical order */
    const msgpack_object* observation; /* the seat's observation (docs/WIRE.md) */
    referee_deadline deadline;
} referee_decision;

typedef struct referee_answer {
    size_t index;     /* the chosen legal action */
    const char* note; /* NULL, or a NUL-terminated note for the replay (the reply's `debug`), read at once */
} referee_answer;

typedef struct referee_bot {
    const char* name;
    const char* const* games; /* NULL-terminated game ids, or NULL: any game */
    const int* seats;         /* the seat counts it plays (nseats of them), or NULL: any */
    size_t nseats;
    /* packs the value of the hello's `options` (docs/PROTOCOL.md 5.2) with msgpack-c, or NULL: not sent */
    void (*hello_options)(msgpack_packer* packer);
    void* state; /* given to every callback */
    void (*new_game)(void* state, const referee_game_info* info);             /* optional */
    referee_answer (*act)(void* state, const referee_decision* decision);     /* required */
    void (*game_over)(void* state, const msgpack_object* result);             /* optional */
    void (*close)(void* state);                                               /* optional, on bye */
} referee_bot;

/* Serve the referee on stdin/stdout until `bye` or end of input. Returns the exit status: 0; 2 when the referee
 * offers no protocol version the kit speaks (it answers `error`); 1 after a malformed frame (a message on stderr). */
int referee_run(const referee_bot* bot);

#ifdef __cplusplus
}
#endif

#endif
