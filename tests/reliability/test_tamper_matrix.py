"""The tamper matrix: every table of a ledger that has used every feature, edited the way a
careful person with the file would (guards dropped and recreated, chains recomputed), and
the rollbacks and rewrites that only a head digest from outside can catch.

Each edit must be reported by `arena check` naming the table edited: a finding about the
head file alone does not count.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from sqlite_utils import Database

from arena.bundle.export import export_round
from arena.collecting.systems_file import add_systems
from arena.errors import LedgerBehindHeadFile, UnsealedRows
from arena.graded.runs import collect_run
from arena.graded.suites import load_suite
from arena.intake.case_import import import_cases
from arena.intake.families import create_family
from arena.intake.family_settings import FamilySettings
from arena.judges.declared import judge_of
from arena.judges.importing import import_judge
from arena.judges.running import RunOptions as JudgeRunOptions
from arena.judges.running import run_judge
from arena.ledger import (
    Ledger,
    catalog,
    chain,
    events,
    family_changes,
    heads,
    rater_keys,
    seals,
    trial_store,
)
from arena.ledger.guards import APPEND_ONLY
from arena.ledger.integrity import check
from arena.rating.session import RatingSession
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.collecting.helpers import cases_file, systems_file
from tests.conftest import copy_ledger
from tests.graded.fake_endpoint import FakeEndpoint, Judging, Reply
from tests.graded.test_graded import _settings
from tests.reliability.helpers import slip_a_presentation
from tests.tested_helpers import TASK, add_trial, make_tests_family


@pytest.fixture(scope="module")
def everything(tmp_path_factory, template_ledger) -> Path:
    """A ledger with rows in every table: votes, undos, a flag, a correction, a closed
    round, a graded run, a tests family with a task and a trial, a votes family with
    cases and systems to collect from, a judge's verdict and a colleague's key."""
    path = copy_ledger(template_ledger, tmp_path_factory.mktemp("matrix") / "full.sqlite")
    starter = load_suite("starter")
    with Ledger.open(path) as ledger:
        session = RatingSession(ledger, "rel", seed=3)
        for choice in ("left", "right", "tie", "both_bad", "left", "right", "left"):
            session.vote(choice)
        session.undo()
        session.flag("looks odd")
        events.add_event(ledger, "rel", "retire_case", case_id="c39", note="typo")
        family_changes.add_change(ledger, "rel", "label", "Reliability", reason="readable")
        close_round(ledger, "rel", RoundSettings(seed=1))
        script = {t.input: [Reply(t.reference)] for t in starter.tasks}
        with FakeEndpoint(script) as server:
            collect_run(ledger, starter, _settings(server.url))
        close_round(ledger, "starter", RoundSettings(seed=1))
        make_tests_family(ledger, path.parent, {("t1", "a"): "passed", ("t1", "b"): "failed"})
        add_trial(ledger, "t", "t1", "b", "passed", log_tail="ok", log_hash="0" * 64)
        with ledger.atomic():
            trial_store.add_task(ledger, TASK)
            create_family(ledger, "col", FamilySettings(kind="votes", language="en"))
        import_cases(ledger, cases_file(path.parent, 2), family="col", fmt="native")
        add_systems(ledger, systems_file(path.parent, "http://127.0.0.1:9"), "col")
        first, second = (s.label for s in catalog.systems(ledger, "rel")[:2])
        verdicts = path.parent / "judge.jsonl"
        verdicts.write_text(
            json.dumps(
                {"case_id": "c1", "left_system": first, "right_system": second, "winner": "tie"}
            )
            + "\n"
        )
        import_judge(ledger, verdicts, family="rel", judge="colleague", kind="human")
        with FakeEndpoint(default=Judging(unparsed_every=3)) as server:  # a run judge
            run_judge(
                ledger,
                "rel",
                "gpt-judge",
                declared=judge_of(
                    {
                        "name": "gpt-judge",
                        "base_url": server.url,
                        "model": "m",
                        "template": "pairwise",
                    }
                ),
                options=JudgeRunOptions(sample=1),
            )
        with ledger.atomic():  # a colleague whose votes came in from their bundle
            key = rater_keys.RaterKey("dana", "ed25519:" + "d" * 32, "rater")
            rater_keys.add_rater_key(ledger, key, "5" * 64)
        ledger.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


@pytest.fixture
def full(tmp_path, everything) -> Path:
    return copy_ledger(everything, tmp_path / "ledger.sqlite")


def _tables(path: Path) -> list[str]:
    with Ledger.open(path, readonly=True) as ledger:
        return seals.sealed_tables(ledger.db)


TABLES = [
    "families", "systems", "cases", "outputs", "gate_results", "imports", "sessions",
    "presentations", "votes", "retractions", "events", "rounds", "round_items",
    "round_comparisons", "suites", "runs", "attempts", "grades", "tasks", "trials",
    "output_keys", "family_changes", "case_details", "family_systems", "judge_verdicts",
    "judge_sources", "rater_keys", "judge_descriptors", "judge_replies", "presentation_draws",
]  # fmt: skip


def test_the_matrix_covers_every_table(everything):
    assert sorted(_tables(everything)) == sorted(TABLES)
    with Ledger.open(everything, readonly=True) as ledger:
        empty = [t for t in TABLES if not ledger.db.execute(f"SELECT 1 FROM {t}").fetchone()]
        assert empty == [] and check(ledger) == []


def test_a_dropped_guard_of_any_table_is_reported(full):
    with sqlite3.connect(full) as conn:
        guards = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%_no_%'"
            )
        ]
    assert len(guards) > 3 * len(TABLES) // 2
    for name in guards:
        with sqlite3.connect(full) as conn:
            sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", [name]).fetchone()
            conn.execute(f"DROP TRIGGER {name}")
        with Ledger.open(full, readonly=True) as ledger:
            problems = check(ledger)
        with sqlite3.connect(full) as conn:
            conn.execute(sql[0])
        assert any(f"guard {name} is missing" in p for p in problems), (name, problems)


def _unguarded(conn: sqlite3.Connection, table: str, edit) -> None:
    """Run ``edit`` with ``table``'s triggers dropped, then put them back as they were."""
    triggers = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?", [table]
    ).fetchall()
    for name, _ in triggers:
        conn.execute(f"DROP TRIGGER {name}")
    edit(conn)
    for _, sql in triggers:
        conn.execute(sql)
    conn.commit()


def _columns(conn: sqlite3.Connection, table: str) -> list[tuple[str, str, int]]:
    return [(r[1], r[2].upper(), r[5]) for r in conn.execute(f"PRAGMA table_info({table})")]


def _key_columns(conn: sqlite3.Connection, table: str) -> set[str]:
    keys = {name for name, _, pk in _columns(conn, table) if pk}
    for index in conn.execute(f"PRAGMA index_list({table})"):
        if index[2]:  # unique
            keys |= {r[2] for r in conn.execute(f"PRAGMA index_info({index[1]})")}
    return keys


def _changed(value):
    if isinstance(value, str):
        return value + " (edited)"
    if isinstance(value, bytes):
        return value + b"\0"
    if isinstance(value, float):
        return value + 0.5
    return 1 if value is None else value + 1


def _update(table: str, where: str):
    def edit(conn: sqlite3.Connection) -> None:
        columns = _columns(conn, table)
        cols = [c for c, _, _ in columns]
        row = conn.execute(f"SELECT {', '.join(cols)} FROM {table} {where} LIMIT 1").fetchone()
        # The last column that holds content (not a key, not a hash).
        name, value = next(
            (c, v)
            for (c, _, pk), v in reversed(list(zip(columns, row, strict=True)))
            if v is not None and not pk and c not in ("hash", "prev_hash")
        )
        cond = " AND ".join(f"{c} IS ?" for c in cols)
        conn.execute(f"UPDATE {table} SET {name} = ? WHERE {cond}", [_changed(value), *row])

    return edit


def _delete(table: str, where: str):
    def edit(conn: sqlite3.Connection) -> None:
        cols = [c for c, _, _ in _columns(conn, table)]
        row = conn.execute(f"SELECT {', '.join(cols)} FROM {table} {where} LIMIT 1").fetchone()
        conn.execute(f"DELETE FROM {table} WHERE " + " AND ".join(f"{c} IS ?" for c in cols), row)

    return edit


def _insert(table: str):
    def edit(conn: sqlite3.Connection) -> None:
        columns = _columns(conn, table)
        names = [c for c, _, _ in columns]
        first = conn.execute(f"SELECT * FROM {table} LIMIT 1").fetchone()
        row = dict(zip(names, first, strict=True))
        keys = _key_columns(conn, table)
        primary = [(name, kind) for name, kind, pk in columns if pk]
        if len(primary) == 1 and primary[0][1] == "INTEGER":  # the rowid: take the next one
            keys.discard(primary[0][0])
            row[primary[0][0]] = None
        # A copy that differs in its keys only (not in a vocabulary its CHECK holds to).
        for key in keys - {"kind"}:
            value = row[key]
            row[key] = value + 10**9 if isinstance(value, int) else f"forged-{value}"
        marks = ", ".join("?" for _ in names)
        conn.execute(
            f"INSERT INTO {table} ({', '.join(names)}) VALUES ({marks})", list(row.values())
        )

    return edit


EDITS = {
    "update first": lambda t: _update(t, "ORDER BY rowid"),
    "update last": lambda t: _update(t, "ORDER BY rowid DESC"),
    "delete first": lambda t: _delete(t, "ORDER BY rowid"),
    "delete last": lambda t: _delete(t, "ORDER BY rowid DESC"),
    "insert": _insert,
}
# round_items has no rowid: its order is its key.
_ORDER = {"round_items": ("ORDER BY round_id, kind, seq", "ORDER BY round_id DESC, kind, seq")}


@pytest.mark.parametrize("edit", list(EDITS))
@pytest.mark.parametrize("table", TABLES)
def test_every_edit_of_every_table_is_found(full, table, edit, figures):
    make = EDITS[edit]
    if table in _ORDER and edit != "insert":
        first, last = _ORDER[table]
        kind = _update if edit.startswith("update") else _delete
        make = lambda t: kind(t, first if edit.endswith("first") else last)  # noqa: E731
    conn = sqlite3.connect(full)
    conn.execute("PRAGMA foreign_keys = OFF")
    _unguarded(conn, table, make(table))
    conn.close()
    with Ledger.open(full, readonly=True) as ledger:
        problems = check(ledger)
    figures["edits"] += 1
    assert any(p.startswith((f"{table}:", f"{table} seq")) for p in problems), problems
    figures["edits_found"] += 1


def _rechain(conn: sqlite3.Connection, table: str) -> None:
    """Recompute every hash of ``table``'s chains, as someone with Arena's code would."""
    conn.row_factory = sqlite3.Row
    last: dict[str, str] = {}
    for row in conn.execute(f"SELECT * FROM {table} ORDER BY seq").fetchall():
        values = dict(row)
        prev = last.get(values["family"], chain.GENESIS_HASH)
        digest = chain.row_hash(prev, values)
        conn.execute(
            f"UPDATE {table} SET prev_hash = ?, hash = ? WHERE seq = ?",
            [prev, digest, values["seq"]],
        )
        last[values["family"]] = digest
    conn.row_factory = None


@pytest.mark.parametrize("table", list(APPEND_ONLY))
def test_an_edit_with_its_chain_recomputed_is_found_by_the_seals(full, table):
    conn = sqlite3.connect(full)

    def edit(conn: sqlite3.Connection) -> None:
        _update(table, "ORDER BY rowid")(conn)
        _rechain(conn, table)

    _unguarded(conn, table, edit)
    conn.close()
    with Ledger.open(full, readonly=True) as ledger:
        problems = check(ledger)
        assert chain.verify(ledger.db) == []  # the chain alone is fooled
    assert any(p.startswith(f"{table}:") for p in problems), problems


def _reseal(conn: sqlite3.Connection) -> None:
    """Seal every row again in one first commit: the rewrite only an anchor catches."""
    conn.execute("DELETE FROM commits")
    seals.seal(Database(conn), {}, kind="genesis")


def test_a_full_rewrite_passes_check_but_not_an_earlier_head_digest(full):
    with Ledger.open(full, readonly=True) as ledger:
        digest = seals.head(ledger.db).hash
    conn = sqlite3.connect(full)

    def rewrite(conn: sqlite3.Connection) -> None:
        _update("votes", "ORDER BY rowid")(conn)
        _rechain(conn, "votes")

    _unguarded(conn, "votes", rewrite)
    _unguarded(conn, "commits", _reseal)
    conn.close()
    with Ledger.open(full) as ledger:  # the head file, rewritten too
        heads.write(ledger.path, heads.current(ledger.db))
        assert check(ledger) == []  # what the docs name as the one case seals cannot see
        problems = check(ledger, (digest,))
    assert len(problems) == 1 and "does not hold that state" in problems[0]


def test_a_rollback_with_its_head_file_is_caught_by_a_digest_or_a_bundle(full, tmp_path):
    saved = copy_ledger(full, tmp_path / "saved.sqlite")
    with Ledger.open(full) as ledger:
        RatingSession(ledger, "rel", seed=4).vote("left")
        close_round(ledger, "rel", RoundSettings(seed=2))
        digest = seals.head(ledger.db).hash
        export_round(ledger, tmp_path / "bundle", family="rel")
    shutil.copyfile(saved, full)
    shutil.copyfile(str(saved) + ".heads.json", str(full) + ".heads.json")
    Path(str(full) + "-wal").unlink(missing_ok=True)
    with Ledger.open(full, readonly=True) as ledger:
        assert check(ledger) == []  # an older ledger, consistent with its older head file
        assert "does not hold that state" in check(ledger, (digest,))[0]
    from arena.cli.main import main

    assert main(["--ledger", str(full), "check", "--bundle", str(tmp_path / "bundle")]) == 1


def test_a_ledger_behind_its_head_file_refuses_writes_until_the_loss_is_accepted(full, capsys):
    from arena.cli.main import main

    conn = sqlite3.connect(full)
    _unguarded(conn, "votes", _delete("votes", "ORDER BY rowid DESC"))
    conn.close()
    with Ledger.open(full) as ledger, pytest.raises(LedgerBehindHeadFile):
        RatingSession(ledger, "rel", seed=5).vote("left")
    assert main(["--ledger", str(full), "check", "--accept-loss", "--reason", "x"]) != 0
    capsys.readouterr()  # refused: a removed row is more than a loss of the newest rows


def test_lost_newest_rows_are_accepted_with_a_reason_and_writing_goes_on(full, tmp_path, capsys):
    from arena.cli.main import main

    saved = copy_ledger(full, tmp_path / "saved.sqlite")
    with Ledger.open(full) as ledger:
        RatingSession(ledger, "rel", seed=4).vote("left")
    shutil.copyfile(saved, full)  # the database rolled back, its head file not
    Path(str(full) + "-wal").unlink(missing_ok=True)
    with Ledger.open(full) as ledger, pytest.raises(LedgerBehindHeadFile, match="newest rows"):
        RatingSession(ledger, "rel", seed=5).vote("left")
    assert main(["--ledger", str(full), "check"]) == 1
    assert "newest rows are gone" in capsys.readouterr().out
    reason = "restored from last night's copy"
    assert main(["--ledger", str(full), "check", "--accept-loss", "--reason", reason]) == 0
    with Ledger.open(full) as ledger:
        RatingSession(ledger, "rel", seed=5).vote("left")
        assert check(ledger) == []
        (note,) = ledger.db.execute("SELECT note FROM commits WHERE kind = 'accepted_loss'")
    assert reason in note[0] and "newest rows are gone" in note[0]


def test_a_deleted_head_file_is_a_finding_and_stops_writes(full):
    heads.path_for(str(full)).unlink()
    with Ledger.open(full, readonly=True) as ledger:
        assert any("head file" in p and "missing" in p for p in check(ledger))
    with Ledger.open(full) as ledger, pytest.raises(LedgerBehindHeadFile, match="missing"):
        RatingSession(ledger, "rel", seed=5).vote("left")


def test_a_row_slipped_in_with_the_guards_in_place_is_never_sealed_by_the_next_write(full):
    """A forged pair shown, continuing its chain, passes every trigger; the next write must
    not seal it as Arena's own."""
    conn = sqlite3.connect(full)
    slip_a_presentation(conn)
    conn.commit()
    conn.close()
    with Ledger.open(full) as ledger:
        assert chain.verify(ledger.db) == []  # the chain is fooled
        assert any(p.startswith("presentations:") and "outside" in p for p in check(ledger))
        with pytest.raises(UnsealedRows, match="presentations"):
            RatingSession(ledger, "rel", seed=5).vote("left")
        assert any(p.startswith("presentations:") and "outside" in p for p in check(ledger))
