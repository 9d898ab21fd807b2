"""A diff as the rows a reviewer reads: per file, per hunk, with line numbers.

Parsing keeps only what a pull request review shows. Anything outside the file
diffs (a commit message, a ``From`` header, a test log pasted after the patch) is
dropped, so the rater judges the change and not the story told about it.
Pure Python (no Qt), so it can be built ahead of time and tested alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

RowKind = Literal["file", "hunk", "context", "added", "removed", "empty", "pair"]
TAB = "    "


@dataclass(frozen=True)
class Side:
    """One half of a side-by-side row."""

    kind: RowKind
    number: int | None
    text: str


@dataclass(frozen=True)
class Row:
    """One painted line.

    ``file`` and ``hunk`` rows span the width and carry ``text``. Unified rows are
    ``context``/``added``/``removed`` with both line numbers; side-by-side rows are
    ``pair`` rows with a ``left`` (old) and ``right`` (new) half.
    """

    kind: RowKind
    text: str = ""
    old_no: int | None = None
    new_no: int | None = None
    left: Side | None = None
    right: Side | None = None


@dataclass(frozen=True)
class DiffModel:
    unified: tuple[Row, ...]
    split: tuple[Row, ...]
    files: int
    added: int
    removed: int
    # For the view's geometry, found here so it is computed ahead of time too.
    largest_number: int
    longest: tuple[str, ...]


def _clean(value: str) -> str:
    return value.rstrip("\r\n").replace("\t", TAB)


def _file_title(patched) -> str:
    source = patched.source_file.removeprefix("a/")
    target = patched.target_file.removeprefix("b/")
    if patched.is_added_file:
        what = f"{target} (new file)"
    elif patched.is_removed_file:
        what = f"{source} (deleted)"
    elif patched.is_rename or source != target:
        what = f"{source} → {target}"
    else:
        what = target
    if patched.is_binary_file:
        return f"{what} (binary file changed)"
    return f"{what}   +{patched.added} −{patched.removed}"


def _split_hunk(lines) -> list[Row]:
    """Pair each run of removed lines with the run of added lines that follows it."""
    rows: list[Row] = []
    removed: list[Side] = []
    added: list[Side] = []

    def flush() -> None:
        for i in range(max(len(removed), len(added))):
            left = removed[i] if i < len(removed) else Side("empty", None, "")
            right = added[i] if i < len(added) else Side("empty", None, "")
            rows.append(Row("pair", left=left, right=right))
        removed.clear()
        added.clear()

    for line in lines:
        text = _clean(line.value)
        if line.is_removed:
            if added:
                flush()
            removed.append(Side("removed", line.source_line_no, text))
        elif line.is_added:
            added.append(Side("added", line.target_line_no, text))
        elif line.is_context:
            flush()
            rows.append(
                Row(
                    "pair",
                    left=Side("context", line.source_line_no, text),
                    right=Side("context", line.target_line_no, text),
                )
            )
    flush()
    return rows


def parse_diff(text: str) -> DiffModel | None:
    """The rows of ``text``, or None when it holds no file diff (show it as plain text)."""
    try:
        patch = PatchSet(text)
    except UnidiffParseError:
        return None
    if len(patch) == 0:
        return None
    unified: list[Row] = []
    split: list[Row] = []
    for patched in patch:
        title = Row("file", _file_title(patched))
        unified.append(title)
        split.append(title)
        for hunk in patched:
            header = Row(
                "hunk",
                f"@@ -{hunk.source_start},{hunk.source_length} "
                f"+{hunk.target_start},{hunk.target_length} @@ "
                f"{hunk.section_header}".rstrip(),
            )
            unified.append(header)
            split.append(header)
            for line in hunk:
                kind: RowKind = (
                    "added" if line.is_added else "removed" if line.is_removed else "context"
                )
                unified.append(
                    Row(kind, _clean(line.value), line.source_line_no, line.target_line_no)
                )
            split.extend(_split_hunk(hunk))
    numbers = [n for r in unified for n in (r.old_no, r.new_no) if n is not None]
    # The longest lines by characters: the view measures only these, since wide (CJK)
    # glyphs make a shorter line wider by at most a factor two and measuring all is slow.
    longest = sorted((r.text for r in unified), key=len, reverse=True)[:20]
    return DiffModel(
        tuple(unified),
        tuple(split),
        len(patch),
        patch.added,
        patch.removed,
        max(numbers, default=1),
        tuple(longest),
    )
