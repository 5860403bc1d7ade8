#include "referee.h"

/* Takes whenever it may, and otherwise plays the first legal action. */
static referee_answer act(void* state, const referee_decision* decision) {
    referee_answer answer = {0, NULL};
    for (size_t i = 0; i < decision->nlegal; ++i) {
        referee_action action;
        referee_action_parse(decision->legal[i], &action);
        if (referee_str_eq(action.kind, "take")) {
            answer.index = i;
            break;
        }
    }
    (void)state;
    return answer;
}

int main(void) {
    referee_bot bot = {.name = "stubborn", .act = act};
    return referee_run(&bot);
}
