"""The family-scoped check: one moment of a ledger another process writes, and the seal
chain around the commits it reads."""

from __future__ import annotations

import sqlite3
from contextlib import nullcontext

from arena.intake.outputs import import_file
from arena.ledger import Ledger, soundness
from arena.ledger.integrity import check
from tests.conftest import native_line


def _answer(path, folder, label):
    """One more answer to c1, stored by the window (another connection, the writer)."""
    source = folder / f"{label}.jsonl"
    text = f"{label} explains c1 in a few plain English sentences for the reader."
    source.write_text(native_line("c1", label, text) + "\n", encoding="utf-8")
    with Ledger.open(path) as writer:
        import_file(writer, source, family="small", fmt="native")


def test_a_check_beside_a_writer_reads_one_moment(small_family, tmp_path, monkeypatch):
    """An export checks while the window writes: outputs committed after the commits
    were read are not taken for rows slipped in outside Arena."""
    path = small_family.path
    small_family.close()
    real = soundness.seal_spans._verify_table
    labels = iter(["delta", "epsilon"])

    def writing_meanwhile(db, table, spans, **kwargs):
        if table == "outputs":
            _answer(path, tmp_path, next(labels))
        return real(db, table, spans, **kwargs)

    monkeypatch.setattr(soundness.seal_spans, "_verify_table", writing_meanwhile)
    with Ledger.open(path, readonly=True) as reader:
        assert soundness.problems(reader, "small", soundness.FILL) == []
        # The control: without one read transaction, the new output is past every commit.
        monkeypatch.setattr(soundness, "_snapshot", lambda db: nullcontext())
        found = soundness.problems(reader, "small", soundness.FILL)
    assert any(line.startswith("outputs:") and "sealed by no commit" in line for line in found)


def test_an_edited_commit_is_found_around_the_rows_it_seals(small_family):
    (seq,) = small_family.conn.execute(
        "SELECT MAX(seq) FROM commits WHERE json_extract(tables, '$.outputs.to') IS NOT NULL"
    ).fetchone()
    path = small_family.path
    small_family.close()
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TRIGGER commits_no_update")
        conn.execute("UPDATE commits SET at = '2020-01-01T00:00:00.000+00:00' WHERE seq = ?", [seq])
    with Ledger.open(path, readonly=True) as reader:
        found = soundness.problems(reader, "small", soundness.FILL)
        checked = check(reader)
    assert f"commits: commit {seq}: its content does not match its hash (edited)" in found
    assert set(found) <= set(checked)
