"""Small ledgers with votes, for the board tests and the Xvfb screenshots.

``prose`` has six systems in two categories: alpha, beta and gamma voted on in four
sessions (gamma loses every vote, so it lands far behind), delta and epsilon voted
only against each other (not connected to the anchor, alpha), and zeta never voted on.
Gamma reports no latency, so its p50 latency is missing.
``patches`` is a tests-then-votes family of diffs with test results.
"""

from __future__ import annotations

import json
from pathlib import Path

from arena.intake.outputs import FamilySettings, import_file
from arena.intake.votes import import_votes
from arena.ledger import Ledger, events
from tests.conftest import native_line
from tests.ui.conftest import diff_text

SYSTEMS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta")
CATEGORIES = {"explain": ("e0", "e1", "e2", "e3"), "code": ("k0", "k1", "k2", "k3")}
COST = {"alpha": 0.0021, "beta": 0.0009, "gamma": 0.0004, "delta": 0.003, "epsilon": 0.0015}
LATENCY = {"alpha": 1840.0, "beta": 920.0, "delta": 2300.0, "zeta": 700.0}


def _answer(system: str, case: str) -> str:
    if system == "beta" and case == "k3":
        return ""  # fails the Empty gate
    # Lengths differ by system so the length-bias figure has something to measure.
    words = 12 + 6 * SYSTEMS.index(system) + len(case)
    return f"{system} answers {case}: " + " ".join(["a clear explanation"] * (words // 3))


def _prose_outputs(path: Path) -> Path:
    lines = []
    for category, cases in CATEGORIES.items():
        for case in cases:
            for system in SYSTEMS:
                if case == "k3" and system in ("delta", "epsilon", "zeta"):
                    continue  # beta's empty k3 output settles pairs; keep these apart
                extra = {"category": category, "prompt": f"Explain {case} in plain English."}
                if system in COST:
                    extra["cost"] = COST[system]
                if system in LATENCY:
                    extra["latency_ms"] = LATENCY[system] + 10 * len(lines)
                lines.append(native_line(case, system, _answer(system, case), **extra))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _vote(case: str, left: str, right: str, choice: str, session: int, **extra) -> dict:
    return {
        "case_id": case,
        "left_system": left,
        "right_system": right,
        "choice": choice,
        "session": session,
        "actor": "rater",
        "shown_at": "2026-11-01T10:00:00Z",
        "voted_at": "2026-11-01T10:00:20Z",
        **extra,
    }


def _prose_votes(path: Path) -> Path:
    votes = []
    cases = [c for group in CATEGORIES.values() for c in group if c != "k3"]
    for i, case in enumerate(cases):
        session = 1 + i % 4
        votes.append(_vote(case, "alpha", "beta", "left" if i % 3 else "right", session))
        votes.append(_vote(case, "gamma", "alpha", "right", session))
        votes.append(_vote(case, "gamma", "beta", "right", session))
        votes.append(_vote(case, "beta", "gamma", "both_bad" if i == 3 else "left", session))
        votes.append(_vote(case, "delta", "epsilon", "left" if i % 2 else "tie", session))
    # Repeats with sides swapped (repeat_of is a line number): the first two agree with
    # the original vote, the third does not.
    votes.append(_vote("e0", "beta", "alpha", "left", 4, repeat_of=1))
    votes.append(_vote("e0", "alpha", "gamma", "left", 4, repeat_of=2))
    votes.append(_vote("e1", "beta", "alpha", "left", 4, repeat_of=6))
    path.write_text("\n".join(json.dumps(v) for v in votes) + "\n", encoding="utf-8")
    return path


def _patch_outputs(path: Path) -> Path:
    lines = []
    results = {
        "alpha": ("passed", "passed", "passed", "failed"),
        "beta": ("passed", "failed", "passed", "errored"),
        "gamma": ("passed", "passed", "failed", "failed"),
    }
    for c in range(4):
        for v, (system, outcome) in enumerate(results.items()):
            lines.append(
                native_line(
                    f"t{c}",
                    system,
                    diff_text(f"mod{c}", 3 + 2 * v, v),
                    is_diff=True,
                    test_result=outcome[c],
                    cost=0.01 * (v + 1),
                    latency_ms=1000.0 * (v + 1),
                )
            )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _patch_votes(path: Path) -> Path:
    votes = [
        _vote("t0", "alpha", "beta", "left", 1),
        _vote("t0", "gamma", "alpha", "right", 2),
        _vote("t0", "beta", "gamma", "left", 1),
        _vote("t2", "alpha", "beta", "tie", 2),
    ]
    path.write_text("\n".join(json.dumps(v) for v in votes) + "\n", encoding="utf-8")
    return path


def build_board_ledger(path: Path, folder: Path) -> Path:
    """A ledger with the ``prose`` and ``patches`` families and their votes (no round yet)."""
    with Ledger.open(path) as ledger:
        import_file(
            ledger,
            _prose_outputs(folder / "prose.jsonl"),
            family="prose",
            fmt="native",
            settings=FamilySettings(reference="alpha"),
        )
        import_votes(ledger, _prose_votes(folder / "prose-votes.jsonl"), family="prose")
        # Its votes stay in the ledger but are left out of the fit ("retired_case").
        events.add_event(ledger, "prose", "retire_case", case_id="e3")
        import_file(
            ledger,
            _patch_outputs(folder / "patches.jsonl"),
            family="patches",
            fmt="native",
            settings=FamilySettings(kind="tests_then_votes", max_chars=200_000),
        )
        import_votes(ledger, _patch_votes(folder / "patch-votes.jsonl"), family="patches")
    return path
