"""`arena tests run` against the same test commands run in a plain shell loop.

    python benchmarks/tests_bench.py                 # 20 tasks, plain-script hidden tests
    python benchmarks/tests_bench.py --pytest        # the hidden tests run under pytest
    python benchmarks/tests_bench.py --tasks 40 --repeats 5

Builds, in a temporary folder, a git repository of ``--tasks`` small modules, one task
per module (a hidden test that imports it and checks one function) and one diff per task
(every other one fixes the bug), and imports them into a fresh ledger. Then times, each
``--repeats`` times (median shown):

* plain loop: one bash script that, per task, unpacks the base commit (``git archive |
  tar``), ``git apply``-s the diff, copies the hidden test in and runs the test command,
  with no sandbox — what a person would do by hand;
* bwrap loop: the same script with each test command inside bubblewrap as Arena starts
  it (the sandbox's own cost, without Arena);
* ``arena tests run --rerun --workers N`` for N = 1 and 2, as a child process (its
  start-up, the ledger writes, one transaction per trial, included).

It prints trials per minute and each time's ratio to the plain loop (above 1: slower).
Needs git and bubblewrap (Linux).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.trials.limits import Limits  # noqa: E402
from arena.trials.sandbox import Sandbox, bubblewrap  # noqa: E402
from arena.trials.view import view_for  # noqa: E402

GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@arena.invalid"]


def _module(index: int, fixed: bool) -> str:
    op = "+" if fixed else "-"
    return (
        f'"""Module {index} of the benchmark repository."""\n\n\n'
        f"def combine_{index}(a, b):\n    return a {op} b\n\n\n"
        f"def scale_{index}(x):\n    return x * {index + 2}\n"
    )


def _test(index: int, pytest: bool) -> str:
    body = f"    assert mod_{index}.combine_{index}(2, 3) == 5\n"
    head = f"import sys\nsys.path.insert(0, '.')\nimport mod_{index}\n\n\n"
    if pytest:
        return head + f"def test_combine():\n{body}"
    return head + f"def main():\n{body}\n\nmain()\n"


def build(folder: Path, tasks: int, pytest: bool) -> tuple[Path, Path, Path, list[dict]]:
    """The repository, the task file, the outputs file, and each task's pieces."""
    repo = folder / "repo"
    repo.mkdir()
    subprocess.run([*GIT, "init", "-q"], cwd=repo, check=True)
    for i in range(tasks):
        (repo / f"mod_{i}.py").write_text(_module(i, fixed=False))
    subprocess.run([*GIT, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*GIT, "commit", "-qm", "base"], cwd=repo, check=True)
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    (folder / "hidden").mkdir()
    records, outputs, pieces = [], [], []
    for i in range(tasks):
        hidden = folder / "hidden" / f"test_{i}.py"
        hidden.write_text(_test(i, pytest))
        command = [sys.executable, f"tests/test_{i}.py"]
        if pytest:
            command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", command[1]]
        records.append(
            {
                "id": f"task-{i}",
                "prompt": f"combine_{i} subtracts; it should add.",
                "repository": {"git": "repo", "base_commit": commit},
                "hidden_tests": [{"file": f"hidden/test_{i}.py", "to": f"tests/test_{i}.py"}],
                "test_command": command,
                "time_limit_s": 60,
            }
        )
        (repo / f"mod_{i}.py").write_text(_module(i, fixed=i % 2 == 0))
        diff = subprocess.run(
            ["git", "diff"], cwd=repo, capture_output=True, text=True, check=True
        ).stdout
        subprocess.run(["git", "checkout", "-q", "--", "."], cwd=repo, check=True)
        (folder / f"output_{i}.diff").write_text(diff)
        outputs.append(
            {
                "family": {"name": "bench", "kind": "tests"},
                "case": {"id": f"task-{i}", "prompt": records[-1]["prompt"]},
                "system": {"label": "bench-system", "model": "bench/model"},
                "output": diff,
                "is_diff": True,
            }
        )
        pieces.append({"index": i, "commit": commit, "command": command})
    task_file = folder / "tasks.jsonl"
    task_file.write_text("".join(json.dumps(r) + "\n" for r in records))
    outputs_file = folder / "outputs.jsonl"
    outputs_file.write_text("".join(json.dumps(o) + "\n" for o in outputs))
    return repo, task_file, outputs_file, pieces


def loop_script(folder: Path, repo: Path, pieces: list[dict], sandbox: Sandbox | None) -> Path:
    """A bash loop doing each trial's work by hand; with ``sandbox``, each test command
    inside it exactly as Arena starts it (same options and limits)."""
    lines = ["#!/bin/bash", "passed=0", f"cd {shlex.quote(str(folder))}"]
    for piece in pieces:
        i, work = piece["index"], f"work_{piece['index']}"
        argv = piece["command"]
        if sandbox is not None:
            seen = view_for(tuple(argv), python=None, read_only_paths=(), protected=[])
            argv = sandbox.wrap(tuple(argv), root=folder / work, view=seen, limits=Limits())
        command = " ".join(shlex.quote(a) for a in argv)
        lines += [
            f"rm -rf {work} && mkdir -p {work}/repo/tests {work}/tmp {work}/home",
            f"git -C {shlex.quote(str(repo))} archive {piece['commit']} | tar -x -C {work}/repo",
            f"if (cd {work}/repo && git apply ../../output_{i}.diff "
            f"&& cp ../../hidden/test_{i}.py tests/ && {command}) >/dev/null 2>&1; "
            "then passed=$((passed+1)); fi",
            f"rm -rf {work}",
        ]
    lines.append('echo "$passed"')
    script = folder / ("loop_sandbox.sh" if sandbox else "loop_plain.sh")
    script.write_text("\n".join(lines) + "\n")
    return script


def timed(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    began = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    took = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"{argv[:4]} failed:\n{done.stderr}")
    return took, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pytest", action="store_true", help="run the hidden tests under pytest")
    args = parser.parse_args()
    sandbox = bubblewrap()
    if sandbox is None or shutil.which("git") is None:
        raise SystemExit("needs git and a working bubblewrap (Linux)")
    with tempfile.TemporaryDirectory(prefix="arena-tests-bench-") as made:
        folder = Path(made)
        repo, task_file, outputs_file, pieces = build(folder, args.tasks, args.pytest)
        # In a folder of its own: a task may name nothing inside the ledger's folder.
        ledger = folder / "ledger" / "bench.sqlite"
        arena = [sys.executable, "-m", "arena", "--ledger", str(ledger)]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        timed([*arena, "import", str(outputs_file), "--family", "bench", "--create"], env)
        timed([*arena, "tasks", "import", str(task_file), "--family", "bench"], env)
        loop_env = {"PATH": os.environ.get("PATH", os.defpath), "LANG": "C.UTF-8"}
        plain_script = loop_script(folder, repo, pieces, None)
        bwrap_script = loop_script(folder, repo, pieces, sandbox)
        rows: dict[str, list[float]] = {}
        passes: dict[str, str] = {}
        for _ in range(args.repeats):
            for name, argv in (
                ("plain loop", ["bash", str(plain_script)]),
                ("bwrap loop", ["bash", str(bwrap_script)]),
                *(
                    (
                        f"arena, {n} worker{'s' if n > 1 else ''}",
                        [*arena, "tests", "run", "--family", "bench", "--rerun"]
                        + ["--workers", str(n), "--json"],
                    )
                    for n in (1, 2)
                ),
            ):
                # The loops get what Arena gives a test command: PATH, a locale, nothing else.
                took, out = timed(argv, env if argv[0] != "bash" else loop_env)
                rows.setdefault(name, []).append(took)
                passes[name] = (
                    str(json.loads(out)["passed"]) if out.lstrip().startswith("{") else out.strip()
                )
    plain = statistics.median(rows["plain loop"])
    mode = "pytest" if args.pytest else "plain-script"
    print(f"{args.tasks} tasks, {mode} hidden tests, {sandbox.label}, {os.cpu_count()} cores")
    print(f"{'':18} {'median s':>9} {'trials/min':>11} {'× plain loop':>13} {'passed':>7}")
    for name, times in rows.items():
        median = statistics.median(times)
        print(
            f"{name:18} {median:9.2f} {60 * args.tasks / median:11.0f} "
            f"{median / plain:13.2f} {passes[name]:>7}"
        )


if __name__ == "__main__":
    main()
