"""`arena import-votes`: good logs come in once; any bad line changes nothing."""

import hashlib
import json
from pathlib import Path

import pytest

from arena.errors import BadInput
from arena.intake.votes import import_votes
from arena.ledger import voting

GOOD = {
    "case_id": "c1",
    "left_system": "alpha",
    "right_system": "beta",
    "choice": "left",
    "session": "monday",
    "actor": "ann",
    "shown_at": "2026-11-01T10:00:00Z",
    "voted_at": "2026-11-01T10:00:30Z",
}


def _write(tmp_path, records, name="v.jsonl"):
    path = tmp_path / name
    path.write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records), encoding="utf-8"
    )
    return path


def _bytes(ledger):
    ledger.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return hashlib.sha256(Path(ledger.path).read_bytes()).hexdigest()


def test_votes_come_in_with_sessions_actors_and_repeats(small_family, tmp_path):
    path = _write(
        tmp_path,
        [
            GOOD,
            {
                **GOOD,
                "left_system": "beta",
                "right_system": "alpha",
                "choice": "right",
                "session": "tuesday",
                "repeat_of": 1,
            },
        ],
    )
    report = import_votes(small_family, path, family="small")
    assert (report.records, report.votes_added, report.sessions_added) == (2, 2, 2)
    first, repeat = voting.votes_in_force(small_family, "small")
    assert (first.actor, first.active_ms, repeat.repeat_of) == ("ann", 30_000, first.vote_id)
    assert [s.number for s in voting.sessions(small_family, "small")] == [1, 2]
    again = import_votes(small_family, path, family="small")
    assert again.votes_added == 0 and small_family.db["votes"].count == 2


@pytest.mark.parametrize(
    "change, match",
    [
        ({"choice": "better"}, ":2: choice: expected one of"),
        ({"case_id": "nope"}, ":2: case_id: no case"),
        ({"left_system": "zeta"}, ":2: left_system: no system 'zeta'"),
        ({"right_system": "alpha"}, ":2: right_system: a vote needs two different outputs"),
        ({"left_sample": 3}, ":2: left_system: this system has no such output"),
        ({"voted_at": "2026-11-01T09:00:00Z"}, ":2: voted_at: is before shown_at"),
        ({"shown_at": "yesterday"}, ":2: shown_at: not an ISO 8601 time"),
        ({"shown_at": "2026-11-01T10:00:00"}, ":2: shown_at: give the time zone"),
        ({"actor": "settler"}, ":2: actor:"),
        ({"repeat_of": 7}, ":2: repeat_of: expected the line number"),
        ({"colour": "red"}, ":2: colour: unknown field$"),
        ({"session": None}, ":2: session: expected a session name"),
        ({"actor": "ann\u0000"}, ":2: actor: holds U\\+0000"),
        ({"session": "mon\nday"}, ":2: session: holds U\\+000A"),
    ],
)
def test_a_bad_vote_is_named_and_nothing_is_added(small_family, tmp_path, change, match):
    ok = {**GOOD, "case_id": "c2"}
    path = _write(tmp_path, [ok, {**GOOD, **change}])
    before = _bytes(small_family)
    with pytest.raises(BadInput, match=match):
        import_votes(small_family, path, family="small")
    assert _bytes(small_family) == before


def test_a_misspelt_field_is_named_with_the_field_it_may_be(small_family, tmp_path):
    misspelt = {k: v for k, v in GOOD.items() if k != "choice"} | {"choise": GOOD["choice"]}
    path = _write(tmp_path, [misspelt])
    with pytest.raises(BadInput, match=r":1: choise: unknown field \(did you mean 'choice'\?\)"):
        import_votes(small_family, path, family="small")


def test_a_line_repeated_in_the_file_is_refused(small_family, tmp_path):
    with pytest.raises(BadInput, match=":2: \\(record\\): the same vote as line 1"):
        import_votes(small_family, _write(tmp_path, [GOOD, GOOD]), family="small")


def test_votes_need_the_family_to_exist(ledger, tmp_path):
    with pytest.raises(BadInput, match="import its outputs first"):
        import_votes(ledger, _write(tmp_path, [GOOD]), family="small")


def test_the_same_repeat_line_after_another_original_is_a_new_vote(small_family, tmp_path):
    repeat = {**GOOD, "left_system": "beta", "right_system": "alpha", "repeat_of": 1}
    import_votes(small_family, _write(tmp_path, [GOOD, repeat], "a.jsonl"), family="small")
    other_first = {**GOOD, "choice": "tie"}
    report = import_votes(
        small_family, _write(tmp_path, [other_first, repeat], "b.jsonl"), family="small"
    )
    assert report.votes_added == 2
    repeats = [v for v in voting.votes_in_force(small_family, "small") if v.repeat_of]
    assert len({v.repeat_of for v in repeats}) == 2
