"""The visible board written out: CSV for spreadsheets, PNG and SVG for reports.

Images are drawn with QPainter on the light theme whatever the window shows,
since reports are printed on white; the bars are drawn by the same function as
the window's, so a published board looks like the one on screen.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QFontMetricsF,
    QImage,
    QImageWriter,
    QPainter,
    QPen,
)
from PySide6.QtSvg import QSvgGenerator

from arena.rounds.board_vocabulary import POINTS, WIDE_MARK
from arena.ui.board.board_delegate import NUMBER_WIDTH, BarColours, layout, paint_points, tick_x
from arena.ui.board.board_model import DASH, BoardModel, right_aligned
from arena.ui.theme import LIGHT

MARGIN = 28.0
CELL_PAD = 10.0
BAR_WIDTH = 240.0
ROW_HEIGHT = 26.0
TICK_HEIGHT = 16.0
IMAGE_SCALE = 2  # PNGs at twice the size stay sharp in slides and on high-DPI screens


@dataclass(frozen=True)
class BoardText:
    """What goes around the table in an exported image."""

    title: str
    subtitle: str
    notes: list[str]


def write_csv(path: Path, model: BoardModel) -> None:
    """The table as displayed (points rounded, shares in percent), missing values empty."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(model.table())


def _fonts() -> tuple[QFont, QFont, QFont, QFont]:
    # Pixel sizes: PNG and SVG devices differ in resolution, pixels mean the same on both.
    body = QFont()
    body.setPixelSize(13)
    bold = QFont(body)
    bold.setBold(True)
    title = QFont(body)
    title.setPixelSize(21)
    title.setBold(True)
    small = QFont(body)
    small.setPixelSize(11)
    return body, bold, title, small


def _column_widths(model: BoardModel, body: QFont, bold: QFont) -> list[float]:
    table = model.table(DASH, " " + WIDE_MARK)
    widths = []
    for i, column in enumerate(model.columns):
        if column is POINTS:
            widths.append(QFontMetricsF(body).horizontalAdvance(NUMBER_WIDTH) + BAR_WIDTH)
            continue
        head = QFontMetricsF(bold).horizontalAdvance(table[0][i])
        cells = [QFontMetricsF(body).horizontalAdvance(row[i]) for row in table[1:]]
        widths.append(max([head, *cells]) + 2 * CELL_PAD)
    return widths


def board_size(model: BoardModel, text: BoardText) -> QSize:
    body, bold, _, small = _fonts()
    width = sum(_column_widths(model, body, bold)) + 2 * MARGIN
    notes = max((QFontMetricsF(small).horizontalAdvance(n) for n in text.notes), default=0)
    height = (
        2 * MARGIN
        + 64
        + ROW_HEIGHT * (len(model.rows) + 1)
        + TICK_HEIGHT
        + 20
        + 18 * len(text.notes)
    )
    return QSize(int(max(width, notes + 2 * MARGIN, 560)), int(height))


def paint_board(painter: QPainter, model: BoardModel, text: BoardText, size: QSize) -> None:
    """Title, subtitle, the table with its bars, then the notes, on a white page."""
    theme = LIGHT
    body, bold, title_font, small = _fonts()
    painter.fillRect(QRectF(0, 0, size.width(), size.height()), QColor(theme.base))
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    width = size.width() - 2 * MARGIN
    y = MARGIN
    painter.setPen(QColor(theme.text))
    painter.setFont(title_font)
    painter.drawText(QRectF(MARGIN, y, width, 28), int(Qt.AlignmentFlag.AlignLeft), text.title)
    y += 30
    painter.setFont(body)
    painter.setPen(QColor(theme.muted))
    painter.drawText(QRectF(MARGIN, y, width, 20), int(Qt.AlignmentFlag.AlignLeft), text.subtitle)
    y += 34
    widths = _column_widths(model, body, bold)
    table = model.table(DASH, " " + WIDE_MARK)
    right = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    left = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    colours = BarColours.of(theme)
    for r, cells in enumerate(table):
        x = MARGIN
        header = r == 0
        if not header and r % 2 == 0:
            painter.fillRect(QRectF(MARGIN, y, sum(widths), ROW_HEIGHT), QColor(theme.code_bg))
        painter.setFont(bold if header else body)
        for c, column in enumerate(model.columns):
            cell = QRectF(x, y, widths[c], ROW_HEIGHT)
            painter.setPen(QColor(theme.muted if header else theme.text))
            if column is POINTS and not header:
                row = model.rows[r - 1]
                assert model.axis is not None  # a table with rows has an axis
                assert row.points is not None  # ranked rows have points; unranked ones are apart
                paint_points(
                    painter,
                    cell,
                    row.points,
                    model.axis,
                    colours,
                    preliminary=model.preliminary(row),
                    interval=row.ci95,
                )
            else:
                align = right if right_aligned(column) else left
                painter.drawText(cell.adjusted(CELL_PAD, 0, -CELL_PAD, 0), align, cells[c])
            x += widths[c]
        y += ROW_HEIGHT
        if header:
            y = _paint_ticks(painter, model, widths, y, small)
            painter.setPen(QPen(QColor(theme.text), 1))
            painter.drawLine(int(MARGIN), int(y), int(MARGIN + sum(widths)), int(y))
            painter.setFont(body)
    painter.setPen(QPen(QColor(theme.border), 1))
    painter.drawLine(int(MARGIN), int(y), int(MARGIN + sum(widths)), int(y))
    y += 12
    painter.setFont(small)
    painter.setPen(QColor(theme.muted))
    for note in text.notes:
        painter.drawText(QRectF(MARGIN, y, width, 18), left, note)
        y += 18


def _paint_ticks(
    painter: QPainter, model: BoardModel, widths: list[float], y: float, font: QFont
) -> float:
    """The axis values under the Points header, where the bars' grid lines fall."""
    if model.axis is None:
        return y
    column = model.columns.index(POINTS)
    cell = QRectF(MARGIN + sum(widths[:column]), y, widths[column], TICK_HEIGHT)
    painter.save()
    painter.setFont(font)
    painter.setPen(QColor(LIGHT.muted))
    # The bars are laid out with the body font; the labels must line up with them.
    _, area = layout(cell, QFontMetrics(_fonts()[0]))
    for tick in model.axis.ticks():
        x = tick_x(area, model.axis, tick)
        painter.drawText(
            QRectF(x - 30, y, 60, TICK_HEIGHT), int(Qt.AlignmentFlag.AlignCenter), f"{tick:.0f}"
        )
    painter.restore()
    return y + TICK_HEIGHT


def write_png(path: Path, model: BoardModel, text: BoardText) -> None:
    size = board_size(model, text)
    image = QImage(size * IMAGE_SCALE, QImage.Format.Format_ARGB32)
    image.setDevicePixelRatio(IMAGE_SCALE)
    painter = QPainter(image)
    paint_board(painter, model, text, size)
    painter.end()
    # What QImage.save(name, "PNG") does, typed: PySide6 wants a str format there at
    # run time while its stubs accept only bytes; QImageWriter takes bytes in both.
    if not QImageWriter(str(path), b"PNG").write(image):
        raise OSError(f"could not write {path}")


def write_svg(path: Path, model: BoardModel, text: BoardText) -> None:
    size = board_size(model, text)
    generator = QSvgGenerator()
    generator.setFileName(str(path))
    generator.setSize(size)
    generator.setViewBox(QRectF(0, 0, size.width(), size.height()))
    generator.setTitle(text.title)
    generator.setDescription(text.subtitle)
    painter = QPainter(generator)
    paint_board(painter, model, text, size)
    if not painter.end() or not path.exists():
        raise OSError(f"could not write {path}")


def write_image(path: Path, model: BoardModel, text: BoardText) -> None:
    """PNG or SVG by the file's suffix (PNG when it has neither)."""
    if path.suffix.lower() == ".svg":
        write_svg(path, model, text)
    else:
        write_png(path, model, text)
