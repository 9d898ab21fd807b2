"""Which sandbox a test command runs in, and the command line that puts it there.

Linux with bubblewrap: the one sandbox that keeps a trial to its checkout. Nothing of
the machine is shown but what ``view.View`` lists (the system's folders, the
interpreter's installation, the task's ``read_only_paths``), all read-only; the checkout
is copied into a private size-limited filesystem (``/tmp``, with the home folder); no
network, its own process tree, no capabilities. Weak sandboxes, used only when asked
(``--weak-sandbox``): ``unshare`` (no network, but the tests can read and write what
your user can) and macOS ``sandbox-exec`` (no network, no writes outside the trial's
folder, reads not denied; written to Apple's documented profile language, not tested
on a Mac). Elsewhere: none. docs/tests.md says what each protects.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from arena.errors import NotAvailable
from arena.records import TrialSource
from arena.trials import reaper
from arena.trials.limits import DISKS, Limits
from arena.trials.view import View, system_view

# Where bubblewrap shows the trial's folder (in its private /tmp), and the checkout it
# copies there first (read-only).
TRIAL_FOLDER = Path("/tmp/arena-trial")
CHECKOUT_SOURCE = Path("/arena/checkout")

# Run first inside bubblewrap: copy the checkout into the private filesystem (bubblewrap
# made its tmp and home folders), set the memory and process limits, run the command in
# ``workdir`` and, when it failed, say on the report descriptor how full the disks were
# (a command that failed on a full disk is a resource limit, not a failed test; the
# disks of one that passed are not asked, which saves a process). Arguments: memory in
# KiB, processes, report descriptor, workdir, then the command.
BWRAP_START = f"""mem=$1 procs=$2 report=$3 workdir=$4; shift 4
room() {{ stat -f -c '%b %a %S' {" ".join(DISKS)} >"/proc/self/fd/$report" 2>/dev/null; }}
if [ -d {CHECKOUT_SOURCE} ]; then
    if ! cp -a {CHECKOUT_SOURCE} {TRIAL_FOLDER}/repo 2>/dev/null; then
        echo "arena: the checkout does not fit in the trial's disk" >&2; room; exit 125
    fi
fi
ulimit -v "$mem" 2>/dev/null || echo "arena: the memory limit could not be set" >&2
{{ ulimit -u "$procs" || ulimit -p "$procs"; }} 2>/dev/null
cd "{TRIAL_FOLDER}/$workdir" || exit 125
unset OLDPWD PWD
"$@"
status=$?
[ "$status" = 0 ] || room
exit $status
"""

# The same limits elsewhere (the command runs in its folder already). Arguments: memory
# in KiB, processes (0: not limited), then the command.
LIMITS = (
    'ulimit -v "$1" 2>/dev/null || echo "arena: the memory limit could not be set" >&2; '
    'if [ "$2" != 0 ]; then { ulimit -u "$2" || ulimit -p "$2"; } 2>/dev/null; fi; '
    'shift 2; exec "$@"'
)

SANDBOX_EXEC_PROFILE = """(version 1)
(allow default)
(deny network*)
(allow network* (remote unix-socket))
(deny file-write*)
(allow file-write*
    (subpath (param "ROOT"))
    (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty")
    (literal "/dev/dtracehelper") (regex #"^/dev/fd/") (regex #"^/dev/ttys"))
"""


@dataclass(frozen=True)
class Sandbox:
    """A way to run a command apart; ``label`` is recorded on every trial run in it."""

    kind: str  # "bwrap", "unshare", "sandbox-exec" or "none"
    label: str
    program: str | None = None

    @property
    def confines(self) -> bool:
        """Whether the tests see only their checkout (else they can read your files)."""
        return self.kind == "bwrap"

    @property
    def source(self) -> TrialSource:
        if self.kind == "none":
            return "no_sandbox"
        return "sandbox" if self.confines else "weak_sandbox"

    @property
    def reports_start(self) -> bool:
        """Whether it says on a descriptor that the command started, and its pid
        (bubblewrap does)."""
        return self.kind == "bwrap"

    def wrap(
        self,
        argv: tuple[str, ...],
        *,
        root: Path,
        view: View | None,
        limits: Limits,
        workdir: str = "repo",
        status_fd: int | None = None,
        report_fd: int | None = None,
        in_place: bool = False,
    ) -> list[str]:
        """The command line that runs ``argv`` in ``workdir`` of the trial's folder
        ``root`` inside this sandbox, within ``limits``. Under bubblewrap the command
        sees ``view`` and a copy of ``root/repo`` (``in_place``: ``root`` itself,
        writable, for a step that changes the checkout)."""
        memory = str(limits.memory_mb * 1024)
        if self.kind == "bwrap":
            assert self.program is not None and view is not None
            status = ["--json-status-fd", str(status_fd)] if status_fd is not None else []
            place = (
                ["--bind", str(root), str(TRIAL_FOLDER)]
                if in_place
                else [
                    *("--dir", str(TRIAL_FOLDER / "tmp"), "--dir", str(TRIAL_FOLDER / "home")),
                    *("--ro-bind", str(root / "repo"), str(CHECKOUT_SOURCE)),
                ]
            )
            report = "-" if report_fd is None else str(report_fd)
            start = ["/bin/sh", "-c", BWRAP_START, "arena-trial", memory]
            start += [str(limits.max_processes), report, workdir, *argv]
            # --cap-drop ALL matters when run as root, where bubblewrap otherwise keeps
            # capabilities (enough to remount / writable). /dev is read-only but for
            # its own /dev/shm, a disk like /tmp (a tmpfs would otherwise take memory
            # without bound).
            disk = str(limits.disk_bytes)
            return [
                self.program,
                *_shown(view),
                *("--dev", "/dev", "--size", disk, "--tmpfs", "/dev/shm"),
                *("--remount-ro", "/dev", "--proc", "/proc"),
                *("--size", disk, "--tmpfs", "/tmp"),
                *_shown_under_tmp(view),
                *place,
                *("--unshare-user-try", "--unshare-net", "--unshare-pid"),
                *("--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"),
                *("--new-session", "--die-with-parent", "--cap-drop", "ALL"),
                *status,
                "--",
                *start,
            ]
        processes = str(limits.max_processes) if self.kind == "unshare" else "0"
        limited = ["/bin/sh", "-c", LIMITS, "arena-limits", memory, processes, *argv]
        if self.kind == "unshare":
            assert self.program is not None
            return [
                self.program,
                *("--user", "--map-root-user", "--net", "--pid", "--fork", "--kill-child"),
                "--",
                *limited,
            ]
        if self.kind == "sandbox-exec":
            assert self.program is not None
            return [self.program, "-p", SANDBOX_EXEC_PROFILE, "-D", f"ROOT={root}", *limited]
        # No sandbox: on Windows there is no /bin/sh to set the limits with.
        return limited if os.name == "posix" else list(argv)

    def inside(self, root: Path) -> Path:
        """Where the trial's folder ``root`` is seen from inside: bubblewrap shows every
        trial at the same place, so a test that prints its paths logs the same bytes in
        every run (its log hash repeats)."""
        return TRIAL_FOLDER if self.kind == "bwrap" else root


def _is_tmp(path: str) -> bool:
    return path == "/tmp" or path.startswith("/tmp/")


def _shown(view: View) -> list[str]:
    """bubblewrap's arguments that show ``view`` (but what lies under /tmp, which must
    come after the private /tmp is mounted)."""
    args: list[str] = []
    for link, target in view.links:
        args += ["--symlink", target, link]
    for path in view.read_only:
        if not _is_tmp(path):
            args += ["--ro-bind", path, path]
    for path in view.hidden:
        args += ["--tmpfs", path] if os.path.isdir(path) else ["--ro-bind", "/dev/null", path]
    return args


def _shown_under_tmp(view: View) -> list[str]:
    args: list[str] = []
    for path in view.read_only:
        if _is_tmp(path):
            args += ["--ro-bind", path, path]
    return args


NONE = Sandbox("none", "none")
PROBE_LIMITS = Limits(time_s=30, memory_mb=256, disk_mb=16)


def _works(argv: list[str]) -> bool:
    try:
        done = subprocess.run(argv, capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _version(argv: list[str]) -> str:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""
    words = out.split()
    return words[-1] if words else ""


def bubblewrap() -> Sandbox | None:
    program = shutil.which("bwrap")
    if program is None:
        return None
    with tempfile.TemporaryDirectory(prefix="arena-probe-") as folder:
        root = Path(folder).resolve()
        (root / "repo").mkdir()
        probe = Sandbox("bwrap", "", program).wrap(
            ("true",), root=root, view=system_view(), limits=PROBE_LIMITS
        )
        # Watched as a run's sandboxes are: Arena killed while it starts leaves nothing.
        with reaper.watching(root):
            if not _works(probe):
                return None
    version = _version([program, "--version"])
    return Sandbox("bwrap", f"bwrap {version}".strip(), program)


def unshare() -> Sandbox | None:
    program = shutil.which("unshare")
    if program is None:
        return None
    probe = Sandbox("unshare", "", program).wrap(
        ("true",), root=Path("/"), view=None, limits=PROBE_LIMITS
    )
    if not _works(probe):
        return None
    version = _version([program, "--version"])
    return Sandbox(
        "unshare",
        f"unshare {version} (weak: no network; reads and writes outside the trial's "
        "folder NOT blocked)",
        program,
    )


def sandbox_exec() -> Sandbox | None:
    program = shutil.which("sandbox-exec")
    if program is None or not _works(
        [program, "-p", SANDBOX_EXEC_PROFILE, "-D", "ROOT=/private/tmp", "/usr/bin/true"]
    ):
        return None
    return Sandbox("sandbox-exec", "sandbox-exec (weak: no network; reads NOT blocked)", program)


@functools.cache
def best(platform: str = sys.platform) -> Sandbox | None:
    """The most isolating sandbox that works on this machine, if any."""
    if platform.startswith("linux"):
        return bubblewrap() or unshare()
    if platform == "darwin":
        return sandbox_exec()
    return None


def choose(*, no_sandbox: bool = False, weak_sandbox: bool = False) -> Sandbox:
    """The sandbox to run in. Only bubblewrap keeps the tests to their checkout: a weak
    one only with ``weak_sandbox``, none only with ``no_sandbox``; else NotAvailable."""
    if no_sandbox:
        return NONE
    found = best()
    if found is not None and (found.confines or weak_sandbox):
        return found
    if found is not None:
        raise NotAvailable(
            f"the only sandbox here is {found.label}: the hidden tests, and the diffs "
            "they run, could read your files (your home folder, the ledger, Arena's "
            "signing key) and print them into the logs the ledger keeps. Install "
            "bubblewrap (Linux: apt-get install bubblewrap), or run anyway with "
            "`--weak-sandbox` (recorded on every trial)"
        )
    raise NotAvailable(
        "no sandbox to run the hidden tests in on this machine (Linux: install "
        "bubblewrap, e.g. apt-get install bubblewrap). `--no-sandbox` runs them anyway, "
        "with your user's full rights, network included, and records that on every trial"
    )
