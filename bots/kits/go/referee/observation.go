package referee

// Map is a msgpack map as the kit decodes it. Values are nil, bool, int (uint64 beyond the int64 range), float64,
// string, []any, Map (map[string]any), or msgpack.RawMessage for an extension type (version 1 sends none).
type Map = map[string]any

// Observation is what the seat sees (docs/WIRE.md, "Observations in every game"): the keys every game has, typed,
// and Raw, the whole observation as the request carried it, with each game's own keys (Raw["table"] in durak).
type Observation struct {
	Game      string
	Seat      int
	Seats     int
	Phase     string
	Hand      []Card // the seat's own hand, canonical order
	HandSizes []int  // every player's card count, by seat
	Trump     string // the trump suit; "none" for no-trump; "" where it is null
	Events    []Map  // the events since the seat's previous request (each has a "type")
	Raw       Map
}

func newObservation(raw Map) *Observation {
	o := &Observation{Raw: raw}
	o.Game = Str(raw["game"])
	o.Seat, _ = Int(raw["seat"])
	o.Seats, _ = Int(raw["seats"])
	o.Phase = Str(raw["phase"])
	o.Hand = Cards(raw["hand"])
	for _, n := range List(raw["hand_sizes"]) {
		size, _ := Int(n)
		o.HandSizes = append(o.HandSizes, size)
	}
	o.Trump = Str(raw["trump"])
	for _, event := range List(raw["events"]) {
		if m, ok := event.(Map); ok {
			o.Events = append(o.Events, m)
		}
	}
	return o
}

// Int is v as an int, and whether it is an integer.
func Int(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case uint64:
		return int(n), true
	}
	return 0, false
}

// Str is v as a string ("" when it is not one, like null).
func Str(v any) string {
	s, _ := v.(string)
	return s
}

// List is v as a list (nil when it is not one).
func List(v any) []any {
	l, _ := v.([]any)
	return l
}

// Dict is v as a map (nil when it is not one).
func Dict(v any) Map {
	m, _ := v.(Map)
	return m
}

// Cards is v, a list of card texts, as Cards (items that are not cards are left out).
func Cards(v any) []Card {
	items := List(v)
	cards := make([]Card, 0, len(items))
	for _, item := range items {
		if card, err := ParseCard(Str(item)); err == nil {
			cards = append(cards, card)
		}
	}
	return cards
}
