"""Task files: TOML or JSON Lines, checked whole, problems named by file, line and field."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from arena.canonical import content_hash
from arena.errors import BadInput
from arena.records import CaseId
from arena.tasks import Task
from arena.trials import protected
from arena.trials.task_files import read_task_file as read_with_rule

TOML = """\
# Two tasks on one repository.
[[task]]
id = "add"
prompt = "add() subtracts."
category = "bugfix"
repository = {{ git = "repo", base_commit = "{commit}" }}
test_command = ["python3", "-m", "pytest", "-q", "tests/test_add.py"]
environment = "python3 with pytest"

[[task.hidden_tests]]
file = "hidden/test_add.py"
to = "tests/test_add.py"

[[task]]
id = "mul"
prompt = "mul() is slow."
repository = {{ folder = "repo" }}
test_command = ["python3", "tests/test_mul.py"]
time_limit_s = 30
memory_mb = 512
hidden_tests = [{{ file = "hidden" }}]
"""


def read_task_file(path: Path):
    """The file read as `arena tasks import` reads it beside the project's ledger."""
    return read_with_rule(path, protected.places(path.parent.parent / "ledgers" / "l.sqlite"))


@pytest.fixture
def folder(project) -> Path:
    project.hidden("test_add.py", "pass\n")
    project.hidden("test_mul.py", "pass\n")
    return project.root


def test_a_toml_task_file_is_read_with_its_defaults(folder, project):
    path = folder / "tasks.toml"
    path.write_text(TOML.format(commit=project.commit))
    add, mul = read_task_file(path)
    assert (add.case_id, add.category, add.line) == ("add", "bugfix", 2)
    assert add.repository.kind == "git" and add.repository.path == project.repo.resolve()
    assert add.hidden_tests == (("tests/test_add.py", folder / "hidden" / "test_add.py"),)
    assert (add.time_limit_s, add.memory_mb) == (300.0, 2048)
    assert (mul.category, mul.time_limit_s, mul.memory_mb, mul.line) == ("general", 30.0, 512, 14)
    # A folder of hidden tests: every file in it, placed under the same path.
    assert [target for target, _ in mul.hidden_tests] == [
        "hidden/test_add.py",
        "hidden/test_mul.py",
    ]


def test_json_lines_hold_the_same_fields(folder, project):
    record = {
        "id": 7,
        "prompt": "Fix it.",
        "repository": {"tarball": "repo.tar.gz", "root": "proj-1.0"},
        "hidden_tests": [{"file": "hidden/test_add.py", "to": "t/test_add.py"}],
        "test_command": ["true"],
    }
    (folder / "repo.tar.gz").write_bytes(b"")
    path = folder / "tasks.jsonl"
    path.write_text("\n" + json.dumps(record) + "\n")
    (task,) = read_task_file(path)
    assert (task.case_id, task.line, task.repository.root) == ("7", 2, "proj-1.0")


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda t: t.replace('id = "mul"\n', ""), r":14: id: missing"),
        (lambda t: t.replace("time_limit_s = 30", "time_limit_s = -1"), r":19: time_limit_s: "),
        (
            lambda t: t.replace('{ folder = "repo" }', '{ svn = "repo" }'),
            r":17: repository: expected",
        ),
        (
            lambda t: t.replace('file = "hidden/test_add.py"', 'file = "hidden/nope.py"'),
            r":11: hidden_tests\[0\]\.file: no such file",
        ),
        (
            lambda t: t.replace('to = "tests/test_add.py"', 'to = "../escape.py"'),
            r":12: hidden_tests\[0\]\.to: expected a path inside",
        ),
        (lambda t: t.replace('id = "mul"', 'id = "add"'), r":14: id: task 'add' appears twice"),
        (
            lambda t: t.replace('["python3", "tests/test_mul.py"]', '"python3 tests/test_mul.py"'),
            r":18: test_command: ",
        ),
        (lambda t: t + "\n[extra]\nx = 1\n", r"tasks.toml: extra: unknown top-level key"),
        (
            lambda t: t.replace('[[task]]\nid = "mul"', '[[task]\nid = "mul"'),
            r":14: not valid TOML",
        ),
    ],
)
def test_a_problem_is_named_by_file_line_and_field(folder, project, change, where):
    path = folder / "tasks.toml"
    path.write_text(change(TOML.format(commit=project.commit)))
    with pytest.raises(BadInput) as raised:
        read_task_file(path)
    assert re.search(where, str(raised.value)), str(raised.value)
    assert str(raised.value).startswith(str(path))


def test_a_json_lines_problem_names_its_line(folder):
    path = folder / "tasks.jsonl"
    path.write_text('{"id": "a"}\n')
    with pytest.raises(BadInput, match=r"tasks.jsonl:1: prompt: missing"):
        read_task_file(path)


def test_limits_and_read_only_paths_are_read_and_checked(folder, project):
    (folder / "data").mkdir()
    path = folder / "tasks.toml"
    limits = 'max_processes = 64\ndisk_mb = 256\nlog_mb = 8\nread_only_paths = ["data"]\n'
    path.write_text(
        TOML.format(commit=project.commit).replace(
            "memory_mb = 512\n", f"memory_mb = 512\n{limits}"
        )
    )
    add, mul = read_task_file(path)
    assert (add.max_processes, add.disk_mb, add.log_mb, add.read_only_paths) == (
        None,
        None,
        None,
        (),
    )
    assert (mul.max_processes, mul.disk_mb, mul.log_mb) == (64, 256, 8)
    assert mul.read_only_paths == (str((folder / "data").resolve()),)
    path.write_text(path.read_text().replace('["data"]', '["data", "gone"]'))
    with pytest.raises(
        BadInput, match=r"tasks.toml:24: read_only_paths\[1\]: no such file or folder"
    ):
        read_task_file(path)
    path.write_text(path.read_text().replace("max_processes = 64", "max_processes = 2"))
    with pytest.raises(BadInput, match=r":21: max_processes: 2 is less than the minimum of 8"):
        read_task_file(path)


def test_a_task_without_the_newer_fields_keeps_its_hash():
    # A task stored before max_processes, disk_mb, log_mb and read_only_paths existed must
    # hash as it did, or every trial recorded against it would look stale.
    task = Task(
        family="f",
        case_id=CaseId("c"),
        repo={"kind": "git"},
        hidden_tests={},
        test_command=("true",),
    )
    assert set(task.canonical()) == {
        "case_id",
        "repo",
        "hidden_tests",
        "test_command",
        "time_limit_s",
        "memory_mb",
        "environment",
    }
    assert task.task_hash == content_hash({**task.canonical()})
    assert dataclasses.replace(task, disk_mb=256).task_hash != task.task_hash
    assert dataclasses.replace(task, read_only_paths=("/srv/x",)).task_hash != task.task_hash
