"""`arena tests run` against the same trials done by hand in a shell loop, with and without
bubblewrap.

    python benchmarks/tests_bench.py                 # 20 tasks, plain-script hidden tests
    python benchmarks/tests_bench.py --pytest        # the hidden tests run under pytest
    python benchmarks/tests_bench.py --tasks 40 --repeats 5
    python benchmarks/tests_bench.py --own-commits   # no two tasks share their code

Builds, in a temporary folder, a git repository of ``--tasks`` small modules, one task
per module (a hidden test that imports it and checks one function) and one diff per task
(every other one fixes the bug; the others are empty), and imports them into a fresh
ledger. The tasks share one base commit (Arena checks it out once and links each trial's
checkout to it: ``arena.trials.shared_code``); with ``--own-commits`` each has its own.
Then times, each ``--repeats`` times, the rows interleaved (median shown):

* by hand, no sandbox: one bash script that, per task, unpacks the base commit (``git
  archive | tar``), ``git apply``-s the diff, copies the hidden test in and runs the test
  command: what a person would do by hand;
* by hand, bare bwrap: the same, each test command in the least bubblewrap a person
  would use (the system read-only, the trial's folder writable, no network, its own
  process tree): bubblewrap's own cost;
* by hand, bwrap as Arena: the same, each test command in bubblewrap with Arena's own
  arguments and start script (``Sandbox.wrap``: only what ``view`` shows, the checkout
  copied into a size-limited private disk, the limits);
* ``arena tests run --rerun --workers N`` for N = 1 and 2, as a child process (Python's
  start-up, the imports, the sandbox's probe, the plan and the ledger writes, one
  transaction per trial, included), and under each, its trials alone: wall time as the
  run's own clock counts it (``seconds`` of ``--json``: the first trial's folder to the
  last trial's commit), CPU time less that of the same command when every output has its
  trial already (the row ``arena, no trial to run``: start-up and plan alone).

Each row shows wall seconds, milliseconds a trial, and their ratio to the loop by hand
without a sandbox and to the loop in bwrap as Arena starts it; the same for CPU seconds
(every process it started, summed, bubblewrap's included: ``CpuMeter``); and the trials
that passed (they must agree). On a machine busy with other work the CPU ratios say more
than the wall ones.
Needs git and bubblewrap (Linux).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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


def build(
    folder: Path, tasks: int, pytest: bool, own_commits: bool = False
) -> tuple[Path, Path, Path, list[dict]]:
    """The repository, the task file, the outputs file, and each task's pieces; with
    ``own_commits`` each task is on a commit of its own (no two share their code)."""
    repo = folder / "repo"
    repo.mkdir()
    subprocess.run([*GIT, "init", "-q"], cwd=repo, check=True)
    for i in range(tasks):
        (repo / f"mod_{i}.py").write_text(_module(i, fixed=False))
    subprocess.run([*GIT, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*GIT, "commit", "-qm", "base"], cwd=repo, check=True)
    commits = [_head(repo)] * tasks
    if own_commits:
        for i in range(tasks):
            (repo / "TASK").write_text(f"{i}\n")
            subprocess.run([*GIT, "add", "TASK"], cwd=repo, check=True)
            subprocess.run([*GIT, "commit", "-qm", f"task {i}"], cwd=repo, check=True)
            commits[i] = _head(repo)
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
                "repository": {"git": "repo", "base_commit": commits[i]},
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
        pieces.append({"index": i, "commit": commits[i], "command": command})
    task_file = folder / "tasks.jsonl"
    task_file.write_text("".join(json.dumps(r) + "\n" for r in records))
    outputs_file = folder / "outputs.jsonl"
    outputs_file.write_text("".join(json.dumps(o) + "\n" for o in outputs))
    return repo, task_file, outputs_file, pieces


def bare_bwrap(program: str, work: Path, argv: list[str]) -> list[str]:
    """``argv`` in the least bubblewrap a person would use: the system read-only, the
    interpreter's installation shown, the trial's folder ``work`` writable, no network."""
    shown: list[str] = []
    for link in ("/bin", "/sbin", "/lib", "/lib64"):
        if os.path.islink(link):
            shown += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            shown += ["--ro-bind", link, link]
    for prefix in sorted({sys.prefix, sys.base_prefix}):
        if not prefix.startswith("/usr/"):
            shown += ["--ro-bind", prefix, prefix]
    return [
        program,
        *("--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc", *shown),
        *("--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"),
        *("--bind", str(work), str(work), "--chdir", str(work / "repo")),
        *("--setenv", "HOME", str(work / "home"), "--setenv", "TMPDIR", str(work / "tmp")),
        *("--unshare-all", "--die-with-parent", "--"),
        *argv,
    ]


def _head(repo: Path) -> str:
    done = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def loop_script(
    folder: Path, repo: Path, pieces: list[dict], sandbox: Sandbox | None, *, bare: bool = False
) -> Path:
    """A bash loop doing each trial's work by hand; with ``sandbox``, each test command
    inside it exactly as Arena starts it (same options and limits), or, with ``bare``,
    in the least bubblewrap (``bare_bwrap``)."""
    lines = ["#!/bin/bash", "passed=0", f"cd {shlex.quote(str(folder))}"]
    for piece in pieces:
        i, work = piece["index"], f"work_{piece['index']}"
        argv = piece["command"]
        if sandbox is not None and bare:
            assert sandbox.program is not None
            argv = bare_bwrap(sandbox.program, folder / work, argv)
        elif sandbox is not None:
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
    name = "plain" if sandbox is None else "bare" if bare else "sandbox"
    script = folder / f"loop_{name}.sh"
    script.write_text("\n".join(lines) + "\n")
    return script


class CpuMeter:
    """The CPU time of every process a command starts, those in bubblewrap's own process
    tree included (which ``RUSAGE_CHILDREN`` never sees: that tree's first process is not
    waited for by anything that reports to us): each command starts in a control group of
    the benchmark's (cgroup v1 ``cpuacct``, else v2), which counts it. Where none can be
    made (not root), the children's rusage, and ``exact`` is False."""

    def __init__(self) -> None:
        self.group: Path | None = None
        self.counter = ""
        for top, counter in (
            ("/sys/fs/cgroup/cpuacct", "cpuacct.usage"),
            ("/sys/fs/cgroup", "cpu.stat"),
        ):
            group = Path(top) / f"arena-tests-bench-{os.getpid()}"
            try:
                group.mkdir()
            except OSError:
                continue
            if (group / counter).exists():
                self.group, self.counter = group, counter
                break
            group.rmdir()

    @property
    def exact(self) -> bool:
        return self.group is not None

    def wrap(self, argv: list[str]) -> list[str]:
        if self.group is None:
            return argv
        enter = 'echo $$ > "$0/cgroup.procs" && exec "$@"'
        return ["/bin/sh", "-c", enter, str(self.group), *argv]

    def seconds(self) -> float:
        if self.group is None:
            used = resource.getrusage(resource.RUSAGE_CHILDREN)
            return used.ru_utime + used.ru_stime
        text = (self.group / self.counter).read_text()
        if self.counter == "cpu.stat":  # usage_usec N
            return int(text.split()[1]) / 1e6
        return int(text) / 1e9

    def close(self) -> None:
        if self.group is not None:
            for _ in range(50):  # the group empties as its last processes are reaped
                try:
                    self.group.rmdir()
                    return
                except OSError:
                    time.sleep(0.1)


def timed(
    meter: CpuMeter, argv: list[str], env: dict[str, str] | None = None
) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (of every process it started, summed) and its output."""
    before = meter.seconds()
    began = time.perf_counter()
    done = subprocess.run(meter.wrap(argv), capture_output=True, text=True, env=env)
    took = time.perf_counter() - began
    used = meter.seconds() - before
    if done.returncode != 0:
        raise SystemExit(f"{argv[:4]} failed:\n{done.stderr}")
    return took, used, done.stdout


PLAIN, BARE, BWRAP = "by hand, no sandbox", "by hand, bare bwrap", "by hand, bwrap as Arena"
IDLE = "arena, no trial to run"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pytest", action="store_true", help="run the hidden tests under pytest")
    parser.add_argument(
        "--own-commits",
        action="store_true",
        help="each task on a commit of its own (Arena then checks out every trial's code)",
    )
    args = parser.parse_args()
    sandbox = bubblewrap()
    if sandbox is None or shutil.which("git") is None:
        raise SystemExit("needs git and a working bubblewrap (Linux)")
    wall: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    passes: dict[str, str] = {}
    meter = CpuMeter()
    try:
        measure(args, sandbox, meter, wall, cpu, passes)
    finally:
        meter.close()
    report(args, sandbox, meter, wall, cpu, passes)


def measure(
    args: argparse.Namespace,
    sandbox: Sandbox,
    meter: CpuMeter,
    wall: dict[str, list[float]],
    cpu: dict[str, list[float]],
    passes: dict[str, str],
) -> None:
    with tempfile.TemporaryDirectory(prefix="arena-tests-bench-") as made:
        folder = Path(made)
        repo, task_file, outputs_file, pieces = build(
            folder, args.tasks, args.pytest, args.own_commits
        )
        # In a folder of its own: a task may name nothing inside the ledger's folder.
        ledger = folder / "ledger" / "bench.sqlite"
        arena = [sys.executable, "-m", "arena", "--ledger", str(ledger)]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        timed(meter, [*arena, "import", str(outputs_file), "--family", "bench", "--create"], env)
        timed(meter, [*arena, "tasks", "import", str(task_file), "--family", "bench"], env)
        # The loops get what Arena gives a test command: PATH, a locale, nothing else.
        loop_env = {"PATH": os.environ.get("PATH", os.defpath), "LANG": "C.UTF-8"}
        loops = {
            PLAIN: loop_script(folder, repo, pieces, None),
            BARE: loop_script(folder, repo, pieces, sandbox, bare=True),
            BWRAP: loop_script(folder, repo, pieces, sandbox),
        }
        for _ in range(args.repeats):
            for name, script in loops.items():
                took, used, out = timed(meter, ["bash", str(script)], loop_env)
                wall.setdefault(name, []).append(took)
                cpu.setdefault(name, []).append(used)
                passes[name] = out.strip()
            # Start-up alone: every output has its trial, so nothing runs.
            took, used, _ = timed(meter, [*arena, "tests", "run", "--family", "bench"], env)
            wall.setdefault(IDLE, []).append(took)
            cpu.setdefault(IDLE, []).append(used)
            passes[IDLE] = "-"
            for n in (1, 2):
                name = f"arena, {n} worker{'s' if n > 1 else ''}"
                argv = [*arena, "tests", "run", "--family", "bench", "--rerun"]
                took, used, out = timed(meter, [*argv, "--workers", str(n), "--json"], env)
                summary = json.loads(out)
                wall.setdefault(name, []).append(took)
                cpu.setdefault(name, []).append(used)
                wall.setdefault(f"  its trials, {n}", []).append(summary["seconds"])
                # The trials' CPU: the run's less the start-up's (the last idle run's).
                cpu.setdefault(f"  its trials, {n}", []).append(used - cpu[IDLE][-1])
                passes[name] = passes[f"  its trials, {n}"] = str(summary["passed"])


def report(
    args: argparse.Namespace,
    sandbox: Sandbox,
    meter: CpuMeter,
    wall: dict[str, list[float]],
    cpu: dict[str, list[float]],
    passes: dict[str, str],
) -> None:
    mode = "pytest" if args.pytest else "plain-script"
    code = "a commit each" if args.own_commits else "one commit"
    print(
        f"{args.tasks} tasks on {code}, {mode} hidden tests, {sandbox.label}, "
        f"{os.cpu_count()} cores"
    )
    if not meter.exact:
        print("CPU: no control group could be made; what runs in bwrap is not counted")
    hand, bwrapped = statistics.median(wall[PLAIN]), statistics.median(wall[BWRAP])
    hand_cpu, bwrapped_cpu = statistics.median(cpu[PLAIN]), statistics.median(cpu[BWRAP])
    print(
        f"{'':24} {'wall s':>7} {'ms/trial':>8} {'× hand':>7} {'× bwrap':>8} "
        f"{'CPU s':>6} {'× hand':>7} {'× bwrap':>8} {'passed':>7}"
    )
    for name, times in wall.items():
        median = statistics.median(times)
        used = statistics.median(cpu[name])
        print(
            f"{name:24} {median:7.2f} {1000 * median / args.tasks:8.1f} {median / hand:7.2f} "
            f"{median / bwrapped:8.2f} {used:6.2f} {used / hand_cpu:7.2f} "
            f"{used / bwrapped_cpu:8.2f} {passes[name]:>7}"
        )


if __name__ == "__main__":
    main()
