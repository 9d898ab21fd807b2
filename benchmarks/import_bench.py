"""Import throughput and peak memory on a large native file.

    python benchmarks/import_bench.py [--size-mb 200] [--keep DIR]

Writes a JSON Lines file of the given size (English answers of about 2 kB
with a code block now and then), imports it into a fresh ledger in a child
process, and prints the time, MB/s and the child's peak resident memory next
to the file size. The import streams, so peak memory should stay flat (tens
of MB) whatever the file size: the reference here is the file itself: a
reader that loaded it whole would need at least its size in memory.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PARAGRAPH = (
    "The committee reviewed the proposal and found that the schedule was realistic, "
    "the budget was modest, and the risks were described honestly. "
)


def write_file(path: Path, size_mb: int) -> int:
    target = size_mb * 1024 * 1024
    written = lines = 0
    systems = [f"system-{i}" for i in range(8)]
    with open(path, "w", encoding="utf-8") as out:
        case = 0
        while written < target:
            for label in systems:
                text = PARAGRAPH * (10 + case % 7)
                if case % 5 == 0:
                    text += "\n\n```python\n# add the totals\nprint(sum([1, 2, 3]))\n```\n"
                record = {
                    "case": {
                        "id": f"c{case}",
                        "category": f"k{case % 4}",
                        "prompt": f"Summarise report number {case}.",
                    },
                    "system": {"label": label, "model": f"bench/{label}"},
                    "output": text,
                    "finish_reason": "stop",
                    "latency_ms": 900.0,
                }
                line = json.dumps(record) + "\n"
                out.write(line)
                written += len(line.encode())
                lines += 1
            case += 1
    return lines


# What the importer costs before it reads a byte: interpreter, libraries, language model.
BASELINE = """
import resource
from arena import gates
from arena.records import Case, Family, Output
case = Case("f", "c", "k", "prompt")
gates.evaluate(Output("o", "f", "c", "s", 0, "Warm up the language model."), case, Family("f"))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

CHILD = """
import resource, sys, time
from pathlib import Path
from arena.intake.outputs import import_file
from arena.ledger import Ledger
start = time.perf_counter()
with Ledger.open(Path(sys.argv[1])) as ledger:
    report = import_file(ledger, Path(sys.argv[2]), family="bench", fmt="native")
elapsed = time.perf_counter() - start
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(report.outputs_added, elapsed, peak_kb)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--keep", type=Path, help="write the files here and keep them")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="arena-import-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    data, ledger = folder / "big.jsonl", folder / "bench.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(str(ledger) + suffix).unlink(missing_ok=True)
    lines = write_file(data, args.size_mb)
    size = data.stat().st_size
    baseline = subprocess.run(
        [sys.executable, "-c", BASELINE], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.split()
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(ledger), str(data)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    added, elapsed, peak_kb = result.stdout.split()
    elapsed_s = float(elapsed)
    print(f"file: {size / 2**20:.0f} MB, {lines} outputs")
    print(
        f"import: {int(added)} outputs in {elapsed_s:.1f} s = "
        f"{size / 2**20 / elapsed_s:.1f} MB/s, {int(added) / elapsed_s:.0f} outputs/s "
        "(gates included)"
    )
    print(
        f"peak memory: {int(peak_kb) / 1024:.0f} MB (interpreter + libraries + language model "
        f"alone: {int(baseline[-1]) / 1024:.0f} MB); file / peak = "
        f"{size / (int(peak_kb) * 1024):.1f}x"
    )
    if args.keep is None:
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()


if __name__ == "__main__":
    main()
