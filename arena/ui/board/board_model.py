"""The leaderboard of one stored round as a Qt table model.

The model caches the rows of a round the core already computed (``find_round``):
the ranked systems of the whole family or of one category's refit. It formats
them and never computes a score. Unranked systems are kept apart (``unranked``)
because the board lists them below the table, not in it.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from arena.graded.board_rows import failure_text, interval_text
from arena.rounds.board_vocabulary import (
    AGENT_TIME,
    COST_SOLUTION,
    FAILURES,
    FAR_BEHIND,
    GRADED_RANK,
    MARKS,
    POINTS,
    RUN,
    SYSTEM,
    WIDE_MARK,
    Column,
    board_columns,
    cell,
    columns_for,
    marks,
    points_interval,
    preliminary_rule,
    solutions_tip,
)
from arena.rounds.model import BoardRow, Round
from arena.rounds.points_axis import Axis, axis_for
from arena.rounds.preview import Preview
from arena.rounds.round_records import Anchor, Uncertainty
from arena.rounds.settings_record import AXIS_SPAN
from arena.ui.board.board_columns import wraps
from arena.ui.tables import Index, RowsModel

DASH = "—"
# The delegate and the exporters read the points of a row through this role.
POINTS_ROLE = Qt.ItemDataRole.UserRole + 1
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
# Family-wide columns of a category view: marked briefly (``WIDE_MARK``) on screen and
# in images (a note below explains the mark), in full in CSV, which has no notes.
FAMILY_WIDE = "(all categories)"
FAMILY_WIDE_TIP = (
    "Family-wide value: this column is not refitted per category; it is the "
    "same in every category view."
)
FAR_BEHIND_TIP = f"Far behind: {FAR_BEHIND}, so below the start of the points axis."


class BoardModel(RowsModel):
    """The ranked rows of one round's board (the family's or one category's)."""

    def __init__(self) -> None:
        super().__init__()
        self.round_id = ""
        self.kind = "votes"
        self.category: str | None = None
        self.threshold = 0.0
        self.anchor: Anchor | None = None
        # A voted board's check of its regime and its intervals (None: not recorded).
        self.uncertainty: Uncertainty | None = None
        self.columns: tuple[Column, ...] = columns_for("votes")
        self.rows: list[BoardRow] = []
        self.unranked: list[BoardRow] = []
        self.axis: Axis | None = None

    def load(self, found: Round | Preview | None, kind: str, category: str | None = None) -> None:
        """Show ``found`` (a stored round or a preview), or its ``category`` refit."""
        self.beginResetModel()
        self.kind, self.category = kind, category
        board = None if found is None else (found.categories[category] if category else found.board)
        systems = board.systems if board is not None else ()
        self.columns = board_columns(kind, systems, category=category is not None)
        self.round_id = found.round_id if isinstance(found, Round) else ""
        self.threshold = found.settings.threshold if found is not None else 0.0
        self.anchor = board.anchor if board is not None else None
        self.uncertainty = board.uncertainty if board is not None else None
        self.rows = [r for r in systems if not r.unranked]
        self.unranked = [r for r in systems if r.unranked]
        self.axis = axis_for([r.points for r in self.rows if r.points is not None])
        self.endResetModel()

    def preliminary(self, row: BoardRow) -> bool:
        return "preliminary" in marks(row, self.kind)

    def marks(self, row: BoardRow) -> list[str]:
        return marks(row, self.kind)

    def value(self, row: BoardRow, column: Column) -> str | None:
        """The cell as displayed, None where the value is missing (shown as a dash)."""
        return cell(row, column, self.kind)

    def _wide(self, column: Column) -> bool:
        return self.category is not None and column.family_wide

    def header(self, column: Column, wide: str = " " + WIDE_MARK) -> str:
        """The column's title; in a category view, family-wide columns end with ``wide``."""
        if column is POINTS and self.axis is not None:
            text = f"Points (axis from {self.axis.start:.0f})"
        else:
            text = column.header
        return text + wide if self._wide(column) else text

    def table(self, missing: str = "", wide: str = " " + FAMILY_WIDE) -> list[list[str]]:
        """Header and rows as displayed, with ``missing`` for missing values (CSV, images)."""
        head = [self.header(c, wide) for c in self.columns]
        rows = [[self.value(r, c) for c in self.columns] for r in self.rows]
        return [head] + [[missing if v is None else v for v in row] for row in rows]

    # -- Qt model ---------------------------------------------------------------

    def column_count(self) -> int:
        return len(self.columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row, column = self.rows[index.row()], self.columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            value = self.value(row, column)
            return DASH if value is None else value
        if role == POINTS_ROLE:
            return row.points
        if role == Qt.ItemDataRole.TextAlignmentRole and right_aligned(column):
            return RIGHT
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row, column)
        return None

    def _tooltip(self, row: BoardRow, column: Column) -> str | None:
        if column is MARKS:
            tips = {
                "preliminary": f"Preliminary: {preliminary_rule(self.threshold)}.",
                "far behind": FAR_BEHIND_TIP,
            }
            return "\n".join(tips[m] for m in self.marks(row)) or None
        if column is POINTS:
            anchor = (self.anchor.label if self.anchor else None) or "the anchor"
            tip = f"{row.points:.1f} points, relative to {anchor}."
            if row.ci95 is not None:
                tip += f"\n95% interval {points_interval(row.ci95)} (the whisker)."
            return tip + ("\n" + FAR_BEHIND_TIP if row.far_behind else "")
        if column is SYSTEM:
            # The full label: a long one is elided in the cell.
            is_anchor = self.anchor is not None and row.system == self.anchor.system
            return row.label + (
                "\nThe anchor: every other system's points are relative to it." if is_anchor else ""
            )
        if column is RUN:
            return row.run  # the whole of it: a long one is elided in the cell
        if column in (AGENT_TIME, COST_SOLUTION) and row.solutions_timed is not None:
            return solutions_tip(row, column is AGENT_TIME)
        if column is FAILURES:
            text = failure_text(row.to_json())
            return None if text is None else f"Failures by status: {text}."
        if column is GRADED_RANK:
            return self.rank_tip(row)
        return None

    def rank_tip(self, row: BoardRow) -> str:
        """Why a graded run has its rank, and with whom it shares it."""
        if row.ci_method is None:
            return "Rank by score: this round was closed before ranks followed the intervals."
        above = (row.rank or 1) - 1
        tip = (
            f"Rank {row.rank}: {above} run{'' if above == 1 else 's'} with a 95% interval "
            f"entirely above this run's ({interval_text(row.ci95)})."
        )
        shared = [r for r in self.rows if r.rank == row.rank and r.system != row.system]
        if shared:
            names = ", ".join(f"{r.label} ({interval_text(r.ci95)})" for r in shared)
            tip += (
                f"\nShares it with {names}: their 95% intervals overlap this run's, so the "
                "scores do not tell them apart."
            )
        return tip

    def header_data(self, section: int, role: int) -> Any:
        column = self.columns[section]
        if role == Qt.ItemDataRole.DisplayRole:
            if wraps(column, self.kind):
                # One word a line (a category's name, say): the columns fit the window.
                return self.header(column, " " + WIDE_MARK).replace(" ", "\n")
            if column not in (SYSTEM, POINTS) and " " in column.header:
                # Two lines ("Gate / failures"), the mark on a third: the columns stay as
                # narrow as their values, so a tests-then-votes board fits at 1280 pixels.
                head, _, tail = column.header.rpartition(" ")
                return head + "\n" + tail + (f"\n{WIDE_MARK}" if self._wide(column) else "")
            return self.header(column, "\n" + WIDE_MARK)
        if role == Qt.ItemDataRole.ToolTipRole:
            tip = column.tooltip
            if column is POINTS and self.axis is not None:
                tip = (
                    f"Points (Elo-like). The bars start at {self.axis.start:.0f}, at most "
                    f"{AXIS_SPAN:.0f} below the top score; a system further down is "
                    "marked far behind."
                )
            if self.category is not None and column.family_wide:
                tip += "\n" + FAMILY_WIDE_TIP
            return tip
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return RIGHT if right_aligned(column) else None
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable


def right_aligned(column: Column) -> bool:
    # The delegate draws the points, and their header sits over the bars: not right-aligned.
    return column.numeric and column is not POINTS
