/* thinker: thinks (here: draws actions at random) until half of its time is gone, then plays the action it drew
 * most, with a note saying why (the replay viewer shows it beside the decision). */
#include <stdio.h>
#include <stdlib.h>

#include "referee.h"

static uint64_t state = 1; /* xorshift64 */
static long* votes;
static size_t nvotes;

static referee_answer act(void* unused, const referee_decision* decision) {
    (void)unused;
    static char note[256];
    double left_ms = referee_remaining_ms(&decision->deadline);
    if (decision->nlegal > nvotes) {
        votes = realloc(votes, decision->nlegal * sizeof *votes);
        if (votes == NULL) abort();
        nvotes = decision->nlegal;
    }
    for (size_t i = 0; i < decision->nlegal; ++i) votes[i] = 0;
    votes[0] = 1;
    while (referee_remaining_ms(&decision->deadline) > left_ms / 2) { /* the other half: a margin */
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        votes[state % decision->nlegal]++; /* a real bot would search here */
    }
    size_t best = 0;
    for (size_t i = 1; i < decision->nlegal; ++i) if (votes[i] > votes[best]) best = i;
    snprintf(note, sizeof note, "%ld draws chose %.*s; %.0f ms were left", votes[best], (int)decision->legal[best].len,
             decision->legal[best].ptr, left_ms);
    referee_answer answer = {best, note};
    return answer;
}

int main(void) {
    referee_bot bot = {.name = "thinker", .act = act};
    return referee_run(&bot);
}
