"""Attacks on the rater's files from a trial: a hidden test, and a diff it runs, that try
to read what the rater keeps (the home folder, the ledger's folder, Arena's data folder
and signing key, the folder Arena runs in). Each is tried in bubblewrap and, as a
control, with no sandbox, so it is the sandbox that stops it. The rater's folders lie
under /var/tmp: the private /tmp of the sandbox would hide anything under /tmp anyway."""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import uuid
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.cli.main import main as arena_main
from arena.errors import BadInput
from arena.trials import protected, sandbox, view
from arena.trials.sandbox import NONE
from tests.trials.conftest import (
    BASE,
    FIXED,
    HEADER,
    Project,
    diff,
    make_repo,
    needs_bwrap,
)


@dataclass
class Rater:
    project: Project
    # A planted file -> a line only it holds.
    secrets: dict[Path, str]
    home: Path
    folder: Path


def _plant(path: Path, text: str | None = None) -> str:
    token = text or f"PLANTED-{path.name}-{uuid.uuid4().hex}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(token + "\n")
    return token


@pytest.fixture
def rater(monkeypatch, request) -> Rater:
    folder = Path(tempfile.mkdtemp(prefix="arena-rater-", dir="/var/tmp")).resolve()
    request.addfinalizer(lambda: shutil.rmtree(folder, ignore_errors=True))
    home, work, ledgers = folder / "home", folder / "work", folder / "ledgers"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("ARENA_SIGNING_KEY", raising=False)
    secrets = {
        p: _plant(p)
        for p in (
            home / "notes.txt",
            ledgers / "beside-the-ledger.txt",
            home / ".local" / "share" / "Arena" / "arena-data.txt",
            work / "in-the-working-folder.txt",
        )
    }
    work.mkdir(exist_ok=True)
    monkeypatch.chdir(work)
    # The real signing key, made as `arena key` makes it: a line of its PEM is the secret.
    assert arena_main(["key"]) == 0
    key = home / ".config" / "Arena" / "signing-key.pem"
    secrets[key] = key.read_text().splitlines()[1]
    root = folder / "project"
    root.mkdir()
    commit = make_repo(root / "repo")
    project = Project(root, root / "repo", commit, ledgers / "ledger.sqlite")
    return Rater(project, secrets, home, folder)


def _reader(paths: list[Path]) -> str:
    """Code that prints every file of ``paths`` it can read; READ n at the end."""
    return (
        "import os\nread = 0\n"
        f"for p in {[str(p) for p in paths]!r}:\n"
        "    try:\n        print(open(p).read(), flush=True); read += 1\n"
        "    except OSError as e:\n        print('refused', type(e).__name__, flush=True)\n"
        "print('READ', read)\n"
    )


def _files_under(folder: Path, *, besides: set[Path]) -> list[bytes]:
    return [p.read_bytes() for p in folder.rglob("*") if p.is_file() and p not in besides]


def _bundle_members(path: Path) -> list[bytes]:
    with zipfile.ZipFile(io.BytesIO(path.read_bytes())) as bundle:
        return [bundle.read(name) for name in bundle.namelist()]


@needs_bwrap
def test_a_hidden_test_and_a_diff_see_none_of_the_raters_files(rater):
    paths = list(rater.secrets)
    if os.geteuid() == 0 and Path("/etc/shadow").exists():
        paths.append(Path("/etc/shadow"))  # root may read it outside: not inside
    snooping_fix = diff("calc.py", BASE, _reader(paths) + FIXED)
    project = rater.project
    project.load(
        [("add", "snoop", snooping_fix), ("add", "plain", diff("calc.py", BASE, FIXED))],
        [project.task("add", HEADER + _reader(paths) + "assert read == 0, read\n")],
    )
    inside = project.run(sandbox.bubblewrap())
    for trial in inside:
        assert trial.result == "passed" and trial.source == "sandbox", trial.log_tail
        reads = [line for line in trial.log_tail.splitlines() if line.startswith("READ")]
        assert reads and set(reads) == {"READ 0"}, trial.log_tail
        assert not any(s in trial.log_tail for s in rater.secrets.values())
    # Nothing planted reaches the ledger, its file store, or the bundle the rater exports.
    ledger = str(project.ledger_path)
    assert arena_main(["--ledger", ledger, "round", "close", "--family", "code"]) == 0
    bundle = rater.folder / "round.zip"
    assert arena_main(["--ledger", ledger, "export", "--family", "code", "--out", str(bundle)]) == 0
    stored = _files_under(project.ledger_path.parent, besides=set(rater.secrets)) + _bundle_members(
        bundle
    )
    for secret in rater.secrets.values():
        assert not any(secret.encode() in data for data in stored), secret
    # The control: without the sandbox the same test and diff read every file; the
    # signing key's line alone is taken out of the log on its way to the ledger.
    control = project.run(NONE, rerun=True)
    key = rater.secrets[rater.home / ".config" / "Arena" / "signing-key.pem"]
    for trial in control:
        assert trial.result == "failed" and trial.source == "no_sandbox"
        assert all(s in trial.log_tail for s in rater.secrets.values() if s != key), trial.log_tail
        assert key not in trial.log_tail and "[REDACTED]" in trial.log_tail


@needs_bwrap
def test_the_environment_holds_only_the_documented_variables(project, monkeypatch):
    monkeypatch.setenv("ARENA_PLANTED_TOKEN", "planted-token")
    show = HEADER + "import os\nprint(sorted(os.environ))\nprint(os.environ['PATH'])\n"
    project.load([("add", "good", diff("calc.py", BASE, FIXED))], [project.task("add", show)])
    (trial,) = project.run(sandbox.bubblewrap())
    names, path = trial.log_tail.splitlines()[:2]
    assert names == str(sorted(["HOME", "LANG", "NO_COLOR", "PATH", "TMPDIR"]))
    assert "planted-token" not in trial.log_tail
    assert path.endswith(view.SYSTEM_PATH) and str(Path.home()) not in path


@needs_bwrap
def test_read_only_paths_show_what_a_task_lists_and_nothing_around_it(rater):
    data = _plant(rater.folder / "data" / "fixture.txt", "listed data")
    unlisted = rater.folder / "data-unlisted" / "other.txt"
    _plant(unlisted)
    project = rater.project
    test = (
        HEADER
        + _reader([rater.folder / "data" / "fixture.txt", unlisted])
        + "assert read == 1\n"
        + f"try:\n    open({str(rater.folder / 'data' / 'new.txt')!r}, 'w')\n"
        + "except OSError as e:\n    print('write refused', type(e).__name__)\n"
    )
    project.load(
        [("add", "good", diff("calc.py", BASE, FIXED))],
        [project.task("add", test, read_only_paths=[str(rater.folder / "data")])],
    )
    (trial,) = project.run(sandbox.bubblewrap())
    assert trial.result == "passed" and data in trial.log_tail, trial.log_tail
    assert "write refused" in trial.log_tail and not (rater.folder / "data" / "new.txt").exists()
    # A listed folder that holds the rater's folders is refused at import, naming the
    # entry and the rule (tests/trials/test_protected.py holds every other case).
    with pytest.raises(BadInput) as refused:
        project.load([], [project.task("add", test, read_only_paths=[str(rater.folder)])])
    assert refused.value.field == "read_only_paths[0]"
    assert f"{rater.folder} holds " in str(refused.value) and protected.RULE in str(refused.value)
