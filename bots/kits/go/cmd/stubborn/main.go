package main

import (
	"os"

	"refereebot/referee"
)

func act(obs *referee.Observation, legal []referee.Action, deadline *referee.Deadline) (referee.Action, string) {
	// obs: the observation of docs/WIRE.md; legal: the legal actions (canonical order)
	for _, action := range legal {
		if action.Kind == "take" {
			return action, ""
		}
	}
	return legal[0], ""
}

func main() { os.Exit(referee.Run("stubborn", act, referee.Declared{})) }
