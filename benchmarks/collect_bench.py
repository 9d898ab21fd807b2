"""Answers per second of `arena collect --family` against a server answering in 200 ms.

    python benchmarks/collect_bench.py                      # 8 workers, 400 answers
    python benchmarks/collect_bench.py --workers 16 --cases 400 --delay 0.1

A scripted OpenAI-compatible server (tests/graded/fake_endpoint.py) runs in its own process
and answers every request after ``--delay`` seconds; a votes family of ``--cases``
one-turn cases and two systems is filled by ``arena collect --family`` (in this process),
each answer stored and gated in its own transaction. With ``--workers`` in flight the
server alone allows ``workers / delay`` answers a second; the issue's floor is 30 a second
with 8 workers at 200 ms. Prints the rate, the server's ceiling and the ratio to the floor.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.collecting.asking import RunOptions  # noqa: E402
from arena.collecting.fill import fill  # noqa: E402
from arena.ledger import Ledger  # noqa: E402
from tests.collecting.helpers import KEY, make_family  # noqa: E402

FLOOR = 30.0  # answers a second, 8 workers against a server answering in 200 ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--cases", type=int, default=200, help="per system (two systems)")
    parser.add_argument("--delay", type=float, default=0.2, help="the server's answer time")
    args = parser.parse_args()
    server = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests" / "graded" / "fake_endpoint.py"),
            "--delay",
            str(args.delay),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = server.stdout.readline().strip() if server.stdout else ""
        os.environ["ARENA_COLLECT_TEST_KEY"] = KEY
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "bench.sqlite"
            make_family(path, Path(folder), url, cases=args.cases, turns=1)
            with Ledger.open(path) as ledger:
                started = time.perf_counter()
                report = fill(ledger, "fam", options=RunOptions(workers=args.workers))
                elapsed = time.perf_counter() - started
    finally:
        server.kill()
        server.wait()
    summary = report.summary
    assert summary.answered == 2 * args.cases and not summary.failures, summary
    rate = summary.answered / elapsed
    ceiling = args.workers / args.delay
    print(
        f"{summary.answered} answers, {args.workers} workers, server {args.delay * 1000:.0f} ms: "
        f"{elapsed:.2f} s, {rate:.1f} answers/s (the server allows {ceiling:.0f}/s); "
        f"{rate / FLOOR:.2f}x the floor of {FLOOR:.0f}/s"
    )


if __name__ == "__main__":
    main()
