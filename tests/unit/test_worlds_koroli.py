"""What a seat of ``koroli`` and ``koroli52`` may infer, in the worlds sampled from its view
(referee/games/koroli/worlds.py; docs/ENGINE.md "Sampling worlds"; issue 17 item 1).

Each test plays a seeded game to a moment where the rules tell a seat something about a card it cannot see, takes
the seat's view there (its observation from the start, a valid view of one observation), and checks every sampled
world: a void shown by not following suit (KR-8, K52-5), a leader who leads no trump at tricks 1 and 2 (KR-8), the
shown trump card at its holder (KR-7, KR-18), the levy cards the two players know (KR-12, KR-18) and the unseen ones
spread, the hands known through a swap (K52-11, K52-18) and the others spread. A view that does not fit is one
RecordError line.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from protocol.actions import Action
from referee.errors import RecordError
from referee.games.cards import bits
from referee.games.deals import deal_hidden
from referee.games.koroli import Koroli, Koroli52
from referee.testing import views

KR = Koroli()
K52 = Koroli52()
SAMPLES = 60


def play_to(game: Any, seats: int, seed: int, stop: Callable[[Any, Action], bool], limit: int = 5000) -> Any:
    """A seeded random game of ``game``, played until ``stop(state, action)`` says the action about to be played is
    the moment (it is then played); AssertionError if it never comes."""
    state = game.new_state(seats, seed, dealer=seed % seats)
    rng = random.Random(seed)
    for _ in range(limit):
        if state.is_terminal:
            break
        action = rng.choice(state.legal_actions())
        hit = stop(state, action)
        state.apply(action)
        if hit:
            return state
    raise AssertionError("the moment never came")


def worlds_of(game: Any, state: Any, seat: int, n: int = SAMPLES, seed: int = 3) -> list[Any]:
    view = [state.observe(seat)]
    worlds = game.worlds(state.seats, seat, view)
    rng = random.Random(seed)
    out = [worlds.sample(rng) for _ in range(n)]
    for w in out:
        assert w.observe(seat, 0) == state.observe(seat, 0)
    return out


def suit_cards(state: Any, suit: int) -> int:
    r = state.t.ranks
    return ((1 << r) - 1) << (suit * r)


def discard(state: Any, action: Action) -> bool:
    """The seat to play does not follow the led suit."""
    if action.kind != "play" or not state.trick:
        return False
    r = state.t.ranks
    return state.t.card_of[action] // r != state.trick[0] // r


def hidden_spread(state: Any, worlds: list[Any], seat: int, cards: int, holders: list[int]) -> Counter[int]:
    """How often each of ``holders`` holds a card of ``cards`` that ``seat`` does not hold, over the worlds."""
    count: Counter[int] = Counter()
    for w in worlds:
        for s in holders:
            count[s] += (w.hands[s] & cards & ~state.hands[seat]).bit_count()
    return count


# ---------------------------------------------------------------------------------------------- koroli


def test_kr_8_a_player_who_did_not_follow_holds_none_of_the_led_suit_and_the_suit_spreads_over_the_others() -> None:
    moment: list[tuple[int, int]] = []

    def discards(state: Any, action: Action) -> bool:
        hit = discard(state, action) and state.hands[state.to_act].bit_count() > 1  # not the deal's last trick
        if hit:
            moment.append((state.to_act, state.trick[0] // state.t.ranks))
        return hit

    for seed in range(30):
        state = play_to(KR, 4, seed, discards)
        if not state.reign_no:
            break
    else:
        pytest.fail("no discard in the introduction")
    void, led = moment[-1]
    led_cards = suit_cards(state, led)
    seat = next(s for s in state.order if s != void)
    still = led_cards & ~state.hands[seat] & sum(state.hands)  # the led suit's cards the seat cannot see
    assert still, "pick a seed where the suit is still out"
    worlds = worlds_of(KR, state, seat)
    assert all(not w.hands[void] & led_cards for w in worlds)
    others = [s for s in state.order if s not in (seat, void)]
    spread = hidden_spread(state, worlds, seat, led_cards, others)
    holders_possible = [s for s in others if state.hands[s]]
    assert all(spread[s] for s in holders_possible), spread  # spread, not all with one player


def test_kr_8_a_leader_of_trick_1_without_a_trump_lead_holds_no_trump() -> None:
    def led_plain(state: Any, action: Action) -> bool:
        return (action.kind == "play" and not state.trick and not state.wins and not state.reign_no
                and state.t.card_of[action] // state.t.ranks != state.trump)

    state = play_to(KR, 4, 1, led_plain)
    leader = state.log[-1][1]
    trumps = suit_cards(state, state.trump)
    for seat in (s for s in state.order if s != leader):
        for w in worlds_of(KR, state, seat, 30):
            assert not w.hands[leader] & trumps


def test_kr_7_the_dealer_holds_the_shown_trump_card_until_he_plays_it() -> None:
    state = KR.new_state(4, 9, dealer=2)
    tc = state.trump_card
    for seat in (0, 1, 3):
        for w in worlds_of(KR, state, seat, 30):
            assert w.hands[2] >> tc & 1
            assert w.dealer == 2 and w.trump_card == tc


def test_kr_the_hidden_hands_are_dealt_evenly_at_the_start_of_a_deal() -> None:
    """No constraint but the own hand and the trump card: each hidden card is with each other player about a third of
    the time (loose bounds over 300 worlds)."""
    state = KR.new_state(4, 4, dealer=0)
    worlds = worlds_of(KR, state, 1, 300)
    hidden = [c for c in range(36) if not state.hands[1] >> c & 1 and c != state.trump_card]
    for c in hidden:
        counts = Counter(next(s for s in (0, 2, 3) if w.hands[s] >> c & 1) for w in worlds)
        assert all(0.2 < counts[s] / 300 < 0.47 for s in (0, 2, 3)), (c, counts)


def at_reign_play(seed: int) -> Any:
    """A seeded game at the first play of its first reign deal (the levies done)."""
    return play_to(KR, 4, seed, lambda s, a: s.reign_no == 1 and a.kind == "give" and s.levy_taker == s._seat_of(1))


def test_kr_12_kr_18_the_levy_cards_are_known_to_the_two_players_and_spread_for_the_others() -> None:
    state = at_reign_play(2)
    assert state.phase == 0 and state.reign_no == 1  # play
    king, prince, soldier, peasant = state._role_order()
    levies = [e for e in state.log[state.relabel_from:] if e[0] in ("levy", "give")]
    (_, _, (_, c1, _, shown1)), (_, _, (_, g1, _)), (_, _, (_, c2, _, _)), (_, _, (_, g2, _)) = levies
    # the Peasant knows where all four went: the King holds c1, the Prince c2, in every world
    for w in worlds_of(KR, state, peasant, 30):
        assert w.hands[king] >> c1 & 1 and w.hands[prince] >> c2 & 1
    # the King knows c1 and g1; the Prince c2 and g2 (they are in the two players' log entries as they were)
    for seat, known in ((king, (c1, g1)), (prince, (c2, g2))):
        for w in worlds_of(KR, state, seat, 20):
            moved = [e[2][1] for e in w.log[w.relabel_from:] if e[0] in ("levy", "give") and e[1] == seat]
            assert tuple(moved) == known
    # the Soldier sees none of them (unless the shown trump card): across his worlds the King's give varies
    gives = Counter(next(e[2][1] for e in w.log[w.relabel_from:] if e[0] == "give" and e[1] == king)
                    for w in worlds_of(KR, state, soldier))
    assert len(gives) > 3, gives
    if not shown1:  # KR-12: the King took the Peasant's highest trump, above the shown card
        for w in worlds_of(KR, state, soldier, 20):
            took = next(e[2][1] for e in w.log[w.relabel_from:] if e[0] == "levy" and e[1] == king)
            assert took // 9 == state.trump and took > state.trump_card and w.hands[king] >> took & 1


def test_kr_12_the_kings_levy_is_the_highest_trump_of_the_peasants_dealt_hand_in_every_world() -> None:
    state = at_reign_play(5)
    king, _, soldier, peasant = state._role_order()
    trumps = suit_cards(state, state.trump)
    for w in worlds_of(KR, state, soldier, 40):
        dealt = next(e[2] for e in w.log[w.relabel_from:] if e[0] == "hand" and e[1] == peasant)
        took = next(e[2][1] for e in w.log[w.relabel_from:] if e[0] == "levy" and e[1] == king)
        assert (dealt & trumps).bit_length() - 1 == took


def test_kr_12_kr_13_the_prince_shown_the_peasants_hand_knows_it_and_the_others_know_he_had_no_trump() -> None:
    """Seed 5 reaches a free levy (the Peasant has no trump after the King's): the Prince chooses with the Peasant's
    hand shown (an observation field, KR-18); after his take and give, his worlds hold that hand (less his take, plus
    his give) at the Peasant, and in everyone's worlds the Peasant held no trump when the Prince levied."""
    choice: list[tuple[dict[str, Any], int]] = []

    def after_free_levy(state: Any, action: Action) -> bool:
        if state.phase == 1 and not choice:  # levy_take: the Prince's view then, as the runner sends it
            choice.append((state.observe(state.to_act), state.log_size))
        return state.phase == 2 and bool(choice)  # his give: the play begins after it

    state = play_to(KR, 4, 5, after_free_levy)
    king, prince, soldier, peasant = state._role_order()
    assert state.phase == 0 and choice[0][0]["peasant_hand"] and choice[0][0]["seat"] == prince
    view = [choice[0][0], state.observe(prince, choice[0][1])]
    worlds = KR.worlds(4, prince, view)
    rng = random.Random(1)
    for _ in range(20):
        w = worlds.sample(rng)
        assert w.observe(prince, 0) == state.observe(prince, 0)
        assert w.hands[peasant] == state.hands[peasant]
    trumps = suit_cards(state, state.trump)
    for seat in (king, soldier):
        worlds_seen = worlds_of(KR, state, seat, 20)
        assert len({w.hands[peasant] for w in worlds_seen}) > 1  # the Prince's knowledge is not theirs
        for w in worlds_seen:
            levy = next(k for k, e in enumerate(w.log) if k > w.relabel_from and e[0] == "levy" and e[1] == prince)
            took = w.log[levy][2][1]
            gave = next(e[2][1] for e in w.log[levy:] if e[0] == "give" and e[1] == prince)
            assert not (w.hands[peasant] | 1 << took) & ~(1 << gave) & trumps  # no trump when he levied


def test_kr_13_while_the_prince_chooses_freely_everyone_knows_the_peasant_holds_no_trump() -> None:
    state = play_to(KR, 4, 5, lambda s, a: s.phase == 2 and s.levy_taker == s._seat_of(0) and s.reign_no > 0
                    and not (s.hands[s._seat_of(3)] & ~(1 << s.t.card_of[a])
                             & suit_cards(s, s.trump)))  # the King's give that leaves the Peasant without a trump
    assert state.phase == 1  # levy_take: the Prince chooses
    king, prince, soldier, peasant = state._role_order()
    trumps = suit_cards(state, state.trump)
    for seat in (king, soldier):
        for w in worlds_of(KR, state, seat, 30):
            assert not w.hands[peasant] & trumps


# -------------------------------------------------------------------------------------------- koroli52


def k52_after_swap(seed: int, seats: int) -> Any:
    """A seeded koroli52 game just after its first swap."""
    return play_to(K52, seats, seed, lambda s, a: s.tour >= 2 and any(e[0] == "swap" for e in s.log[s.relabel_from:])
                   and s.phase == 4, limit=20000)


def test_k52_18_both_players_of_a_swap_know_both_hands_the_others_do_not() -> None:
    for seed in range(20):
        state = k52_after_swap(seed, 4)
        swaps = [e for e in state.log[state.relabel_from:] if e[0] == "swap"]
        if len(swaps) == 1:
            break
    else:
        pytest.fail("no tour with exactly one swap")
    _, a, b = swaps[0]
    for seat, other in ((a, b), (b, a)):
        for w in worlds_of(K52, state, seat, 20):
            assert w.hands[other] == state.hands[other]  # the hand he gave away
    third = next(s for s in range(4) if s not in (a, b))
    seen = {(w.hands[a], w.hands[b]) for w in worlds_of(K52, state, third, 20)}
    assert len(seen) == 20  # spread, not copied from the truth


def test_k52_5_a_void_player_who_does_not_trump_holds_no_trump() -> None:
    players: list[int] = []

    def no_trump(state: Any, action: Action) -> bool:
        r = state.t.ranks
        players.append(state.to_act)
        return (discard(state, action) and state.trump is not None and state.hands[state.to_act].bit_count() > 1
                and state.t.card_of[action] // r != state.trump)  # not in the tour's last trick

    for seed in range(30):
        state = play_to(K52, 4, seed, no_trump, limit=20000)
        player = players[-1]
        trumps = suit_cards(state, state.trump)
        seat = next(s for s in range(4) if s != player)
        if state.hands[player] and trumps & ~state.hands[seat] & sum(state.hands):  # trumps the seat cannot see
            break
    else:
        pytest.fail("no void player with trumps still out")
    for w in worlds_of(K52, state, seat, 40):
        assert not w.hands[player] & trumps


@pytest.mark.parametrize(("game", "seats"), [(KR, 4), (K52, 3), (K52, 4)], ids=["koroli-4", "koroli52-3", "koroli52-4"])
def test_worlds_fit_the_views_through_a_whole_game(game: Any, seats: int) -> None:
    """The runner's views of one game, every 13th decision (the levies of koroli's reign among them): every world
    shows the seat what it saw (in the reign, the levies undone must be those the engine makes: KR-12, KR-13)."""
    state = game.new_state(seats, 7, dealer=3 % seats)
    rng = random.Random(2)
    for _, seen in views(state, 7, 100_000, every=13):
        for seat in range(seats):
            worlds = game.worlds(seats, seat, seen[seat])
            for _ in range(3):
                assert worlds.sample(rng).observe(seat, 0) == state.observe(seat, 0)


# --------------------------------------------------------------------------------------------- dealing


def test_deal_hidden_keeps_the_allowed_holders_and_never_dead_ends() -> None:
    """Hall's condition: holder 0 may take only clubs, holder 1 anything, holder 2 no clubs; the only fits."""
    rng = random.Random(0)
    cards = list(range(12))
    allowed = [0b011 if c < 4 else 0b110 for c in cards]  # 4 "clubs" for 0 or 1; the rest for 1 or 2
    for _ in range(200):
        hands = deal_hidden(cards, allowed, [4, 4, 4], rng)
        assert hands is not None and hands[0] == 0b1111  # holder 0 can only be filled with the four clubs
        assert [h.bit_count() for h in hands] == [4, 4, 4]
    assert deal_hidden(cards, allowed, [5, 3, 4], rng) is None  # five cards for holder 0: only four may go there
    assert sorted(c for h in deal_hidden(cards, [0b111] * 12, [4, 4, 4], rng) or [] for c in bits(h)) == cards


# ----------------------------------------------------------------------------------------- bad views


def test_a_view_that_does_not_fit_is_one_record_error_line() -> None:
    state = play_to(KR, 4, 3, lambda s, a: len([e for e in s.log if e[0] == "play"]) == 5)
    view = state.observe(0)
    cases = {
        "empty": [],
        "other game": [{**view, "game": "koroli52"}],
        "other seat": [{**view, "seat": 1}],
        "a card played twice": [{**view, "events": view["events"] + [e for e in view["events"] if e["type"] == "play"]
                                 [:1]}],
        "not a card": [{**view, "events": [{**e, "card": "ZZ"} if e["type"] == "play" else e
                                           for e in view["events"]]}],
        "no hand sizes": [{k: v for k, v in view.items() if k != "hand_sizes"}],
        "a trick won by another": [{**view, "events": [{**e, "winner": (e["winner"] + 1) % 4} if e["type"] == "trick"
                                                       else e for e in view["events"]]}],
        "other trick counts": [{**view, "tricks": [c + 1 if c is not None else c for c in view["tricks"]]}],
    }
    for name, bad in cases.items():
        with pytest.raises(RecordError) as info:
            KR.worlds(4, 0, bad)
        assert "\n" not in str(info.value) and str(info.value).startswith("koroli"), (name, info.value)


# ------------------------------------------------------------------------------------------------ speed


def speed(samples: int = 20, every: int = 10) -> None:
    """Print the µs per ``worlds()`` and per ``sample()`` over the runner's views of one game of each game and seat
    count, every ``every``-th decision, for every seat, in CPU time (the machine is often shared). A figure, not a
    test: ``python tests/unit/test_worlds_koroli.py``."""
    import time

    for game, seats in ((KR, 4), (K52, 3), (K52, 4)):
        state = game.new_state(seats, 5, dealer=1)
        rng = random.Random(1)
        read = drawn = 0.0
        reads = draws = 0
        for _, seen in views(state, 5, 100_000, every=every):
            for seat in range(seats):
                t0 = time.process_time()
                worlds = game.worlds(seats, seat, seen[seat])
                t1 = time.process_time()
                for _ in range(samples):
                    worlds.sample(rng)
                t2 = time.process_time()
                read += t1 - t0
                drawn += t2 - t1
                reads += 1
                draws += samples
        print(f"{game.id}-{seats}: {reads} views, worlds() {read / reads * 1e6:.0f} µs, "
              f"sample() {drawn / draws * 1e6:.0f} µs")


if __name__ == "__main__":
    speed()
