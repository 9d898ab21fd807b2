"""Points drawn as a number and a bar on the board's axis.

``paint_points`` draws one cell; the table's delegate and the image export both
use it, so a published board looks like the window.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from arena.rounds.points_axis import Axis
from arena.ui.board.board_model import POINTS_ROLE, BoardModel
from arena.ui.theme import Theme

Index = QModelIndex | QPersistentModelIndex
NUMBER_WIDTH = "00000"
BAR_WIDTH = 150


@dataclass(frozen=True)
class BarColours:
    bar: QColor
    text: QColor
    muted: QColor
    grid: QColor

    @classmethod
    def of(cls, theme: Theme) -> BarColours:
        return cls(
            QColor(theme.accent), QColor(theme.text), QColor(theme.muted), QColor(theme.border)
        )


def layout(rect: QRectF, metrics: QFontMetrics) -> tuple[QRectF, QRectF]:
    """The box of the number and the area of the bar within a Points cell."""
    pad = 6.0
    number = QRectF(
        rect.left() + pad, rect.top(), metrics.horizontalAdvance(NUMBER_WIDTH), rect.height()
    )
    area = QRectF(number.right() + 2 * pad, rect.top(), 0, rect.height())
    area.setRight(rect.right() - pad)
    return number, area


def tick_x(area: QRectF, axis: Axis, tick: float) -> float:
    return area.left() + area.width() * (tick - axis.start) / (axis.top - axis.start)


def paint_points(
    painter: QPainter,
    rect: QRectF,
    points: float,
    axis: Axis,
    colours: BarColours,
    *,
    preliminary: bool,
    text: QColor | None = None,
    interval: list[float] | None = None,
) -> None:
    """The number right-aligned in a fixed box, then the bar from the axis start.

    A preliminary score gets a pale bar with an outline: still readable, visibly
    less settled. A score below the axis gets no bar but a "far behind" note. A
    95% ``interval`` (a voted board inside its calibrated region) is drawn as a
    whisker across the bar's end, clipped to the axis.
    """
    painter.save()
    number_box, area = layout(rect, painter.fontMetrics())
    painter.setPen(text or colours.text)
    painter.drawText(
        number_box,
        int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
        f"{points:.0f}",
    )
    if area.width() <= 4:
        painter.restore()
        return
    painter.setPen(QPen(colours.grid, 1, Qt.PenStyle.DotLine))
    for tick in axis.ticks():
        x = tick_x(area, axis, tick)
        painter.drawLine(int(x), int(rect.top()), int(x), int(rect.bottom()))
    fraction = axis.fraction(points)
    if fraction is None:
        painter.setPen(colours.muted)
        painter.drawText(
            area, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), "◂ far behind"
        )
        painter.restore()
        return
    height = max(6.0, rect.height() * 0.5)
    bar = QRectF(
        area.left(), rect.center().y() - height / 2, max(2.0, area.width() * fraction), height
    )
    fill = QColor(colours.bar)
    if preliminary:
        fill.setAlphaF(0.3)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QPen(colours.bar, 1) if preliminary else Qt.PenStyle.NoPen)
    painter.setBrush(fill)
    painter.drawRoundedRect(bar, 2, 2)
    if interval is not None and interval[1] > interval[0]:
        _whisker(painter, area, axis, interval, bar, colours.text)
    painter.restore()


def _whisker(
    painter: QPainter, area: QRectF, axis: Axis, interval: list[float], bar: QRectF, colour: QColor
) -> None:
    """A line from the interval's low to its high end, with a cap at each end on the axis."""
    low, high = (
        area.left() + area.width() * max(0.0, axis.fraction(v) or 0.0) for v in interval[:2]
    )
    high = min(high, area.right())
    y, cap = bar.center().y(), bar.height() * 0.45
    painter.setPen(QPen(colour, 1.2))
    painter.drawLine(QPointF(low, y), QPointF(high, y))
    for x, inside in ((low, interval[0] >= axis.start), (high, high < area.right())):
        if inside:
            painter.drawLine(QPointF(x, y - cap), QPointF(x, y + cap))


class PointsDelegate(QStyledItemDelegate):
    """Draws the Points column of a ``BoardModel``."""

    def __init__(self, model: BoardModel, theme: Theme) -> None:
        super().__init__()
        self.model = model
        self.colours = BarColours.of(theme)

    def set_theme(self, theme: Theme) -> None:
        self.colours = BarColours.of(theme)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        # The style draws the row background and selection; we draw the contents.
        self.initStyleOption(option, index)
        option.text = ""
        widget = option.widget
        style = widget.style() if widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter, widget)
        points = index.data(POINTS_ROLE)
        if points is None or self.model.axis is None:
            return
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        painter.setFont(option.font)
        paint_points(
            painter,
            QRectF(option.rect),
            points,
            self.model.axis,
            self.colours,
            preliminary=self.model.preliminary(self.model.rows[index.row()]),
            text=option.palette.highlightedText().color() if selected else None,
            interval=self.model.rows[index.row()].ci95,
        )

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:  # noqa: N802
        width = option.fontMetrics.horizontalAdvance(NUMBER_WIDTH) + BAR_WIDTH
        return QSize(width, super().sizeHint(option, index).height())
