// Command lowest plays durak and kazaki with the cheapest cards it can: low ranks first, trumps last; takes or
// passes last.
package main

import (
	"fmt"
	"os"

	"refereebot/referee"
)

func act(obs *referee.Observation, legal []referee.Action, deadline *referee.Deadline) (referee.Action, string) {
	cost := func(action referee.Action) float64 {
		mine := action.Cards
		if action.Kind == "defend" && len(mine) > 0 {
			mine = mine[1:] // defend(a,c): c is mine
		}
		if len(mine) == 0 {
			return 1000 // take, pass
		}
		sum := 0
		for _, card := range mine {
			sum += card.Rank
			if card.Suit == obs.Trump {
				sum += 100
			}
		}
		return float64(sum) / float64(len(mine))
	}
	best := legal[0]
	for _, action := range legal[1:] {
		if cost(action) < cost(best) { // the first one on ties
			best = action
		}
	}
	return best, fmt.Sprintf("cost %g", cost(best))
}

func main() {
	os.Exit(referee.Run("lowest-go", act, referee.Declared{Games: []string{"durak", "kazaki"}}))
}
