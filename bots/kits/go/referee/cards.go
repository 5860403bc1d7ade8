package referee

import (
	"fmt"
	"strconv"
	"strings"
)

// Card is one card (docs/WIRE.md, Cards). Rank is numeric: 2 to 14 for the standard deck (J=11, Q=12, K=13, A=14),
// 0 to 9 for the Cossacks-Robbers deck of kazaki; Suit is the suit letter; Text is the wire form, like "10D".
type Card struct {
	Rank int
	Suit string
	Text string
}

func (c Card) String() string { return c.Text }

var faces = map[string]int{"J": 11, "Q": 12, "K": 13, "A": 14}

// ParseCard reads a card: "10D" → Card{10, "D", "10D"}. The suit is always the last character.
func ParseCard(text string) (Card, error) {
	if len(text) < 2 {
		return Card{}, fmt.Errorf("invalid card: %q", text)
	}
	rank, suit := text[:len(text)-1], text[len(text)-1:]
	switch {
	case strings.Contains("KRTF", suit) && len(rank) == 1 && rank[0] >= '0' && rank[0] <= '9':
		return Card{int(rank[0] - '0'), suit, text}, nil
	case strings.Contains("CDHS", suit):
		if face, ok := faces[rank]; ok {
			return Card{face, suit, text}, nil
		}
		if n, err := strconv.Atoi(rank); err == nil && n >= 2 && n <= 10 && rank[0] != '0' {
			return Card{n, suit, text}, nil
		}
	}
	return Card{}, fmt.Errorf("invalid card: %q", text)
}

// Action is one action (docs/WIRE.md, Actions): "defend(7D,8D)" has Kind "defend", Args ["7D", "8D"] and Cards
// [7D, 8D]; "take" has Kind "take" and no Args. Text is the wire form: answer with it, unchanged.
type Action struct {
	Text  string
	Kind  string
	Args  []string // every argument, as text: cards, numbers (seats, tricks), suit letters or "none"
	Cards []Card   // the arguments that are cards, in order
}

func (a Action) String() string { return a.Text }

// Int is argument i as a number (exchange(2), bargain(1)), and whether it is one.
func (a Action) Int(i int) (int, bool) {
	if i < 0 || i >= len(a.Args) {
		return 0, false
	}
	n, err := strconv.Atoi(a.Args[i])
	return n, err == nil
}

var parsedActions = map[string]Action{} // action texts repeat from request to request: each is parsed once

// ParseAction reads an action's text form. An argument that is no card stays in Args only, and a text not of the
// form kind(args) is an action of that kind without arguments: a future action parses, and a bot can still answer
// with its Text.
func ParseAction(text string) Action {
	if action, ok := parsedActions[text]; ok {
		return action
	}
	action := Action{Text: text, Kind: text}
	if open := strings.IndexByte(text, '('); open > 0 && strings.HasSuffix(text, ")") {
		action.Kind = text[:open]
		action.Args = strings.Split(text[open+1:len(text)-1], ",")
		for _, arg := range action.Args {
			if card, err := ParseCard(arg); err == nil {
				action.Cards = append(action.Cards, card)
			}
		}
	}
	if len(parsedActions) < 50000 {
		parsedActions[text] = action
	}
	return action
}
