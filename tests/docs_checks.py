"""Reading Markdown docs for tests/test_docs.py: the ``arena`` command lines, the ``--json``
field lists, the links and the headings' anchors (as GitHub makes them)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field


def _fenced(text: str) -> Iterator[tuple[int, str, bool]]:
    """Each line with its number and whether it is inside a fenced code block."""
    inside = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            inside = not inside
            continue
        yield number, line, inside


def command_lines(text: str) -> list[tuple[int, str, bool]]:
    """Every ``arena …`` command line: ``(line number, command, whole)``. Whole: a line of a
    code block (with its indented continuation lines, without its ``# comment``), which
    must parse; else an inline code span, which may name only part of a command."""
    found: list[tuple[int, str, bool]] = []
    for number, line, inside in _fenced(text):
        if not inside:
            continue
        code = line.split(" #")[0].rstrip()
        if re.match(r"(\$ )?arena( |$)", code.strip()):
            found.append((number, code.strip().removeprefix("$ "), True))
        elif found and found[-1][2] and code.startswith(" ") and code.strip():
            if found[-1][0] + len(found[-1][1].split("\n")) == number:
                start, command, _ = found[-1]
                found[-1] = (start, f"{command}\n{code.strip()}", True)
    # Inline spans may wrap across lines: read them in the text with its line breaks.
    for match in re.finditer(r"(?<!`)`(arena(?: [^`]+)?)`(?!`)", text):
        number = text.count("\n", 0, match.start()) + 1
        found.append((number, " ".join(match.group(1).split()), False))
    return [(n, " ".join(c.split()), whole) for n, c, whole in found]


def links(text: str) -> Iterator[tuple[int, str]]:
    """The target of every Markdown link outside code: ``(line number, target)``."""
    for number, line, inside in _fenced(text):
        if inside:
            continue
        for match in re.finditer(r"\]\(([^)\s]+)\)", re.sub(r"`[^`]*`", "", line)):
            yield number, match.group(1)


def heading_anchors(text: str) -> set[str]:
    """The anchors GitHub gives the headings: lower case, punctuation but ``-`` and ``_``
    dropped, spaces as ``-``, a repeated one numbered."""
    anchors: set[str] = set()
    for _, line, inside in _fenced(text):
        match = re.match(r"#{1,6} (.*)", line)
        if inside or not match:
            continue
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", match.group(1).strip())
        anchor = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        numbered, n = anchor, 0
        while numbered in anchors:
            n += 1
            numbered = f"{anchor}-{n}"
        anchors.add(numbered)
    return anchors


@dataclass(frozen=True)
class JsonSpec:
    """A ``--json`` field list: the inline ``{"key", …}`` (or ``[{…}]``) after a ``--json``,
    a ``| key | meaning |`` table, or a ```` ```json ```` example right after a ``--json``."""

    heading: str
    ordinal: int  # its place among the lists under the same heading
    kind: str  # "inline", "table" or "example"
    body: str


@dataclass
class Keys:
    top: set[str]
    nested: dict[str, set[str]] = field(default_factory=dict)  # key: keys of its objects


def json_specs(text: str) -> list[JsonSpec]:
    lines = text.splitlines()
    headings, heading = [], ""
    for line in lines:
        if re.match(r"#{1,6} ", line):
            heading = line.lstrip("#").strip()
        headings.append(heading)
    found: list[tuple[int, str, str]] = []  # (line index, kind, body)
    for match in re.finditer(r"`--json`[^`]{0,40}?`(\[?\{[^`]*\}\]?)`", text):
        found.append((text.count("\n", 0, match.start(1)), "inline", match.group(1)))
    i = 0
    while i < len(lines):
        if re.match(r"\| key \| meaning \|", lines[i]):
            start, i = i, i + 2
            while i < len(lines) and lines[i].startswith("|"):
                i += 1
            found.append((start, "table", "\n".join(lines[start + 2 : i])))
        elif lines[i].strip() == "```json" and "--json" in " ".join(lines[max(i - 2, 0) : i]):
            start, i = i, i + 1
            while lines[i].strip() != "```":
                i += 1
            found.append((start, "example", "\n".join(lines[start + 1 : i])))
        i += 1
    specs, counted = [], {}
    for index, kind, body in sorted(found):
        ordinal = counted[headings[index]] = counted.get(headings[index], -1) + 1
        specs.append(JsonSpec(headings[index], ordinal, kind, body))
    return specs


def _quoted_keys(body: str) -> Keys:
    """The keys of the outer object of ``{"a", "b": [{"c", "d"}], "e": 1}`` (a quoted name
    not after a ``:``), and those of the objects one level in, by the key they are under."""
    keys = Keys(set())
    stack: list[str | None] = []  # the key each open bracket is under
    last: str | None = None
    for match in re.finditer(r'(:\s*)?"([^"]*)"|[\[\]{}]', body):
        token = match.group(0)
        if token in "[{":
            stack.append(last if len(stack) == 1 else (stack[-1] if stack else None))
        elif token in "]}":
            stack.pop()
        elif match.group(1) is None:  # a key, not a value
            if len(stack) == 1:
                last = match.group(2)
                keys.top.add(last)
            elif stack[-1] is not None and token[-1] == '"':
                keys.nested.setdefault(stack[-1], set()).add(match.group(2))
    return keys


def documented_keys(spec: JsonSpec) -> Keys:
    if spec.kind == "table":
        names = set()
        for row in spec.body.splitlines():
            names |= set(re.findall(r"`([^`]+)`", row.split("|")[1]))
        return Keys(names)
    # A list of objects (``[{"a", "b"}]``) is described by its objects' keys.
    body = spec.body[1:-1] if spec.body.startswith("[") else spec.body
    keys = _quoted_keys(body)
    if spec.kind == "inline":
        # Only a nested object named wholly by its keys is a field list ("created": {the
        # settings as created, "at"} describes one in words).
        for name in list(keys.nested):
            inner = re.search(rf'"{re.escape(name)}":\s*\[?\{{([^{{}}]*)\}}', body)
            if inner is None or re.sub(r'"[^"]*"|[\s,]', "", inner.group(1)):
                del keys.nested[name]
    return keys
