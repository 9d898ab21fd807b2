"""Shared fixtures: temporary ledgers and a small family to vote on."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

# The checkout, and the third-party outputs beside it (absent in a user's clone).
REPO = Path(__file__).resolve().parents[1]
REALDATA = REPO.parent / "shared" / "realdata"


def copy_ledger(template: Path, dest: Path) -> Path:
    """A copy of a ledger and of its head file, as a careful user moves one (over an
    older copy: its WAL and head file go too)."""
    for stale in ("-wal", "-shm", ".heads.json"):
        Path(str(dest) + stale).unlink(missing_ok=True)
    shutil.copyfile(template, dest)
    heads = Path(str(template) + ".heads.json")
    if heads.exists():
        shutil.copyfile(heads, str(dest) + ".heads.json")
    return dest


# Qt must never look for a display in the test run.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--runslow", action="store_true", help="also run the exhaustive tests")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="exhaustive; run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """No test touches the user's real data folder or ledger."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.delenv("ARENA_LEDGER", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ARENA_API_KEY", raising=False)


@pytest.fixture
def ledger_path(tmp_path: Path) -> Path:
    return tmp_path / "ledger.sqlite"


@pytest.fixture
def ledger(ledger_path: Path):
    from arena.ledger import Ledger

    with Ledger.open(ledger_path) as opened:
        yield opened


def native_line(case: str, label: str, text: str, **extra) -> str:
    language = {"language": extra.pop("language")} if "language" in extra else {}
    record = {
        "case": {
            "id": case,
            "category": extra.pop("category", "general"),
            "prompt": extra.pop("prompt", f"Prompt of {case}"),
            **language,
        },
        "system": {"label": label, "model": f"test/{label}"},
        "output": text,
        **extra,
    }
    return json.dumps(record, ensure_ascii=False)


@pytest.fixture
def small_family_file(tmp_path: Path) -> Path:
    """Three systems answering four cases in English."""
    lines = []
    for case in ("c1", "c2", "c3", "c4"):
        for label in ("alpha", "beta", "gamma"):
            lines.append(
                native_line(
                    case,
                    label,
                    f"{label} explains {case} in a few plain English sentences. "
                    "It keeps the answer short and clear for the reader.",
                )
            )
    path = tmp_path / "small.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def small_family(ledger, small_family_file: Path):
    from arena.intake.outputs import import_file

    import_file(ledger, small_family_file, family="small", fmt="native")
    return ledger
