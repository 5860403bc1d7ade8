// random: a uniformly random legal action, drawn from a generator seeded with each game's bot_seed, so the same
// game is played the same way every time (referee check, case 8.1).
#include <random>

#include "referee/bot.hpp"

class RandomBot : public referee::Bot {
public:
    void new_game(const referee::GameInfo& info) override { rng_.seed(info.bot_seed); }

    referee::Answer act(const referee::Decision& decision) override {
        return static_cast<std::size_t>(rng_() % decision.legal.size());
    }

private:
    std::mt19937_64 rng_{0};
};

int main() {
    RandomBot bot;
    return referee::run(bot, {"random"});
}
