"""Run the reliability suite in full and print its figures (for docs/reliability.md).

    python benchmarks/reliability_run.py            # the full run (--runslow)
    python benchmarks/reliability_run.py --quick    # the bounded CI run

Writes the figures as JSON to reliability-figures.json (or --out PATH) and prints
the wall time; the suite itself prints them at the end of the pytest output.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the slow (full) tests")
    parser.add_argument("--out", type=Path, default=Path("reliability-figures.json"))
    args = parser.parse_args()
    env = {**os.environ, "ARENA_RELIABILITY_FIGURES": str(args.out.resolve())}
    command = [
        sys.executable,
        "-m",
        "pytest",
        "tests/reliability",
        "-q",
        "-p",
        "no:cacheprovider",
    ] + ([] if args.quick else ["--runslow"])
    started = time.monotonic()
    code = subprocess.call(command, cwd=ROOT, env=env)
    elapsed = time.monotonic() - started
    figures = json.loads(args.out.read_text()) if args.out.exists() else {}
    totals: dict[str, int] = {}
    for counts in figures.values():
        for key, value in counts.items():
            totals[key] = totals.get(key, 0) + value
    print(f"\n{' '.join(command[1:])}: exit {code}, {elapsed:.0f} s")
    for key in (
        "kills",
        "acknowledged_votes",
        "acknowledged_votes_lost",
        "committed_unacknowledged_recognised",
        "uncommitted_retried_recorded",
        "crash_images",
        "crash_points",
        "crash_images_damaged",
        "inputs",
        "refused",
        "accepted",
        "crashed_known_bug_deep_nesting",
        "verify_crashed_known_bug",
        "secrets_planted",
        "secrets_found_on_disk",
    ):
        print(f"  {key}: {totals.get(key, 0)}")
    return code


if __name__ == "__main__":
    sys.exit(main())
