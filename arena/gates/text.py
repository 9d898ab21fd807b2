"""Separate what the Language gate reads (prose, comments) from code.

An answer is Markdown: markdown-it-py finds the fenced and indented code
blocks, and every other line is prose. Inside code only comments and
docstrings are language; Pygments finds them, with the lexer named by the
fence tag. A diff has no prose: its added lines are code, lexed by file name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, lru_cache

from markdown_it import MarkdownIt
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import Comment, String, _TokenType
from pygments.util import ClassNotFound

# Blocks a model uses for program output or plain text: not prose, not comments.
OUTPUT_TAGS = frozenset(
    {
        "text", "txt", "plain", "plaintext", "output", "console", "stdout", "stderr",
        "log", "shell-session", "terminal", "none", "nohighlight",
    }
)  # fmt: skip
# Markdown inside a fence is prose written by the model (a README, a letter).
MARKDOWN_TAGS = frozenset({"markdown", "md"})
# Comment kinds that are really code: preprocessor lines, `#!` lines.
_CODE_COMMENTS = (Comment.Preproc, Comment.PreprocFile, Comment.Hashbang)

_FENCE_LINE = re.compile(r"^[\s>]*(`{3,}|~{3,})")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_INDENTED = re.compile(r"^(?: {4}|\t)", re.MULTILINE)
# Inline code, links' targets, bare URLs and HTML tags are not prose.
_NOT_PROSE = re.compile(r"`[^`\n]*`|\]\([^)\n]*\)|\bhttps?://\S+|<[^<>\n]{1,200}>")

# What is not prose and so is never read (SPEC "Gates": numbers, formulas,
# identifiers, JSON keys, URLs, table cells). A line is read only if at least
# this share of it is prose words (docs/gates.md, "Thresholds"); from such a
# line only the prose words are read.
PROSE_SHARE = 0.5
# Letters, with the combining marks of scripts that need them (Indic, Thai, Lao,
# Hebrew and Arabic points, accents written apart), which ``\w`` does not match.
_LETTER = (
    "(?:[^\\W\\d_]|[\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a"
    "\u064b-\u065f\u0900-\u0dff\u0e00-\u0eff])"
)
# A prose word: letters joined by apostrophes or hyphens, between punctuation.
_WORD = re.compile(
    f"[(\\[\"'«“‘„¿¡*]*{_LETTER}+(?:['’\\-\u2010\u2011·]{_LETTER}+)*[)\\]\"'»”’.,;:!?*…]*"
)
# Han, kana and hangul with their own punctuation: prose words without spaces.
_WIDE_RUN = re.compile(
    "([\u1100-\u11ff\u3000-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff01-\uff0f\uff1a-\uff20\U00020000-\U000323af]+)"
)
# Signs of something in a line that is no prose word: a digit or a code symbol,
# camelCase, a dotted or scoped name or a call (os.path, std::map, f(x)). Lines
# without any (most prose) are read whole. Three searches, each a single scan,
# cost a third of one search for all three.
_SYMBOL = re.compile(r"[\d_=<>{}\[\]\\/|@#$%^&+~]")
_CAMEL = re.compile(r"[A-Z](?<=[a-z][A-Z])")
_DOTTED = re.compile(r"[.(:](?<=\w[.(:])\w")
_JSON_KEY = re.compile(r'"[^"\n]{0,100}"\s*:')
# Lines of code outside a code block: statement ends and SQL clauses.
_CODE_END = frozenset(";{}")
_SQL_CLAUSE = re.compile(
    r"(?:SELECT|FROM|WHERE|AND|OR|ON|JOIN|INNER|LEFT|RIGHT|OUTER|GROUP BY|ORDER BY|HAVING"
    r"|LIMIT|UNION|INSERT|UPDATE|DELETE|VALUES|SET|CREATE|ALTER|DROP|WITH)\b"
)

_COMMENT_MARKS = re.compile(
    r"^[ \t]*(?:#+|//+|/\*+|\*+/?|--+|;+|%+|\"\"\"|''')|(?:\*+/|\"\"\"|''')[ \t]*$", re.MULTILINE
)
# Without a usable tag, only whole lines that plainly are comments count.
_PLAIN_COMMENT = re.compile(
    r"^[ \t]*(?:#|//|--)[ \t]+(.+)$|^[ \t]*/\*(.*?)\*/[ \t]*$", re.MULTILINE
)


# Lexing is most of the gate's cost, and most code lines hold no comment. In these
# languages a comment or string ends with its line until the first line that opens
# something spanning lines (a block comment, a multi-line string, a backslash at the
# end). So only the lines with a comment marker before that line, and every line from
# it on, need lexing: the same comment tokens for a fraction of the work. (JavaScript
# and TypeScript are left out: whether `/` starts a regular expression depends on the
# token before it, which may be on a dropped line.)
_LINE_LOCAL: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # Pygments lexer name: (comment markers, openers that can span lines)
    "Python": (("#",), ('"""', "'''")),
    "JavaScript": (("//",), ("/*", "`")),
    "TypeScript": (("//",), ("/*", "`")),
    "Java": (("//",), ("/*", '"""')),
    "C": (("//",), ("/*",)),
    "C++": (("//",), ("/*", 'R"')),
    "C#": (("//",), ("/*", '@"', '"""')),
    "Go": (("//",), ("/*", "`")),
    "Kotlin": (("//",), ("/*", '"""')),
    "Swift": (("//",), ("/*", '"""')),
}


_BLOCK_COMMENT = re.compile(r"/\*.*?\*/")


def _closed_on_its_line(line: str, python: bool) -> bool:
    """A line whose docstrings (Python) or block comments (C family) all close on it.

    Only plain cases count: no other quote (which could hold the delimiters)
    and no line comment before the first delimiter. Anything else is taken to
    open a span.
    """
    if not python:
        if "/*" not in line or any(q in line for q in ('"', "'", "`")):
            return False
        return "/*" not in _BLOCK_COMMENT.sub("", line) and "//" not in line[: line.index("/*")]
    kinds = [k for k in ('"""', "'''") if k in line]
    if len(kinds) != 1:
        return False
    kind = kinds[0]
    rest = line.replace(kind, "")
    return (
        line.count(kind) % 2 == 0
        and '"' not in rest
        and "'" not in rest
        and "#" not in line[: line.index(kind)]
    )


@lru_cache(maxsize=64)  # the gate bounds a block by its region, then lexes the same region
def _comment_region(code: str, lexer: Lexer | None) -> str:
    """The part of ``code`` that holds every comment, in a form the lexer reads alike."""
    rule = _LINE_LOCAL.get(lexer.name) if lexer is not None else None
    if rule is None:
        return code
    markers, openers = rule
    python = lexer is not None and lexer.name == "Python"
    lines = code.split("\n")
    kept: list[str] = []
    for index, line in enumerate(lines):
        opens = any(o in line for o in openers)
        if line.endswith("\\") or (opens and not _closed_on_its_line(line, python)):
            kept += lines[index:]
            break
        if opens or any(m in line for m in markers):
            kept.append(line)
    text = "\n".join(kept)
    return text if not text or text.endswith("\n") else text + "\n"


@dataclass(frozen=True)
class CodeBlock:
    """Code whose comments may be read: ``tag`` from the fence, or a diff's file name."""

    code: str
    tag: str = ""
    filename: str = ""


@dataclass(frozen=True)
class Split:
    prose: tuple[str, ...]
    code: tuple[CodeBlock, ...]


@cache
def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark")
    # Only block structure is needed: skipping inline parsing halves the cost.
    md.disable("inline")
    return md


def _clean(line: str) -> str:
    # Most lines hold none of what _NOT_PROSE removes: skip the regex for them.
    if "`" in line or "](" in line or "://" in line or "<" in line:
        return _NOT_PROSE.sub(" ", line)
    return line


def _fence_tag(info: str) -> str:
    words = info.strip().split()
    return words[0].strip("{}.").lower() if words else ""


def _closes(line: str, markup: str) -> bool:
    match = _FENCE_LINE.match(line)
    return bool(
        match
        and match.group(1)[0] == markup[0]
        and len(match.group(1)) >= len(markup)
        and not line[match.end() :].strip()
    )


def might_have_code(text: str) -> bool:
    """False when no line can start a code block, so Markdown parsing can be skipped."""
    # What _INDENTED finds, without a regex scan: a line starting with 4 spaces or a tab.
    return (
        "```" in text
        or "~~~" in text
        or "\n    " in text
        or "\n\t" in text
        or text.startswith(("    ", "\t"))
    )


def split_markdown(text: str, *, truncated: bool = False) -> Split:
    """Prose lines and code blocks of a Markdown answer.

    A fence left open runs to the end of the answer in CommonMark. If the
    answer was cut off at its output limit (``truncated``) that is right: the
    code really runs to the end. Otherwise it is a formatting slip, and the
    code is taken to end at the fence's first blank line, after which the rest
    is read as Markdown again, so prose after a forgotten fence stays prose.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    prose: list[str] = []
    code: list[CodeBlock] = []
    _split_into(text, truncated, prose, code)
    return Split(tuple(prose), tuple(code))


def _split_into(text: str, truncated: bool, prose: list[str], code: list[CodeBlock]) -> None:
    if not might_have_code(text):
        prose.extend(_clean(text).split("\n"))
        return
    lines = text.split("\n")
    last = len(lines) - 1 if lines[-1] == "" else len(lines)
    is_code = [False] * len(lines)
    rest = ""
    for token in _markdown().parse(text):
        if token.type not in ("fence", "code_block") or token.map is None:
            continue
        start, end = token.map
        body = token.content
        tag = _fence_tag(token.info) if token.type == "fence" else ""
        open_to_end = (
            token.type == "fence"
            and end >= last
            and (end - start < 2 or not _closes(lines[end - 1], token.markup))
        )
        if open_to_end and not truncated:
            parts = _BLANK_LINE.split(body, maxsplit=1)
            if len(parts) == 2:
                body, rest = parts[0] + "\n", parts[1]
                end = start + 1 + body.count("\n")
                last = end
        for index in range(start, min(end, len(lines))):
            is_code[index] = True
        if tag in MARKDOWN_TAGS:
            _split_into(body, truncated, prose, code)
        elif tag not in OUTPUT_TAGS:
            code.append(CodeBlock(body, tag))
        if rest:
            break
    prose.extend(
        _clean(line) for line, skip in zip(lines[:last], is_code[:last], strict=True) if not skip
    )
    if rest:
        _split_into(rest, truncated, prose, code)


def split_diff(text: str) -> Split:
    """The added lines of a unified diff, one code block per file; no prose."""
    blocks: list[CodeBlock] = []
    filename = ""
    added: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.startswith("+++ "):
            if added:
                blocks.append(CodeBlock("\n".join(added) + "\n", filename=filename))
            added = []
            target = line[4:].split("\t")[0].strip()
            filename = target[2:] if target.startswith("b/") else target
        elif line.startswith("+"):
            added.append(line[1:])
    if added:
        blocks.append(CodeBlock("\n".join(added) + "\n", filename=filename))
    return Split((), tuple(blocks))


@lru_cache(maxsize=512)
def _lexer_for_tag(tag: str) -> Lexer | None:
    try:
        return get_lexer_by_name(tag, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


@lru_cache(maxsize=512)
def _lexer_for_suffix(suffix: str) -> Lexer | None:
    try:
        return get_lexer_for_filename(f"file{suffix}", stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def _lexer(block: CodeBlock) -> Lexer | None:
    if block.tag:
        return _lexer_for_tag(block.tag)
    if block.filename:
        name = block.filename.rsplit("/", 1)[-1]
        suffix = name[name.rfind(".") :] if "." in name else name
        return _lexer_for_suffix(suffix)
    return None


@cache
def _is_comment(kind: _TokenType) -> bool:
    # Cached: the subtype checks walk the token hierarchy and lexing yields many tokens.
    return (kind in Comment and not any(kind in code for code in _CODE_COMMENTS)) or (
        kind in String.Doc
    )


def comments(block: CodeBlock) -> list[str]:
    """Comment and docstring text of a code block, markers removed, one item per line.

    Without a known lexer (no tag, an unknown tag, an indented block) guessing
    one is unreliable on short snippets, so only whole lines starting with
    ``#``, ``//`` or ``--`` and a space, or wrapped in ``/* */``, are taken.
    """
    lexer = _lexer(block)
    if lexer is None:
        found = "\n".join(a or b for a, b in _PLAIN_COMMENT.findall(block.code))
    else:
        found = "\n".join(
            value
            for _, kind, value in lexer.get_tokens_unprocessed(_comment_region(block.code, lexer))
            if _is_comment(kind)
        )
    return [line for line in _COMMENT_MARKS.sub(" ", found).split("\n") if line.strip()]


def readable(line: str) -> str:
    """The prose words of ``line`` that the Language gate reads, or "" when it is not prose.

    Table rows and lines of code (ending ``;``, ``{`` or ``}``, or an SQL
    clause) are skipped whole; JSON keys are dropped. Otherwise the line is
    read when its prose words make up at least ``PROSE_SHARE`` of the
    characters of its words (words without a letter or digit, such as list
    bullets and dashes, count for neither side), and then only those are read.
    """
    stripped = line.strip()
    if (
        not stripped
        or stripped[-1] in _CODE_END
        or _is_table_row(stripped)
        or _SQL_CLAUSE.match(stripped)
    ):
        return ""
    if '":' in stripped:
        stripped = _JSON_KEY.sub(" ", stripped).strip()
    if not _maybe_not_prose(stripped):
        return stripped
    words: list[str] = []
    prose = other = 0
    for part in stripped.split():
        if part.isascii():
            # As below for one ASCII token, which no _WIDE_RUN can match; a capital
            # after the first letter is needed for _CAMEL to match.
            if _WORD.fullmatch(part) and (part[1:].islower() or not _CAMEL.search(part)):
                words.append(part)
                prose += len(part)
            elif part.strip(_ASCII_NOT_ALNUM):
                other += len(part)
            continue
        for token in _tokens(part):
            if (_WORD.fullmatch(token) and not _CAMEL.search(token)) or _WIDE_RUN.fullmatch(token):
                words.append(token)
                prose += len(token)
            elif any(c.isalnum() for c in token):
                other += len(token)
    return " ".join(words) if prose >= PROSE_SHARE * (prose + other) else ""


# _SYMBOL's characters on ASCII text (where ``\d`` is 0-9): one ``in`` each, as
# str.find scans with memchr, is some fifteen times faster than the regex on prose.
_ASCII_SYMBOLS = "0123456789_=<>{}[]\\/|@#$%^&+~"
_ASCII_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# From this length on, the str scans beat the three regexes (about 3x at 2,000 characters;
# on a sentence the regexes are the faster, by as much).
_SCANNED_FROM = 300
_ASCII_NOT_ALNUM = "".join(chr(c) for c in range(128) if not chr(c).isalnum())


def _maybe_not_prose(line: str) -> bool:
    """Whether ``line`` has a sign of something that is no prose word: what
    ``_SYMBOL``, ``_CAMEL`` or ``_DOTTED`` find (on long ASCII text, found without them:
    a regex scan costs by the character, the str scans below by the call)."""
    if len(line) < _SCANNED_FROM or not line.isascii():
        return bool(_SYMBOL.search(line) or _CAMEL.search(line) or _DOTTED.search(line))
    for char in _ASCII_SYMBOLS:
        if char in line:
            return True
    # _CAMEL: a capital right after a lower-case letter.
    for char in _ASCII_UPPER:
        at = line.find(char, 1)
        while at != -1:
            if line[at - 1].islower():
                return True
            at = line.find(char, at + 1)
    # _DOTTED: ".", "(" or ":" between two word characters.
    last = len(line) - 1
    for char in ".(:":
        at = line.find(char, 1)
        while at != -1 and at < last:
            before, after = line[at - 1], line[at + 1]
            if (before.isalnum() or before == "_") and (after.isalnum() or after == "_"):
                return True
            at = line.find(char, at + 1)
    return False


def _is_table_row(line: str) -> bool:
    return "|" in line and (line[0] == "|" or line.count("|") >= 2)


def _tokens(line: str) -> Iterator[str]:
    """Words split at spaces, and at the edges of Han, kana and hangul runs (written unspaced)."""
    for token in line.split():
        if token.isascii():
            yield token
        else:
            yield from filter(None, _WIDE_RUN.split(token))


def comment_bound(block: CodeBlock) -> str:
    """Text holding every comment of ``block``: its letters bound the comments' letters.

    Found without lexing, so the Language gate can skip lexing a block whose
    comments could not change its verdict even if all of this were comment.
    """
    return _comment_region(block.code, _lexer(block))


def unclosed_fence(text: str) -> bool:
    """Whether a code fence is still open at the end of ``text`` (a truncation hint)."""
    if "```" not in text and "~~~" not in text:
        return False
    opener = ""
    for line in text.split("\n"):
        match = _FENCE_LINE.match(line)
        if not match:
            continue
        if not opener:
            opener = match.group(1)
        elif _closes(line, opener):
            opener = ""
    return bool(opener)
