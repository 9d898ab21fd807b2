"""A tested board's agent columns: the agent's own time and cost per solution beside the
test run's time, and a family whose systems do not share one agent."""

from __future__ import annotations

import json
import re

import pytest

from arena.cli.main import main
from arena.ledger import Ledger
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from arena.rounds.system_columns import cost_text
from tests.conftest import native_line
from tests.tested_helpers import add_trial, diff

# (task, system): (test result, the agent's latency_ms, cost); b did not answer t2.
ANSWERS = {
    ("t1", "a"): ("passed", 1200.0, 0.30),
    ("t2", "a"): ("failed", 4000.0, 0.50),
    ("t3", "a"): ("passed", 2000.0, None),
    ("t1", "b"): ("passed", 600.0, 0.10),
    ("t3", "b"): ("failed", 900.0, 0.20),
}
# The hidden tests' run on each solution, in ms: another time altogether.
TEST_RUNS = {("t1", "a"): 300.0, ("t2", "a"): 500.0, ("t3", "a"): 100.0}
TEST_RUNS |= {("t1", "b"): 800.0, ("t3", "b"): 200.0}


def _family(ledger, tmp_path, descriptors=None) -> None:
    lines = []
    for i, ((case, label), (result, latency, cost)) in enumerate(sorted(ANSWERS.items())):
        extra = {"is_diff": True, "test_result": result, "latency_ms": latency, "cost": cost}
        if i == 0:
            extra["family"] = {"name": "t", "kind": "tests_then_votes", "min_chars": 10}
        record = json.loads(native_line(case, label, diff(f"{label} on {case}"), **extra))
        record["system"].update((descriptors or {}).get(label, {}))
        lines.append(json.dumps(record))
    (tmp_path / "t.jsonl").write_text("\n".join(lines), encoding="utf-8")
    from arena.intake.outputs import import_file

    import_file(ledger, tmp_path / "t.jsonl", family="t", fmt="native")
    for (case, label), ms in TEST_RUNS.items():
        add_trial(ledger, "t", case, label, ANSWERS[case, label][0], duration_ms=ms)


def _text_board(text: str) -> dict[str, dict[str, str]]:
    """The rows of the text board printed, by system, as {header: cell}."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("rank"))
    spans = [m.span() for m in re.finditer(r"-+", lines[at + 1])]
    rows = {}
    for line in lines[at + 2 :]:
        if not re.match(r"\s*\d", line):
            break
        cells = {lines[at][a:b].strip(): line[a:b].strip() for a, b in spans}
        rows[cells["system"]] = cells
    return rows


def test_a_tests_then_votes_board_shows_the_agents_time_and_cost_per_solution(
    ledger_path, tmp_path, capsys
):
    with Ledger.open(ledger_path) as ledger:
        _family(ledger, tmp_path)
        closed = close_round(ledger, "t", RoundSettings())
    rows = {r.label: r for r in closed.board.systems}
    a, b = rows["a"], rows["b"]
    # By hand: a's agent ran 1200, 4000 and 2000 ms (median 2000); two of its three
    # solutions report a cost, 0.30 and 0.50 (mean 0.40). b answered two tasks: 600 and
    # 900 ms (median 750), 0.10 and 0.20 (mean 0.15); its third task counts for neither.
    assert (a.p50_latency_ms, a.cost_per_output) == (2000.0, pytest.approx(0.40))
    assert (b.p50_latency_ms, b.cost_per_output) == (750.0, pytest.approx(0.15))
    assert (a.solutions_timed, a.solutions_costed, b.solutions_timed, b.solutions_costed) == (
        3,
        2,
        2,
        2,
    )
    # The hidden tests' run is its own figure: 100, 300, 500 ms (a); 200, 800 ms (b).
    assert (a.p50_trial_ms, b.p50_trial_ms) == (300.0, 500.0)

    assert main(["--ledger", str(ledger_path), "round", "show", "--family", "t"]) == 0
    text = capsys.readouterr().out
    board = _text_board(text)
    assert board["a"]["cost / solution"] == "0.4" and board["b"]["cost / solution"] == "0.15"
    assert (board["a"]["agent p50"], board["b"]["agent p50"]) == ("2.0 s", "750 ms")
    assert (board["a"]["test run p50"], board["b"]["test run p50"]) == ("300 ms", "500 ms")
    assert "cost/trial" not in text and "p50 trial ms" not in text
    # a's cost is of two of its three solutions: the board says so.
    assert "a 3 timed, 2 costed of 3" in text and "b 2 timed" not in text

    assert main(["--ledger", str(ledger_path), "round", "show", "--family", "t", "--json"]) == 0
    shown = {r["label"]: r for r in json.loads(capsys.readouterr().out)["systems"]}
    assert shown["a"]["p50_latency_ms"] == 2000.0 and shown["a"]["p50_trial_ms"] == 300.0
    assert (shown["b"]["solutions_timed"], shown["b"]["no_output"]) == (2, 1)


MIXED = {
    "a": {"harness": "swe-agent", "turn_budget": 30},
    "b": {"harness": "openhands", "turn_budget": 30},
}


def test_a_family_mixing_two_harnesses_is_reported_by_status_round_close_and_show(
    ledger_path, tmp_path, capsys
):
    with Ledger.open(ledger_path) as ledger:
        _family(ledger, tmp_path, MIXED)
    said = "harness: swe-agent (a), openhands (b)"
    assert main(["--ledger", str(ledger_path), "status"]) == 0
    assert f"t: its systems do not share one agent and turn budget ({said})" in (
        capsys.readouterr().out
    )
    assert main(["--ledger", str(ledger_path), "status", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["families"][0]
    assert row["mixed_agents"]["harness"] == {"openhands": ["b"], "swe-agent": ["a"]}
    assert main(["--ledger", str(ledger_path), "round", "close", "--family", "t"]) == 0
    closing = capsys.readouterr().out
    assert f"warning: t: its systems do not share one agent and turn budget ({said})" in closing
    assert "--mixed-harness allow" in closing
    assert main(["--ledger", str(ledger_path), "round", "show", "--family", "t", "--json"]) == 0
    recorded = json.loads(capsys.readouterr().out)["settings"]["agents"]
    assert recorded == {
        "harness": {"openhands": ["b"], "swe-agent": ["a"]},
        "turn_budget": {"30": ["a", "b"]},
        "mixed_harness": "report",
    }

    # Allowed (a recorded change): the next round records it and nobody warns any more.
    allow = ["family", "set", "t", "--mixed-harness", "allow"]
    assert main(["--ledger", str(ledger_path), *allow]) == 0
    capsys.readouterr()
    assert main(["--ledger", str(ledger_path), "status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["families"][0]["mixed_agents"] is None
    assert main(["--ledger", str(ledger_path), "round", "close", "--family", "t"]) == 0
    closing = capsys.readouterr().out
    assert "warning" not in closing and "allowed by the family" in closing
    assert main(["--ledger", str(ledger_path), "round", "show", "--family", "t", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["agents"]["mixed_harness"] == "allow"


def test_one_agent_within_one_budget_warns_nobody(ledger_path, tmp_path, capsys):
    same = {"harness": "swe-agent", "turn_budget": 30}
    with Ledger.open(ledger_path) as ledger:
        _family(ledger, tmp_path, {"a": same, "b": same})
    assert main(["--ledger", str(ledger_path), "round", "close", "--family", "t"]) == 0
    closing = capsys.readouterr().out
    assert "warning" not in closing
    assert "agents: swe-agent, 30 turns (every system)" in closing


def test_mixed_harness_is_for_tested_families_and_takes_report_or_allow(ledger_path, capsys):
    assert main(["--ledger", str(ledger_path), "family", "create", "v"]) == 0
    assert (
        main(["--ledger", str(ledger_path), "family", "set", "v", "--mixed-harness", "allow"]) != 0
    )
    assert "--mixed-harness is for tests and tests_then_votes families" in (capsys.readouterr().err)
    create = ["family", "create", "w", "--kind", "tests", "--mixed-harness", "allow"]
    assert main(["--ledger", str(ledger_path), *create]) == 0
    capsys.readouterr()
    assert main(["--ledger", str(ledger_path), "family", "show", "w", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["mixed_harness"] == "allow"
    assert [c["setting"] for c in shown["changes"]] == ["mixed_harness"]


def test_a_cost_reads_in_figures_never_as_an_exponent():
    shown = [cost_text(v) for v in (4.03e-05, 0.0005902, 0.15, 0.4, 12.345, 1234.5, 0.0)]
    assert shown == ["0.0000403", "0.00059", "0.15", "0.4", "12.3", "1234", "0"]
