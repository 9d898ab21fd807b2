"""Markdown to the HTML subset QTextDocument understands, with Pygments for fenced code.

Raw HTML in an output is escaped, never rendered: outputs are untrusted text and
the rater must see what the system wrote, not what it would look like in a browser.
Code is highlighted only when the fence names its language, because guessing the
lexer is unreliable on short snippets (research/qt.md).
"""

from __future__ import annotations

import html
from functools import lru_cache

from markdown_it import MarkdownIt
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from arena.ui.theme import Theme


def _highlighter(style: str):
    # Inline styles: QTextDocument applies them without a per-theme class sheet.
    formatter = HtmlFormatter(noclasses=True, nowrap=True, style=style)

    def render(code: str, lang: str, _attrs: str) -> str:
        name = (lang or "").strip().split()[0] if (lang or "").strip() else ""
        try:
            lexer = get_lexer_by_name(name) if name else None
        except ClassNotFound:
            lexer = None
        if lexer is None:
            return f"<pre>{html.escape(code)}</pre>"
        return f"<pre>{highlight(code, lexer, formatter)}</pre>"

    return render


@lru_cache(maxsize=4)
def _parser(style: str) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "highlight": _highlighter(style)})
    return md.enable(["table", "strikethrough"])


def render_markdown(text: str, theme: Theme) -> str:
    """HTML for ``text``; each paragraph's direction is left to Qt, which takes it
    from the paragraph's first strong character (Arabic or Hebrew flows right to left)."""
    return _parser(theme.pygments_style).render(text)
