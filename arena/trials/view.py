"""What a trial's test command may see of the machine: deny by default.

Read-only: the system's programs, libraries and settings (the folders of ``SYSTEM``,
without the files of ``/etc`` that not every user may read), the installation of the
interpreter the task names (``{python}``'s, or the virtual environment and base Python
of the program its command starts) and the task's ``read_only_paths``. Nothing else of
the user's files: no home folder, no ledger folder, no folder Arena was started in.
"""

from __future__ import annotations

import functools
import os
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from arena.trials.protected import Place, refusal

# The system's folders, shown read-only where they exist (a symbolic link, as /bin is on
# a merged-/usr system, is shown as the same link).
SYSTEM: tuple[str, ...] = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/nix/store",
    "/gnu/store",
)
# PATH inside: the interpreter's own bin folders first, then these.
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


class Unsafe(Exception):
    """A path a trial would see holds something it must not (the home folder…)."""


@dataclass(frozen=True)
class View:
    """What one trial sees: ``links`` (link, target) and ``read_only`` folders and files
    at their own paths, minus ``hidden`` (shown empty)."""

    links: tuple[tuple[str, str], ...]
    read_only: tuple[str, ...]
    hidden: tuple[str, ...]
    path: str

    def shows(self, program: str) -> bool:
        """Whether the absolute path ``program`` is inside what is shown."""
        where = Path(program)
        shown = [Path(p) for p in self.read_only] + [Path(link) for link, _ in self.links]
        return any(where == p or p in where.parents for p in shown)


def _under(path: Path, folders: list[Path]) -> bool:
    return any(path == f or f in path.parents for f in folders)


@functools.cache
def system_parts() -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """(links, folders) of ``SYSTEM`` that exist on this machine."""
    links, folders = [], []
    for name in SYSTEM:
        if os.path.islink(name):
            links.append((name, os.readlink(name)))
        elif os.path.isdir(name):
            folders.append(name)
    return tuple(links), tuple(folders)


@functools.cache
def unreadable_settings(top: str = "/etc") -> tuple[str, ...]:
    """The files and folders under ``top`` that not every user may read (``/etc/shadow``,
    SSH host keys, ``/etc/ssl/private``…): hidden, so a sandbox run as root shows them as
    little as one run by anyone else."""
    found: list[str] = []
    for current, dirs, files in os.walk(top):
        for name in sorted(dirs):
            full = os.path.join(current, name)
            mode = os.lstat(full).st_mode
            if stat.S_ISDIR(mode) and (mode & 0o005) != 0o005:
                found.append(full)
        dirs[:] = [d for d in dirs if os.path.join(current, d) not in found]
        for name in files:
            full = os.path.join(current, name)
            try:
                mode = os.lstat(full).st_mode
            except OSError:
                continue
            if stat.S_ISREG(mode) and not mode & 0o004:
                found.append(full)
    return tuple(sorted(found))


def system_view() -> View:
    """The system's folders alone."""
    links, system = system_parts()
    hidden = unreadable_settings() if "/etc" in system else ()
    return View(links=links, read_only=system, hidden=hidden, path=SYSTEM_PATH)


def _venv_home(prefix: Path) -> Path | None:
    """The base installation of the virtual environment ``prefix`` (its pyvenv.cfg's
    ``home`` is that installation's bin folder)."""
    try:
        lines = (prefix / "pyvenv.cfg").read_text("utf-8").splitlines()
    except OSError:
        return None
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            return Path(value.strip()).resolve().parent
    return None


_ASK = "import sys; print(sys.executable); print(sys.prefix); print(sys.base_prefix)"


@functools.cache
def python_at(program: str) -> tuple[str, tuple[Path, ...]] | None:
    """The interpreter ``program`` runs and the folders of its installation (its prefix and
    base prefix: a virtual environment and the Python it was made from). The Python running
    Arena knows its own; another is asked, since ``program`` may be a launcher (a pyenv
    shim, a link) that hands over to the real one. None when it does not answer."""
    if program == sys.executable:
        found = [sys.executable, sys.prefix, sys.base_prefix, sys.exec_prefix]
    else:
        try:
            done = subprocess.run([program, "-c", _ASK], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        found = done.stdout.splitlines()
        if done.returncode != 0 or len(found) != 3:
            return None
    return found[0], tuple(sorted({Path(p).resolve() for p in found[1:]}))


def installation_of(program: str) -> list[Path]:
    """The installation the program at the absolute path ``program`` belongs to: its
    virtual environment and that environment's base Python, else the program file alone
    (its folder may hold anything: list it under ``read_only_paths``)."""
    given = Path(program)
    paths: set[Path] = set()
    for candidate in (given, given.resolve()):
        prefix = candidate.parent.parent
        if (prefix / "pyvenv.cfg").is_file():
            paths.add(prefix)
            home = _venv_home(prefix)
            if home is not None:
                paths.add(home)
        else:
            paths.add(candidate)
    return sorted(paths)


def view_for(
    command: tuple[str, ...],
    *,
    python: str | None,
    read_only_paths: tuple[str, ...],
    protected: list[Place],
) -> View:
    """What a trial whose test command is ``command`` sees: the system, the installation
    of its program when named by an absolute path, the installation of ``python`` (what
    ``{python}`` stood for, when the command used it), and ``read_only_paths`` (checked
    already: ``protected.task_refusal``). Raises Unsafe when an installation may not be
    shown (``protected.refusal``)."""
    links, system = system_parts()
    system_paths = [Path(p) for p in system] + [Path(link) for link, _ in links]
    found = python_at(python) if python else None
    installations: list[Path] = list(found[1]) if found else []
    if os.path.isabs(command[0]):
        installations += installation_of(command[0])
    for path in installations:
        why = "" if _under(path, system_paths) else refusal(path, protected, installation=True)
        if why:
            raise Unsafe(f"{why}, which a trial must not see")
    shown = [
        str(path)
        for path in [*installations, *(Path(p) for p in read_only_paths)]
        if not _under(path, system_paths)
    ]
    bins = [str(Path(p) / "bin") for p in shown if Path(p).is_dir() and (Path(p) / "bin").is_dir()]
    base = system_view()
    return View(
        links=base.links,
        read_only=(*base.read_only, *sorted(set(shown))),
        hidden=base.hidden,
        path=":".join([*bins, base.path]),
    )
