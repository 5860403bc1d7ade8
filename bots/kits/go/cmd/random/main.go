// Command random plays a legal action drawn at random, from a generator seeded with the game's bot_seed: the same
// game is played the same way every time (referee check, case 8.1). It plays every game.
package main

import (
	"math/rand"
	"os"

	"refereebot/referee"
)

type randomBot struct {
	referee.BaseBot
	rng *rand.Rand
}

func (b *randomBot) Name() string { return "random-go" }

func (b *randomBot) NewGame(info *referee.GameInfo) {
	b.BaseBot.NewGame(info)
	b.rng = rand.New(rand.NewSource(int64(info.BotSeed)))
}

func (b *randomBot) Act(d *referee.Decision) (referee.Action, string) {
	return d.Legal[b.rng.Intn(len(d.Legal))], ""
}

func main() {
	os.Exit(referee.RunBot(&randomBot{rng: rand.New(rand.NewSource(0))}, referee.Declared{}))
}
