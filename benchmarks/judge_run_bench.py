"""Judgments per second of `arena judges run` against a server answering in 200 ms.

    python benchmarks/judge_run_bench.py                      # 8 workers, 400 judgments
    python benchmarks/judge_run_bench.py --workers 16 --cases 400 --delay 0.1

A votes family of ``--cases`` two-turn cases answered by two systems is made first (its
answers collected from a fast local server); then a scripted OpenAI-compatible server
(tests/graded/fake_endpoint.py --judging) in its own process answers every judge request
with a verdict after ``--delay`` seconds, and `arena judges run` (in this process) asks it
every item in both orders (2 × cases judgments), each reply stored in the file store and its
verdict in its own transaction. With ``--workers`` in flight the server alone allows
``workers / delay`` judgments a second; the floor is 30 a second with 8 workers at 200 ms.
Prints the rate, the server's ceiling and the ratio to the floor.
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

from arena.judges.declared import judge_of  # noqa: E402
from arena.judges.running import RunOptions, run_judge  # noqa: E402
from arena.ledger import Ledger  # noqa: E402
from tests.collecting.helpers import KEY  # noqa: E402
from tests.judges.judge_run_helpers import KEY_ENV, answered_family  # noqa: E402

FLOOR = 30.0  # judgments a second, 8 workers against a server answering in 200 ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--cases", type=int, default=200, help="items (two systems)")
    parser.add_argument("--delay", type=float, default=0.2, help="the server's answer time")
    args = parser.parse_args()
    os.environ[KEY_ENV] = KEY
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.sqlite"
        answered_family(path, Path(folder), cases=args.cases)
        server = subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "graded" / "fake_endpoint.py"), "--judging",
             "--delay", str(args.delay)],
            stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        try:
            url = server.stdout.readline().strip() if server.stdout else ""
            judge = judge_of(
                {"name": "bench", "base_url": url, "model": "judge", "template": "pairwise",
                 "api_key_env": KEY_ENV, "max_tokens": 64}
            )  # fmt: skip
            with Ledger.open(path) as ledger:
                started = time.perf_counter()
                report = run_judge(
                    ledger, "fam", "bench", declared=judge, options=RunOptions(workers=args.workers)
                )
                elapsed = time.perf_counter() - started
        finally:
            server.kill()
            server.wait()
    assert report.judged == 2 * args.cases and not report.failures, report
    rate = report.judged / elapsed
    ceiling = args.workers / args.delay
    print(
        f"{report.judged} judgments ({report.unparsed} unparsed), {args.workers} workers, "
        f"server {args.delay * 1000:.0f} ms: {elapsed:.2f} s, {rate:.1f} judgments/s (the "
        f"server allows {ceiling:.0f}/s); {rate / FLOOR:.2f}x the floor of {FLOOR:.0f}/s, "
        f"{rate / ceiling:.2f}x the ceiling"
    )


if __name__ == "__main__":
    main()
