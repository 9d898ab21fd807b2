"""The largest modules of ``arena/`` and ``fitting/``, by lines: a report, not a limit.

A module is split when it holds two domain nouns, not when it passes a line count (a cap
split modules into shells and circles); this prints the sizes so a reviewer sees which
grow. CI prints it."""

from __future__ import annotations

import argparse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def module_sizes(*packages: str) -> list[tuple[int, str]]:
    """``(lines, path)`` of every module under ``packages``, largest first."""
    sizes = [
        (len(path.read_text("utf-8").splitlines()), str(path.relative_to(ROOT)))
        for package in packages
        for path in (ROOT / package).rglob("*.py")
    ]
    return sorted(sizes, key=lambda size: (-size[0], size[1]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=15, help="modules to list (default 15)")
    args = parser.parse_args(argv)
    sizes = module_sizes("arena", "fitting")
    for lines, path in sizes[: args.top]:
        print(f"{lines:6,}  {path}")
    print(f"{sum(lines for lines, _ in sizes):6,}  lines in {len(sizes)} modules")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
