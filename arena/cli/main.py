"""``arena [--ledger PATH] COMMAND``: argument parsing and the one error funnel."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from arena import __version__
from arena.cli import commands, output, round_cmd
from arena.errors import ArenaError

# Commands later work fills in; until then they say so and exit 3.
NOT_YET = {
    "collect": "collecting outputs from an endpoint",
    "grade": "grading a suite",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Judge AI outputs side by side and build a verifiable leaderboard.")
    parser.add_argument("--version", action="version", version=f"arena {__version__}")
    parser.add_argument("--ledger", metavar="PATH",
                        help="the ledger file (default: $ARENA_LEDGER, else arena.sqlite in "
                             "the user data folder)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    commands.register(sub)
    round_cmd.register(sub)
    for name, what in NOT_YET.items():
        p = sub.add_parser(name, help=f"{what} (not available yet)")
        p.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
        p.set_defaults(handler=_not_yet(what))
    return parser


def _not_yet(what: str):
    def handler(args: argparse.Namespace) -> int:
        from arena.errors import NotAvailable

        raise NotAvailable(f"{what} is not available in this version of Arena yet")
    return handler


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except ArenaError as exc:
        output.error(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        output.error("interrupted; nothing was half-written (every write is one transaction)")
        return 130


if __name__ == "__main__":
    sys.exit(main())
