"""The rater's keys: what each action is bound to, and which keys are off limits.

Keys are stored as Qt portable text (``"1"``, ``"Left"``, ``"Ctrl+Z"``) so a key map
written on one platform reads the same on another. Undo defaults to the platform's
own Undo key (Cmd+Z on macOS); no action may take another platform shortcut
(copy, quit, close…), nor the keys that scroll and move between panes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QWidget

Standard = QKeySequence.StandardKey
PORTABLE = QKeySequence.SequenceFormat.PortableText


@dataclass(frozen=True)
class KeyAction:
    name: str
    label: str
    defaults: tuple[str, ...]
    standard: Standard | None = None


ACTIONS: tuple[KeyAction, ...] = (
    KeyAction("left", "Left is better", ("1", "Left")),
    KeyAction("right", "Right is better", ("2", "Right")),
    KeyAction("tie", "Tie", ("3",)),
    KeyAction("both_bad", "Both bad", ("4",)),
    KeyAction("skip", "Skip (optional comment)", ("S",)),
    KeyAction("flag", "Flag the pair with a note", ("F",)),
    KeyAction("undo", "Undo the last vote", (), Standard.Undo),
    KeyAction("help", "Show or hide the keys", ("?",)),
    KeyAction("sync", "Scroll sync on or off", ("Y",)),
    KeyAction("diff_layout", "Diff side by side or unified", ("D",)),
    # Not R: the Gates and Flags pages' Retire, which would make R ambiguous there.
    KeyAction("raw", "Raw text (the exact characters) or Markdown, for this family", ("M",)),
)
BY_NAME = {a.name: a for a in ACTIONS}

# Keys that are not remappable, as the help overlay lists them.
FIXED_KEYS: tuple[tuple[str, str], ...] = (
    ("↑ ↓  PgUp PgDn  Space  Home End", "Scroll the active pane"),
    ("Shift+← / Shift+→", "Scroll a diff sideways"),
    ("Tab", "Next pane: left, right, prompt (turn by turn in a multi-turn case)"),
    ("Ctrl+= / Ctrl+-", "Bigger / smaller text"),
    ("Esc", "Back to the family list"),
)
NAVIGATION = (
    "Up",
    "Down",
    "PgUp",
    "PgDown",
    "Space",
    "Shift+Space",
    "Home",
    "End",
    "Tab",
    "Esc",
    "Shift+Left",
    "Shift+Right",
    "Ctrl+=",
    "Ctrl+-",
    "Ctrl++",
    "Return",
    "Enter",
)
RESERVED_STANDARD = (
    Standard.Copy,
    Standard.Cut,
    Standard.Paste,
    Standard.SelectAll,
    Standard.Quit,
    Standard.Close,
    Standard.Open,
    Standard.Save,
    Standard.New,
    Standard.Print,
    Standard.Find,
    Standard.Undo,
    Standard.Redo,
    Standard.ZoomIn,
    Standard.ZoomOut,
    Standard.Preferences,
    Standard.HelpContents,
    Standard.FullScreen,
    Standard.Refresh,
    Standard.Delete,
)
# The Board menu's keys (round_actions.py) and Switch rater: no rater key may take
# them, or either would be ambiguous. None is a platform shortcut.
BOARD_KEY = "B"
GATES_KEY = "G"
FLAGS_KEY = "Shift+F"
JUDGES_KEY = "J"
CLOSE_ROUND_KEY = "Ctrl+Shift+R"
# Vote ▸ Switch rater… (main_window.py): who is voting, on any page.
RATER_KEY = "W"
# The Board page's own: the preview of the votes so far, or the last round (board_page.py).
PREVIEW_KEY = "P"
SETTINGS_KEY = "R"  # the round's settings beside its board, or its summary again
NEXT_RATER_KEY = "T"  # a team's round: the next rater's own figures in the summary
BOARD_KEYS = {
    BOARD_KEY: "the family list's Board key",
    GATES_KEY: "the Gates page key",
    FLAGS_KEY: "the Flags page key",
    JUDGES_KEY: "the Judges page key",
    CLOSE_ROUND_KEY: "the Close round key",
    PREVIEW_KEY: "the Board page's preview key",
    RATER_KEY: "the Switch rater key",
}
# The pages' keys, as the help overlay lists them.
PAGE_KEYS: tuple[tuple[str, str], ...] = (
    (BOARD_KEY, "The family's board (from the family list)"),
    (GATES_KEY, "The family's gate failures (Gates page)"),
    (FLAGS_KEY, "The family's flagged pairs (Flags page)"),
    (JUDGES_KEY, "Other judges beside you (Judges page)"),
    (CLOSE_ROUND_KEY, "Close a round of the family"),
    (RATER_KEY, "Switch rater: who is voting (your votes carry the name)"),
)
# The Board page's keys (board/board_page.py, board/settings_panel.py), acting while it
# has the focus.
BOARD_PAGE_KEYS: tuple[tuple[str, str], ...] = (
    (PREVIEW_KEY, "Preview of the votes so far (not a round), or the last round"),
    (SETTINGS_KEY, "Round settings, or the round summary"),
    (NEXT_RATER_KEY, "The next rater's own figures (a round of several raters)"),
)
# The Gates page's corrections (gates_page.py). They act only while that page has
# the focus, where no rater key does, so they may share keys with the rater's.
GATES_ACTIONS: tuple[KeyAction, ...] = (
    KeyAction("overrule", "Overrule the selected verdict…", ("O",)),
    KeyAction("set_language", "The case expects a language…", ("L",)),
    KeyAction("confirm_language", "Keep the language of a case in doubt…", ("K",)),
    KeyAction("retire", "Retire the case…", ("R",)),
    KeyAction("remove", "Remove the output…", ("Del", "Backspace")),
    KeyAction("undo_selected", "Undo the selected correction…", ("U",)),
    KeyAction("undo_last", "Undo the last correction…", (), Standard.Undo),
)
# The Flags page's actions (rating/flags_page.py): like the Gates page's, only while
# that page has the focus.
FLAGS_ACTIONS: tuple[KeyAction, ...] = (
    KeyAction("retire", "Retire the flagged case…", ("R",)),
    KeyAction("remove", "Remove an output of the flagged pair…", ("Del", "Backspace")),
    KeyAction("resolve", "Resolve the flag (nothing to change)…", ("X",)),
    KeyAction("undo_selected", "Undo what was done about the flag…", ("U",)),
    KeyAction("undo_last", "Undo the last thing done on this page…", (), Standard.Undo),
)
# The Judges page's (judges/judges_page.py): like the Gates page's, only while it has the focus.
JUDGES_ACTIONS: tuple[KeyAction, ...] = (KeyAction("import", "Import a judge's verdicts…", ("I",)),)
ARROWS = {"Left": "←", "Right": "→", "Up": "↑", "Down": "↓"}

KeyMap = dict[str, list[str]]


def default_keys(action: KeyAction) -> list[str]:
    if action.standard is not None:
        # The first binding only: the others (Alt+Backspace, the Undo key) stay the platform's.
        return [QKeySequence.keyBindings(action.standard)[0].toString(PORTABLE)]
    return list(action.defaults)


def default_key_map() -> KeyMap:
    return {a.name: default_keys(a) for a in ACTIONS}


def normalise(text: str) -> str:
    """One spelling per key (``"ctrl+z"`` → ``"Ctrl+Z"``); "" when Qt cannot read it."""
    return QKeySequence(text).toString(PORTABLE) if text.strip() else ""


def _reserved() -> dict[str, str]:
    taken = {normalise(k): "scrolling and panes" for k in NAVIGATION}
    taken.update({normalise(k): why for k, why in BOARD_KEYS.items()})
    for standard in RESERVED_STANDARD:
        for seq in QKeySequence.keyBindings(standard):
            taken[seq.toString(PORTABLE)] = f"the platform's {standard.name} shortcut"
    return taken


def problems(key_map: KeyMap) -> list[str]:
    """Why ``key_map`` cannot be used: keys bound twice or taken from the platform."""
    found: list[str] = []
    reserved = _reserved()
    owner: dict[str, str] = {}
    for action in ACTIONS:
        allowed = set(default_keys(action)) if action.standard is not None else set()
        for key in key_map.get(action.name, []):
            if key in owner:
                found.append(
                    f"{key} is bound to both “{BY_NAME[owner[key]].label}” and “{action.label}”"
                )
            owner[key] = action.name
            if key in reserved and key not in allowed:
                found.append(f"{key} is {reserved[key]}; choose another key for “{action.label}”")
        if not key_map.get(action.name):
            found.append(f"“{action.label}” has no key")
    return found


def display(keys: list[str]) -> str:
    """Keys as the rater reads them: ``1 / ←``."""
    shown = []
    for key in keys:
        native = QKeySequence(key).toString(QKeySequence.SequenceFormat.NativeText)
        shown.append(ARROWS.get(key, native))
    return " / ".join(shown)


def make_action(
    owner: QWidget,
    text: str,
    slot: Callable[[], object],
    keys: list | None = None,
    *,
    checkable: bool = False,
    checked: bool = False,
) -> QAction:
    """A window-wide action calling ``slot`` (the caller adds it where its keys should act)."""
    action = QAction(text, owner)
    action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    if keys:
        action.setShortcuts([QKeySequence(k) for k in keys])
    action.setCheckable(checkable)
    action.setChecked(checked)
    action.triggered.connect(lambda _checked=False: slot())
    return action


class ActionHost(Protocol):
    def addAction(self, action: QAction) -> None: ...  # noqa: N802 (Qt's name)


def page_action(
    page: ActionHost,
    label: str,
    keys: Sequence[str],
    slot: Callable[[], object],
    *,
    owner: QObject,
) -> QAction:
    """An action of ``page`` (a child of ``owner``) calling ``slot``, its ``keys`` acting
    only while the page has the focus: elsewhere these keys are the rater's."""
    action = QAction(label, owner)
    action.setShortcuts([QKeySequence(k) for k in keys])
    action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
    action.triggered.connect(lambda _checked=False: slot())
    page.addAction(action)
    return action


def page_actions(
    page: ActionHost,
    specs: Sequence[KeyAction],
    slots: Mapping[str, Callable[[], object]],
    labels: Mapping[str, str],
    controls: QHBoxLayout,
    buttons: dict[str, QPushButton],
    *,
    owner: QObject,
) -> dict[str, QAction]:
    """One action a spec of ``specs`` (a child of ``owner``), calling ``slots[spec.name]``
    and added to ``page``; the specs named in ``labels`` also get a button, in
    ``controls`` and in ``buttons``."""
    actions = {}
    for spec in specs:
        keys = default_keys(spec)
        action = page_action(page, spec.label, keys, slots[spec.name], owner=owner)
        actions[spec.name] = action
        if spec.name in labels:
            button = QPushButton(f"{labels[spec.name]}  [{display(keys[:1])}]")
            button.setToolTip(spec.label)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.clicked.connect(action.trigger)
            buttons[spec.name] = button
            controls.addWidget(button)
    return actions
