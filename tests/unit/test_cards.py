"""Cards and decks (RULES.md C-3 notation, C-4 canonical order)."""

from __future__ import annotations

import pytest

from protocol.cards import KAZAKI_SUITS, STANDARD_SUITS, Card, Deck, parse_cards, rank_text
from protocol.errors import ParseError
from referee.games.durak import DURAK_DECK, KAZAKI_DECK

STANDARD_36 = Deck(STANDARD_SUITS, range(6, 15))
STANDARD_52 = Deck(STANDARD_SUITS, range(2, 15))
KAZAKI_40 = Deck(KAZAKI_SUITS, range(0, 10))
ALL_DECKS = {"standard36": STANDARD_36, "standard52": STANDARD_52, "kazaki40": KAZAKI_40}
ALL_TEXTS = sorted({t for deck in ALL_DECKS.values() for t in deck.texts})


# ------------------------------------------------------------------------------------------- C-3 text


@pytest.mark.parametrize("text", ALL_TEXTS)
def test_c3_every_card_text_round_trips(text: str) -> None:
    card = Card.parse(text)
    assert str(card) == text
    assert Card.parse(str(card)) == card


@pytest.mark.parametrize("deck", ALL_DECKS.values(), ids=ALL_DECKS.keys())
def test_c3_every_card_value_round_trips(deck: Deck) -> None:
    for card, text in zip(deck.cards, deck.texts, strict=True):
        assert str(card) == text
        assert Card.parse(text) == card
        assert hash(Card.parse(text)) == hash(card)


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [("10D", 10, "D"), ("QC", 12, "C"), ("6C", 6, "C"), ("2H", 2, "H"), ("JS", 11, "S"), ("KD", 13, "D"),
     ("AS", 14, "S"), ("7T", 7, "T"), ("0K", 0, "K"), ("9F", 9, "F"), ("5R", 5, "R")],
)
def test_c3_examples(text: str, rank: int, suit: str) -> None:
    assert Card.parse(text) == Card(rank, suit)
    assert str(Card(rank, suit)) == text


def test_rank_text() -> None:
    assert [rank_text(r, "S") for r in range(2, 15)] == \
        ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    assert [rank_text(r, "T") for r in range(10)] == [str(r) for r in range(10)]


BAD_TEXTS = [
    "1D",  # no rank 1 in the standard deck
    "11C",  # J is written J
    "10T",  # kazaki ranks are one digit
    "7X",  # no suit X
    "",
    "T",
    "D",
    "10",
    "0D",  # no rank 0 in the standard deck
    "01C",  # leading zero
    "010D",
    "AK",  # face ranks only in the standard suits
    "JT",
    "10K",
    "7t",  # suits are upper case
    "qc",
    " 7T",
    "7T ",
    "7 T",
    "7TT",
    "15S",
    "1S",
    "-1K",
    "+7T",
    "7♣",
]


@pytest.mark.parametrize("text", BAD_TEXTS)
def test_bad_card_texts_are_parse_errors(text: str) -> None:
    with pytest.raises(ParseError, match="invalid card"):
        Card.parse(text)


@pytest.mark.parametrize("text", ["²C", "³K", "٣K", "１０D", "۷T"])
def test_bad_card_texts_with_non_ascii_digits_are_parse_errors(text: str) -> None:
    """C-3: ranks are the ASCII texts 2-10, J, Q, K, A (or 0-9). str.isdigit() accepts other digits too."""
    with pytest.raises(ParseError):
        Card.parse(text)


@pytest.mark.parametrize("value", [None, 7, b"7T", ["7T"]])
def test_non_string_cards_are_parse_errors(value: object) -> None:
    with pytest.raises(ParseError):
        Card.parse(value)  # type: ignore[arg-type]


def test_parse_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        Card.parse("7X")


def test_parse_cards() -> None:
    assert parse_cards(["7T", "10D", "QC"]) == (Card(7, "T"), Card(10, "D"), Card(12, "C"))
    assert parse_cards(()) == ()
    with pytest.raises(ParseError):
        parse_cards(["7T", "7X"])


def test_cards_are_frozen_values() -> None:
    card = Card(7, "T")
    with pytest.raises(AttributeError):
        card.rank = 8  # type: ignore[misc]
    assert {Card(7, "T"), Card.parse("7T")} == {card}
    assert repr(card) == "Card(7T)"


# --------------------------------------------------------------------------------------- C-4 order


def test_c4_standard_36_canonical_order() -> None:
    assert len(STANDARD_36) == 36
    assert STANDARD_36.texts[:9] == ("6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC")
    assert STANDARD_36.texts[9] == "6D"
    assert STANDARD_36.texts[18] == "6H"
    assert STANDARD_36.texts[27] == "6S"
    assert STANDARD_36.texts[35] == "AS"


def test_c4_kazaki_40_canonical_order() -> None:
    assert len(KAZAKI_40) == 40
    assert KAZAKI_40.texts[:10] == tuple(f"{r}K" for r in range(10))
    assert [KAZAKI_40.texts[10 * s] for s in range(4)] == ["0K", "0R", "0T", "0F"]
    assert KAZAKI_40.texts[39] == "9F"


def test_c4_standard_52_canonical_order() -> None:
    assert len(STANDARD_52) == 52
    assert STANDARD_52.texts[0] == "2C"
    assert STANDARD_52.texts[12] == "AC"
    assert STANDARD_52.texts[13] == "2D"
    assert STANDARD_52.texts[51] == "AS"


@pytest.mark.parametrize("deck", ALL_DECKS.values(), ids=ALL_DECKS.keys())
def test_c4_canonical_index_is_suit_times_ranks_plus_rank(deck: Deck) -> None:
    r = deck.ranks_per_suit
    assert r == len(deck.ranks)
    for i, card in enumerate(deck.cards):
        suit_index = deck.suits.index(card.suit)
        rank_index = deck.ranks.index(card.rank)
        assert i == suit_index * r + rank_index
        assert deck.index(card) == i
        assert deck.suit_of(i) == suit_index
        assert deck.rank_of(i) == rank_index
    assert len(set(deck.cards)) == len(deck)


def test_deck_index_of_a_foreign_card_is_a_parse_error() -> None:
    with pytest.raises(ParseError):
        STANDARD_36.index(Card(2, "C"))
    with pytest.raises(ParseError):
        STANDARD_36.index(Card(7, "T"))


def test_game_decks_are_the_rules_decks() -> None:
    """KZ-1: kazaki 0-9 × K R T F; durak 6-A × C D H S."""
    assert DURAK_DECK.texts == STANDARD_36.texts
    assert KAZAKI_DECK.texts == KAZAKI_40.texts


def test_a_decks_cards_are_the_parsed_cards_and_a_card_without_a_wire_form_still_a_card() -> None:
    """Deck cards are the objects Card.parse gives (found by identity in a bot's sets and dicts); a plugin's deck
    with ranks the wire cannot write (1, a 15th) still makes its cards instead of failing at import."""
    assert all(card is Card.parse(text) for card, text in zip(DURAK_DECK.cards, DURAK_DECK.texts, strict=True))
    odd = Deck("CD", range(1, 16))
    assert len(odd) == 30 and odd.cards[0] == Card(1, "C") and odd.cards[-1] == Card(15, "D")
    assert odd.cards[1] is Card.parse("2C") and odd.index(Card(15, "D")) == 29
    with pytest.raises(ParseError):
        Card.parse("1C")  # interning made no text valid that was not
