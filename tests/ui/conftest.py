"""Windows on temporary ledgers, with settings in a temporary INI file and a fake clock."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QSettings  # noqa: E402

from arena.intake.outputs import FamilySettings, import_file  # noqa: E402
from arena.ledger import Ledger  # noqa: E402
from tests.conftest import copy_ledger, native_line  # noqa: E402

SYSTEMS = ("alpha", "beta", "gamma", "delta", "epsilon")
MARKDOWN = """Here is the answer for case {case}, written by one system.

```python
def total(items):
    # add the prices of case {case}
    return sum(i.price for i in items)
```

| item | price |
|------|-------|
| tea  | 3     |

Variant {variant}: a short closing paragraph with `inline code`.
"""


def diff_text(name: str, lines: int, variant: int) -> str:
    body = [f"+    value_{i} = compute({i}, {variant})  # {name}" for i in range(lines)]
    return (
        f"From 0123abcd Mon Sep 17 00:00:00 2001\nSubject: commit message to drop\n\n"
        f"diff --git a/src/{name}.py b/src/{name}.py\n"
        f"--- a/src/{name}.py\n+++ b/src/{name}.py\n"
        f"@@ -1,3 +1,{lines + 2} @@ def main():\n"
        f" import os\n-old = {variant}\n" + "\n".join(body) + "\n return old\n"
        "==== test log ====\n3 passed in 0.01s\n"
    )


class FakeClock:
    """Monotonic seconds that a test moves by hand (idle timeouts, break reminders)."""

    def __init__(self) -> None:
        self.now = 10_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def write_family(
    path: Path,
    family: str,
    *,
    systems: tuple[str, ...],
    cases: int,
    diff: bool = False,
    leak_case: int | None = None,
) -> Path:
    lines = []
    for c in range(cases):
        for v, system in enumerate(systems):
            if diff:
                text = diff_text(f"mod{c}", 6, v)
            else:
                text = MARKDOWN.format(case=c, variant=f"{system}-{v}")
            if leak_case == c and v == 0:
                text += f"\nAs {systems[1]}, I can say this is right."
            lines.append(
                native_line(
                    f"c{c:02d}",
                    system,
                    text,
                    is_diff=diff,
                    prompt=f"Task {c}: explain **this** in Markdown.",
                )
            )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def ui_ledger(tmp_path: Path) -> Path:
    """A ledger file with a prose family (3 systems × 4 cases) and a diff family."""
    path = tmp_path / "ui.sqlite"
    with Ledger.open(path) as ledger:
        import_file(
            ledger,
            write_family(tmp_path / "prose.jsonl", "prose", systems=SYSTEMS[:3], cases=4),
            family="prose",
            fmt="native",
        )
        import_file(
            ledger,
            write_family(tmp_path / "code.jsonl", "code", systems=SYSTEMS[:2], cases=3, diff=True),
            family="code",
            fmt="native",
            settings=FamilySettings(max_chars=200_000),
        )
    return path


@pytest.fixture
def big_ledger(tmp_path: Path) -> Path:
    """Five systems × eight cases: enough pairs for repeats and side balance."""
    path = tmp_path / "big.sqlite"
    with Ledger.open(path) as ledger:
        import_file(
            ledger,
            write_family(tmp_path / "big.jsonl", "big", systems=SYSTEMS, cases=8),
            family="big",
            fmt="native",
        )
    return path


@pytest.fixture(scope="session")
def board_template(tmp_path_factory) -> Path:
    """The board ledger, built once: copying it is faster than importing it again."""
    from tests.ui.board_data import build_board_ledger

    folder = tmp_path_factory.mktemp("board")
    return build_board_ledger(folder / "board.sqlite", folder)


@pytest.fixture
def board_ledger(board_template: Path, tmp_path: Path) -> Path:
    """A ledger with votes and no round yet (tests/ui/board_data.py)."""
    return copy_ledger(board_template, tmp_path / "board.sqlite")


@pytest.fixture(scope="session")
def gates_template(tmp_path_factory) -> Path:
    """The gates ledger (tests/ui/gates_ledger.py), built once."""
    from tests.ui.gates_ledger import build_gates_ledger

    folder = tmp_path_factory.mktemp("gates")
    return build_gates_ledger(folder / "gates.sqlite", folder)


@pytest.fixture
def gates_ledger(gates_template: Path, tmp_path: Path) -> Path:
    """An English family with two French answers to one case, a German and a blank answer."""
    return copy_ledger(gates_template, tmp_path / "gates.sqlite")


@pytest.fixture
def settings_file(tmp_path: Path) -> Path:
    return tmp_path / "settings" / "Arena.ini"


@pytest.fixture
def make_settings(settings_file: Path):
    from arena.ui.settings import Settings

    def make() -> Settings:
        return Settings(QSettings(str(settings_file), QSettings.Format.IniFormat))

    return make


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def open_window(qtbot, make_settings, clock) -> Iterator[Callable]:
    """Open a shown, active window on a ledger (and a family); closed after the test."""
    from arena.ui.main_window import MainWindow

    opened = []

    def open_(path: Path, family: str | None = None):
        window = MainWindow(make_settings(), clock=clock)
        qtbot.addWidget(window)
        if window.settings.geometry is None:
            window.resize(1100, 700)
        assert window.open_ledger(path)
        if family is not None:
            assert window.open_family(family), window.ops.last_error
        # Shortcuts fire only in the active window (research/qt.md).
        with qtbot.waitActive(window):
            window.show()
            window.activateWindow()
        opened.append(window)
        return window

    yield open_
    for window in opened:
        window.close()


@pytest.fixture
def answers(monkeypatch):
    """Scripted answers to the window's questions (skip comment, flag note, and the family
    an import goes to: a new one is made with the default settings)."""
    from arena.intake.family_settings import FamilySettings
    from arena.intake.readers import guess_format
    from arena.ui import dialogs, import_dialog

    queue: list[str | None] = []

    def ask_import(parent, path, ledger):
        name = queue.pop(0)
        if name is None:
            return None
        return import_dialog.ImportChoice(name, guess_format(path), True, FamilySettings())

    monkeypatch.setattr(dialogs, "ask_text", lambda *a, **k: queue.pop(0))
    monkeypatch.setattr(import_dialog, "ask_import", ask_import)
    return queue
