"""Text to the HTML subset QTextDocument understands: Markdown as written, or the raw text.

Markdown keeps every line break the system wrote (hard breaks, as chat interfaces
render model output) and the indentation that starts a broken line, so a list of
words one a line, CSV records and YAML read as written; tables, lists and fenced
code are rendered. Raw HTML in an output is escaped, never rendered: outputs are
untrusted text and the rater must see what the system wrote, not what it would
look like in a browser. Code is highlighted only when the fence names its
language, because guessing the lexer is unreliable on short snippets (research/qt.md).

The raw view shows the exact characters in a fixed font: trailing spaces as ``·``,
tabs as ``→`` (each still a tab), and invisible characters by their code point.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.newline import newline
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from arena.ui.theme import Theme

TAB_COLUMNS = 4
# A line's trailing spaces and tabs (before its line feed or the end of the text).
_TRAILING = re.compile(r"[ \t]+(?=\r?$)", re.MULTILINE)


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


def _newline_keeping_indent(state: StateInline, silent: bool) -> bool:
    """CommonMark's line break, then the next line's indentation, which it would drop."""
    start = state.pos
    if not newline(state, silent):
        return False
    if not silent:
        skipped = state.src[start + 1 : state.pos]
        columns = sum(TAB_COLUMNS if c == "\t" else 1 for c in skipped)
        if columns:
            state.push("indent", "", 0).content = "&nbsp;" * columns
    return True


@lru_cache(maxsize=4)
def _parser(style: str) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "breaks": True, "highlight": _highlighter(style)})
    md.enable(["table", "strikethrough"])
    md.inline.ruler.at("newline", _newline_keeping_indent)
    md.add_render_rule("indent", lambda _self, tokens, idx, *_: tokens[idx].content)
    return md


def render_markdown(text: str, theme: Theme) -> str:
    """HTML for ``text``; each paragraph's direction is left to Qt, which takes it
    from the paragraph's first strong character (Arabic or Hebrew flows right to left)."""
    # Without the last line feed, which Qt would read as a trailing space.
    return _parser(theme.pygments_style).render(text).rstrip("\n")


# What the raw view marks: tabs, carriage returns, control characters, spaces other
# than the plain one, and the format characters that show as nothing (zero-width
# spaces and joiners, direction marks, the byte order mark, the soft hyphen).
_SPECIAL = re.compile(
    "[\t\r\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00a0\u00ad\u061c\u1680\u180e\u2000-\u200f"
    "\u2028-\u202f\u205f-\u2064\u2066-\u206f\u3000\ufeff]"
)
_SIGNS = {"\t": "→", "\r": "␍"}


def _marked(text: str, muted: str) -> str:
    def mark(sign: str) -> str:
        return f"<span style='color: {muted}'>{sign}</span>"

    def special(found: re.Match[str]) -> str:
        char = found.group()
        sign = mark(_SIGNS.get(char) or f"⟨U+{ord(char):04X}⟩")
        return sign + "\t" if char == "\t" else sign  # a tab still moves to its stop

    def visible(chunk: str) -> str:
        return _SPECIAL.sub(special, html.escape(chunk, quote=False))

    parts, at = [], 0
    for found in _TRAILING.finditer(text):
        parts.append(visible(text[at : found.start()]))
        parts.append("".join(mark("·") if c == " " else visible(c) for c in found.group()))
        at = found.end()
    parts.append(visible(text[at:]))
    return "".join(parts)


def render_raw(text: str, theme: Theme) -> str:
    """HTML showing ``text`` character for character, long lines wrapped."""
    return (
        "<div style='white-space: pre-wrap; font-family: monospace'>"
        f"{_marked(text, theme.muted)}</div>"
    )
