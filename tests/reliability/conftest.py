"""Fixtures of the reliability suite, and the figures each run reports.

Tests add their counts to ``figures`` (kills, crash images, inputs, secrets,
what was lost); they are printed at the end of the run and, when
``ARENA_RELIABILITY_FIGURES`` names a file, written there as JSON
(benchmarks/reliability_run.py uses that for docs/reliability.md).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from .helpers import build_ledger

FIGURES: dict[str, Counter] = {}


@pytest.fixture
def figures(request: pytest.FixtureRequest) -> Counter:
    """A counter of this test's figures, reported at the end of the run."""
    return FIGURES.setdefault(request.node.nodeid.split("::", 1)[-1], Counter())


@pytest.fixture(scope="session")
def template_ledger(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ledger with one family of 6 systems x 40 cases (600 pairs), made by the app."""
    return build_ledger(tmp_path_factory.mktemp("template") / "template.sqlite")


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if not FIGURES:
        return
    terminalreporter.section("reliability figures")
    for test, counts in sorted(FIGURES.items()):
        shown = ", ".join(f"{k}={v}" for k, v in sorted(counts.items()))
        terminalreporter.write_line(f"{test}: {shown}")
    out = os.environ.get("ARENA_RELIABILITY_FIGURES")
    if out:
        Path(out).write_text(
            json.dumps({t: dict(c) for t, c in FIGURES.items()}, indent=2, sort_keys=True) + "\n",
            encoding="utf-8",
        )
