"""The one error hierarchy of Arena.

The CLI turns an ``ArenaError`` into a one-line message and the exit code
its class carries; the window shows it through one function. Anything else
escaping is a bug.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class ArenaError(Exception):
    """Root of every error Arena reports to a person."""

    exit_code = 1


class BadInput(ArenaError):
    """Input that Arena refuses: rendered as ``PATH:LINE: field: problem``."""

    exit_code = 2

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.path = path
        self.line = line
        self.field = field
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = f"{self.path}:{self.line}: " if self.line is not None else f"{self.path}: "
        what = f"{self.field}: " if self.field else ""
        return f"{where}{what}{self.message}"


def did_you_mean(name: str, names: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the names ``name`` is likely a slip of, else ``""``."""
    names = list(names)
    folded = name.casefold()
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
    # A prefix or a part of a longer name is a likely slip too ("jmt" for "jmt-bench").
    close += [
        n
        for n in names
        if n not in close
        and min(len(n), len(name)) >= 3
        and (folded in n.casefold() or n.casefold() in folded)
    ]
    guesses = " or ".join(repr(n) for n in close[:3])
    return f" (did you mean {guesses}?)" if guesses else ""


def unknown_field(name: str, known: Iterable[str]) -> str:
    """The problem of a field no reader knows, with the known ones it may be a slip of."""
    return "unknown field" + did_you_mean(name, sorted(known))


class NotAvailable(ArenaError):
    """A command or feature this build or machine cannot provide."""

    exit_code = 3


class LedgerError(ArenaError):
    """The ledger cannot be used as asked (damaged, or a rule refused a write)."""


class HeadFileNotUpdated(LedgerError):
    """A write was committed, but the head file beside the ledger could not follow it."""


class LedgerLocked(LedgerError):
    """Another process holds the ledger open for writing."""

    exit_code = 3


class LedgerTooNew(LedgerError):
    """The ledger was written by a newer Arena with a schema this one does not know."""

    exit_code = 3


class LedgerBehindHeadFile(LedgerError):
    """Rows the head file vouches for are gone: nothing more is written until the loss is
    acknowledged (``arena check --accept-loss``)."""

    exit_code = 3


class UnsealedRows(LedgerError):
    """Rows were added outside Arena: nothing more is written, which would seal them."""

    exit_code = 3


class UnsoundLedger(LedgerError):
    """What a command reads of a family no longer matches its hash chains or seals: it
    refuses, nothing written, signed or sent (`arena check` words the same problems)."""

    def __init__(self, path: str, family: str, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(
            f"problems found in {path} where family {family!r} is read ({len(problems)} in all); "
            "nothing was written, signed or sent (`arena check` lists the whole ledger's):\n"
            + "\n".join(problems)
        )
