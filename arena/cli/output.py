"""How the CLI prints: results to stdout, problems to stderr, JSON on request."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def error(message: str) -> None:
    print(f"arena: {message}", file=sys.stderr)


def emit_json(value: Any) -> None:
    json.dump(value, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def one_line(text: str) -> str:
    """Text on one line: line breaks of any kind shown as ⏎, tabs as spaces."""
    return "⏎".join(text.splitlines()).replace("\t", " ")


def table(
    headers: Sequence[str], rows: Sequence[Sequence[Any]], *, right: Sequence[bool] | None = None
) -> str:
    """A plain text table; numbers (or the columns ``right`` says) right-aligned, None as a
    dash."""
    cells = [[("—" if v is None else str(v)) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    numeric = right or [
        all(isinstance(row[i], (int, float)) or row[i] is None for row in rows)
        for i in range(len(headers))
    ]

    def line(values: Sequence[str]) -> str:
        return "  ".join(
            v.rjust(w) if n else v.ljust(w) for v, w, n in zip(values, widths, numeric, strict=True)
        ).rstrip()

    out = [line(list(headers)), line(["-" * w for w in widths])]
    out += [line(r) for r in cells]
    return "\n".join(out)


@contextmanager
def progress_bar(path: Path, what: str) -> Iterator[Callable[[int], None]]:
    """A byte-based progress bar on stderr for reading ``path`` (hidden when not a terminal)."""
    from tqdm import tqdm

    total = path.stat().st_size if path.is_file() else None
    with tqdm(
        total=total,
        unit="B",
        unit_scale=True,
        desc=what,
        disable=None,
        file=sys.stderr,
        leave=False,
    ) as bar:
        yield bar.update


@contextmanager
def gates_bar(total: int, family: str) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr over a family's outputs as the gates look at them."""
    from tqdm import tqdm

    with tqdm(
        total=total,
        desc=f"gates {family}",
        unit="output",
        disable=None,
        file=sys.stderr,
        leave=False,
    ) as bar:
        yield bar.update
