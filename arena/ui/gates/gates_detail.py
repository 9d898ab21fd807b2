"""One failing verdict in full: why it failed, the case it answers, and the whole output.

The prompt and the output are rendered as the rating page renders them (its render
cache, Markdown with every line break kept); a diff is shown as plain text.

For a Language verdict the pieces the gate read are listed with the language each
was read as, so the rater can see whether the answer is really in another language
or the prompt asked for it.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from arena.gates.langid import language_code
from arena.gates.screening import GateFailure
from arena.ui.gates.gates_data import GatesData, Reading, gate_title, short_reason
from arena.ui.rating.output_pane import Browser, make_browser
from arena.ui.rating.render_cache import OutputDocument, RenderCache
from arena.ui.settings import DEFAULT_FONT_SIZE
from arena.ui.theme import Theme, document_css

UNCLEAR = "unclear"


def read_as_text(reading: Reading) -> str:
    """``fr 64 letters (84%), unclear 12 (16%)`` for the pieces of one output."""
    shares = reading.shares()
    total = sum(n for _, n in shares)
    if not total:
        return "Nothing was read: no prose and no comments."
    parts = [
        f"{lang or UNCLEAR} {n} letters ({100 * n / total:.0f}%)"
        if i == 0
        else f"{lang or UNCLEAR} {n} ({100 * n / total:.0f}%)"
        for i, (lang, n) in enumerate(shares)
    ]
    return "Read as: " + ", ".join(parts) + "."


def _h(text: str) -> str:
    """Text for a rich-text label: markup characters escaped, quotes kept as they read."""
    return html.escape(text, quote=False)


def _text_box(theme: Theme) -> Browser:
    box = make_browser(theme, DEFAULT_FONT_SIZE)
    box.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
    return box


def _caption(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("summary-title")
    return label


class VerdictDetail(QWidget):
    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.theme = theme
        self.cache = RenderCache(theme, DEFAULT_FONT_SIZE, self)
        self.shown: tuple[GatesData, GateFailure] | None = None
        self.header = QLabel()
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setWordWrap(True)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.prompt = _text_box(theme)
        self.read_as = QLabel()
        self.read_as.setWordWrap(True)
        self.evidence = QTableWidget(0, 3)
        self.evidence.setHorizontalHeaderLabels(["Read as", "Letters", "Piece"])
        self.evidence.verticalHeader().hide()
        self.evidence.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.evidence.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.evidence.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        # Pieces wrap, so a long piece can be read whole without a tooltip.
        self.evidence.setWordWrap(True)
        header = self.evidence.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.output = _text_box(theme)

        self.evidence_box = QWidget()
        evidence_layout = QVBoxLayout(self.evidence_box)
        evidence_layout.setContentsMargins(0, 0, 0, 0)
        for widget in (
            _caption("Language evidence: what the gate read"),
            self.read_as,
            self.evidence,
        ):
            evidence_layout.addWidget(widget)
        prompt_box, output_box = QWidget(), QWidget()
        for box, caption, text in (
            (prompt_box, "Prompt", self.prompt),
            (output_box, "Output", self.output),
        ):
            box_layout = QVBoxLayout(box)
            box_layout.setContentsMargins(0, 0, 0, 0)
            box_layout.addWidget(_caption(caption))
            box_layout.addWidget(text)
        # The rater resizes these to read what matters for the verdict at hand.
        self.split = QSplitter(Qt.Orientation.Vertical)
        for pane in (prompt_box, self.evidence_box, output_box):
            self.split.addWidget(pane)
        self.split.setSizes([110, 170, 320])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.header)
        layout.addWidget(self.split, 1)
        self.show_note("")

    def show_note(self, text: str) -> None:
        """A line instead of a verdict (a group is selected, or nothing fails)."""
        self.header.setText(_h(text))
        self.split.hide()
        self.shown = None

    def show_verdict(self, data: GatesData, failure: GateFailure) -> None:
        output = data.output(failure.output_id)
        case = data.case(failure.case_id)
        lines = [
            f"<b>{gate_title(failure.gate)}</b> gate failed: {_h(short_reason(failure))}",
            f"Case <b>{_h(failure.case_id)}</b> · system "
            f"<b>{_h(failure.system)}</b> · output {failure.output_id[:12]}"
            + (f" (sample {output.sample})" if output.sample else ""),
        ]
        if failure.overruled_by is not None:
            event = next(
                (e for e in data.state.decisions.in_force if e.event_id == failure.overruled_by),
                None,
            )
            why = f": “{_h(event.note)}”" if event is not None and event.note else ""
            lines.append(
                f"<i>Overruled by event {failure.overruled_by[:12]}{why}. "
                "It does not count; U undoes the overrule.</i>"
            )
        doubt = data.doubt_of(failure.case_id) if failure.status == "in_doubt" else None
        if doubt is not None:
            lines.append(
                f"<i>In doubt: {_h(doubt.describe())} This verdict settles nothing until you "
                f"decide: L sets the case's language, K keeps "
                f"{_h(data.kept_language(failure.case_id))}.</i>"
            )
        lines.append(f"Expected language: {_h(data.expected_text(failure.case_id))}")
        if case.detected_language and case.language_evidence:
            lines.append(f"Read in the prompt: {_h(case.language_evidence)}")
        self.header.setText("<br>".join(lines))
        self.shown = (data, failure)
        self.prompt.display(self.cache.prompt(case.prompt))
        if output.is_diff:  # its own document: the cache's are shared
            plain = OutputDocument(self.output)
            plain.setDefaultFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
            plain.setPlainText(output.text)
            self.output.setDocument(plain)
        else:
            self.output.display(self.cache.output(output))
        self.output.setPlaceholderText("(the output is blank)")
        is_language = failure.gate == "language"
        self.evidence_box.setVisible(is_language)
        if is_language:
            self._show_reading(data.reading(failure.output_id))
        self.split.show()

    def _show_reading(self, reading: Reading) -> None:
        self.read_as.setText(
            read_as_text(reading) + "  Accepted: " + ", ".join(sorted(reading.expected)) + "."
        )
        self.evidence.setRowCount(len(reading.pieces))
        other = QColor(self.theme.removed_bg)
        for row, piece in enumerate(reading.pieces):
            cells = (piece.language or UNCLEAR, str(piece.weight), piece.text)
            foreign = bool(piece.language) and language_code(piece.language) not in reading.expected
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column == 1:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                if column == 2:
                    item.setToolTip(text)
                if foreign:
                    item.setBackground(other)
                if not piece.language:
                    item.setForeground(QColor(self.theme.muted))
                    font = QFont(item.font())
                    font.setItalic(True)
                    item.setFont(font)
                self.evidence.setItem(row, column, item)
        self.evidence.resizeRowsToContents()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.cache.set_theme(theme)
        for box in (self.prompt, self.output):
            box.document().setDefaultStyleSheet(document_css(theme))
        if self.shown is not None:  # the colours of highlighted code are in its HTML
            self.show_verdict(*self.shown)
