"""Tests families: every system judged on every task, trials in force, and their board."""

from __future__ import annotations

import json
import zipfile

import pytest

from arena import family_state
from arena.bundle import recheck
from arena.bundle.export import export_round
from arena.bundle.report import VerifyReport
from arena.bundle.verify import verify_bundle
from arena.cli.main import main
from arena.errors import BadInput
from arena.ledger import Ledger
from arena.rounds.closing import close_round
from arena.rounds.comparisons import family_comparisons
from arena.rounds.model import RoundSettings
from tests.tested_helpers import add_trial, make_tests_family

ALL = RoundSettings()


def _row(closed, label):
    return next(r for r in closed.board.systems if r.label == label)


def test_a_task_not_answered_counts_as_a_failed_trial_and_ties_with_one(ledger, tmp_path):
    # Both pass one task; "skipper" did not answer the two "steady" failed.
    make_tests_family(
        ledger,
        tmp_path,
        {
            ("t1", "steady"): "passed",
            ("t2", "steady"): "failed",
            ("t3", "steady"): "failed",
            ("t1", "skipper"): "passed",
        },
    )
    closed = close_round(ledger, "t", ALL)
    steady, skipper = _row(closed, "steady"), _row(closed, "skipper")
    assert steady.pass_rate == skipper.pass_rate == pytest.approx(1 / 3)
    assert (skipper.trials, skipper.trials_passed, skipper.no_output) == (3, 1, 2)
    assert (steady.trials, steady.no_output) == (3, 0)
    assert steady.points == skipper.points and steady.rank == skipper.rank
    comparisons = family_comparisons(ledger, family_state.load(ledger, "t"))
    assert list(comparisons["y"][comparisons["rule"].isin("no_output")]) == [0.5, 0.5]


def test_the_newest_trial_has_the_say_over_an_imported_result(ledger, tmp_path):
    make_tests_family(ledger, tmp_path, {("t1", "a"): "passed", ("t1", "b"): "failed"})
    add_trial(ledger, "t", "t1", "a", "timed_out", duration_ms=900.0)
    add_trial(ledger, "t", "t1", "b", "failed", duration_ms=100.0)
    add_trial(ledger, "t", "t1", "b", "passed", duration_ms=300.0)
    state = family_state.load(ledger, "t")
    assert sorted(o.test_result for o in state.in_force) == ["passed", "timed_out"]
    closed = close_round(ledger, "t", ALL)
    a, b = _row(closed, "a"), _row(closed, "b")
    # A timed-out trial counts as failed; the p50 is of the trials in force.
    assert (a.pass_rate, b.pass_rate) == (0.0, 1.0)
    assert (a.p50_trial_ms, b.p50_trial_ms) == (900.0, 300.0)
    assert b.points > a.points


def test_a_round_is_refused_while_outputs_have_no_result_unless_allowed(ledger, tmp_path):
    make_tests_family(ledger, tmp_path, {("t1", "a"): "passed", ("t1", "b"): None})
    with pytest.raises(BadInput, match="1 outputs .* no test result.*--allow-missing"):
        close_round(ledger, "t", ALL)
    closed = close_round(ledger, "t", ALL, allow_missing=True)
    assert (_row(closed, "b").untried, _row(closed, "b").pass_rate) == (1, 0.0)
    add_trial(ledger, "t", "t1", "b", "failed")
    assert close_round(ledger, "t", ALL).round_id != closed.round_id


def test_a_tests_board_shows_the_run_and_no_vote_columns(ledger_path, tmp_path, capsys):
    with Ledger.open(ledger_path) as ledger:
        make_tests_family(
            ledger,
            tmp_path,
            {("t1", "a"): "passed", ("t2", "a"): "failed", ("t1", "b"): "failed"},
            descriptors={"a": {"harness": "swe-agent", "turn_budget": 30}},
        )
        closed = close_round(ledger, "t", ALL)
    assert not any(r.preliminary for r in closed.board.systems)
    assert _row(closed, "a").run == "swe-agent, 30 turns"
    assert _row(closed, "b").run == "test/b"
    assert main(["--ledger", str(ledger_path), "round", "show", "--family", "t"]) == 0
    text = capsys.readouterr().out
    header = next(line for line in text.splitlines() if line.lstrip().startswith("rank"))
    assert "run" in header and "pass rate" in header and "cost / solution" in header
    assert "votes" not in header and "both bad" not in header and "preliminary" not in text
    assert "b 1 + 0" in text  # b's unanswered task, counted as failed
    assert main(["--ledger", str(ledger_path), "round", "show", "--family", "t", "--json"]) == 0
    shown = {r["label"]: r for r in json.loads(capsys.readouterr().out)["systems"]}
    assert (shown["a"]["trials"], shown["a"]["trials_passed"], shown["b"]["no_output"]) == (2, 1, 1)


def test_a_bundle_carries_the_trials_in_force_at_closing(ledger_path, tmp_path):
    with Ledger.open(ledger_path) as ledger:
        make_tests_family(ledger, tmp_path, {("t1", "a"): "failed", ("t1", "b"): "failed"})
        add_trial(ledger, "t", "t1", "a", "passed")
        close_round(ledger, "t", ALL)
        add_trial(ledger, "t", "t1", "b", "passed")  # after closing: not in this round
        export_round(ledger, tmp_path / "t.zip", family="t")
    report = verify_bundle(tmp_path / "t.zip")
    assert report.ok, report.problems
    with zipfile.ZipFile(tmp_path / "t.zip") as z:
        files = {n: z.read(n) for n in z.namelist()}
    trials = [json.loads(line) for line in files["trials.jsonl"].splitlines()]
    assert [t["result"] for t in trials] == ["passed"]
    outputs = [json.loads(line) for line in files["outputs.jsonl"].splitlines()]
    assert sorted(o["test_result"] for o in outputs) == ["failed", "passed"]
    # An outputs file that disagrees with the trials is caught.
    files["outputs.jsonl"] = files["outputs.jsonl"].replace(b'"passed"', b'"failed"')
    found = VerifyReport()
    recheck.check_trials(files, found)
    assert found.problems and "trials.jsonl" in found.problems[0]


def test_status_counts_untested_outputs_and_unanswered_tasks(ledger_path, tmp_path, capsys):
    with Ledger.open(ledger_path) as ledger:
        make_tests_family(
            ledger, tmp_path, {("t1", "a"): "passed", ("t2", "a"): None, ("t1", "b"): "failed"}
        )
    assert main(["--ledger", str(ledger_path), "status", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["families"][0]
    assert (row["untested_outputs"], row["unanswered_tasks"]) == (1, 1)
    assert main(["--ledger", str(ledger_path), "status"]) == 0
    text = capsys.readouterr().out
    assert "t: 1 outputs have no test result" in text and "arena tests run --family t" in text
