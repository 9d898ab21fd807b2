"""What no task may name and no trial may show: one rule for every path a task file gives
(``read_only_paths``, hidden tests, repositories), applied at ``arena tasks import`` and
again when the tests run; and the signing key's text kept out of every trial's log.

The rule: a path, once resolved (links, ``..``, ``~``), is refused when it is, holds or
lies inside a protected place: the home folder, the ledger's folder, Arena's data and
configuration folders, the signing key, the working folder, ``/proc``, ``/sys``, ``/dev``
or ``/root``. Two exceptions inside the home and working folders (never inside Arena's
places or the kernel's): what lies in the task file's own folder, its pack (what a pack
carries is no rater's file; the pack may not be the home folder itself), and Arena's own
resources (the demo's repository and hidden tests).
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.paths import APP_NAME, default_key_path, resource_path
from arena.redact import REDACTED, Redactor
from arena.tasks import Task
from arena.trials import safe_git

RULE = (
    "a task may name no file or folder that is, holds or lies inside the home folder, the "
    "ledger's folder, Arena's data or configuration folder, the working folder, /proc, "
    "/sys, /dev or /root (in the home or working folder, only what lies in the task "
    "file's own folder)"
)
SYSTEM_PLACES = ("/proc", "/sys", "/dev", "/root")
WORKING_FOLDER = "the working folder"


@dataclass(frozen=True)
class Place:
    """A protected place, resolved. ``arenas``: Arena's own or the kernel's, where not even
    an interpreter's installation may lie (one may lie in the home or working folder)."""

    path: Path
    name: str
    arenas: bool


def places(ledger_path: Path | None) -> list[Place]:
    """The protected places now, Arena's own first (the working folder is the one Arena
    runs in)."""
    import platformdirs  # here: every command imports the trials' modules, few need it

    found = [
        Place(default_key_path(), "the signing key", True),
        Place(
            Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)),
            "Arena's configuration folder",
            True,
        ),
        Place(
            Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)), "Arena's data folder", True
        ),
    ]
    if ledger_path is not None:
        found.append(Place(ledger_path.parent, "the ledger's folder", True))
    found += [Place(Path(p), p, p != "/root") for p in SYSTEM_PLACES]
    found += [
        Place(Path.home(), "the home folder", False),
        Place(Path.cwd(), WORKING_FOLDER, False),
    ]
    # A home or working folder that is the file system's root (a service's HOME=/, a
    # window started in /) would refuse every path: the other places still stand.
    resolved = [Place(p.path.resolve(), p.name, p.arenas) for p in found]
    return [p for p in resolved if p.path != Path(p.path.anchor)]


@functools.cache
def _shipped() -> Path | None:
    """Arena's own resources folder, if it has one."""
    try:
        return resource_path().resolve()
    except FileNotFoundError:
        return None


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _may_carry(pack: Path | None, protected: list[Place]) -> Path | None:
    """``pack`` resolved, when it may vouch for what lies in it: it lies in none of Arena's
    or the kernel's places and is or holds none but the working folder (a pack is often
    imported from its own folder)."""
    if pack is None:
        return None
    folder = pack.resolve()
    for place in protected:
        holds = _within(place.path, folder) and place.name != WORKING_FOLDER
        if holds or (place.arenas and place.path in folder.parents):
            return None
    return folder


def refusal(
    path: Path, protected: list[Place], *, installation: bool = False, pack: Path | None = None
) -> str:
    """Why ``path`` (resolved here) may not be named ('' when it may). An interpreter's
    ``installation`` may lie inside the home or working folder (a virtual environment
    does), and so may what lies in ``pack``, the task file's folder; neither inside
    Arena's or the kernel's places, and neither may hold any."""
    where = path.expanduser().resolve()
    own = _shipped()
    carried = _may_carry(pack, protected)
    if carried is not None and not _within(where, carried):
        carried = None
    found: list[tuple[int, str, Place]] = []
    for place in protected:
        if where == place.path:
            found.append((0, "is", place))
        elif where in place.path.parents:
            found.append((1, "holds", place))
        elif place.path in where.parents:
            shipped = own is not None and _within(where, own) and place.path in own.parents
            if not (shipped or ((installation or carried) and not place.arenas)):
                found.append((2, "lies inside", place))
    if not found:
        return ""
    # The closest relation names the place best ("is the home folder", not "holds the
    # signing key"); among equals, Arena's own places come first.
    _, relation, place = min(found, key=lambda item: item[0])
    named = place.name if place.name == str(place.path) else f"{place.name} ({place.path})"
    shown = str(where) if where == path else f"{path} (that is {where})"
    return f"{shown} {relation} {named}"


def task_refusal(task: Task, protected: list[Place]) -> tuple[str, str] | None:
    """The first entry of a stored task the rule refuses, and why: its git repository
    (its git folder and every folder its objects come from, alternates included) and its
    ``read_only_paths``. Checked at import and again when the tests run (a link may lead
    elsewhere by now)."""
    named: list[tuple[str, Path]] = []
    if task.repo["kind"] == "git":
        git_dir = Path(task.repo["path"])
        named += [("repository.git", p) for p in (git_dir, *safe_git.object_folders(git_dir))]
    named += [(f"read_only_paths[{i}]", Path(p)) for i, p in enumerate(task.read_only_paths)]
    pack = Path(task.pack) if task.pack is not None else None
    for field, path in named:
        why = refusal(path, protected, pack=pack)
        if why:
            return field, f"{why}: {RULE}"
    return None


def key_hider(key_path: Path | None = None) -> Callable[[str], str]:
    """What removes the signing key from a trial's log: every line that holds its private
    text (a line of its PEM, 16 or more characters of one, or its raw bytes in hex or
    base64) becomes ``REDACTED``. No key yet: the log as it is."""
    try:
        pem = (key_path or default_key_path()).read_text("ascii")
    except (OSError, UnicodeDecodeError):
        return lambda text: text
    body = [line.strip() for line in pem.splitlines() if line.strip() and "-----" not in line]
    secrets = [*body, "".join(body)]
    try:
        raw = base64.b64decode("".join(body))
        secrets += [raw.hex(), raw[-32:].hex(), base64.b64encode(raw[-32:]).decode()]
    except ValueError:
        pass
    redactor = Redactor(secrets)

    def hide(text: str) -> str:
        lines = text.splitlines(keepends=True)
        return "".join(
            REDACTED + ("\n" if line.endswith("\n") else "") if redactor.leak(line) else line
            for line in lines
        )

    return hide
