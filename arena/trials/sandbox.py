"""Which sandbox a test command runs in, and the command line that puts it there.

Linux: bubblewrap when it works here (no network, the whole filesystem read-only except
the trial's folder, a private /tmp, its own process tree, no capabilities); else
``unshare`` (a user and network namespace: no network, but writes outside the trial's
folder are NOT blocked). macOS: ``sandbox-exec`` with a profile that denies the network
and writes outside the trial's folder (written to Apple's documented profile language,
not tested on a Mac). Elsewhere: none. docs/tests.md says what each protects.
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

# Run first inside the sandbox: the memory limit (RLIMIT_AS through the shell's ulimit,
# in KiB), then the test command itself in its place.
LIMITS = (
    'ulimit -v "$1" 2>/dev/null || echo "arena: the memory limit could not be set" >&2; '
    'shift; exec "$@"'
)

# Folders and files of the user's that hold credentials: hidden (empty) inside bubblewrap.
SECRET_FOLDERS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".password-store",
    ".config/gcloud",
    ".config/gh",
)
SECRET_FILES = (".netrc", ".git-credentials", ".pypirc", ".npmrc")

# Where bubblewrap shows the trial's folder (inside its private /tmp).
TRIAL_FOLDER = Path("/tmp/arena-trial")

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
    blocks_network: bool = False
    blocks_writes: bool = False

    @property
    def source(self) -> TrialSource:
        return "no_sandbox" if self.kind == "none" else "sandbox"

    @property
    def reports_start(self) -> bool:
        """Whether it says on a descriptor that the command started (bubblewrap does)."""
        return self.kind == "bwrap"

    def wrap(
        self,
        argv: tuple[str, ...],
        *,
        root: Path,
        workdir: str = ".",
        memory_mb: int,
        status_fd: int | None = None,
    ) -> list[str]:
        """The command line that runs ``argv`` in ``workdir`` (relative to ``root``, the
        trial's folder) inside this sandbox, writing only under ``root``, within
        ``memory_mb``."""
        limited = ["/bin/sh", "-c", LIMITS, "arena-limits", str(memory_mb * 1024), *argv]
        if self.kind == "bwrap":
            assert self.program is not None
            status = ["--json-status-fd", str(status_fd)] if status_fd is not None else []
            # /tmp is private and its size capped; --cap-drop ALL matters when run as root,
            # where bubblewrap otherwise keeps capabilities (enough to remount / writable).
            return [
                self.program,
                *("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"),
                *("--size", str(memory_mb * 1024 * 1024), "--tmpfs", "/tmp"),
                *_interpreter_under_tmp(),
                *_hidden_secrets(),
                *("--bind", str(root), str(TRIAL_FOLDER)),
                *("--chdir", str(TRIAL_FOLDER / workdir)),
                *("--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts"),
                *("--new-session", "--die-with-parent", "--cap-drop", "ALL"),
                *status,
                "--",
                *limited,
            ]
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
        # No sandbox: on Windows there is no /bin/sh to set the memory limit with.
        return limited if os.name == "posix" else list(argv)

    def inside(self, root: Path) -> Path:
        """Where the trial's folder ``root`` is seen from inside: bubblewrap shows every
        trial at the same place, so a test that prints its paths logs the same bytes in
        every run (its log hash repeats)."""
        return TRIAL_FOLDER if self.kind == "bwrap" else root

    def hides(self, program: str) -> str:
        """Why ``program`` cannot be seen inside ('' when it can): bubblewrap gives the
        command a private /tmp, so nothing under the real /tmp is there but the Python
        running Arena (``_interpreter_under_tmp``)."""
        if self.kind != "bwrap" or not program.startswith("/"):
            return ""
        if Path("/tmp") in Path(program).parents and not _seen(Path(program)):
            return (
                f"command_not_found: {program} is under /tmp, which the sandbox replaces "
                "with a private /tmp; put the interpreter elsewhere"
            )
        return ""


NONE = Sandbox("none", "none")


def _shown_prefixes() -> list[Path]:
    """The installations of the Python running Arena that lie under /tmp (a checkout or a
    virtual environment there): shown read-only over the private /tmp, so `{python}`
    still runs inside."""
    tmp = Path("/tmp")
    found = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    return sorted(p for p in found if tmp in p.parents)


def _seen(program: Path) -> bool:
    return any(prefix in program.parents for prefix in _shown_prefixes())


def _interpreter_under_tmp() -> list[str]:
    args: list[str] = []
    for prefix in _shown_prefixes():
        args += ["--ro-bind", str(prefix), str(prefix)]
    return args


def _hidden_secrets() -> list[str]:
    home = Path.home()
    args: list[str] = []
    for name in SECRET_FOLDERS:
        if (home / name).is_dir():
            args += ["--tmpfs", str(home / name)]
    for name in SECRET_FILES:
        if (home / name).is_file():
            args += ["--ro-bind", "/dev/null", str(home / name)]
    return args


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
        probe = Sandbox("bwrap", "", program).wrap(("true",), root=root, memory_mb=256)
        if not _works(probe):
            return None
    version = _version([program, "--version"])
    return Sandbox("bwrap", f"bwrap {version}".strip(), program, True, True)


def unshare() -> Sandbox | None:
    program = shutil.which("unshare")
    if program is None:
        return None
    if not _works(Sandbox("unshare", "", program).wrap(("true",), root=Path("/"), memory_mb=256)):
        return None
    version = _version([program, "--version"])
    return Sandbox(
        "unshare",
        f"unshare {version} (no network; writes outside the trial's folder NOT blocked)",
        program,
        blocks_network=True,
        blocks_writes=False,
    )


def sandbox_exec() -> Sandbox | None:
    program = shutil.which("sandbox-exec")
    if program is None or not _works(
        [program, "-p", SANDBOX_EXEC_PROFILE, "-D", "ROOT=/private/tmp", "/usr/bin/true"]
    ):
        return None
    return Sandbox("sandbox-exec", "sandbox-exec", program, True, True)


@functools.cache
def best(platform: str = sys.platform) -> Sandbox | None:
    """The most isolating sandbox that works on this machine, if any."""
    if platform.startswith("linux"):
        return bubblewrap() or unshare()
    if platform == "darwin":
        return sandbox_exec()
    return None


def choose(*, no_sandbox: bool = False) -> Sandbox:
    """The sandbox to run in; NONE only when asked, else NotAvailable when there is none."""
    if no_sandbox:
        return NONE
    found = best()
    if found is None:
        raise NotAvailable(
            "no sandbox to run the hidden tests in on this machine (Linux: install "
            "bubblewrap, e.g. apt-get install bubblewrap; macOS: sandbox-exec). "
            "`--no-sandbox` runs them anyway, with your user's full rights, network "
            "included, and records that on every trial"
        )
    return found
