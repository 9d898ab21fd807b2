"""Flags lead somewhere: listed with their pair, answered by events, undone, exported."""

from __future__ import annotations

import json

import pytest

from arena.bundle.export import export_round, read_bundle
from arena.bundle.verify import verify_bundle
from arena.cli.main import main
from arena.errors import BadInput
from arena.ledger import catalog
from arena.rating import flags
from arena.rating.session import RatingSession
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.bundle.rebundle import rehash


@pytest.fixture
def flagged(small_family):
    """Two flags in ``small``: one on the first pair shown, one on the second."""
    session = RatingSession(small_family, "small", seed=3)
    first = session.current()
    assert first is not None
    one = session.flag("the prompt is cut off")
    session.vote("left")
    second = session.current()
    assert second is not None
    two = session.flag("the right answer names its maker")
    session.vote("tie")
    return small_family, (one, first), (two, second)


def labels(ledger) -> dict[str, str]:
    return {s.system_id: s.label for s in catalog.systems(ledger, "small")}


def test_a_flag_lists_its_case_pair_as_seen_note_and_time(flagged):
    ledger, (one, first), (two, second) = flagged
    found = flags.family_flags(ledger, "small")
    assert [f.event_id for f in found] == [one, two]
    flag = found[0]
    names = labels(ledger)
    assert flag.case_id == first.case.case_id
    assert flag.presentation_id == first.presentation.presentation_id
    assert flag.left is not None and flag.right is not None
    assert (flag.left.output_id, flag.right.output_id) == (
        first.left.output_id,
        first.right.output_id,
    )
    assert (flag.left.system, flag.right.system) == (
        names[first.left.system_id],
        names[first.right.system_id],
    )
    assert flag.note == "the prompt is cut off" and flag.at and flag.status == "open"


def test_resolving_a_flag_is_a_retraction_and_reopening_raises_it_again(flagged):
    ledger, (one, _), _ = flagged
    done = flags.resolve(ledger, one[:10], reason="prompt fixed upstream")
    flag = flags.find_flag(ledger, one)
    assert flag.status == "resolved" and flag.resolved_by == done
    with pytest.raises(BadInput, match="already resolved"):
        flags.resolve(ledger, one)
    again = flags.undo_answer(ledger, one)
    reopened = flags.find_flag(ledger, again)
    assert reopened.status == "open" and reopened.note == flag.note
    assert reopened.presentation_id == flag.presentation_id


def test_retiring_or_removing_from_a_flag_answers_it_until_undone(flagged):
    ledger, (one, first), (two, second) = flagged
    retired = flags.retire_case(ledger, one, reason="broken prompt")
    assert flags.find_flag(ledger, one).status == "case retired"
    removed = flags.remove_output(ledger, two, "right", reason="names its maker")
    flag = flags.find_flag(ledger, two)
    assert flag.status == "right output removed"
    assert [e.event_id for e in flag.answers] == [removed]
    removed_event = flag.answers[0]
    assert removed_event.output_id == second.right.output_id
    flags.undo_answer(ledger, two)
    assert flags.find_flag(ledger, two).status == "open"
    flags.undo_answer(ledger, one)
    assert flags.find_flag(ledger, one).status == "open"
    assert retired != removed
    with pytest.raises(BadInput, match="nothing to undo"):
        flags.undo_answer(ledger, one)


def test_a_flag_that_is_not_one_is_refused(flagged):
    ledger, (one, _), _ = flagged
    retired = flags.retire_case(ledger, one, reason="broken prompt")
    with pytest.raises(BadInput, match="no flag"):
        flags.find_flag(ledger, retired)
    with pytest.raises(BadInput, match="left or right"):
        flags.remove_output(ledger, one, "middle", reason="x")


def test_arena_flags_lists_them_as_a_table_and_as_json(flagged, capsys):
    ledger, (one, first), (two, _) = flagged
    flags.resolve(ledger, two)
    path = ledger.path
    ledger.close()
    assert main(["--ledger", path, "flags", "--family", "small", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["flags"]
    assert [r["flag"] for r in rows] == [one, two]
    assert rows[0]["case_id"] == first.case.case_id and rows[0]["status"] == "open"
    assert rows[0]["left"]["output_id"] == first.left.output_id
    assert rows[1]["resolved"] is True
    assert main(["--ledger", path, "flags", "--open"]) == 0
    out = capsys.readouterr().out
    assert one[:12] in out and two[:12] not in out and "the prompt is cut off" in out
    assert main(["--ledger", path, "flags", "--family", "nope"]) == 2


def test_flags_are_in_the_round_export_and_it_still_verifies(flagged, tmp_path):
    ledger, (one, first), (two, _) = flagged
    flags.resolve(ledger, two, reason="fine after all")
    close_round(ledger, "small", RoundSettings())
    out = tmp_path / "bundle"
    export_round(ledger, out, family="small")
    files = read_bundle(out)
    rows = [json.loads(line) for line in files["flags.jsonl"].decode().splitlines()]
    assert [r["flag"] for r in rows] == [one, two]
    assert rows[0]["note"] == "the prompt is cut off"
    assert rows[0]["left"]["output_id"] == first.left.output_id
    assert rows[1]["status"] == "resolved"
    report = verify_bundle(out)
    assert report.problems == [], report.problems


def test_a_changed_flag_note_in_the_export_is_caught(flagged, tmp_path):
    ledger, (one, _), _ = flagged
    close_round(ledger, "small", RoundSettings())
    out = tmp_path / "bundle"
    export_round(ledger, out, family="small")
    path = out / "flags.jsonl"
    path.write_text(path.read_text("utf-8").replace("cut off", "fine"), "utf-8")
    rehash(out)
    report = verify_bundle(out, allow_unsigned=True)
    assert f"flags.jsonl: flag {one} differs from events.jsonl" in report.problems
