"""The split-half plot: each system's points from odd-numbered sessions against even ones.

Systems on the diagonal got the same points from both halves; the further a dot
strays from it, the less the two halves agree. Drawn with QPainter (QtCharts is
not part of PySide6-Essentials).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from arena.rounds.round_records import SplitHalves
from arena.ui.theme import Theme


@dataclass(frozen=True)
class SplitPoint:
    label: str
    odd: float
    even: float


def split_points(halves: SplitHalves, labels: dict[str, str]) -> tuple[list[SplitPoint], str]:
    """The systems fitted in both halves, and a note when a half has nothing to plot."""
    empty = [
        name
        for name, half in (("odd", halves.odd), ("even", halves.even))
        if not any(v is not None for v in half.values())
    ]
    if empty:
        which = " and ".join(f"{n}-numbered" for n in empty)
        return [], f"Not enough sessions: the {which} sessions have no fitted votes yet."
    both = [
        SplitPoint(labels.get(s, s[:8]), odd, even)
        for s, odd in halves.odd.items()
        if odd is not None and (even := halves.even.get(s)) is not None
    ]
    note = "" if len(both) > 1 else "Not enough sessions: fewer than two systems in both halves."
    return sorted(both, key=lambda p: p.label), note


class SplitPlot(QWidget):
    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.theme = theme
        self.points: list[SplitPoint] = []
        self.note = ""
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setMinimumHeight(230)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(300, 250)

    def set_points(self, points: list[SplitPoint], note: str) -> None:
        self.points, self.note = points, note
        self.setToolTip(
            "\n".join(f"{p.label}: odd {p.odd:.0f}, even {p.even:.0f}" for p in points) or note
        )
        self.update()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        metrics = painter.fontMetrics()
        line = metrics.height()
        side = min(self.width() - 3 * line - 16, self.height() - 3 * line)
        plot = QRectF(2.5 * line, line * 0.5, side, side)
        painter.setPen(QPen(QColor(self.theme.border), 1))
        painter.setBrush(QColor(self.theme.base))
        painter.drawRect(plot)
        muted = QColor(self.theme.muted)
        painter.setPen(muted)
        painter.drawText(
            QRectF(plot.left(), plot.bottom() + line, plot.width(), line),
            int(Qt.AlignmentFlag.AlignCenter),
            "odd sessions →",
        )
        painter.save()
        painter.translate(plot.left() - 2 * line, plot.center().y())
        painter.rotate(-90)
        painter.drawText(
            QRectF(-plot.height() / 2, 0, plot.height(), line),
            int(Qt.AlignmentFlag.AlignCenter),
            "even sessions →",
        )
        painter.restore()
        if not self.points or self.note:
            painter.setPen(muted)
            painter.drawText(
                plot.adjusted(12, 12, -12, -12),
                int(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap),
                self.note,
            )
        if self.points:
            self._draw_points(painter, plot)
        painter.end()

    def _draw_points(self, painter: QPainter, plot: QRectF) -> None:
        values = [v for p in self.points for v in (p.odd, p.even)]
        low, high = min(values), max(values)
        margin = max(25.0, 0.08 * (high - low))
        low, high = low - margin, high + margin

        def at(odd: float, even: float) -> QPointF:
            return QPointF(
                plot.left() + plot.width() * (odd - low) / (high - low),
                plot.bottom() - plot.height() * (even - low) / (high - low),
            )

        muted = QColor(self.theme.muted)
        painter.setPen(QPen(QColor(self.theme.border), 1, Qt.PenStyle.DashLine))
        painter.drawLine(at(low, low), at(high, high))
        small = QFont(painter.font())
        small.setPointSizeF(max(7.0, small.pointSizeF() * 0.85))
        painter.setFont(small)
        painter.setPen(muted)
        flags = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom)
        painter.drawText(
            QRectF(plot.left() + 4, plot.bottom() - 20, plot.width(), 18), flags, f"{low:.0f}"
        )
        painter.drawText(
            QRectF(plot.left() + 4, plot.top() + 2, plot.width(), 18),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop),
            f"{high:.0f}",
        )
        accent = QColor(self.theme.accent)
        for point in self.points:
            centre = at(point.odd, point.even)
            painter.setPen(QPen(QColor(self.theme.base), 1.5))
            painter.setBrush(accent)
            painter.drawEllipse(centre, 4.5, 4.5)
            painter.setPen(QColor(self.theme.text))
            # Labels sit right of the dot, or left when they would leave the plot.
            width = painter.fontMetrics().horizontalAdvance(point.label) + 4
            left = (
                centre.x() + 7 if centre.x() + 7 + width < plot.right() else centre.x() - 7 - width
            )
            painter.drawText(
                QRectF(left, centre.y() - 9, width, 18),
                int(Qt.AlignmentFlag.AlignVCenter),
                point.label,
            )
