"""Fault kinds (protocol/faults.py, RULES.md C-7): one enum, carried by every bot error, read back strictly."""

from __future__ import annotations

import json

import pytest

from protocol import errors
from protocol.errors import BotCrashed, BotError, BotStalled, BotTimeout, ParseError, ProtocolViolation
from protocol.faults import Fault, FaultKind, fault_words
from referee.match import Fault as MatchFault
from referee.transport import MockTransport


def test_the_kinds_are_the_words_of_c7() -> None:
    assert [str(k) for k in FaultKind] == ["illegal", "timeout", "stall", "crash", "malformed", "oversized"]
    assert FaultKind.TIMEOUT == "timeout" and f"{FaultKind.CRASH}" == "crash"
    assert json.dumps({"kind": FaultKind.OVERSIZED}) == '{"kind": "oversized"}'


@pytest.mark.parametrize(("kind", "final"), [
    # C-7: a bot that crashed or stalled is not asked again; "malformed and oversized are final" (a decision of
    # RULES.md); a timeout or an illegal answer is asked again at the next decision.
    (FaultKind.ILLEGAL, False), (FaultKind.TIMEOUT, False), (FaultKind.STALL, True), (FaultKind.CRASH, True),
    (FaultKind.MALFORMED, True), (FaultKind.OVERSIZED, True),
])
def test_which_kinds_end_the_bots_part_in_the_game(kind: FaultKind, final: bool) -> None:
    assert kind.ends_process is final


@pytest.mark.parametrize(("error", "kind"), [
    (BotError("x"), FaultKind.CRASH),
    (BotTimeout("x"), FaultKind.TIMEOUT),
    (BotCrashed("x"), FaultKind.CRASH),
    (BotStalled("x"), FaultKind.STALL),
    (ProtocolViolation("x"), FaultKind.MALFORMED),
    (ProtocolViolation("x", kind=FaultKind.OVERSIZED), FaultKind.OVERSIZED),
])
def test_every_bot_error_carries_its_kind(error: BotError, kind: FaultKind) -> None:
    assert type(error.kind) is FaultKind and error.kind is kind


def test_every_bot_error_class_of_the_tree_has_a_kind() -> None:
    classes = [c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, BotError)]
    assert {BotError, BotTimeout, BotCrashed, BotStalled, ProtocolViolation} <= set(classes)
    assert all(type(c.kind) is FaultKind for c in classes)


def test_storage_error_is_its_own_branch_of_the_tree() -> None:
    from tournaments.storage import StorageError

    assert StorageError is errors.StorageError
    assert StorageError.__bases__ == (errors.RefereeError,)


def test_a_fault_round_trips_and_refuses_an_unknown_kind_in_one_line() -> None:
    fault = Fault(1, FaultKind.ILLEGAL, 4, "x is not a legal action")
    assert Fault.from_dict(json.loads(json.dumps(fault.to_dict()))) == fault
    assert MatchFault is Fault  # referee.match re-exports it
    assert Fault(1, "crash", 0).kind is FaultKind.CRASH  # type: ignore[arg-type]  # a word becomes its kind
    for bad in ({"seat": 0, "kind": "boredom", "decision": 0}, {"seat": "0", "kind": "crash", "decision": 0},
                {"kind": "crash", "decision": 0}, ["not", "an", "object"]):
        with pytest.raises(ParseError) as exc:
            Fault.from_dict(bad)  # type: ignore[arg-type]
        assert "\n" not in str(exc.value)


class _Hungry(BotError):
    """A bot error of a kind the mock was not written for: it must still be a simulated fault."""


def test_the_mock_transport_queues_any_bot_error() -> None:
    def handler(message: dict) -> list:
        raise _Hungry("too much memory")

    mock = MockTransport(handler)
    mock.send({"type": "hello"}, deadline=0)
    with pytest.raises(_Hungry):
        mock.receive(deadline=0)


def test_fault_words_count_a_repeated_fault_once_with_its_first_decision() -> None:
    """A bot playing on under --on-fault continue may fault at every move: one entry per seat and kind, in the
    order they first happened, not one per fault (a listing's line ran to 841 characters)."""
    faults = [Fault(1, FaultKind.ILLEGAL, d) for d in (3, 5, 9)] + [Fault(0, FaultKind.TIMEOUT, 4),
                                                                     Fault(1, FaultKind.TIMEOUT, 12)]
    assert fault_words(sorted(faults, key=lambda f: f.decision)) == [
        "seat 1 illegal ×3, the first at decision 3", "seat 0 timeout at decision 4", "seat 1 timeout at decision 12"]
    assert fault_words([]) == []
