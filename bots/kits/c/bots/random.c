/* random: a uniformly random legal action, drawn from a generator seeded with each game's bot_seed, so the same game
 * is played the same way every time (referee check, case 8.1). */
#include "referee.h"

static uint64_t state; /* splitmix64 */

static void new_game(void* unused, const referee_game_info* info) {
    (void)unused;
    state = info->bot_seed;
}

static referee_answer act(void* unused, const referee_decision* decision) {
    (void)unused;
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    referee_answer answer = {(size_t)(z % decision->nlegal), NULL};
    return answer;
}

int main(void) {
    referee_bot bot = {.name = "random", .new_game = new_game, .act = act};
    return referee_run(&bot);
}
