/* lowest: plays durak and kazaki with the cheapest cards it can: low ranks first, trumps last; takes or passes
 * last. */
#include <stdio.h>

#include "referee.h"

static referee_answer act(void* unused, const referee_decision* decision) {
    (void)unused;
    static char note[64];
    referee_str trump = referee_string(referee_get(decision->observation, "trump"));
    size_t best = 0;
    double best_cost = 0;
    for (size_t i = 0; i < decision->nlegal; ++i) {
        referee_action action;
        referee_action_parse(decision->legal[i], &action);
        size_t first = referee_str_eq(action.kind, "defend") ? 1 : 0; /* defend(a,c): c is mine */
        double sum = 0, cost = 1000;                                    /* take, pass */
        int count = 0;
        for (size_t a = first; a < action.nargs; ++a) {
            referee_card card;
            if (!referee_card_parse(action.args[a], &card)) continue;
            sum += card.rank + (trump.len == 1 && card.suit == trump.ptr[0] ? 100 : 0);
            count++;
        }
        if (count > 0) cost = sum / count;
        if (i == 0 || cost < best_cost) best = i, best_cost = cost;
    }
    snprintf(note, sizeof note, "cost %g, the lowest of %zu", best_cost, decision->nlegal);
    referee_answer answer = {best, note};
    return answer;
}

int main(void) {
    static const char* const games[] = {"durak", "kazaki", NULL};
    referee_bot bot = {.name = "lowest", .games = games, .act = act};
    return referee_run(&bot);
}
