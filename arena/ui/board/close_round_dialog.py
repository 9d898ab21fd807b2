"""The settings of a round about to be closed, defaulting to ``RoundSettings()``.

A family with judges is offered them to pool (``RoundSettings.with_judges``), none checked:
the default round stays the rater's alone, as `arena round close` without `--with-judges`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from arena.rounds.model import DEFAULT_CAP, RoundSettings

RATERS_NOTE = (
    "The board fits the checked raters' votes (every rater's, by default); the others' "
    "stay in the ledger, left out of this round's fit. Settled pairs and pooled judges "
    "are fitted either way."
)
POOLING_NOTE = (
    "Pooling fits the rater's votes together with the checked judges' verdicts, each read "
    "as a comparison of the two outputs; with none checked (the default) the board is the "
    "rater's alone. Each verdict weighs 1, unless a judge has more fitted verdicts than the "
    "rater has fitted votes: then the judge's verdicts together weigh what the rater's do."
)


class JudgeSummary(Protocol):
    """What the dialog shows of a judge (``arena.judges.comparison.family_judges``)."""

    @property
    def judge(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def verdicts(self) -> int: ...


WEIGHTINGS = (
    ("unit", "unit — every comparison its own weight"),
    ("ledger", "ledger — cap each actor's total weight"),
)


def _spin(
    value: float, low: float, high: float, decimals: int, step: float, tip: str
) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(low, high)
    box.setDecimals(decimals)
    box.setSingleStep(step)
    box.setValue(value)
    box.setToolTip(tip)
    return box


def _judges_box(judges: Sequence[JudgeSummary]) -> tuple[QGroupBox, dict[str, QCheckBox]]:
    """The judges to pool, each unchecked, with its kind and verdict count, by name."""
    group = QGroupBox("Pool with &judges")  # Alt+J: to the first judge
    layout = QVBoxLayout(group)
    checks = {}
    for judge in judges:
        name = judge.judge.replace("&", "&&")  # a name's & is no mnemonic
        check = QCheckBox(f"{name} — {judge.kind}, {judge.verdicts} verdicts")
        checks[judge.judge] = check
        layout.addWidget(check)
    note = QLabel(POOLING_NOTE)
    note.setWordWrap(True)
    layout.addWidget(note)
    return group, checks


def _raters_box(raters: Sequence[str]) -> tuple[QGroupBox, dict[str, QCheckBox]]:
    """The raters whose votes are fitted, each checked (everyone's: the default), by name."""
    group = QGroupBox("Fit the votes of these &raters")  # Alt+R: to the first rater
    layout = QVBoxLayout(group)
    checks = {}
    for rater in raters:
        check = QCheckBox(rater.replace("&", "&&"))  # a name's & is no mnemonic
        check.setChecked(True)
        checks[rater] = check
        layout.addWidget(check)
    note = QLabel(RATERS_NOTE)
    note.setWordWrap(True)
    layout.addWidget(note)
    return group, checks


class CloseRoundDialog(QDialog):
    def __init__(
        self,
        family: str,
        parent: QWidget | None = None,
        judges: Sequence[JudgeSummary] = (),
        raters: Sequence[str] = (),
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Close a round of {family}")
        defaults = RoundSettings()
        self.weighting = QComboBox()
        for value, text in WEIGHTINGS:
            self.weighting.addItem(text, value)
        self.cap = _spin(
            DEFAULT_CAP,
            0.001,
            1e9,
            3,
            10.0,
            "With ledger weighting: each actor's whole-family total weight is "
            "scaled down to this cap before any category is fitted.",
        )
        self.penalty = _spin(
            defaults.penalty,
            0.0,
            1000.0,
            3,
            0.01,
            "λ of the penalized fit. It matters only for sparse data; 0 gives "
            "the exact maximum-likelihood fit where one exists.",
        )
        self.base = _spin(defaults.base, -1e6, 1e6, 0, 100.0, "The points of the anchor system.")
        self.threshold = QSpinBox()
        self.threshold.setRange(0, 1_000_000)
        self.threshold.setValue(int(defaults.threshold))
        self.threshold.setToolTip(
            "A system with fewer decisive votes (left or right) than this is marked preliminary."
        )
        self.weighting.currentIndexChanged.connect(self._weighting_changed)
        self._weighting_changed()

        form = QFormLayout()
        form.addRow("&Weighting:", self.weighting)
        form.addRow("&Cap:", self.cap)
        form.addRow("&Penalty λ:", self.penalty)
        form.addRow("&Base points:", self.base)
        form.addRow("&Threshold (decisive votes):", self.threshold)
        note = QLabel(
            "Closing re-runs the gates on every output, fits the points and the "
            "round summary, and stores the round for good: it cannot be changed "
            "later, only followed by a newer round."
        )
        note.setWordWrap(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Close round")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        self.judges: dict[str, QCheckBox] = {}
        if judges:
            group, self.judges = _judges_box(judges)
            layout.addWidget(group)
        # A family several raters voted on: whose votes the board fits (as `--raters`).
        self.raters: dict[str, QCheckBox] = {}
        if len(raters) > 1:
            group, self.raters = _raters_box(raters)
            layout.addWidget(group)
            self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
            for check in self.raters.values():
                check.toggled.connect(self._raters_changed)
        layout.addWidget(note)
        layout.addWidget(buttons)

    def _raters_changed(self) -> None:
        """A board of no one's votes is no round: Close round waits for a rater."""
        self.ok.setEnabled(any(c.isChecked() for c in self.raters.values()))

    def _weighting_changed(self) -> None:
        self.cap.setEnabled(self.weighting.currentData() == "ledger")

    def settings(self) -> RoundSettings:
        ledger = self.weighting.currentData() == "ledger"
        return RoundSettings(
            weighting=self.weighting.currentData(),
            cap=self.cap.value() if ledger else None,
            penalty=self.penalty.value(),
            base=self.base.value(),
            # An int, as the default: the default round records what `round close` does.
            threshold=self.threshold.value(),
            with_judges=tuple(name for name, c in self.judges.items() if c.isChecked()),
            raters=self._chosen_raters(),
        )

    def _chosen_raters(self) -> tuple[str, ...]:
        """The raters checked; none named when everyone is (the default round)."""
        chosen = tuple(name for name, c in self.raters.items() if c.isChecked())
        return () if len(chosen) == len(self.raters) else chosen


def ask_round_settings(
    parent: QWidget, family: str, judges: Sequence[JudgeSummary] = (), raters: Sequence[str] = ()
) -> RoundSettings | None:
    """The settings to close ``family``'s round with, or None when cancelled; ``judges``
    are the family's, offered to pool; ``raters`` its raters, whose votes are fitted.

    Tests replace this function."""
    dialog = CloseRoundDialog(family, parent, judges, raters)
    return dialog.settings() if dialog.exec() else None
