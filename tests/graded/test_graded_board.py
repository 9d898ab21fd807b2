"""A graded board to the letter: ranks by intervals, every figure shown, every figure verified."""

from __future__ import annotations

import json

import pytest

from arena.bundle.export import export_round
from arena.bundle.signing import SIGNATURE, load_or_create_key, sign
from arena.bundle.verify import verify_bundle
from arena.graded.board_rows import (
    failure_text,
    interval_ranks,
    score_row,
    shared_rank_lines,
)
from arena.graded.runs import board, collect_run
from arena.graded.suites import load_suite, parse_suite
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.bundle.rebundle import rehash
from tests.graded.fake_endpoint import Fail, FakeEndpoint, Reply
from tests.graded.test_graded import _script, _settings


@pytest.fixture(scope="module")
def starter():
    return load_suite("starter")


def _row(label, low, high, headline=None):
    mid = (low + high) / 2 if headline is None else headline
    return {"label": label, "ci95": [low, high], "headline": mid}


def test_a_rank_counts_the_runs_whose_interval_lies_entirely_above():
    rows = [
        _row("a", 0.70, 0.90),
        _row("b", 0.50, 0.75),  # overlaps a: shares rank 1
        _row("c", 0.60, 0.68),  # a lies above it, b does not: rank 2
        _row("d", 0.10, 0.30),  # all three lie above: rank 4
    ]
    assert interval_ranks(rows) == [1, 1, 2, 4]
    # A run without an interval cannot be told apart from any other.
    assert interval_ranks([_row("a", 0.9, 0.95), {"label": "x", "ci95": None}]) == [1, 1]


def test_the_sentence_says_why_runs_share_a_rank():
    rows = [_row("a", 0.70, 0.90), _row("b", 0.50, 0.75), _row("c", 0.1, 0.2)]
    for row, rank in zip(rows, interval_ranks(rows), strict=True):
        row["rank"] = rank
    (line,) = shared_rank_lines(rows)
    assert line == (
        "Rank 1 is shared by a (70.0% – 90.0%) and b (50.0% – 75.0%): their 95% intervals "
        "overlap, so the scores do not tell them apart."
    )


def _collect(ledger, suite, label, temperature, **script):
    with FakeEndpoint(_script(suite, **script)) as server:
        collect_run(
            ledger,
            suite,
            _settings(server.url, inference={"temperature": temperature}),
            label=label,
        )


def test_two_runs_with_the_same_answers_share_a_rank_and_a_clearly_better_one_does_not(
    ledger, starter
):
    tasks = [t.task_id for t in starter.tasks]
    _collect(ledger, starter, "best", 0.0)
    _collect(ledger, starter, "twin-a", 0.1, wrong=set(tasks[::2]))
    _collect(ledger, starter, "twin-b", 0.2, wrong=set(tasks[::2]))
    rows = {r["label"]: r for r in board(ledger, "starter", seed=5)}
    assert rows["twin-a"]["ci95"] == rows["twin-b"]["ci95"]
    assert rows["twin-a"]["rank"] == rows["twin-b"]["rank"] == 2
    assert rows["best"]["rank"] == 1
    assert rows["best"]["ci95"][0] > rows["twin-a"]["ci95"][1]
    assert [r["label"] for r in board(ledger, "starter", seed=5)] == ["best", "twin-a", "twin-b"]


WEIGHTED = """
name = "weighted"
[[tasks]]
id = "a1"
category = "alpha"
weight = 1
input = "Say A. End with 'Answer: A'."
grader = { kind = "exact", expected = "A" }
[[tasks]]
id = "a2"
category = "alpha"
weight = 3
input = "Say B. End with 'Answer: B'."
grader = { kind = "exact", expected = "B" }
[[tasks]]
id = "a3"
category = "alpha"
weight = 2
input = "Say C. End with 'Answer: C'."
grader = { kind = "exact", expected = "C" }
[[tasks]]
id = "b1"
category = "beta"
input = "Say D. End with 'Answer: D'."
grader = { kind = "exact", expected = "D" }
[[tasks]]
id = "b2"
category = "beta"
input = "Say E. End with 'Answer: E'."
grader = { kind = "exact", expected = "E" }
"""


def _receipt(task_id, status, credit, attempt_status="ok"):
    return {
        "task_id": task_id,
        "status": status,
        "credit": credit,
        "passed": credit == 1.0,
        "parsed_answer": None,
        "attempt_status": attempt_status,
    }


def test_unequal_weights_have_an_interval_and_failures_are_counted_by_status():
    suite = parse_suite(WEIGHTED, fmt="toml", source="weighted.toml")
    items = [
        _receipt("a1", "ok", 1.0),
        _receipt("a2", "parse_failure", 0.0),
        _receipt("a3", "ok", 1.0),
        _receipt("b1", "missing", 0.0, "http_error"),
        _receipt("b2", "timeout", 0.0, "timeout"),
    ]
    row = score_row(suite, items, seed=3)
    assert row["categories"] == {"alpha": pytest.approx(3 / 6), "beta": 0.0}
    low, high = row["ci95"]
    assert 0.0 <= low <= row["headline"] <= high <= 1.0 and low < high
    assert row["ci_method"] == "smoothed_t"
    assert row["status_counts"] == {
        "ok": 2,
        "parse_failure": 1,
        "timeout": 1,
        "refusal": 0,
        "missing": 1,
    }
    assert row["missing_reasons"] == {"http_error": 1}
    assert failure_text(row) == "parse_failure 1, timeout 1, missing 1 (http_error 1)"
    assert score_row(suite, items, seed=3) == row  # seeded: the same again


def _failing_run(ledger, starter):
    tasks = starter.tasks
    script = _script(starter)
    script[tasks[0].input] = [Reply("I can't help with that.")]  # refusal
    script[tasks[1].input] = [Reply("I think it is B.")]  # no answer line: parse failure
    script[tasks[2].input] = [Fail(500), Fail(500)]  # http_error: missing
    with FakeEndpoint(script) as server:
        collect_run(ledger, starter, _settings(server.url), label="shaky")
    _collect(ledger, starter, "steady", 0.3)


def test_round_show_and_grade_print_every_figure(ledger, starter, capsys):
    from arena.cli.main import main

    _failing_run(ledger, starter)
    close_round(ledger, "starter", RoundSettings(seed=2))
    path = ledger.path
    ledger.close()
    assert main(["--ledger", path, "round", "show", "--json"]) == 0
    shown = {r["label"]: r for r in json.loads(capsys.readouterr().out)["systems"]}
    shaky = shown["shaky"]
    assert shaky["status_counts"]["refusal"] == 1
    assert shaky["status_counts"]["parse_failure"] == 1
    assert shaky["status_counts"]["missing"] == 1
    assert shaky["missing_reasons"] == {"http_error": 1}
    assert shaky["ci_method"] == "smoothed_t" and len(shaky["categories"]) == 4
    assert shaky["rank"] == shown["steady"]["rank"] == 1
    assert main(["--ledger", path, "round", "show"]) == 0
    text = capsys.readouterr().out
    for shown_text in (
        "parse_failure 1, refusal 1, missing 1 (http_error 1)",
        "structured extraction",
        "21/24",
        "Rank 1 is shared by",
        "their 95% intervals overlap",
    ):
        assert shown_text in text, shown_text
    assert main(["--ledger", path, "grade", "starter", "--seed", "2"]) == 0
    graded = capsys.readouterr().out
    assert "Rank 1 is shared by" in graded and "refusal 1" in graded


def _export(ledger, starter, tmp_path):
    _failing_run(ledger, starter)
    close_round(ledger, "starter", RoundSettings(seed=9))
    out = tmp_path / "bundle"
    export_round(ledger, out, family="starter")
    return out


def _resign(out):
    """Rehash and sign again with the rater's own key: only the recomputation can object."""
    rehash(out)
    (out / SIGNATURE).write_bytes(sign((out / "manifest.json").read_bytes(), load_or_create_key()))


def _edit_board(out, label, **changes):
    board_json = json.loads((out / "board.json").read_text())
    (row,) = [r for r in board_json["systems"] if r["label"] == label]
    for key, value in changes.items():
        if isinstance(value, dict):
            row[key] = {**row[key], **value}
        else:
            row[key] = value
    (out / "board.json").write_text(json.dumps(board_json, sort_keys=True))
    _resign(out)


def test_an_exported_graded_round_verifies_with_its_new_figures(ledger, starter, tmp_path):
    out = _export(ledger, starter, tmp_path)
    board_json = json.loads((out / "board.json").read_text())
    (shaky,) = [r for r in board_json["systems"] if r["label"] == "shaky"]
    assert shaky["status_counts"]["refusal"] == 1 and shaky["rank"] == 1
    assert shaky["ci_method"] == "smoothed_t"
    report = verify_bundle(out)
    assert report.ok, report.problems


def test_verify_catches_an_edited_rank(ledger, starter, tmp_path):
    out = _export(ledger, starter, tmp_path)
    _edit_board(out, "shaky", rank=2)
    problems = verify_bundle(out).problems
    assert any("shaky rank: published 2, recomputed 1" in p for p in problems), problems


def test_verify_catches_an_edited_status_count(ledger, starter, tmp_path):
    out = _export(ledger, starter, tmp_path)
    _edit_board(out, "shaky", status_counts={"refusal": 0, "ok": 22})
    problems = verify_bundle(out).problems
    assert any("shaky status_counts" in p for p in problems), problems


def test_verify_catches_an_edited_interval_and_missing_reason(ledger, starter, tmp_path):
    out = _export(ledger, starter, tmp_path)
    _edit_board(out, "steady", ci95=[0.5, 1.0], missing_reasons={"timeout": 1})
    problems = verify_bundle(out).problems
    assert any("steady ci95" in p for p in problems), problems
    assert any("steady missing_reasons" in p for p in problems), problems


def test_a_round_closed_before_intervals_ranked_still_verifies(ledger, starter, tmp_path):
    """Older bundles: percentile intervals, ranks by order, no counts by status."""
    out = _export(ledger, starter, tmp_path)
    board_json = json.loads((out / "board.json").read_text())
    items = [json.loads(line) for line in (out / "receipts.jsonl").read_text().splitlines()]
    suite = load_suite("starter")
    rows = sorted(board_json["systems"], key=lambda r: (-r["headline"], r["label"]))
    for rank, row in enumerate(rows, start=1):
        mine = [i for i in items if i["system_id"] == row["system"]]
        old = score_row(suite, mine, seed=9, ci_method="percentile")
        for key in ("ci_method", "status_counts", "missing_reasons"):
            del row[key]
        row.update(old, rank=rank)
    board_json["systems"] = rows
    (out / "board.json").write_text(json.dumps(board_json, sort_keys=True))
    _resign(out)
    report = verify_bundle(out)
    assert report.ok, report.problems


def test_every_graded_key_of_round_show_is_documented():
    from pathlib import Path

    from arena.rounds.model import GRADED_KEYS

    doc = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text("utf-8")
    for key in ("rank", *GRADED_KEYS):
        assert f"| `{key}` |" in doc, key
