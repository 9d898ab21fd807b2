"""Every reader, fed hostile files through the command line as a user would.

Each reader (verdict files of every format, a systems file, a vote log, outputs of every
import format, case files) gets its valid file made hostile: empty, an id holding NUL, a
NaN, nesting 100,000 deep, cut short. Each must end with a nonzero exit code and one line
`FILE:LINE: …` on stderr (`FILE: …` for a file with nothing in it), no traceback, and the
ledger byte for byte as it was. The same file with a byte order mark, CRLF line ends or (a
JSON array) written on one line must be read as the file itself.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from arena.cli.main import main
from tests.conftest import copy_ledger

DEEP = "[" * 100_000 + "]" * 100_000
NAN = float("nan")
_DEEP_MARK = "\ue000deep\ue000"  # stands for DEEP until the file is written


@dataclass(frozen=True)
class Reader:
    """A reader's command, a valid file for it (records, laid out as ``layout``) and the
    fields the hostile variants change: an id, a number, any value (for nesting)."""

    argv: tuple[str, ...]  # FILE stands for the file
    name: str  # the file's name
    layout: str  # jsonl, array, csv or toml
    records: list[dict[str, Any]]
    id_field: str
    number_field: str
    nested_field: str | None = None
    extra: dict[str, str] = field(default_factory=dict)  # other files beside it


JUDGE = ("judges", "import", "FILE", "--family", "f", "--judge", "j", "--kind", "model")
VOTE = {"case_id": "1", "left_system": "a", "right_system": "b", "choice": "left",
        "session": "s", "actor": "ann", "shown_at": "2026-01-01T00:00:00Z",
        "voted_at": "2026-01-01T00:00:05Z", "left_sample": 0}  # fmt: skip
NEW = ("import", "FILE", "--family", "g", "--create")

READERS = {
    "verdicts native": Reader(JUDGE, "v.jsonl", "jsonl", [
        {"case_id": "1", "left_system": "a", "right_system": "b", "winner": "left", "game": 1},
        {"case_id": "2", "left_system": "b", "right_system": "a", "winner": "tie", "game": 1},
    ], "case_id", "game"),
    "verdicts fastchat-pair": Reader((*JUDGE, "--format", "fastchat-pair"), "p.jsonl", "jsonl", [
        {"question_id": 1, "model_1": "a", "model_2": "b", "g1_winner": "model_1",
         "g2_winner": "model_2", "turn": 1},
    ], "question_id", "turn"),
    "verdicts fastchat-single": Reader((*JUDGE, "--format", "fastchat-single"), "s.jsonl",
                                       "jsonl", [
        {"question_id": 1, "model": "a", "score": 8, "turn": 1},
        {"question_id": 1, "model": "b", "score": 5, "turn": 1},
    ], "model", "score"),
    "verdicts arena-hard": Reader((*JUDGE, "--format", "arena-hard", "--baseline", "a"),
                                  "h.jsonl", "jsonl", [
        {"question_id": 1, "model": "b", "games": [{"score": "A>B"}, {"score": "B>>A"}]},
    ], "question_id", "games.0.score"),
    "verdicts pandalm": Reader((*JUDGE, "--format", "pandalm", "--column", "annotator2"),
                               "testset.json", "array", [
        {"idx": 1, "cmp_key": "a_b", "annotator1": 1, "annotator2": 2},
        {"idx": 2, "cmp_key": "b_a", "annotator1": 0, "annotator2": 0},
    ], "idx", "annotator2"),
    "systems file": Reader(("systems", "add", "FILE", "--family", "f"), "systems.toml", "toml", [
        {"label": "c", "base_url": "http://127.0.0.1:9/v1", "model": "m", "temperature": 0.5,
         "samples": 2},
    ], "label", "temperature"),
    "votes": Reader(("import-votes", "FILE", "--family", "f"), "votes.jsonl", "jsonl", [
        VOTE, {**VOTE, "case_id": "2", "choice": "right"},
    ], "actor", "left_sample"),
    "outputs native": Reader(NEW, "o.jsonl", "jsonl", [
        {"case": {"id": "n1", "prompt": "p"}, "system": {"label": "a", "model": "a"},
         "output": "an answer", "latency_ms": 12},
        {"case": {"id": "n2", "prompt": "p"}, "system": {"label": "a", "model": "a"},
         "output": "another", "latency_ms": 7},
    ], "case.id", "latency_ms", "system.inference"),
    "outputs alpacaeval": Reader((*NEW, "--format", "alpacaeval"), "model_outputs.json",
                                 "array", [
        {"instruction": "Say hi.", "output": "hi", "generator": "a", "dataset": "d"},
        {"instruction": "Say bye.", "output": "bye", "generator": "a", "dataset": "d"},
    ], "generator", "price", "dataset"),
    "outputs csv": Reader((*NEW, "--format", "csv"), "o.csv", "csv", [
        {"case_id": "n1", "prompt": "p", "system": "a", "output": "an answer", "cost": "0.5"},
        {"case_id": "n2", "prompt": "p", "system": "a", "output": "another", "cost": "0.25"},
    ], "case_id", "cost"),
    "outputs fastchat": Reader((*NEW, "--format", "fastchat"), "model_answer/a.jsonl", "jsonl", [
        {"question_id": 1, "model_id": "a", "choices": [{"index": 0, "turns": ["t"]}],
         "tstamp": 1.5},
        {"question_id": 2, "model_id": "a", "choices": [{"index": 0, "turns": ["u"]}],
         "tstamp": 2.5},
    ], "model_id", "tstamp", "choices", extra={"question.jsonl": "".join(
        json.dumps({"question_id": q, "category": "c", "turns": [f"question {q}"]}) + "\n"
        for q in (1, 2))}),
    "outputs swebench": Reader((*NEW, "--format", "swebench"), "predictions_for_swebench.json",
                               "array", [
        {"instance_id": "o__r-1", "model_name_or_path": "m", "model_patch": "--- a\n+++ b\n"},
        {"instance_id": "o__r-2", "model_name_or_path": "m", "model_patch": None},
    ], "instance_id", "cost", "model_patch"),
    "cases native": Reader(("case", "import", "FILE", "--family", "f"), "c.jsonl", "jsonl", [
        {"id": "k1", "prompt": "p", "metadata": {"n": 1}},
        {"id": "k2", "prompt": "q", "metadata": {"n": 2}},
    ], "id", "metadata.n", "metadata"),
    "cases alpacaeval": Reader(("case", "import", "FILE", "--family", "f", "--format",
                                "alpacaeval"), "eval.json", "array", [
        {"instruction": "Say hi.", "output": "hi", "generator": "ref", "dataset": "d"},
    ], "instruction", "price", "dataset"),
}  # fmt: skip


def _set(record: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A deep copy of ``record`` with the value at the dotted ``path`` set."""
    record = json.loads(json.dumps(record))
    keys = [int(k) if k.isdigit() else k for k in path.split(".")]
    where: Any = record
    for key in keys[:-1]:
        where = where[key]
    where[keys[-1]] = value
    return record


def _toml(value: Any) -> str:
    if isinstance(value, float) and value != value:
        return "nan"
    return _DEEP_MARK if value == _DEEP_MARK else json.dumps(value)


def _text(reader: Reader, records: list[dict[str, Any]], *, compact: bool = False) -> str:
    if reader.layout == "jsonl":
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    elif reader.layout == "array":
        text = json.dumps(records, separators=(",", ":") if compact else None,
                          indent=None if compact else 2, ensure_ascii=False)  # fmt: skip
    elif reader.layout == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(records[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: "nan" if v != v else v for k, v in r.items()} for r in records)
        text = out.getvalue()
    else:
        text = "".join(
            "[[system]]\n" + "".join(f"{k} = {_toml(v)}\n" for k, v in r.items()) for r in records
        )
    return text.replace(f'"{_DEEP_MARK}"', DEEP).replace(_DEEP_MARK, DEEP)


def _variants(reader: Reader) -> dict[str, tuple[bytes, bool]]:
    """Each variant of the reader's valid file: its bytes and whether it must be read."""
    good = _text(reader, reader.records)
    last = reader.records[-1]
    named = [*reader.records[:-1], _set(last, reader.id_field, f"{_get(last, reader.id_field)}\0")]
    hostile = {
        "empty": "",
        "NUL in an id": _text(reader, named),
        "NaN": _text(reader, [*reader.records[:-1], _set(last, reader.number_field, NAN)]),
        # Cut inside the last record's first value: never a whole record.
        "cut short": good[: good.rindex(_first_value(reader, good))],
    }
    if reader.layout != "csv":  # CSV has no nesting
        deep = _set(last, reader.nested_field or reader.number_field, _DEEP_MARK)
        hostile["nested 100,000 deep"] = _text(reader, [*reader.records[:-1], deep])
    valid = {"as it is": good, "CRLF": good.replace("\n", "\r\n")}
    if reader.layout == "array":
        valid["on one line"] = _text(reader, reader.records, compact=True)
    found = {name: (text.encode(), False) for name, text in hostile.items()}
    found |= {name: (text.encode(), True) for name, text in valid.items()}
    found["byte order mark"] = (b"\xef\xbb\xbf" + good.encode(), True)
    return found


def _get(record: dict[str, Any], path: str) -> Any:
    for key in path.split("."):
        record = record[int(key)] if key.isdigit() else record[key]
    return record


def _first_value(reader: Reader, text: str) -> str:
    """A piece of the last record that cutting before leaves it unfinished."""
    if reader.layout == "csv":
        return text.splitlines()[-1][1:]
    if reader.layout == "toml":
        return '"http'  # inside the last table, before its base_url is written
    return ":" if reader.layout == "jsonl" else '": '


CASES = [(r, v) for r in READERS for v in _variants(READERS[r])]


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """Family f: cases 1 and 2 (FastChat's integer ids), systems a and b answering both."""
    folder = tmp_path_factory.mktemp("template")
    ledger = folder / "ledger.sqlite"
    outputs = folder / "o.jsonl"
    outputs.write_text("".join(
        json.dumps({"case": {"id": c, "prompt": f"question {c}"}, "system": {"label": s,
                    "model": s}, "output": f"answer of {s} to {c}"}) + "\n"
        for c in ("1", "2") for s in ("a", "b")), encoding="utf-8")  # fmt: skip
    assert main(["--ledger", str(ledger), "import", str(outputs), "--family", "f", "--create"]) == 0
    return ledger


def _digest(ledger: Path) -> str:
    with sqlite3.connect(ledger) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return hashlib.sha256(ledger.read_bytes()).hexdigest()


@pytest.mark.parametrize(("reader", "variant"), CASES, ids=[f"{r}: {v}" for r, v in CASES])
def test_a_reader_refuses_a_hostile_file_by_its_line_and_reads_a_valid_one_in_any_layout(
    reader, variant, template, tmp_path, capsys
):
    spec = READERS[reader]
    data, valid = _variants(spec)[variant]
    path = tmp_path / spec.name
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)
    for name, text in spec.extra.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    ledger = copy_ledger(template, tmp_path / "ledger.sqlite")
    before = _digest(ledger)
    argv = ["--ledger", str(ledger), *(str(path) if a == "FILE" else a for a in spec.argv)]
    capsys.readouterr()
    try:
        code = main(argv)
    except BaseException as exc:  # what would reach the user as a traceback
        pytest.fail(f"{reader}, {variant}: {type(exc).__name__}: {exc}")
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    if valid:
        assert code == 0, err
        return
    where = r"(:\d+)?" if variant == "empty" else r":\d+"
    assert code != 0 and re.fullmatch(rf"arena: {re.escape(str(path))}{where}: .+\n", err), err
    assert _digest(ledger) == before
