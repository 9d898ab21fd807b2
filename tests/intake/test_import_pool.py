"""Gating an import in worker processes gives the ledger exactly what gating in-process does."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.errors import BadInput
from arena.intake import gate_pool, outputs
from arena.intake.outputs import import_file
from arena.ledger import Ledger
from arena.rating.corrections import set_case_language
from arena.records import Case, CaseId, Family, Output, OutputId, SystemId
from tests.conftest import REPO, native_line

ENGLISH = (
    "The answer walks through the question step by step, naming each part plainly "
    "so that a reader new to the subject can follow it without trouble."
)
FRENCH = (
    "La réponse reprend la question pas à pas, en nommant chaque partie simplement "
    "afin qu'un lecteur novice puisse la suivre sans aucune difficulté."
)
CHINESE = "這個答案一步一步地說明問題，讓初學者也能輕鬆理解每個部分的意思。"
RUSSIAN_PROMPT = (
    "Объясните простыми словами, почему небо голубое, и приведите два примера "
    "из повседневной жизни, которые помогают это понять."
)
CODE = "```python\n# ajoute les totaux de chaque ligne\nprint(sum([1, 2, 3]))\n```"
TEXTS = [
    ENGLISH,
    FRENCH,
    CHINESE,
    f"{ENGLISH}\n\n{CODE}",
    "",
    ENGLISH * 12,
    "```\nunclosed fence\n" + ENGLISH,
    f"# Heading\n\n- {FRENCH}\n- {ENGLISH}",
]


def _lines(cases: range, labels: tuple[str, ...]) -> list[str]:
    lines = []
    for label in labels:  # by system, so a case comes back in later batches
        for index in cases:
            prompt = RUSSIAN_PROMPT if index % 7 == 0 else f"Explain topic {index}."
            text = TEXTS[(index + len(label)) % len(TEXTS)]
            lines.append(
                native_line(
                    f"c{index}",
                    label,
                    f"{label} {index}: {text}" if text else "",
                    prompt=prompt,
                    finish_reason="length" if index % 11 == 0 else "stop",
                    family={"name": "f", "language": "en", "min_chars": 5, "max_chars": 900},
                )
            )
    return lines


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _rows(ledger: Ledger) -> dict[str, list[tuple]]:
    """Every row an import writes, in the order written, without times and import ids."""
    sql = {
        "systems": "SELECT system_id, label, descriptor FROM systems ORDER BY rowid",
        "cases": "SELECT * FROM cases ORDER BY rowid",
        "outputs": "SELECT output_id, family, case_id, system_id, sample, text, content_hash, "
        "is_diff, finish_reason, latency_ms, cost, prompt_tokens, completion_tokens, "
        "test_result FROM outputs ORDER BY rowid",
        "gate_results": "SELECT seq, output_id, gate, passed, reason, fingerprint "
        "FROM gate_results ORDER BY seq",
        "imports": "SELECT family, path, format, file_sha256, records, added FROM imports "
        "ORDER BY rowid",
    }
    return {table: [tuple(row) for row in ledger.db.execute(query)] for table, query in sql.items()}


def _import_twice(tmp_path: Path, ledger_path: Path, workers: int) -> dict[str, list[tuple]]:
    """A new family, a rater's correction, then a second file with old and new cases."""
    first = _write(tmp_path / "first.jsonl", _lines(range(0, 60), ("alpha", "beta", "gamma")))
    second = _write(
        tmp_path / "second.jsonl",
        _lines(range(40, 90), ("alpha", "delta")) + _lines(range(0, 3), ("alpha",)),
    )
    with Ledger.open(ledger_path) as ledger:
        reports = [import_file(ledger, first, family="f", fmt="native", workers=workers)]
        set_case_language(ledger, "f", "c41", "fr")
        reports.append(import_file(ledger, second, family="f", fmt="native", workers=workers))
        rows = _rows(ledger)
    rows["reports"] = [tuple(vars(report).values()) for report in reports]
    return rows


@pytest.mark.parametrize("start_method", ["spawn", "fork"])
def test_the_pool_writes_the_same_rows_as_gating_in_process(tmp_path, monkeypatch, start_method):
    if start_method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {start_method} here")
    monkeypatch.setattr(outputs, "_BATCH_OUTPUTS", 16)  # many batches in flight at once
    monkeypatch.setattr(gate_pool, "START_METHOD", start_method)
    alone = _import_twice(tmp_path, tmp_path / "alone.sqlite", workers=0)
    pooled = _import_twice(tmp_path, tmp_path / "pooled.sqlite", workers=2)
    assert pooled == alone
    assert len(alone["outputs"]) == 3 * 60 + 30 + 50  # 20 of alpha's are already in
    # Every output once, and the three of c41 again when the rater set its language.
    assert len(alone["gate_results"]) == 5 * (len(alone["outputs"]) + 3)
    failed = {gate for _, _, gate, passed, _, _ in alone["gate_results"] if not passed}
    assert failed == {"empty", "truncated", "length", "language"}
    assert any(row[5] == "ru" for row in alone["cases"])  # detected from the prompt
    assert not multiprocessing.active_children()


def test_small_files_are_gated_in_process_and_large_ones_on_every_core(monkeypatch):
    monkeypatch.setattr(gate_pool, "cores", lambda: 2)
    assert gate_pool.workers_for(1 << 20, None) == 0
    assert gate_pool.workers_for(gate_pool.POOL_MIN_BYTES, None) == 2
    assert gate_pool.workers_for(1 << 30, 0) == 0
    assert gate_pool.workers_for(10, 1) == 1
    assert gate_pool.workers_for(10, 3) == 3
    monkeypatch.setattr(gate_pool, "cores", lambda: 1)
    assert gate_pool.workers_for(1 << 30, None) == 0


def _ledger_bytes(path: Path) -> bytes:
    with Ledger.open(path) as ledger:
        ledger.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path.read_bytes()


def test_a_bad_line_late_in_the_file_changes_nothing_and_stops_the_workers(tmp_path, monkeypatch):
    monkeypatch.setattr(outputs, "_BATCH_OUTPUTS", 16)
    ledger_path = tmp_path / "ledger.sqlite"
    Ledger.open(ledger_path).close()
    before = _ledger_bytes(ledger_path)
    lines = _lines(range(0, 100), ("alpha", "beta"))
    changed = json.loads(lines[194])
    changed["output"] = "The same output again, with other content."
    path = _write(tmp_path / "bad.jsonl", [*lines, json.dumps(changed)])
    with Ledger.open(ledger_path) as ledger, pytest.raises(BadInput) as caught:
        import_file(ledger, path, family="f", fmt="native", workers=2)
    assert (caught.value.path, caught.value.line, caught.value.field) == (str(path), 201, "output")
    assert "already in the ledger with different content" in str(caught.value)
    assert not multiprocessing.active_children()
    assert _ledger_bytes(ledger_path) == before


def test_ctrl_c_during_an_import_changes_nothing_and_stops_the_workers(tmp_path, monkeypatch):
    monkeypatch.setattr(outputs, "_BATCH_OUTPUTS", 16)
    ledger_path = tmp_path / "ledger.sqlite"
    Ledger.open(ledger_path).close()
    before = _ledger_bytes(ledger_path)
    path = _write(tmp_path / "big.jsonl", _lines(range(0, 400), ("alpha", "beta")))
    detect = outputs.detect_case_language

    def interrupted(prompt: str, language: str) -> tuple[str, str] | None:
        if len(multiprocessing.active_children()) == 2:  # while the workers gate
            raise KeyboardInterrupt
        return detect(prompt, language)

    monkeypatch.setattr(outputs, "detect_case_language", interrupted)
    with Ledger.open(ledger_path) as ledger, pytest.raises(KeyboardInterrupt):
        import_file(ledger, path, family="f", fmt="native", workers=2)
    assert not multiprocessing.active_children()
    assert _ledger_bytes(ledger_path) == before


def test_batches_a_dead_worker_had_are_gated_here_with_the_same_results():
    family = Family("f", language="en", min_chars=5, max_chars=900)
    case = Case("f", CaseId("c"), "k", "Explain.")
    batches = [
        [
            (Output(OutputId(f"o{b}-{i}"), "f", CaseId("c"), SystemId("s"), 0, text), case)
            for i, text in enumerate((TEXTS * 2)[b % len(TEXTS) :][:3])
        ]
        for b in range(12)
    ]
    with gate_pool.Gating(2) as gating:
        for batch in batches[:4]:
            gating.submit(family, batch)
        for process in multiprocessing.active_children():
            process.kill()
        for batch in batches[4:]:
            gating.submit(family, batch)
        found = gating.drain()
    assert [verdicts for _, verdicts in found] == [
        gate_pool.evaluate_batch(family, batch) for batch in batches
    ]
    assert gating.workers == 0 and not multiprocessing.active_children()


ORPHAN = """
import sys, time
from arena.intake import gate_pool
from arena.records import Case, Family, Output

if __name__ == "__main__":
    gating = gate_pool.Gating(2)
    case = Case("f", "c", "k", "prompt")
    for _ in range(4):
        output = Output("o", "f", "c", "s", 0, "Some plain English text. " * 1000)
        gating.submit(Family("f"), [(output, case)] * 50)
    gating.drain()
    print(*(p.pid for p in gating._pool._processes.values()), flush=True)
    time.sleep(60)
"""


def _gone(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "State:\tZ" in status  # exited, not yet reaped by whoever adopted it


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_workers_end_when_the_importing_process_is_killed(tmp_path):
    script = tmp_path / "orphan.py"
    script.write_text(ORPHAN, encoding="utf-8")
    child = subprocess.Popen(
        [sys.executable, str(script)], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    pids = [int(pid) for pid in child.stdout.readline().split()]
    assert pids and not any(_gone(pid) for pid in pids)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    deadline = time.monotonic() + 10
    while not all(_gone(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(_gone(pid) for pid in pids)
