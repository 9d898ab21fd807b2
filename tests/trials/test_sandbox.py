"""The isolation, proved: a hidden test that reaches a server on 127.0.0.1 outside the
sandbox, or writes outside its folder, fails inside it (and, as a control, passes with
`--no-sandbox`, so it is the sandbox that stops it)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from arena.trials import sandbox, view, workspace
from arena.trials.limits import Limits
from arena.trials.sandbox import NONE
from arena.trials.view import system_view
from tests.trials.conftest import BASE, FIXED, diff, needs_bwrap

GOOD = [("add", "good", diff("calc.py", BASE, FIXED))]


def one_trial(project, chosen: sandbox.Sandbox, rerun: bool = False):
    return project.run(chosen, rerun=rerun)[-1]


@pytest.fixture
def server():
    """A TCP server on 127.0.0.1 that answers every connection with 'hello'."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            with connection:
                connection.sendall(b"hello")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    listener.close()


def connecting_test(port: int) -> str:
    return (
        "import socket\n"
        f"with socket.create_connection(('127.0.0.1', {port}), timeout=5) as s:\n"
        "    assert s.recv(5) == b'hello'\n"
        "print('reached the server')\n"
    )


def writing_test(*targets: Path) -> str:
    """A hidden test that passes only if it can write each of ``targets``."""
    lines = "".join(
        f"try:\n    open({str(t)!r}, 'w').write('escaped')\n"
        "except OSError as e:\n    print('refused:', e)\n    refused += 1\n"
        for t in targets
    )
    return f"refused = 0\n{lines}open('inside.txt', 'w').write('ok')\nassert refused == 0\n"


@needs_bwrap
def test_a_hidden_test_cannot_reach_a_server_on_localhost(project, server):
    project.load(GOOD, [project.task("add", connecting_test(server))])
    inside = one_trial(project, sandbox.bubblewrap())
    assert inside.result == "failed" and inside.source == "sandbox"
    assert "Connection refused" in inside.log_tail or "unreachable" in inside.log_tail
    control = one_trial(project, NONE, rerun=True)
    assert control.result == "passed" and "reached the server" in control.log_tail


@needs_bwrap
def test_a_hidden_test_cannot_write_outside_its_folder(project, tmp_path):
    # One target under /tmp (where the test's own temporary folder is), one elsewhere.
    elsewhere = Path(tempfile.mkdtemp(prefix="arena-isolation-", dir="/var/tmp"))
    targets = (tmp_path / "escaped.txt", elsewhere / "escaped.txt")
    try:
        project.load(GOOD, [project.task("add", writing_test(*targets))])
        inside = one_trial(project, sandbox.bubblewrap())
        assert inside.result == "failed", inside.log_tail
        assert inside.log_tail.count("refused:") == 2
        assert not any(t.exists() for t in targets)
        control = one_trial(project, NONE, rerun=True)
        assert control.result == "passed" and all(t.read_text() == "escaped" for t in targets)
    finally:
        for target in targets:
            target.unlink(missing_ok=True)
        elsewhere.rmdir()


def test_unshare_keeps_the_network_out(project, server):
    found = sandbox.unshare()
    if found is None:
        pytest.skip("user namespaces are not available here")
    project.load(GOOD, [project.task("add", connecting_test(server))])
    trial = one_trial(project, found)
    assert trial.result == "failed" and "NOT blocked" in trial.sandbox
    assert trial.source == "weak_sandbox"


def test_the_sandbox_is_chosen_by_platform(monkeypatch):
    monkeypatch.setattr(sandbox, "bubblewrap", lambda: None)
    monkeypatch.setattr(sandbox, "unshare", lambda: "unshare")
    monkeypatch.setattr(sandbox, "sandbox_exec", lambda: "sandbox-exec")
    assert sandbox.best.__wrapped__("linux") == "unshare"
    assert sandbox.best.__wrapped__("darwin") == "sandbox-exec"
    assert sandbox.best.__wrapped__("win32") is None
    assert sandbox.choose(no_sandbox=True) is NONE


def test_the_macos_profile_confines_writes_to_the_trial_folder():
    # Not run on a Mac here: check the command line and the profile's rules at least.
    mac = sandbox.Sandbox("sandbox-exec", "sandbox-exec", "/usr/bin/sandbox-exec")
    argv = mac.wrap(("python", "t.py"), root=Path("/private/x"), view=None, limits=Limits())
    assert argv[:5] == [
        "/usr/bin/sandbox-exec",
        "-p",
        sandbox.SANDBOX_EXEC_PROFILE,
        "-D",
        "ROOT=/private/x",
    ]
    assert argv[-2:] == ["python", "t.py"]
    profile = sandbox.SANDBOX_EXEC_PROFILE
    assert "(deny network*)" in profile and '(subpath (param "ROOT"))' in profile
    assert profile.index("(deny file-write*)") < profile.index("(allow file-write*")
    assert mac.source == "weak_sandbox" and not mac.confines


def run_inside(found: sandbox.Sandbox, root: Path, argv: tuple[str, ...], seen=None):
    """``argv`` run in bubblewrap on the trial folder ``root`` (its repo/ made here)."""
    (root / "repo").mkdir(exist_ok=True)
    wrapped = found.wrap(argv, root=root, view=seen or system_view(), limits=Limits())
    return subprocess.run(wrapped, capture_output=True, text=True, env={"PATH": os.defpath})


@needs_bwrap
def test_bubblewrap_drops_capabilities_even_as_root(tmp_path):
    # As root bubblewrap keeps capabilities unless told: enough to remount / writable.
    done = run_inside(
        sandbox.bubblewrap(),
        tmp_path,
        ("/bin/sh", "-c", "mount -o remount,rw / && touch /arena-escaped"),
    )
    assert done.returncode != 0 and not Path("/arena-escaped").exists()


@pytest.fixture
def request_cleanup(request):
    """Remove each folder given when the test ends."""
    import shutil

    def remove_later(folder: Path) -> None:
        request.addfinalizer(lambda: shutil.rmtree(folder, ignore_errors=True))

    return remove_later


@needs_bwrap
def test_a_python_installed_under_tmp_still_runs_inside(
    tmp_path, monkeypatch, request_cleanup, request
):
    # A checkout (and its virtual environment) under /tmp, as CI clones may be: the
    # private /tmp would hide the interpreter that `{python}` names.
    prefix = Path(tempfile.mkdtemp(prefix="arena-venv-", dir="/tmp"))
    request_cleanup(prefix)
    (prefix / "bin").mkdir()
    program = prefix / "bin" / "hello"
    program.write_text("#!/bin/sh\necho seen from inside\n")
    program.chmod(0o755)
    found = sandbox.bubblewrap()
    seen = view.view_for(("{python}",), python=sys.executable, read_only_paths=(), protected=[])
    assert not seen.shows(str(program))  # not the running Python's: not shown
    assert run_inside(found, tmp_path, (str(program),), seen).returncode != 0
    monkeypatch.setattr("sys.prefix", str(prefix))
    view.python_at.cache_clear()
    request.addfinalizer(view.python_at.cache_clear)
    seen = view.view_for(("{python}",), python=sys.executable, read_only_paths=(), protected=[])
    assert seen.shows(str(program)) and f"{prefix}/bin" in seen.path.split(":")
    done = run_inside(found, tmp_path, (str(program),), seen)
    assert done.returncode == 0 and done.stdout == "seen from inside\n", done.stderr
    # Read-only: the installation cannot be changed from inside.
    done = run_inside(found, tmp_path, ("/bin/sh", "-c", f"touch {prefix}/x"), seen)
    assert done.returncode != 0 and not (prefix / "x").exists()


@needs_bwrap
def test_a_frozen_arena_lends_the_python_a_launcher_on_path_hands_over_to(
    project, tmp_path, monkeypatch, request
):
    # A frozen build has no Python of its own: {python} is python3 on PATH, here a
    # launcher script (as a pyenv shim is) that the sandbox does not show. The trial runs
    # the interpreter it hands over to, whose installation is shown.
    shims = tmp_path / "shims"
    shims.mkdir()
    (shims / "python3").write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    (shims / "python3").chmod(0o755)
    monkeypatch.setattr("sys.frozen", True, raising=False)
    monkeypatch.setenv("PATH", f"{shims}:{os.defpath}")
    request.addfinalizer(view.python_at.cache_clear)
    assert workspace.python_program() == sys.executable
    test = "import sys\nprint('ran', sys.executable)\n"
    project.load(GOOD, [project.task("add", test, test_command=["{python}", "tests/test_add.py"])])
    trial = one_trial(project, sandbox.bubblewrap())
    assert trial.result == "passed" and f"ran {sys.executable}" in trial.log_tail, trial.log_tail
