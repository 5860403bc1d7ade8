"""The action tables of the Durak engine (:mod:`.base`): everything about a deck that does not change during a
game, built once per deck, so that generating the legal actions copies nothing and allocates little."""

from __future__ import annotations

from functools import cache

from protocol.actions import Action
from protocol.cards import Deck

from ..cards import CardIndex, bits
from ..cards import tables as card_tables

__all__ = ["tables"]


class _Tables:
    """Everything about a deck that does not change during a game, built once per deck."""

    def __init__(self, deck: Deck) -> None:
        n, r = len(deck), deck.ranks_per_suit
        self.deck = deck
        self.texts = deck.texts
        self.size = n
        self.ranks = r
        self.low = (1 << r) - 1
        self.suit_mask = [sum(1 << (s * r + k) for k in range(r)) for s in range(4)]
        self.rank_mask = [sum(1 << (s * r + k) for s in range(4)) for k in range(r)]
        # Cards of the same suit and a higher rank than card i (KZ-3, first case).
        self.higher_in_suit = [
            sum(1 << j for j in range(i + 1, (i // r + 1) * r)) for i in range(n)
        ]
        # Cards of the same rank and a higher suit than card i: the other members of sets led by i.
        self.same_rank_above = [self.rank_mask[i % r] & ~((2 << i) - 1) for i in range(n)]
        # KZ-3, per trump suit: a card is beaten by a higher card of its suit, and (if it is no trump) by every trump.
        self.beaten_by = [
            tuple(self.higher_in_suit[i] | (0 if trumps >> i & 1 else trumps) for i in range(n))
            for trumps in self.suit_mask
        ]
        #: The card indices of every action this deck can produce, by the action object's identity: _apply
        #: always receives one of these prebuilt objects (State.apply hands over the legal object itself).
        self.code: dict[int, tuple[int, ...]] = {}
        #: The one-card actions, from the trick games' tables.
        self.singles = card_tables(deck, ("throw_in", "withdraw"))
        self.throw_in_index = self.singles.index["throw_in"]  # ``.select(mask)``: the throw-ins of a set of cards
        self.throw_in = self._register(self.singles.by_card["throw_in"])
        self.withdraw = self._register(self.singles.by_card["withdraw"])
        self.defend = [[self._make("defend", (a, c)) for c in range(n)] for a in range(n)]
        self.attack = self._sets("attack")
        self.transfer = self._sets("transfer")
        self.text_index = CardIndex(deck.texts, r)  # the card texts of a set of cards (observations, events)
        #: The one-card attacks (the same objects as in :attr:`attack`), by sets of cards.
        self.single_attacks = CardIndex([self.attack[1][i][0][0] for i in range(n)], r)

    def attacks(self, hand: int, cap: int) -> tuple[Action, ...]:
        """KZ-13: the same-rank sets of at most ``cap`` (≥ 1) cards of ``hand``, in canonical order (C-7).

        Every card of the hand is a one-card attack; a card that has cards of its rank in higher suits also leads
        the sets made with them, right after its own one-card attack (C-7: a set comes before the sets it is a
        prefix of). So the list is the one-card attacks (four look-ups), with the few leaders' sets spliced in."""
        r = self.ranks
        leaders = hand & (hand >> r | hand >> 2 * r | hand >> 3 * r)  # a card of the same rank in a higher suit
        out = self.single_attacks.select(hand)
        if not leaders or cap == 1:
            return out
        sets, above = self.attack[cap], self.same_rank_above
        spliced = list(out)
        while leaders:  # the highest leader first, so the positions of the lower ones stay put
            i = leaders.bit_length() - 1
            at = (hand & ((1 << i) - 1)).bit_count()  # the position of card i's one-card attack
            spliced[at:at + 1] = sets[i][hand & above[i]]  # its sets, its one-card attack first
            leaders ^= 1 << i
        return tuple(spliced)

    def _register(self, actions: tuple[Action, ...]) -> tuple[Action, ...]:
        """One-card actions, card i at index i, entered in :attr:`code`."""
        for i, action in enumerate(actions):
            self.code[id(action)] = (i,)
        return actions

    def _make(self, kind: str, indices: tuple[int, ...]) -> Action:
        action = Action(kind, tuple(self.deck.cards[i] for i in indices))
        self.code[id(action)] = indices
        return action

    def _sets(self, kind: str) -> list[list[dict[int, tuple[Action, ...]]]]:
        """``table[i][m]``: the same-rank sets whose lowest card is i and whose other cards come from the
        mask m (a subset of ``same_rank_above[i]``), as (size, action) in canonical order (C-7: a set
        comes before the sets it is a prefix of, then element by element). ``table[k][i][m]`` keeps only the
        sets of at most k cards (k = 0..6), for the cap of KZ-9/KZ-13 and the room of KZ-15."""
        table: list[list[dict[int, tuple[Action, ...]]]] = [[{} for _ in range(self.size)] for _ in range(7)]
        for i in range(self.size):
            above = bits(self.same_rank_above[i])
            for choice in range(1 << len(above)):
                mask = sum(1 << c for k, c in enumerate(above) if choice >> k & 1)
                found = [self._make(kind, chosen) for chosen in _prefix_order((i,), bits(mask))]
                for k in range(7):
                    table[k][i][mask] = tuple(a for a in found if len(a.args) <= k)
        return table


def _prefix_order(chosen: tuple[int, ...], more: list[int]) -> list[tuple[int, ...]]:
    """``chosen`` and every extension of it by cards of ``more`` (ascending), in C-7 order: a set comes
    right before the sets it is a prefix of."""
    out = [chosen]
    for k, card in enumerate(more):
        out += _prefix_order(chosen + (card,), more[k + 1:])
    return out


@cache
def tables(deck: Deck) -> _Tables:
    """The tables of ``deck``, built once."""
    return _Tables(deck)
