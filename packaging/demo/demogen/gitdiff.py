"""Patches as ``git diff`` prints them: index lines with blob ids and hunk headers with
git's default function context."""

from __future__ import annotations

import difflib
import hashlib
import re

_FUNCNAME = re.compile(r"^[A-Za-z_$]")
_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def _git_blob_id(text: str) -> str:
    data = text.encode("utf-8")
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def file_diff(path: str, old: str | None, new: str, abbrev: int = 7) -> str:
    """One file's section of a `git diff`, hunk headers with git's default
    function context; blob ids cut to ``abbrev`` hex digits (40: ``--full-index``)."""
    a = [] if old is None else old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    head = [f"diff --git a/{path} b/{path}\n"]
    if old is None:
        head += ["new file mode 100644\n", f"index {'0' * abbrev}..{_git_blob_id(new)[:abbrev]}\n"]
    else:
        head += [f"index {_git_blob_id(old)[:abbrev]}..{_git_blob_id(new)[:abbrev]} 100644\n"]
    body = []
    for line in difflib.unified_diff(
        a, b, "/dev/null" if old is None else f"a/{path}", f"b/{path}", n=3
    ):
        m = _HUNK.match(line)
        if m:
            start = int(m.group(1))
            context = ""
            for prev in reversed(a[: max(start - 1, 0)]):
                if _FUNCNAME.match(prev):
                    context = " " + prev.rstrip("\n")[:80]
                    break
            line = line.rstrip("\n") + context + "\n"
        body.append(line)
    return "".join(head + body)


def apply_edits(files: dict[str, str], edits: list[dict]) -> tuple[dict[str, str], set[str]]:
    """The files after the edits, and the paths the edits created. An edit replaces
    ``old`` (which must occur exactly once) with ``new`` in ``path``; without ``old``,
    ``new`` is the whole file."""
    new_files = dict(files)
    created = set()
    for edit in edits:
        path, new = edit["path"], edit["new"]
        if "old" not in edit:
            new_files[path] = new
            if path not in files:
                created.add(path)
            continue
        text = new_files[path]
        assert text.count(edit["old"]) == 1, (path, edit["old"])
        new_files[path] = text.replace(edit["old"], new)
    return new_files, created


def make_diff(files: dict[str, str], edits: list[dict], abbrev: int = 7) -> str:
    new_files, created = apply_edits(files, edits)
    parts = []
    for path in sorted(new_files):
        if path in created:
            parts.append(file_diff(path, None, new_files[path], abbrev))
        elif new_files[path] != files[path]:
            parts.append(file_diff(path, files[path], new_files[path], abbrev))
    return "".join(parts)
