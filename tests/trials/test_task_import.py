"""`arena tasks import`: tasks, cases and files stored together, or nothing at all."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import tarfile

import pytest

from arena.cli.main import main
from arena.errors import BadInput
from arena.ledger import Ledger, catalog, trial_store
from arena.ledger.file_store import FileStore
from arena.trials import run_trials
from arena.trials.sandbox import NONE
from arena.trials.task_import import import_tasks
from tests.trials.conftest import BASE, FIXED, TEST_ADD, TEST_MUL, diff


def test_import_creates_the_family_its_cases_and_tasks(project, capsys):
    tasks = project.write_tasks([project.task("add", TEST_ADD), project.task("mul", TEST_MUL)])
    ledger_arg = ["--ledger", str(project.ledger_path)]
    assert main([*ledger_arg, "tasks", "import", str(tasks), "--family", "code", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report | {"cases_kept": []} == {
        "family": "code",
        "tasks": 2,
        "tasks_added": 2,
        "cases_added": 2,
        "family_created": True,
        "files_stored": 2,
        "cases_kept": [],
    }
    with Ledger.open(project.ledger_path) as ledger:
        assert catalog.get_family(ledger, "code").kind == "tests"
        assert [c.prompt for c in catalog.cases(ledger, "code")] == ["Fix add.", "Fix mul."]
        add = trial_store.latest_tasks(ledger, "code")["add"]
        digest = hashlib.sha256(TEST_ADD.encode()).hexdigest()
        assert add.hidden_tests == {"tests/test_add.py": digest}
        assert add.repo == {
            "kind": "git",
            "path": str(project.repo.resolve() / ".git"),
            "base_commit": project.commit,
        }
        assert FileStore.beside(ledger).get(digest) == TEST_ADD.encode()
    # The same file again stores nothing new.
    assert main([*ledger_arg, "tasks", "import", str(tasks), "--family", "code", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tasks_added"] == 0


def test_a_failed_import_changes_nothing(project):
    bad = project.task("mul", TEST_MUL)
    bad["repository"] = {"git": "repo", "base_commit": "0" * 40}
    path = project.write_tasks([project.task("add", TEST_ADD), bad])
    with Ledger.open(project.ledger_path) as ledger:
        with pytest.raises(BadInput) as raised:
            import_tasks(ledger, path, family="code")
        assert catalog.get_family(ledger, "code") is None
        assert trial_store.latest_tasks(ledger, "code") == {}
    assert str(raised.value).startswith(f"{path}:2: repository.base_commit: ")
    assert "task 'mul'" in str(raised.value)


def test_tasks_go_only_into_a_tests_family(project, standard_outputs):
    with Ledger.open(project.ledger_path) as ledger:
        catalog.add_family(ledger, catalog.Family("prose"))
        with pytest.raises(BadInput, match="votes family"):
            import_tasks(
                ledger, project.write_tasks([project.task("add", TEST_ADD)]), family="prose"
            )


def test_a_folder_is_archived_so_a_run_no_longer_needs_it(project):
    folder = project.root / "snapshot"
    shutil.copytree(project.repo, folder, ignore=shutil.ignore_patterns(".git"))
    task = project.task("add", TEST_ADD, repository={"folder": "snapshot"})
    project.load([("add", "good", diff("calc.py", BASE, FIXED))], [task])
    shutil.rmtree(folder)
    with Ledger.open(project.ledger_path) as ledger:
        run_trials.run(ledger, run_trials.plan(ledger, "code"), sandbox=NONE)
        (trial,) = trial_store.trials(ledger, "code")
        stored = trial_store.latest_tasks(ledger, "code")["add"].repo
    assert trial.result == "passed", trial.log_tail
    assert stored["kind"] == "folder" and len(stored["archive"]) == 64


def test_a_tarball_with_a_top_folder_is_read_from_its_root(project):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        data = BASE.encode()
        info = tarfile.TarInfo("calc-1.0/calc.py")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    (project.root / "calc.tar.gz").write_bytes(buffer.getvalue())
    task = project.task("add", TEST_ADD, repository={"tarball": "calc.tar.gz", "root": "calc-1.0"})
    project.load([("add", "good", diff("calc.py", BASE, FIXED))], [task])
    with Ledger.open(project.ledger_path) as ledger:
        run_trials.run(ledger, run_trials.plan(ledger, "code"), sandbox=NONE)
        (trial,) = trial_store.trials(ledger, "code")
    assert trial.result == "passed", trial.log_tail


def test_an_unsafe_tarball_is_refused_at_import(project):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo("../escape.py")
        tar.addfile(info, io.BytesIO(b""))
    (project.root / "bad.tar").write_bytes(buffer.getvalue())
    path = project.write_tasks([project.task("add", TEST_ADD, repository={"tarball": "bad.tar"})])
    with Ledger.open(project.ledger_path) as ledger, pytest.raises(BadInput) as raised:
        import_tasks(ledger, path, family="code")
    assert "repository.tarball" in str(raised.value) and "outside" in str(raised.value)


def test_a_case_already_imported_keeps_its_prompt(project, capsys):
    project.load([("add", "good", diff("calc.py", BASE, FIXED))], [project.task("add", TEST_ADD)])
    changed = project.write_tasks([project.task("add", TEST_ADD, prompt="Another prompt.")])
    code = main(
        ["--ledger", str(project.ledger_path), "tasks", "import", str(changed), "--family", "code"]
    )
    assert code == 0 and "1 case already in 'code' keeps its own prompt" in capsys.readouterr().err
    with Ledger.open(project.ledger_path) as ledger:
        assert catalog.get_case(ledger, "code", "add").prompt == "Fix add."
