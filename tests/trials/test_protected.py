"""Every path a task file names, by one rule: a read-only path, a hidden test file (or a
link in a hidden test folder) and a repository (folder, tarball, git) that is, holds or
lies inside a protected place is refused at `arena tasks import`, and again when the tests
run (a link may lead elsewhere by then). With the rule switched off, each position shows
a trial the rater's files; the signing key's text never reaches a trial's log."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.cli.main import main as arena_main
from arena.errors import BadInput
from arena.ledger import Ledger, catalog, trial_store
from arena.trials import protected, sandbox, task_files, view
from arena.trials.sandbox import NONE
from arena.trials.task_import import import_tasks
from tests.conftest import REPO
from tests.trials.conftest import BASE, FIXED, Project, diff, git, make_repo, needs_bwrap

POSITIONS = (
    "read_only_paths[0]",
    "hidden_tests[0].file",
    "repository.folder",
    "repository.tarball",
    "repository.git",
)


@dataclass
class Rater:
    root: Path
    home: Path
    work: Path
    key: Path
    project: Project


@pytest.fixture
def rater(tmp_path, monkeypatch) -> Rater:
    home, work = tmp_path / "home", tmp_path / "work"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("ARENA_SIGNING_KEY", raising=False)
    for planted in (home / "notes.txt", work / "draft.txt", tmp_path / "ledgers" / "other.txt"):
        planted.parent.mkdir(parents=True, exist_ok=True)
        planted.write_text(f"PLANTED {planted.name}\n")
    (home / ".local" / "share" / "Arena").mkdir(parents=True)
    monkeypatch.chdir(work)
    assert arena_main(["key"]) == 0
    root = tmp_path / "project"
    root.mkdir()
    project = Project(
        root, root / "repo", make_repo(root / "repo"), tmp_path / "ledgers" / "l.sqlite"
    )
    (root / "data").mkdir()
    (root / "link").symlink_to(home / "notes.txt")
    return Rater(tmp_path, home, work, home / ".config" / "Arena" / "signing-key.pem", project)


def sensitive(rater: Rater) -> dict[str, str]:
    """Each kind of protected path, as a task file might write it."""
    return {
        "the home folder": str(rater.home),
        "a file in the home folder, with ~": "~/notes.txt",
        "the ledger": str(rater.project.ledger_path),
        "a file beside the ledger": str(rater.project.ledger_path.parent / "other.txt"),
        "the signing key": str(rater.key),
        "Arena's configuration folder": str(rater.key.parent),
        "Arena's data folder": str(rater.home / ".local" / "share" / "Arena"),
        "the working folder": str(rater.work),
        "a file in the working folder": str(rater.work / "draft.txt"),
        "a folder that holds them": str(rater.root),
        "a link to a file in the home folder": "link",
        "a way round with ..": "../home/notes.txt",
        "/proc": "/proc/self/environ",
        "/sys": "/sys/kernel",
        "/dev": "/dev/zero",
        "/root": "/root",
    }


def _entry(position: str, value: str, commit: str) -> dict[str, object]:
    task: dict[str, object] = {
        "id": "add",
        "prompt": "Fix add.",
        "repository": {"folder": "repo"},
        "hidden_tests": [{"file": "hidden/test_add.py", "to": "tests/test_add.py"}],
        "test_command": [sys.executable, "tests/test_add.py"],
    }
    if position == "read_only_paths[0]":
        task["read_only_paths"] = [value]
    elif position == "hidden_tests[0].file":
        task["hidden_tests"] = [{"file": value, "to": "tests/test_add.py"}]
    elif position == "repository.git":
        task["repository"] = {"git": value, "base_commit": commit}
    else:
        task["repository"] = {position.split(".")[1]: value}
    return task


def test_every_kind_in_every_position_is_refused_at_import(rater):
    project = rater.project
    project.hidden("test_add.py", "pass\n")
    with Ledger.open(project.ledger_path) as ledger:
        for kind, value in sensitive(rater).items():
            for position in POSITIONS:
                path = project.write_tasks([_entry(position, value, project.commit)])
                with pytest.raises(BadInput) as refused:
                    import_tasks(ledger, path, family="code")
                message = str(refused.value)
                assert refused.value.field == position, (kind, message)
                assert message.startswith(f"{path}:1: {position}: "), (kind, message)
                assert protected.RULE in message, (kind, message)
        assert catalog.get_family(ledger, "code") is None


def test_a_link_in_a_hidden_test_folder_is_refused(rater, capsys):
    folder = rater.project.root / "hidden"
    folder.mkdir()
    (folder / "test_add.py").write_text("pass\n")
    (folder / "key.pem").symlink_to(rater.key)
    task = _entry("hidden_tests[0].file", "hidden", rater.project.commit)
    task["hidden_tests"] = [{"file": "hidden", "to": "tests"}]
    path = rater.project.write_tasks([task])
    ledger = str(rater.project.ledger_path)
    assert arena_main(["--ledger", ledger, "tasks", "import", str(path), "--family", "c"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:1: hidden_tests[0].file: {folder / 'key.pem'} (that is {rater.key}) is " in err
    assert "Traceback" not in err


def test_every_kind_is_refused_when_a_stored_task_runs(rater):
    project = rater.project
    project.hidden("test_add.py", "pass\n")
    with Ledger.open(project.ledger_path) as ledger:
        plain = _entry("repository.folder", "repo", "")
        import_tasks(ledger, project.write_tasks([plain]), family="code")
        task = trial_store.latest_tasks(ledger, "code")["add"]
    places = protected.places(project.ledger_path)
    assert protected.task_refusal(task, places) is None
    for kind, value in sensitive(rater).items():
        path = str(Path(os.path.expanduser(value)) if value[0] in "/~" else project.root / value)
        for field, tampered in (
            ("read_only_paths[0]", dataclasses.replace(task, read_only_paths=(path,))),
            ("repository.git", dataclasses.replace(task, repo={"kind": "git", "path": path})),
        ):
            refused = protected.task_refusal(tampered, places)
            assert refused is not None and refused[0] == field, kind
            assert refused[1].endswith(protected.RULE), kind


@pytest.mark.parametrize("position", ["read_only_paths[0]", "repository.git"])
def test_a_path_that_leads_home_after_import_is_refused_when_the_tests_run(rater, position):
    project = rater.project
    test = "import sys\nsys.path.insert(0, '.')\nimport calc\nassert calc.add(2, 3) == 5\n"
    task = project.task("add", test, read_only_paths=["data"])
    project.load([("add", "good", diff("calc.py", BASE, FIXED))], [task])
    (trial,) = project.run(NONE)
    assert trial.result == "passed", trial.log_tail
    # Now the same paths lead into the home folder.
    moved = rater.home / ("data" if position.startswith("read") else "repo")
    shutil.move(project.root / moved.name, moved)
    (project.root / moved.name).symlink_to(moved)
    (trial,) = project.run(NONE, rerun=True)
    assert trial.result == "errored"
    assert trial.reason.startswith(f"unsafe_path: {position}: {project.root / moved.name}")
    assert "lies inside the home folder" in trial.reason and protected.RULE in trial.reason


def _switch_off_the_rule(monkeypatch) -> None:
    monkeypatch.setattr(protected, "refusal", lambda *args, **kwargs: "")
    monkeypatch.setattr(task_files, "refusal", lambda *args, **kwargs: "")


@needs_bwrap
@pytest.mark.parametrize(
    "position", ["read_only_paths[0]", "hidden_tests[0].file", "repository.folder"]
)
def test_with_the_rule_off_each_position_shows_a_trial_the_raters_files(
    rater, position, monkeypatch
):
    project = rater.project
    shown = {
        "read_only_paths[0]": (str(rater.key), rater.key),
        "hidden_tests[0].file": (str(rater.key), Path("tests/test_add.py")),
        "repository.folder": (str(rater.home), Path("notes.txt")),
    }
    value, read = shown[position]
    (rater.home / "calc.py").write_text(BASE)  # for the diff, when the home folder is the code
    task = _entry(position, value, project.commit)
    if position != "hidden_tests[0].file":
        project.hidden("test_add.py", "pass\n")
    task["test_command"] = [sys.executable, "-c", f"print(open({str(read)!r}).read())"]
    path = project.write_tasks([task])
    outputs = project.write_outputs([("add", "good", diff("calc.py", BASE, FIXED))])
    ledger = str(project.ledger_path)
    assert (
        arena_main(["--ledger", ledger, "import", str(outputs), "--family", "code", "--create"])
        == 0
    )
    with pytest.raises(BadInput, match=re.escape(f"{position}: ")):
        with Ledger.open(project.ledger_path) as opened:
            import_tasks(opened, path, family="code")
    _switch_off_the_rule(monkeypatch)
    with Ledger.open(project.ledger_path) as opened:
        import_tasks(opened, path, family="code")
    (trial,) = project.run(sandbox.bubblewrap())
    secret = rater.key.read_text().splitlines()[1]
    if position == "repository.folder":
        assert "PLANTED notes.txt" in trial.log_tail, trial.log_tail
    else:
        # The key was shown to the trial: only its removal from the log keeps it out.
        assert secret not in trial.log_tail and "[REDACTED]" in trial.log_tail
        monkeypatch.setattr(protected, "key_hider", lambda key_path=None: lambda text: text)
        (trial,) = project.run(sandbox.bubblewrap(), rerun=True)
        assert secret in trial.log_tail, trial.log_tail


def test_the_signing_keys_text_is_taken_out_of_a_log(rater):
    from cryptography.hazmat.primitives import serialization

    hide = protected.key_hider()
    pem = rater.key.read_text()
    line = pem.splitlines()[1]
    key = serialization.load_pem_private_key(pem.encode(), password=None)
    raw = key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    log = f"before\n{pem}{line[20:]}\nseed {raw.hex()}\nafter"
    begin, _, end = pem.splitlines()
    hidden = hide(log).splitlines()
    assert hidden == ["before", begin, "[REDACTED]", end, "[REDACTED]", "[REDACTED]", "after"]
    assert protected.key_hider(rater.root / "no-key.pem")(log) == log


def test_arenas_own_resources_may_be_named_where_the_home_and_working_folders_hold_them(
    tmp_path, monkeypatch
):
    shipped = REPO / "resources" / "demo" / "fixes"
    monkeypatch.chdir(REPO)
    for home in (tmp_path, REPO.parent):
        monkeypatch.setenv("HOME", str(home))
        places = protected.places(tmp_path / "ledgers" / "l.sqlite")
        assert protected.refusal(shipped / "pocketbook", places) == ""
        assert protected.refusal(shipped / "hidden" / "test_issue_61.py", places) == ""
    assert "lies inside the home folder" in protected.refusal(REPO / "README.md", places)
    monkeypatch.setenv("HOME", str(tmp_path))
    places = protected.places(tmp_path / "ledgers" / "l.sqlite")
    assert "lies inside the working folder" in protected.refusal(REPO / "README.md", places)
    assert "holds the working folder" in protected.refusal(REPO.parent, places)
    with Ledger.open(tmp_path / "ledgers" / "l.sqlite") as ledger:
        assert import_tasks(ledger, shipped / "tasks.toml", family="fixes").tasks == 6


def test_an_interpreter_may_live_in_the_home_folder_never_in_arenas(rater):
    venv = rater.home / "venvs" / "calc"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {Path(sys.base_prefix) / 'bin'}\n")
    places = protected.places(rater.project.ledger_path)
    seen = view.view_for(
        (str(venv / "bin" / "python"),), python=None, read_only_paths=(), protected=places
    )
    assert str(venv) in seen.read_only
    with pytest.raises(view.Unsafe, match="is the signing key"):
        view.view_for((str(rater.key),), python=None, read_only_paths=(), protected=places)
    # A virtual environment that is the home folder would show all of it.
    (rater.home / "pyvenv.cfg").write_text("home = /usr/bin\n")
    with pytest.raises(view.Unsafe, match="is the home folder"):
        view.view_for(
            (str(rater.home / "bin" / "python"),), python=None, read_only_paths=(), protected=places
        )


def test_the_refusal_reads_as_file_line_field_problem(rater, capsys):
    path = rater.project.write_tasks(
        [{**_entry("read_only_paths[0]", "~", rater.project.commit), "id": "x"}]
    )
    rater.project.hidden("test_add.py", "pass\n")
    argv = ["--ledger", str(rater.project.ledger_path), "tasks", "import", str(path)]
    assert arena_main([*argv, "--family", "code", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    assert f"{path}:1: read_only_paths[0]: {rater.home} is the home folder ({rater.home})" in (
        captured.err
    )


def test_a_repository_borrowing_objects_from_the_home_folder_is_refused(rater, monkeypatch):
    # A clone outside the home folder whose alternates lead to a private repository in it.
    private = rater.home / "private"
    commit = make_repo(private, {"calc.py": BASE, "secret.py": "PLANTED private code\n"})
    git("clone", "-q", "--shared", "--no-checkout", str(private), "shared", cwd=rater.project.root)
    task = _entry("repository.git", "shared", commit)
    task["test_command"] = [sys.executable, "-c", "print(open('secret.py').read())"]
    rater.project.hidden("test_add.py", "pass\n")
    outputs = [("add", "good", diff("calc.py", BASE, FIXED))]
    with pytest.raises(BadInput) as refused:
        rater.project.load(outputs, [task])
    assert refused.value.field == "repository.git"
    assert f"{private / '.git' / 'objects'} lies inside the home folder" in str(refused.value)
    # The control: with the rule off, the trial gets the private code.
    _switch_off_the_rule(monkeypatch)
    rater.project.load(outputs, [task])
    (trial,) = rater.project.run(NONE)
    assert "PLANTED private code" in trial.log_tail, trial.log_tail


def test_a_working_folder_at_the_root_protects_nothing_more(rater, monkeypatch):
    monkeypatch.chdir("/")
    places = protected.places(rater.project.ledger_path)
    assert "/" not in {str(p.path) for p in places}
    assert protected.refusal(rater.project.root / "data", places) == ""
    assert "lies inside the home folder" in protected.refusal(rater.home / "notes.txt", places)


def _pack_in_home(rater: Rater) -> Project:
    """A task pack kept in the home folder, its ledger elsewhere."""
    root = rater.home / "bench"
    root.mkdir()
    return Project(root, root / "repo", make_repo(root / "repo"), rater.project.ledger_path)


@needs_bwrap
def test_a_pack_in_the_home_folder_may_name_what_it_carries(rater):
    pack = _pack_in_home(rater)
    (pack.root / "data").mkdir()
    (pack.root / "data" / "expected.txt").write_text("5\n")
    test = (
        "import sys\nsys.path.insert(0, '.')\nimport calc\n"
        f"assert calc.add(2, 3) == int(open({str(pack.root / 'data' / 'expected.txt')!r}).read())\n"
    )
    task = pack.task("add", test, read_only_paths=["data"])
    pack.load([("add", "good", diff("calc.py", BASE, FIXED))], [task])
    (trial,) = pack.run(sandbox.bubblewrap())
    assert trial.result == "passed", trial.log_tail
    with Ledger.open(pack.ledger_path) as ledger:
        stored = trial_store.latest_tasks(ledger, "code")["add"]
    assert stored.pack == str(pack.root)
    # The pack vouches at run time too: a link swapped in later leads out of it.
    moved = rater.home / "elsewhere"
    shutil.move(pack.root / "data", moved)
    (pack.root / "data").symlink_to(moved)
    (trial,) = pack.run(sandbox.bubblewrap(), rerun=True)
    assert trial.result == "errored"
    assert trial.reason.startswith(f"unsafe_path: read_only_paths[0]: {pack.root / 'data'}")


def test_a_pack_vouches_for_nothing_outside_it_nor_in_arenas_places(rater):
    pack = _pack_in_home(rater)
    pack.hidden("test_add.py", "pass\n")
    places = protected.places(pack.ledger_path)
    inside = pack.root / "repo" / "calc.py"
    assert protected.refusal(inside, places, pack=pack.root) == ""
    assert "lies inside the home folder" in protected.refusal(inside, places)
    with Ledger.open(pack.ledger_path) as ledger:
        for value in ("~/notes.txt", "../notes.txt", str(rater.key), str(rater.key.parent)):
            path = pack.write_tasks([_entry("read_only_paths[0]", value, pack.commit)])
            with pytest.raises(BadInput, match=re.escape(protected.RULE)):
                import_tasks(ledger, path, family="code")
    # A task file in the home folder itself, or in a folder holding Arena's, vouches for none.
    for folder in (rater.home, rater.key.parent.parent):
        assert "lies inside the home folder" in protected.refusal(
            pack.root / "repo", places, pack=folder
        )
    ledger_in_pack = protected.places(pack.root / "ledgers" / "l.sqlite")
    assert "lies inside the home folder" in protected.refusal(
        inside, ledger_in_pack, pack=pack.root
    )
