// thinker: thinks (here: draws actions at random) until half of its time is gone, then plays the action it drew
// most, with a note saying why (the replay viewer shows it beside the decision).
#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "referee/bot.hpp"

int main() {
    std::mt19937_64 rng(1);
    std::vector<long> votes;
    auto act = [&](const referee::Decision& decision) -> referee::Answer {
        double left_ms = decision.deadline.remaining_ms();
        auto stop = std::chrono::steady_clock::now() +  // the other half: a margin for a busy machine
                    std::chrono::microseconds(static_cast<long>(std::max(0.0, left_ms) * 500));
        votes.assign(decision.legal.size(), 0);
        votes[0] = 1;
        while (std::chrono::steady_clock::now() < stop) votes[rng() % votes.size()]++;  // a real bot would search
        std::size_t best = std::max_element(votes.begin(), votes.end()) - votes.begin();
        return {best, std::to_string(votes[best]) + " draws chose " + std::string(decision.legal[best]) + "; " +
                          std::to_string(static_cast<long>(left_ms)) + " ms were left"};
    };
    return referee::run(act, {"thinker"});
}
