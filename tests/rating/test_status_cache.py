"""The status rows kept beside the ledger are those of the family as it stands: a write
to a family counts it again, and only it."""

from __future__ import annotations

import json
import sqlite3

import pytest

from arena.intake.outputs import FamilySettings, import_file
from arena.ledger import Ledger, catalog, events, family_changes, trial_store, verdicts
from arena.rating import corrections, status_cache, status_count
from arena.rating.session import RatingSession
from arena.rating.status import family_status
from arena.rating.status_count import full_status_row
from arena.records import GateResult, Trial
from tests.conftest import native_line

TEXT = "answers the question step by step, naming each part plainly for a new reader."
DIFF = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 0\n+a = {new}\n"
NAMES = ("a", "b", "t")


def _import(ledger, tmp_path, family, cases, systems=("x", "y", "z"), **settings):
    lines = [
        native_line(case, system, f"{system} on {case} {TEXT}", family={"name": family})
        for case in cases
        for system in systems
    ]
    path = tmp_path / f"{family}-{cases[0]}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    import_file(ledger, path, family=family, fmt="native", **settings)


@pytest.fixture
def rated(ledger, tmp_path):
    """Two votes families (a, b) of three systems on four cases, and a tested one (t)."""
    for family in ("a", "b"):
        _import(ledger, tmp_path, family, ("c1", "c2", "c3", "c4"))
    lines = [
        native_line(case, system, DIFF.format(new=n), is_diff=True, test_result="passed")
        for case in ("t1", "t2")
        for n, system in enumerate(("x", "y", "z"))
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    settings = FamilySettings(kind="tests_then_votes")
    import_file(ledger, path, family="t", fmt="native", settings=settings)
    return ledger


@pytest.fixture
def counted(monkeypatch):
    """The names of the families counted (not taken from the rows kept), call by call."""
    calls: list[list[str]] = []
    count = status_count.counted_rows

    def counting(ledger, families):
        calls.append([f.name for f in families])
        return count(ledger, families)

    monkeypatch.setattr(status_count, "counted_rows", counting)
    return calls


def _without_listing(rows):
    """The counts of status rows, without how each family is listed."""
    listed = ("aspect", "label", "archived", "rater", "rater_votes")
    return [{k: v for k, v in r.items() if k not in listed} for r in rows]


def _counts(ledger):
    return _without_listing(family_status(ledger))


def _recounted(ledger):
    return [full_status_row(ledger, name) for name in NAMES]


def _kept(ledger):
    return json.loads(status_cache.path_for(ledger.path).read_text("utf-8"))


def _reseal(ledger, kept):
    """``kept`` written back under a digest of its own, as an Arena would have."""
    body = {k: v for k, v in kept.items() if k != "digest"}
    sealed = status_cache._sealed(body["mark"], body["rows"])
    status_cache.path_for(ledger.path).write_text(json.dumps(sealed), "utf-8")


def _output(ledger, family, case="c1", system="x"):
    found = catalog.find_system(ledger, system, family)
    return next(
        o
        for o in catalog.outputs(ledger, family)
        if o.case_id == case and o.system_id == found.system_id
    )


def test_an_unchanged_ledger_answers_from_the_rows_kept(rated, counted):
    first = family_status(rated)
    assert counted == [list(NAMES)] and set(_kept(rated)["rows"]) == set(NAMES)
    assert family_status(rated) == first
    assert family_status(rated, "b") == first[1:2]
    assert counted == [list(NAMES)]


def test_a_vote_in_one_family_counts_that_family_only(rated, counted):
    before = _counts(rated)
    RatingSession(rated, "a", seed=1).vote("left")
    after = _counts(rated)
    assert counted[1:] == [["a"]]
    assert after[0]["votes"] == before[0]["votes"] + 1
    assert after[1:] == before[1:]
    assert after == _recounted(rated)


def _vote(ledger, family="a"):
    RatingSession(ledger, family, seed=1).vote("left")


def _failing_verdict(ledger):
    with ledger.atomic():
        failed = GateResult("length", False, "too short")
        verdicts.record_gate_results(ledger, [(_output(ledger, "a").output_id, [failed], None)])


def _event(kind):
    def write(ledger):
        with ledger.atomic():
            if kind == "retire_case":
                corrections.retire_case(ledger, "a", "c2", reason="duplicate")
            elif kind == "remove_output":
                output = _output(ledger, "a")
                corrections.remove_output(ledger, output.output_id, reason="wrong file")
            elif kind == "set_language":
                corrections.set_case_language(ledger, "a", "c3", "fr", reason="French prompt")
            else:
                events.add_event(ledger, "a", kind, output_id=_output(ledger, "a").output_id)

    return write


def _retract_event(ledger):
    (retired,) = [e for e in events.family_events(ledger, "a") if e.kind == "retire_case"]
    with ledger.atomic():
        corrections.retract(ledger, retired.event_id, reason="not a duplicate")


def _setting(setting, value):
    def write(ledger):
        with ledger.atomic():
            family_changes.add_change(ledger, "a", setting, value)

    return write


def _new_case(tmp_path):
    return lambda ledger: _import(ledger, tmp_path, "a", ("c5",))


def _trial(ledger):
    output = _output(ledger, "t", "t1")
    trial = Trial(
        trial_id=f"trial-{output.output_id}",
        family="t",
        case_id=output.case_id,
        system_id=output.system_id,
        sample=output.sample,
        output_id=output.output_id,
        result="failed",
        source="imported",
        at="2026-01-01T00:00:00Z",
    )
    with ledger.atomic():
        trial_store.add_trial(ledger, trial)


# (what is written first, unmeasured; the write; the family it goes to)
WRITES = {
    "a pair shown": (None, lambda ledger: RatingSession(ledger, "a", seed=1).current(), "a"),
    "a vote": (None, _vote, "a"),
    "a skip": (None, lambda ledger: RatingSession(ledger, "a", seed=1).skip(), "a"),
    "outputs imported": ("new case", None, "a"),
    "a gate verdict": (None, _failing_verdict, "a"),
    "a case retired": (None, _event("retire_case"), "a"),
    "an output removed": (None, _event("remove_output"), "a"),
    "a case's language set": (None, _event("set_language"), "a"),
    "a flag": (None, _event("flag"), "a"),
    "a correction retracted": (_event("retire_case"), _retract_event, "a"),
    "a setting changed": (None, _setting("min_chars", 5), "a"),
    "a kind changed": (None, _setting("kind", "graded"), "a"),
    "archived": (None, _setting("archived", True), "a"),
    "a test result": (None, _trial, "t"),
    "a vote in the tested family": (None, lambda ledger: _vote(ledger, "t"), "t"),
}


@pytest.mark.parametrize("what", WRITES)
def test_each_write_counts_its_family_again_and_no_other(rated, counted, tmp_path, what):
    setup, write, family = WRITES[what]
    if setup == "new case":
        setup, write = None, _new_case(tmp_path)
    if setup is not None:
        setup(rated)
    before = {r["name"]: r for r in family_status(rated, archived=True)}
    counted.clear()
    write(rated)
    after = {r["name"]: r for r in family_status(rated, archived=True)}
    assert counted == [[family]]
    assert {n: r for n, r in after.items() if n != family} == {
        n: r for n, r in before.items() if n != family
    }
    assert _without_listing(after[name] for name in NAMES) == _recounted(rated)


def test_a_pair_shown_or_an_undo_counts_its_family_again_and_no_other(rated, counted):
    """A presentation alone (a session's first pair), then a retraction alone."""
    session = RatingSession(rated, "a", seed=1)
    before = _counts(rated)
    counted.clear()
    session.current()
    assert _counts(rated) == before
    assert counted == [["a"]]
    session.vote("left")  # with the presentation of the pair after it
    voted = _counts(rated)
    counted.clear()
    session.undo()
    after = _counts(rated)
    assert counted == [["a"]]
    assert after[0]["votes"] == voted[0]["votes"] - 1 and after[1:] == voted[1:]
    assert after == _recounted(rated)


def test_the_writes_change_the_counts_they_should(rated):
    """The writes above are ones the counts see (else the test would prove little)."""
    before = _counts(rated)
    _vote(rated)
    _failing_verdict(rated)
    _event("retire_case")(rated)
    _trial(rated)
    after = _counts(rated)
    assert after[0]["votes"] == before[0]["votes"] + 1
    assert after[0]["gate_failures"] == before[0]["gate_failures"] + 1
    assert after[0]["cases"] == before[0]["cases"] - 1
    assert after[2]["untested_outputs"] == before[2]["untested_outputs"]
    assert after[2] != before[2]
    assert after == _recounted(rated)


def test_a_new_system_counts_the_families_its_outputs_go_to(rated, counted, tmp_path):
    """A system counts in a family only through its outputs there, which name the family."""
    family_status(rated)
    before = _counts(rated)
    _import(rated, tmp_path, "a", ("c6",), systems=("w",))
    after = _counts(rated)
    assert counted[1:] == [["a"]]
    assert after[0]["systems"] == before[0]["systems"] + 1 and after[1:] == before[1:]
    # The same system in another family later: that family, and only it.
    _import(rated, tmp_path, "b", ("c1",), systems=("w",))
    assert _counts(rated) == _recounted(rated)
    assert counted[2:] == [["b"]]


def test_a_suite_counts_in_no_family(rated, counted):
    """A suite names no family; no status row reads it (its runs and trials name theirs)."""
    from arena.ledger import run_store

    before = _counts(rated)
    with rated.atomic():
        run_store.store_suite(rated, "0" * 64, "suite", "1", "{}", "json")
    assert _counts(rated) == before == _recounted(rated)
    assert counted == [list(NAMES)]


def test_a_row_naming_no_family_counts_every_family(rated, counted):
    """A gate verdict of an output with no key row (which Arena never writes) names no
    family: any of them may hold the output."""
    family_status(rated)
    columns = [c[1] for c in rated.db.execute("PRAGMA table_info(outputs)")]
    copied = ", ".join({"output_id": "'loose'", "sample": "9"}.get(c, c) for c in columns)
    with rated.atomic():
        rated.db.execute(
            f"INSERT INTO outputs ({', '.join(columns)}) SELECT {copied} FROM outputs "
            "WHERE output_id = ?",
            [_output(rated, "a").output_id],
        )
        verdicts.record_gate_results(rated, [("loose", [GateResult("length", True, "")], None)])
    family_status(rated)
    assert counted[1:] == [list(NAMES)]


def test_a_write_while_counting_is_counted_next_time(rated, counted, monkeypatch):
    """The rows are kept under the mark taken before counting: a vote in b made while a
    is counted is above it."""
    family_status(rated)
    _vote(rated, "a")
    count = status_count.counted_rows

    def meanwhile(ledger, families):
        rows = count(ledger, families)
        _vote(ledger, "b")
        return rows

    monkeypatch.setattr(status_count, "counted_rows", meanwhile)
    family_status(rated)
    monkeypatch.setattr(status_count, "counted_rows", count)
    assert _counts(rated) == _recounted(rated)
    assert counted[1:] == [["a"], ["b"]]


def test_a_write_by_another_process_is_counted_again(rated, ledger_path):
    _counts(rated)
    with Ledger.open(ledger_path, readonly=True) as reader:
        assert family_status(reader)[0]["votes"] == 0
        RatingSession(rated, "a", seed=1).vote("tie")  # the window, beside it
        assert family_status(reader)[0]["votes"] == 1


def test_an_edited_file_of_kept_rows_is_set_aside(rated):
    truth = _counts(rated)
    kept = _kept(rated)
    kept["rows"]["a"]["pending_pairs"] += 5
    status_cache.path_for(rated.path).write_text(json.dumps(kept), "utf-8")
    assert _counts(rated) == truth
    status_cache.path_for(rated.path).write_text("{not json", "utf-8")
    assert _counts(rated) == truth
    assert _kept(rated)["rows"]["a"] == truth[0]


@pytest.mark.parametrize(
    "edit",
    [
        lambda mark: mark.update(commit=[mark["commit"][0], "0" * 64]),  # another history
        lambda mark: mark["newest"].update(votes=10**6),  # a table shrank
        lambda mark: mark["newest"].pop("votes"),  # a table new
        lambda mark: mark.update(schema=[mark["schema"][0] - 1, mark["schema"][1]]),
        lambda mark: mark.update(schema="not a mark"),
    ],
    ids=["another-history", "a-table-shrank", "a-table-new", "schema", "not-a-mark"],
)
def test_a_mark_the_ledger_cannot_follow_counts_every_family(rated, counted, edit):
    truth = _counts(rated)
    RatingSession(rated, "a", seed=1).vote("left")
    truth = _counts(rated)
    kept = _kept(rated)
    kept["rows"]["b"]["votes"] += 7  # what a family counted again would not say
    edit(kept["mark"])
    _reseal(rated, kept)
    counted.clear()
    assert _counts(rated) == truth
    assert counted == [list(NAMES)]


def test_rows_changed_in_place_behind_the_guards_are_counted_again(rated):
    """Changing a row means dropping its table's guard, which the mark sees although no
    table grew."""
    before = _counts(rated)
    conn = rated.conn
    (sql,) = conn.execute(
        "SELECT sql FROM sqlite_master WHERE name = 'output_keys_no_update'"
    ).fetchone()
    with rated.atomic():
        conn.execute("DROP TRIGGER output_keys_no_update")
        # Two answers of case c1 made identical: their pair settles.
        conn.execute(
            "UPDATE output_keys SET text_key = 'same' WHERE family = 'a' AND case_id = 'c1' "
            "AND system_id IN (SELECT system_id FROM output_keys WHERE family = 'a' "
            "AND case_id = 'c1' ORDER BY system_id LIMIT 2)"
        )
        conn.execute(sql)
    after = _counts(rated)
    assert after[0]["settled_pairs"] == before[0]["settled_pairs"] + 1
    assert after[0]["pending_pairs"] == before[0]["pending_pairs"] - 1


def test_a_copy_put_back_and_written_to_is_counted_again(rated, ledger_path, tmp_path):
    """The ledger restored from an older copy, then written to up to the same rowids:
    the commit marked is another one."""
    _counts(rated)
    copy, heads = tmp_path / "copy.sqlite", ledger_path.with_name(ledger_path.name + ".heads.json")
    with sqlite3.connect(copy) as backup:
        rated.conn.backup(backup)
    heads_then = heads.read_bytes()
    _vote(rated, "b")
    stale = _kept(rated)
    _counts(rated)
    kept_after_b = _kept(rated)
    rated.close()
    for suffix in ("-wal", "-shm"):
        ledger_path.with_name(ledger_path.name + suffix).unlink(missing_ok=True)
    copy.replace(ledger_path)
    heads.write_bytes(heads_then)
    with Ledger.open(ledger_path) as restored:
        _vote(restored, "a")  # the same rowids as b's vote had
        status_cache.path_for(restored.path).write_text(json.dumps(kept_after_b), "utf-8")
        assert stale["mark"] != kept_after_b["mark"]
        assert _counts(restored) == [full_status_row(restored, name) for name in NAMES]
        assert family_status(restored, "b")[0]["votes"] == 0


def test_status_works_where_nothing_can_be_kept(rated, monkeypatch):
    def refuse(*args):
        raise PermissionError("read-only folder")

    monkeypatch.setattr(status_cache.os, "replace", refuse)
    assert _counts(rated) == _recounted(rated)
    assert not status_cache.path_for(rated.path).exists()
