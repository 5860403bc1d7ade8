// lowest: plays durak and kazaki with the cheapest cards it can: low ranks first, trumps last; takes or passes last.
#include <string>

#include "referee/bot.hpp"

referee::Answer act(const referee::Decision& decision) {
    std::string_view trump = decision.observation["trump"].as_str();
    std::size_t best = 0;
    double best_cost = 0;
    for (std::size_t i = 0; i < decision.legal.size(); ++i) {
        referee::Action action = decision.action(i);
        std::vector<referee::Card> cards = action.cards();
        std::size_t first = action.kind == "defend" ? 1 : 0;  // defend(a,c): c is mine
        double cost = 1000;                                     // take, pass
        if (cards.size() > first) {
            double sum = 0;
            for (std::size_t c = first; c < cards.size(); ++c) {
                sum += cards[c].rank + (trump.size() == 1 && cards[c].suit == trump[0] ? 100 : 0);
            }
            cost = sum / static_cast<double>(cards.size() - first);
        }
        if (i == 0 || cost < best_cost) best = i, best_cost = cost;
    }
    return {best, "cost " + std::to_string(static_cast<int>(best_cost)) + ", the lowest of " +
                      std::to_string(decision.legal.size())};
}

int main() { return referee::run(act, {"lowest", std::vector<std::string>{"durak", "kazaki"}}); }
