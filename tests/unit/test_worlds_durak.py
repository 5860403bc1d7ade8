"""What a seat of ``durak`` and ``kazaki`` may infer, in the worlds sampled from its view (``Game.worlds``,
referee/games/durak/worlds.py; RULES.md section 2).

Each test builds a hand-made deal, plays a short script, takes one seat's view as the runner sends it (its
observation at each of its decisions, then the position now) and draws many worlds: every world must respect what
the seat knows (KZ-7 announced lowest trump, KZ-16 a skipped thrower's void and an asked thrower's card, KZ-23
picked-up cards, KZ-6 a redeal demand), and over many worlds the hidden cards must spread over every place the seat
cannot exclude, the real one among them. The contract of ``referee.testing.check_sampling`` is also run here over
random games, with one relaxation (see ``test_random_games_fit_every_view``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from protocol.cards import Card
from referee.errors import RecordError
from referee.games.cards import bits
from referee.games.durak import Durak, DurakState, Kazaki
from referee.testing import CheckFailed, check_conservation, check_world, scripted_view, steps, views

DURAK = Durak()
KAZAKI = Kazaki()
SAMPLES = 300


def deal(game: Any, hands: Sequence[Sequence[str]], trump: str, *, dealer: int = 0, seed: int = 0,
         **options: Any) -> DurakState:
    """A game whose first deal is ``hands`` (seat by seat), ``trump`` turned up under the stock, and the other cards
    in canonical order on top of it (KZ-4, KZ-5)."""
    n = len(hands)
    order = [hands[(dealer + 1 + k) % n][k // n] for k in range(6 * n)] + [trump]
    indices = [game.deck.index(Card.parse(text)) for text in order]
    rest = [i for i in range(len(game.deck)) if i not in set(indices)]
    return DurakState(game, n, seed, game.configure(options), dealer, deck_order=indices + rest)


def card(game: Any, text: str) -> int:
    return game.deck.index(Card.parse(text))


def dealt(world: DurakState, seat: int, deal_number: int = -1) -> set[int]:
    """The cards ``seat`` was dealt in a deal of ``world`` (its log's ``hand`` entries; the last deal by default)."""
    return set(bits([e for e in world.log if e[0] == "hand" and e[1] == seat][deal_number][2]))


def place_of(world: DurakState, c: int) -> str:
    return next(where for where, cards in world.card_places().items() if c in cards)


def worlds_of(game: Any, state: DurakState, seat: int, view: list[dict[str, Any]], n: int = SAMPLES,
              **options: Any) -> list[DurakState]:
    sampler = game.worlds(state.seats, seat, view, options)
    rng = random.Random(5)
    out = [sampler.sample(rng) for _ in range(n)]
    for world in out:
        check_world(state, world, seat, check_conservation)
    return out


# Three-player durak, dealer 0, spades trump (KS under the stock). Seat 1 holds the lowest trump dealt, 8S, and attacks
# seat 2 with 7C; seat 2 covers with 9C. Seat 1 then holds no 7 or 9 and is skipped (KZ-16); seat 0 holds 7D, is
# asked and passes. The bout is beaten, seat 1 and seat 2 draw one card each, and seat 2 attacks seat 0.
HANDS3 = [["7D", "6C", "6D", "JC", "QC", "AH"], ["8S", "7C", "8C", "10D", "JH", "QH"],
          ["9C", "QD", "KD", "7H", "8H", "10S"]]
SCRIPT3 = ["attack(7C)", "defend(7C,9C)", "pass"]


def game3() -> DurakState:
    return deal(DURAK, HANDS3, "KS")


def test_kz16_a_skipped_thrower_held_no_card_of_a_table_rank_and_the_asked_one_did() -> None:
    state = game3()
    view = scripted_view(state, 2, SCRIPT3)
    assert view[-1]["attacker"] == 2 and [e["type"] for e in view[-1]["events"]][:3] == ["defend", "pass", "beaten"]
    sevens_nines = {card(DURAK, t) for t in ("7C", "7D", "7H", "7S", "9C", "9D", "9H", "9S")}
    seen: dict[str, set[str]] = {t: set() for t in ("7D", "7S", "9D", "9H", "9S")}
    for world in worlds_of(DURAK, state, 2, view):
        assert not (dealt(world, 1) - {card(DURAK, "7C")}) & sevens_nines  # KZ-16: skipped, so none then
        assert dealt(world, 0) & sevens_nines  # KZ-16: asked, so he held one
        for t in seen:
            seen[t].add(place_of(world, card(DURAK, t)))
    # the cards of those ranks spread over the places that remain: seat 0, the stock, and seat 1 only by his draw
    assert seen["7D"] >= {"hand0", "stock"} and all("stock" in places for places in seen.values())
    assert any("hand1" in places for places in seen.values())  # seat 1 may have drawn one after the skip


def test_kz7_the_trumps_below_the_announced_one_were_dealt_to_nobody() -> None:
    state = game3()
    view = scripted_view(state, 0, [])
    low = {card(DURAK, "6S"), card(DURAK, "7S")}
    places: set[str] = set()
    for world in worlds_of(DURAK, state, 0, view):
        assert not any(dealt(world, s) & low for s in range(3))
        assert card(DURAK, "8S") in dealt(world, 1)  # announced with it (KZ-7): it is public that he holds it
        places |= {place_of(world, c) for c in low}
    assert places == {"stock"}
    other: set[str] = set()
    for world in worlds_of(DURAK, state, 0, view):
        other.add(place_of(world, card(DURAK, "AS")))
    assert other == {"hand1", "hand2", "stock"}  # a card nothing tells of may be anywhere hidden


def test_kz23_picked_up_cards_are_in_the_takers_hand_and_others_draws_spread() -> None:
    # Seat 2 takes 7C; in durak seat 0 throws 7D after the take (KZ-17 step 1), seat 2 picks both up; then the draws.
    state = game3()
    view = scripted_view(state, 0, ["attack(7C)", "take", "throw_in(7D)", "attack(6C)"])
    real_draw = next(e[2] for e in state.log if e[0] == "draw" and e[1] == 1)
    draws = set()
    for world in worlds_of(DURAK, state, 0, view):
        assert {card(DURAK, "7C"), card(DURAK, "7D")} <= set(world.card_places()["hand2"])
        draws.add(next(e[2] for e in world.log if e[0] == "draw" and e[1] == 1))
    # what seat 1 drew is private to it: spread over the worlds, not copied from the truth, the truth among them
    assert len(draws) > 5 and real_draw in draws


def test_kz6_the_seat_that_demanded_a_redeal_held_five_of_a_suit() -> None:
    # Kazaki, 3 players, dealer 0: seat 2 is dealt five K cards and demands the redeal; the next deal is the seed's.
    hands = [["0R", "1R", "2R", "3R", "4T", "5T"], ["0T", "1T", "2T", "3T", "4R", "5R"],
             ["0K", "1K", "2K", "3K", "4K", "5F"]]
    state = deal(KAZAKI, hands, "9F")
    assert state.to_act == 2  # the only one offered (KZ-6)
    view = scripted_view(state, 1, ["demand_redeal"])
    suits = [sum(1 << card(KAZAKI, f"{r}{s}") for r in range(10)) for s in "KRTF"]
    holders = set()
    for world in worlds_of(KAZAKI, state, 1, view, n=100):
        first = sum(1 << c for c in dealt(world, 2, 0))
        assert any((first & m).bit_count() >= 5 for m in suits)
        holders.add(frozenset(dealt(world, 2, 0)))
    assert len(holders) > 20  # which five, and the sixth card, stay hidden


# Issue 36: two-player perevodnoy (transfer=true), seed 8213708287301405123, dealer 0; seat 1 at its decision 42,
# just after a transfer whose two cards were both covered. The real deal fits the view, but the swap search that
# makes the "was asked, so held a card of a table rank" inferences true could get stuck (three cards had to move at
# once) and the sampler raised "the hidden cards fit no deal" for 53 of the draws k = 0 … 2999.
TRANSFER_SCRIPT = (
    "attack(QC,QS) take pass attack(9C) defend(9C,QC) pass attack(8H) defend(8H,KH) attack(7C,7S) defend(7C,JC) "
    "defend(7S,10S) throw_in(10C) take attack(8S) defend(8S,10S) pass attack(7C,7S) defend(7C,KC) defend(7S,KS) "
    "attack(AC) transfer(AS) take attack(9H) defend(9H,6D) attack(AC,AS) take attack(9S) defend(9S,QS) pass "
    "attack(7H) defend(7H,JH) throw_in(JC) defend(JC,7D) attack(6S) defend(6S,AS) pass attack(8C) defend(8C,8D) "
    "attack(6H) transfer(6C) defend(6C,9D) defend(6H,AH)").split()
STUCK = (3, 17, 36, 42, 138, 224)  # draws that used to raise


def transfer_view() -> tuple[DurakState, list[dict[str, Any]]]:
    state = DurakState(DURAK, 2, 8213708287301405123, DURAK.configure({"transfer": True}), 0)
    view = scripted_view(state, 1, TRANSFER_SCRIPT)
    assert state.to_act == 1
    return state, view


def test_a_transfer_covered_twice_samples_without_error() -> None:
    state, view = transfer_view()
    sampler = DURAK.worlds(2, 1, view, {"transfer": True})
    for k in STUCK:
        check_world(state, sampler.sample(random.Random(k)), 1, check_conservation)


@pytest.mark.deep
def test_a_transfer_covered_twice_samples_without_error_in_3000_draws() -> None:
    _, view = transfer_view()
    sampler = DURAK.worlds(2, 1, view, {"transfer": True})
    for k in range(3000):
        sampler.sample(random.Random(k))


@pytest.mark.parametrize("tamper", ["a card of another deck", "a card the seat holds", "another game"])
def test_a_view_that_does_not_fit_is_one_record_error_line(tamper: str) -> None:
    state = game3()
    view = scripted_view(state, 2, SCRIPT3)
    if tamper == "a card of another deck":
        view[0]["events"][1]["cards"][0] = "ZZ"
    elif tamper == "a card the seat holds":
        view[0]["events"][5]["cards"] = ["8H"]  # seat 1 "attacks" with a card seat 2 was dealt
    else:
        view[-1]["game"] = "kazaki"
    with pytest.raises(RecordError) as caught:
        DURAK.worlds(3, 2, view)
    assert "\n" not in str(caught.value) and str(caught.value).startswith("the view does not fit durak")


@pytest.mark.parametrize(("game", "seats"), [(g, n) for g in (DURAK, KAZAKI) for n in range(2, 7)],
                         ids=[f"{g.id}-{n}" for g in (DURAK, KAZAKI) for n in range(2, 7)])
def test_random_games_fit_every_view(game: Any, seats: int) -> None:
    """referee.testing.check_sampling's contract, with one relaxation: at another seat's decision the worlds may
    have another seat asked. The view does not say whose decision it is, and in a throw-in walk the rules hide it
    (ineligible players are skipped without a word, KZ-16; redeal offers are private, KZ-6): then every world still
    gives the seat its exact observation, and the seat to act is checked only when it is the seat itself (the case
    of a bot sampling at its own decision), where the worlds assume it is asked."""
    for s in (21,):
        state = game.new_state(seats, s, dealer=s % seats)
        rng = random.Random(s)
        for _, seen in views(state, s, 100_000, every=11):
            for seat in range(seats):
                sampler = game.worlds(seats, seat, seen[seat])
                drawn = [sampler.sample(rng) for _ in range(4)]
                for world in drawn:
                    if seat == state.to_act or state.is_terminal:
                        check_world(state, world, seat, check_conservation)
                    else:
                        assert world.observe(seat, 0) == state.observe(seat, 0)
                        check_conservation(world)
                        assert world.card_locations() == state.card_locations()
                first, again = sampler.sample(random.Random(3)), sampler.sample(random.Random(3))
                assert first.card_places() == again.card_places()
                if not state.is_terminal:
                    for _ in steps(drawn[0], rng.randrange(2**32), 100_000):
                        check_conservation(drawn[0])


def test_the_contract_check_sees_a_sampler_that_copies_the_truth() -> None:
    """Honesty of the relaxed check above: a world whose observation differs fails it."""
    state = game3()
    view = scripted_view(state, 2, SCRIPT3)
    world = DURAK.worlds(3, 2, view).sample(random.Random(1))
    world.hands[2], world.hands[0] = world.hands[0], world.hands[2]
    with pytest.raises(CheckFailed):
        check_world(state, world, 2, check_conservation)
