"""The failing verdicts of a family as a tree: by gate then system, or by system then gate.

Each group says how many verdicts it holds that still count (overruled ones, and
Language verdicts on a case in doubt, are listed, marked, and counted apart), so
the rater sees at a glance which gate or which system the automatic decisions
fall on.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QFont, QStandardItem, QStandardItemModel

from arena.gates.screening import FailureCounts, GateFailure
from arena.records import GATES
from arena.ui.gates.gates_data import gate_title, short_reason

GROUPINGS = (("gate", "Gate ▸ system"), ("system", "System ▸ gate"))
# A verdict row holds "output-id gate"; a group row holds None.
KEY_ROLE = Qt.ItemDataRole.UserRole + 1

Key = tuple[str, str]
# A verdict's status (``GateFailure.status``) as its row and its group's count say it.
STATUSES = {"failed": "failing", "in_doubt": "in doubt", "overruled": "overruled"}


def key_of(index: QModelIndex) -> Key | None:
    """The (output id, gate) of a verdict row, None for a group row."""
    data = index.siblingAtColumn(0).data(KEY_ROLE) if index.isValid() else None
    if not data:
        return None
    output_id, gate = str(data).split(" ")
    return output_id, gate


def _counted(failures: list[GateFailure]) -> str:
    c = FailureCounts.of(failures)
    counts = {"failed": c.failing, "in_doubt": c.in_doubt, "overruled": c.overruled}
    return ", ".join(
        f"{n} {STATUSES[status]}" for status, n in counts.items() if n or status == "failed"
    )


class FailureTree(QStandardItemModel):
    def __init__(self) -> None:
        super().__init__()
        self.muted = QColor("#656d76")
        # Verdict rows in the order shown, to find one again after a reload.
        self.keys: list[Key] = []
        self._rows: dict[Key, QPersistentModelIndex] = {}

    def load(self, failures: list[GateFailure], by: str) -> None:
        """Group ``failures`` (already in case order) by ``by``, "gate" or "system"."""
        self.clear()
        self.setHorizontalHeaderLabels(["Verdict", "Reason"])
        self.keys, self._rows = [], {}
        groups: dict[str, dict[str, list[GateFailure]]] = {}
        for failure in failures:
            outer, inner = (
                (failure.gate, failure.system) if by == "gate" else (failure.system, failure.gate)
            )
            groups.setdefault(outer, {}).setdefault(inner, []).append(failure)
        if by == "gate":
            order = sorted(groups, key=GATES.index)
        else:
            order = sorted(groups, key=str.casefold)
        for outer in order:
            inner_groups = groups[outer]
            rows = [f for group in inner_groups.values() for f in group]
            outer_item = self._group(gate_title(outer) if by == "gate" else outer, rows, bold=True)
            self.appendRow(outer_item)
            inner_order = (
                sorted(inner_groups, key=str.casefold)
                if by == "gate"
                else sorted(inner_groups, key=GATES.index)
            )
            for inner in inner_order:
                inner_item = self._group(
                    inner if by == "gate" else gate_title(inner), inner_groups[inner]
                )
                outer_item[0].appendRow(inner_item)
                for failure in inner_groups[inner]:
                    inner_item[0].appendRow(self._verdict(failure))
                    key = self.keys[-1]
                    self._rows[key] = QPersistentModelIndex(
                        inner_item[0].child(inner_item[0].rowCount() - 1).index()
                    )

    def _group(
        self, title: str, failures: list[GateFailure], *, bold: bool = False
    ) -> list[QStandardItem]:
        name = QStandardItem(title)
        count = QStandardItem(_counted(failures))
        for item in (name, count):
            item.setEditable(False)
        if bold:
            font = QFont(name.font())
            font.setBold(True)
            name.setFont(font)
        name.setData(None, KEY_ROLE)
        return [name, count]

    def _verdict(self, failure: GateFailure) -> list[QStandardItem]:
        key = (failure.output_id, failure.gate)
        self.keys.append(key)
        title = f"case {failure.case_id} · {failure.output_id[:8]}"
        reason = short_reason(failure)
        if failure.status != "failed":
            title += f" · {STATUSES[failure.status]}"
        name, why = QStandardItem(title), QStandardItem(reason)
        for item in (name, why):
            item.setEditable(False)
            item.setData(" ".join(key), KEY_ROLE)
            item.setToolTip(failure.reason)
            if failure.status != "failed":
                item.setForeground(self.muted)
                font = QFont(item.font())
                font.setItalic(True)
                item.setFont(font)
        return [name, why]

    def find(self, key: Key) -> QModelIndex:
        """The verdict row of ``key``, or an invalid index."""
        row = self._rows.get(key)
        if row is None or not row.isValid():
            return QModelIndex()
        return self.index(row.row(), row.column(), row.parent())

    def group_counts(self) -> dict[str, str]:
        """Every group's title and count, outer groups as "A" and inner ones as "A ▸ B"."""
        counts = {}
        for row in range(self.rowCount()):
            outer = self.item(row, 0)
            counts[outer.text()] = self.item(row, 1).text()
            for inner in range(outer.rowCount()):
                counts[f"{outer.text()} ▸ {outer.child(inner, 0).text()}"] = outer.child(
                    inner, 1
                ).text()
        return counts
