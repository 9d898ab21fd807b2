"""Task files: TOML or JSON Lines, checked whole, problems named by file, line and field."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena.errors import BadInput
from arena.trials.task_files import read_task_file

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
