"""``arena [--ledger PATH] COMMAND``: argument parsing and the one error funnel."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from arena import __version__
from arena.cli import (
    bundle_cmd,
    check_cmd,
    collect_cmd,
    commands,
    corrections_cmd,
    family_cmd,
    flags_cmd,
    gate_cmd,
    graded_cmd,
    judges_cmd,
    output,
    round_cmd,
    tests_cmd,
)
from arena.errors import ArenaError
from arena.ledger import StorageError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Judge AI outputs side by side and build a verifiable leaderboard.",
    )
    parser.add_argument("--version", action="version", version=f"arena {__version__}")
    parser.add_argument(
        "--ledger",
        metavar="PATH",
        help="the ledger file (default: $ARENA_LEDGER, else arena.sqlite in the user data folder)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    commands.register(sub)
    gate_cmd.register(sub)
    check_cmd.register(sub)
    round_cmd.register(sub)
    bundle_cmd.register(sub)
    graded_cmd.register(sub)
    corrections_cmd.register(sub)
    collect_cmd.register(sub)  # after corrections: it adds to `case`
    family_cmd.register(sub)
    flags_cmd.register(sub)
    tests_cmd.register(sub)
    judges_cmd.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except ArenaError as exc:
        output.error(str(exc))
        return exc.exit_code
    except StorageError as exc:
        # A full disk, an I/O error: the transaction was rolled back, nothing half-written.
        output.error(
            f"the ledger could not be written or read: {exc}; nothing was changed by this command"
        )
        return 1
    except BrokenPipeError:
        # The reader went away (`arena round show | head`): stop quietly, as Unix tools do,
        # and keep Python from complaining when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as exc:
        output.error(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": "))
        return 1
    except KeyboardInterrupt:
        output.error("interrupted; nothing was half-written (every write is one transaction)")
        return 130


if __name__ == "__main__":
    sys.exit(main())
