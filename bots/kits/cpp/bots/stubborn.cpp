#include "referee/bot.hpp"

// Takes whenever it may, and otherwise plays the first legal action.
referee::Answer act(const referee::Decision& decision) {
    for (std::size_t i = 0; i < decision.legal.size(); ++i) {
        if (decision.action(i).kind == "take") return i;
    }
    return 0;
}

int main() { return referee::run(act, {"stubborn"}); }
