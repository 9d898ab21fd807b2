"""Rendering outputs ahead of time, so the next pair appears as soon as the vote commits.

Markdown with highlighted code costs ~3 ms per 1,000 characters in Python, and Qt's
parsing of the HTML into a document as much again (8 ms an output of the benchmark's
long prose): either alone would spend the latency budget on long outputs
(benchmarks/ui_latency.py). While the rater reads a pair, idle time renders the
outputs of the pair that will most likely come next into documents ready to show; a
wrong guess only costs rendering on demand.
"""

from __future__ import annotations

import dataclasses
import html
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from PySide6.QtCore import QObject, QTimer, QUrl
from PySide6.QtGui import QFont, QTextDocument

from arena.records import Output
from arena.ui.rating.diff_model import DiffModel, parse_diff
from arena.ui.rating.markdown_render import render_markdown, render_raw
from arena.ui.rating.turns import output_turns, split_turns
from arena.ui.theme import Theme, document_css

CACHE_SIZE = 64


class Space(NamedTuple):
    """Where a browser shows a document: its width and height with no scroll bar, and the
    width a vertical scroll bar takes from it."""

    width: int
    height: int
    bar: int


class OutputDocument(QTextDocument):
    """A document that loads nothing an output names. Outputs are untrusted: without a
    browser as its parent, a document would read ``![x](/some/local/file)`` from disk."""

    def loadResource(self, kind: int, url: QUrl | str) -> object:  # noqa: N802 (Qt override)
        return None


@dataclass(frozen=True)
class Rendered:
    """An output ready to show: HTML for prose (or an unparseable diff), else diff rows;
    the cache adds the HTML parsed into a document in its font and style sheet."""

    html: str | None = None
    diff: DiffModel | None = None
    document: QTextDocument | None = None


def render_output(text: str, is_diff: bool, theme: Theme, *, raw: bool = False) -> Rendered:
    """What the pane shows of an output: the exact characters in the raw view, else
    Markdown, or diff rows for a diff."""
    if raw:
        return Rendered(html=render_raw(text, theme))
    if is_diff:
        model = parse_diff(text)
        if model is not None:
            return Rendered(diff=model)
        return Rendered(html=f"<pre>{html.escape(text)}</pre>")
    return Rendered(html=render_markdown(text, theme))


def render_prompt(text: str, theme: Theme, *, raw: bool = False) -> Rendered:
    return Rendered(html=render_raw(text, theme) if raw else render_markdown(text, theme))


class RenderCache(QObject):
    """Rendered outputs and prompts by content, least recently used dropped first.

    ``raw`` is the view it renders in (the exact characters, or Markdown); each view's
    documents are kept apart, so going back to the other finds them still made."""

    def __init__(self, theme: Theme, point_size: float, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.theme = theme
        self.point_size = point_size
        self.raw = False
        self._cache: OrderedDict[tuple, Rendered] = OrderedDict()
        # Where the browser of a side ("left", "right", "prompt") shows a document, as the
        # pair view measures it (None: not known): documents are laid out there when made.
        self.space_of: Callable[[str], Space | None] = lambda side: None
        self._queue: list[tuple[tuple, Callable[[], Rendered]]] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._render_one)

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self._forget()

    def set_point_size(self, size: float) -> None:
        self.point_size = size
        self._forget()

    def set_raw(self, raw: bool) -> None:
        self.raw = raw
        self._queue.clear()  # made for the other view

    def _forget(self) -> None:
        """Drop what was rendered and what waits to be: its colours or size are stale."""
        self._cache.clear()
        self._queue.clear()

    def _with_document(self, rendered: Rendered, space: Space | None) -> Rendered:
        if rendered.html is None:
            return rendered
        font = QFont()
        font.setPointSizeF(self.point_size)
        document = OutputDocument()
        document.setUndoRedoEnabled(False)
        document.setDefaultFont(font)
        document.setDefaultStyleSheet(document_css(self.theme))
        document.setHtml(rendered.html)
        if space is not None:
            _lay_out(document, space)
        return dataclasses.replace(rendered, document=document)

    def _get(self, key: tuple, make: Callable[[], Rendered]) -> Rendered:
        found = self._cache.get(key)
        if found is None:
            found = make()
            self._cache[key] = found
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        self._cache.move_to_end(key)
        return found

    def _output_job(
        self, output: Output, space: Space | None = None
    ) -> tuple[tuple, Callable[[], Rendered]]:
        theme, raw = self.theme, self.raw
        key = ("output", output.output_id, theme.name, raw)
        return key, lambda: self._with_document(
            render_output(output.text, output.is_diff, theme, raw=raw), space
        )

    def _turn_job(
        self, output: Output, turn: int, text: str, space: Space | None = None
    ) -> tuple[tuple, Callable[[], Rendered]]:
        theme, raw = self.theme, self.raw
        key = ("turn", output.output_id, turn, theme.name, raw)
        return key, lambda: self._with_document(render_output(text, False, theme, raw=raw), space)

    def _prompt_job(
        self, prompt: str, space: Space | None = None
    ) -> tuple[tuple, Callable[[], Rendered]]:
        theme, raw = self.theme, self.raw
        key = ("prompt", prompt, theme.name, raw)
        return key, lambda: self._with_document(render_prompt(prompt, theme, raw=raw), space)

    def output(self, output: Output) -> Rendered:
        return self._get(*self._output_job(output))

    def turn(self, output: Output, turn: int, text: str) -> Rendered:
        """Turn ``turn`` (from 0) of a multi-turn answer, whose text is ``text``."""
        return self._get(*self._turn_job(output, turn, text))

    def prompt(self, prompt: str) -> Rendered:
        return self._get(*self._prompt_job(prompt))

    def prefetch(self, outputs: list[tuple[Output, str]], prompts: list[str]) -> None:
        """Render these (outputs with the side they will likely show on) in idle time, one
        per event-loop turn so keys stay responsive, and lay them out there. A multi-turn
        answer or prompt is rendered turn by turn, as the pair view shows it."""
        space = self.space_of
        jobs = []
        for output, side in outputs:
            turns = output_turns(output)
            if turns is None:
                jobs.append(self._output_job(output, space(side)))
            else:
                at = space(f"{side}-turn")
                jobs += [self._turn_job(output, i, t, at) for i, t in enumerate(turns)]
        for prompt in prompts:
            questions = split_turns(prompt)
            if questions is None:
                jobs.append(self._prompt_job(prompt, space("prompt")))
            else:
                jobs += [self._prompt_job(q, space("prompt-turn")) for q in questions]
        self._queue = [job for job in jobs if job[0] not in self._cache]
        if self._queue:
            self._timer.start(0)

    def busy(self) -> bool:
        return bool(self._queue)

    def _render_one(self) -> None:
        if not self._queue:
            return
        key, make = self._queue.pop(0)
        self._get(key, make)
        if self._queue:
            self._timer.start(0)


def _lay_out(document: QTextDocument, space: Space) -> None:
    """Lay ``document`` out whole as a browser in ``space`` will show it, beside a scroll
    bar when it is too tall: the browser then has nothing to lay out as it shows it (half
    of showing a long output, and most of its worst case). Beside the bar first, so a long
    document is laid out once; one that fits is short, and laid out again at full width.
    Only in idle time: on demand, a browser lays out no more than it shows."""
    document.setTextWidth(space.width - space.bar)
    if document.documentLayout().documentSize().height() <= space.height:
        document.setTextWidth(space.width)
        document.documentLayout().documentSize()
