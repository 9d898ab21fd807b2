"""Imports paid only where used: what `arena status`, `arena --help` and `arena round close`
load, each in a fresh interpreter.

SciPy's import is most of a short command's time (``scipy.stats`` alone 0.6 s of CPU,
formatting its distributions' docstrings): status and help load none of it, a round close
no ``scipy.stats``; help loads no numpy either (the round's text is loaded by the commands
that print one).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ARCHIVE = Path(__file__).resolve().parent / "fixtures" / "boards_before" / "ledgers.tar.xz"

# Runs `arena ARGS...` as `python -m arena` does, then prints the modules it loaded.
_RUN = """
import json, sys
from arena.cli.main import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def _loaded(*args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", _RUN, *args], capture_output=True, text=True, check=True
    )
    found = json.loads(done.stderr.strip().splitlines()[-1])
    assert found["code"] == 0, done.stderr
    return set(found["modules"])


@pytest.fixture
def families(tmp_path: Path) -> Path:
    """The stored families (votes by two raters in sessions, adaptive pairs, tests and
    graded), brought to today's schema, with no status counted yet."""
    with tarfile.open(ARCHIVE) as tar:
        for name in ("families.sqlite", "families.sqlite.heads.json"):
            tar.extract(name, tmp_path, filter="data")
    path = tmp_path / "families.sqlite"
    subprocess.run(
        [sys.executable, "-m", "arena", "--ledger", str(path), "init"],
        capture_output=True,
        check=True,
    )
    return path


def _scipy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m == "scipy" or m.startswith("scipy."))


def test_status_loads_no_scipy_even_counting_every_family_afresh(families: Path) -> None:
    assert not Path(str(families) + ".status.json").exists()
    loaded = _loaded("--ledger", str(families), "status")
    assert _scipy(loaded) == []


def test_help_loads_neither_numpy_nor_scipy() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from arena.cli.main import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print([m for m in sys.modules if m.split('.')[0] in ('numpy', 'scipy')], "
            "file=sys.stderr)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stderr.strip().splitlines()[-1] == "[]"


def test_the_schedulers_model_loads_no_scipy() -> None:
    code = (
        "import sys, numpy as np\n"
        "from fitting import information as i\n"
        "wins = np.array([[0, 3, 1], [1, 0, 2], [2, 1, 0]], float)\n"
        "post = i.posterior(wins)\n"
        "i.order_gain(post, np.array([0, 0]), np.array([1, 2]))\n"
        "i.votes_to_settle(post, wins.sum(), 0.01)\n"
        "i.stop_threshold(3)\n"
        "print([m for m in sys.modules if m.startswith('scipy')])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_round_close_loads_no_scipy_stats(families: Path) -> None:
    # A penalty of its own: the round is fitted, not restated from the stored one.
    loaded = _loaded(
        "--ledger", str(families), "round", "close", "--family", "cover", "--penalty", "0.02"
    )
    assert {"fitting.split_half", "fitting.agreement"} <= loaded  # the summary was worked out
    assert [m for m in _scipy(loaded) if m.startswith("scipy.stats")] == []


def test_verify_loads_neither_the_gates_nor_scipy_stats(families: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    subprocess.run(
        [sys.executable, "-m", "arena", "--ledger", str(families), "export"]
        + ["--family", "cover", "--out", str(bundle)],
        capture_output=True,
        check=True,
    )
    loaded = _loaded("verify", str(bundle))
    assert "fitting.points" in loaded  # the board was refitted
    gates = sorted(m for m in loaded if m.startswith(("arena.gates", "markdown_it", "pygments")))
    assert gates == []
    assert [m for m in _scipy(loaded) if m.startswith("scipy.stats")] == []


def test_arena_runs_blas_on_one_thread_unless_told_otherwise() -> None:
    """Imported before numpy (as every command and the window are), Arena leaves the BLAS
    numpy loads one thread; a number the user set stands."""
    probe = (
        "import arena, numpy, threadpoolctl\n"
        "print(sorted({i['num_threads'] for i in threadpoolctl.threadpool_info()"
        " if i['user_api'] == 'blas'}))"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    alone = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(alone.stdout) == [1]
    told = subprocess.run(
        [sys.executable, "-c", probe],
        env={**env, "OPENBLAS_NUM_THREADS": "2"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(told.stdout) == [2]
