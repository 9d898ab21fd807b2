"""Write only from a sound ledger (issue 43, item 3): edits made with the guards dropped
and put back, which `arena check` reports, stop `round close`, `export`, `collect`,
`judges import` and `import-votes` with the lines `arena check` prints, and nothing is
written, signed or sent. Each attack is run again with the check switched off, to show
that the check is what stops it: the close and the signed export then go through, and
`collect` sends the rater's key to the endpoint written into the ledger."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.judges.importing import import_judge
from arena.ledger import Ledger, catalog, family_changes, round_store, soundness
from arena.rating.session import RatingSession
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.collecting.helpers import KEY, make_family
from tests.conftest import copy_ledger
from tests.graded.fake_endpoint import FakeEndpoint
from tests.reliability.helpers import file_digest
from tests.tested_helpers import add_trial, make_tests_family

# What is edited, in which family's rows: the family, the table and the edit.
TAMPERS = {
    "a judge's verdict flipped": (
        "rel",
        "judge_verdicts",
        "UPDATE judge_verdicts SET winner = CASE winner WHEN 'left' THEN 'right' ELSE 'left' "
        "END WHERE seq = (SELECT MIN(seq) FROM judge_verdicts)",
    ),
    "a failed trial made passed": (
        "t",
        "trials",
        "UPDATE trials SET result = 'passed' WHERE result = 'failed'",
    ),
    "a family setting rewritten": (
        "rel",
        "family_changes",
        "UPDATE family_changes SET value = '40' WHERE setting = 'max_chars'",
    ),
}


@pytest.fixture(scope="module")
def built(tmp_path_factory, template_ledger) -> Path:
    """Family rel with votes, a changed setting and a judge's verdicts; tests family t with
    a failed trial. No round is closed yet."""
    folder = tmp_path_factory.mktemp("sound")
    path = copy_ledger(template_ledger, folder / "ledger.sqlite")
    with Ledger.open(path) as ledger:
        session = RatingSession(ledger, "rel", seed=3)
        for choice in ("left", "right", "tie", "left", "right", "left"):
            session.vote(choice)
        family_changes.add_change(ledger, "rel", "max_chars", 4000, reason="longer answers")
        first, second = (s.label for s in catalog.systems(ledger, "rel")[:2])
        verdicts = folder / "judge.jsonl"
        verdicts.write_text(
            "".join(
                json.dumps(
                    {"case_id": f"c{i}", "left_system": first, "right_system": second, "winner": w}
                )
                + "\n"
                for i, w in enumerate(("left", "right", "tie", "left"))
            )
        )
        import_judge(ledger, verdicts, family="rel", judge="colleague", kind="human")
        results = {("t1", "a"): "passed", ("t1", "b"): "passed", ("t2", "a"): "failed"}
        make_tests_family(ledger, folder, {**results, ("t2", "b"): "passed"})
        add_trial(ledger, "t", "t1", "b", "failed", log_tail="1 failed", log_hash="0" * 64)
        ledger.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


@pytest.fixture
def ledger_path(tmp_path, built) -> Path:
    return copy_ledger(built, tmp_path / "ledger.sqlite")


def tamper(path: Path, table: str, sql: str) -> None:
    """Run ``sql`` with ``table``'s guards dropped, then put them back as they were."""
    conn = sqlite3.connect(path)
    guards = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?", [table]
    ).fetchall()
    for name, _ in guards:
        conn.execute(f"DROP TRIGGER {name}")
    assert conn.execute(sql).rowcount >= 1
    for _, create in guards:
        conn.execute(create)
    conn.commit()
    conn.close()


def switch_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """The defence switched off: every write path goes on as before issue 43."""
    monkeypatch.setattr(soundness, "require_sound", lambda *args, **kwargs: None)


def arena(path: Path, *args: str) -> int:
    return main(["--ledger", str(path), *args])


def refused_as_check_says(path: Path, table: str, capsys: pytest.CaptureFixture) -> list[str]:
    """The lines the refusal printed: all of them lines of `arena check`, one naming the
    table edited, and its exit code check's."""
    said = capsys.readouterr().err.splitlines()
    assert said[0].startswith("arena: ") and "nothing was written, signed or sent" in said[0]
    lines = said[1:]
    code = arena(path, "check")
    checked = capsys.readouterr().out.splitlines()
    assert code == 1 and lines and set(lines) <= set(checked), (lines, checked)
    assert any(line.startswith(f"{table}:") for line in lines), lines
    return lines


def rounds(path: Path, family: str) -> int:
    with Ledger.open(path, readonly=True) as ledger:
        return len(round_store.rounds(ledger, family))


@pytest.mark.parametrize("attack", list(TAMPERS))
def test_a_tampered_family_is_not_closed(ledger_path, attack, capsys, monkeypatch):
    family, table, sql = TAMPERS[attack]
    tamper(ledger_path, table, sql)
    before = file_digest(ledger_path)
    assert arena(ledger_path, "round", "close", "--family", family) == 1
    refused_as_check_says(ledger_path, table, capsys)
    assert rounds(ledger_path, family) == 0
    assert file_digest(ledger_path) == before
    switch_off(monkeypatch)
    assert arena(ledger_path, "round", "close", "--family", family) == 0
    assert rounds(ledger_path, family) == 1


@pytest.mark.parametrize("attack", list(TAMPERS))
def test_a_tampered_family_is_not_exported(ledger_path, attack, tmp_path, capsys, monkeypatch):
    family, table, sql = TAMPERS[attack]
    with Ledger.open(ledger_path) as ledger:
        close_round(ledger, family, RoundSettings())
    tamper(ledger_path, table, sql)
    before = file_digest(ledger_path)
    bundle = tmp_path / "bundle.zip"
    assert arena(ledger_path, "export", "--family", family, "--out", str(bundle)) == 1
    refused_as_check_says(ledger_path, table, capsys)
    assert not bundle.exists() and list(tmp_path.glob(".bundle*")) == []
    assert file_digest(ledger_path) == before
    # Switched off, the edited rows go out in a bundle signed as the rater's.
    switch_off(monkeypatch)
    assert arena(ledger_path, "export", "--family", family, "--out", str(bundle)) == 0
    assert "signed by" in capsys.readouterr().out and bundle.is_file()


def test_a_close_with_nothing_new_is_refused_after_an_edit(ledger_path, monkeypatch, capsys):
    """A close that would restate the last round still writes and publishes it: an edit
    made since stops it as it stops any close."""
    family, table, sql = TAMPERS["a failed trial made passed"]
    with Ledger.open(ledger_path) as ledger:
        first = close_round(ledger, family, RoundSettings())
    tamper(ledger_path, table, sql)
    before = file_digest(ledger_path)
    assert arena(ledger_path, "round", "close", "--family", family) == 1
    refused_as_check_says(ledger_path, table, capsys)
    assert file_digest(ledger_path) == before
    # Switched off, the close restates the board worked out before the edit.
    switch_off(monkeypatch)
    with Ledger.open(ledger_path) as ledger:
        assert close_round(ledger, family, RoundSettings()).board == first.board


def test_guards_left_dropped_stop_a_close_with_nothing_new(ledger_path, capsys):
    with Ledger.open(ledger_path) as ledger:
        close_round(ledger, "rel", RoundSettings())
    with sqlite3.connect(ledger_path) as conn:
        conn.execute("DROP TRIGGER votes_no_update")
    assert arena(ledger_path, "round", "close", "--family", "rel") == 1
    assert "votes: the append-only guard votes_no_update is missing" in capsys.readouterr().err


def test_an_endpoint_edited_in_the_ledger_is_never_sent_the_key(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ARENA_COLLECT_TEST_KEY", KEY)
    path = tmp_path / "collect.sqlite"
    with FakeEndpoint() as honest, FakeEndpoint() as elsewhere:
        make_family(path, tmp_path, honest.url, cases=2)
        moved = f"replace(descriptor, '{honest.url}', '{elsewhere.url}')"
        tamper(path, "systems", f"UPDATE systems SET descriptor = {moved}")
        assert arena(path, "collect", "--family", "fam") == 1
        assert honest.requests == [] and elsewhere.requests == []
        refused_as_check_says(path, "systems", capsys)
        switch_off(monkeypatch)
        arena(path, "collect", "--family", "fam")
        sent = {r.headers.get("Authorization") for r in elsewhere.requests}
    assert honest.requests == [] and sent == {f"Bearer {KEY}"}


def _verdicts(folder: Path, first: str, second: str) -> Path:
    path = folder / "model.jsonl"
    line = {"case_id": "c5", "left_system": first, "right_system": second, "winner": "left"}
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    return path


def _vote_log(folder: Path, first: str, second: str) -> Path:
    path = folder / "votes.jsonl"
    line = {
        "case_id": "c7",
        "left_system": first,
        "right_system": second,
        "choice": "right",
        "session": "elsewhere",
        "actor": "rater",
        "shown_at": "2026-01-02T10:00:00+00:00",
        "voted_at": "2026-01-02T10:00:09+00:00",
    }
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["judges import", "import-votes"])
def test_a_tampered_family_takes_no_verdicts_or_votes(
    ledger_path, command, tmp_path, capsys, monkeypatch
):
    family, table, sql = TAMPERS["a family setting rewritten"]
    with Ledger.open(ledger_path, readonly=True) as ledger:
        first, second = (s.label for s in catalog.systems(ledger, family)[:2])
    if command == "judges import":
        args = ["judges", "import", str(_verdicts(tmp_path, first, second))]
        args += ["--family", family, "--judge", "model", "--kind", "model"]
    else:
        args = ["import-votes", str(_vote_log(tmp_path, first, second)), "--family", family]
    tamper(ledger_path, table, sql)
    before = file_digest(ledger_path)
    assert arena(ledger_path, *args) == 1
    refused_as_check_says(ledger_path, table, capsys)
    assert file_digest(ledger_path) == before
    switch_off(monkeypatch)
    assert arena(ledger_path, *args) == 0
    assert file_digest(ledger_path) != before
