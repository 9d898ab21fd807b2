"""What ships: one version everywhere it is shown, every package folder listed in
pyproject.toml, and the set-up script installing what the tests need."""

from __future__ import annotations

import importlib.util
import re
import sys
import tomllib
import xml.etree.ElementTree as ElementTree

import pytest

from arena import __version__
from arena.cli.main import main
from tests.conftest import REPO

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))


def test_arena_version_prints_the_package_version(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"arena {__version__}"


def test_the_package_metadata_reads_the_same_version():
    assert "version" in PYPROJECT["project"]["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "arena.__version__"}


def _released(text: str) -> list[tuple[str, str]]:
    return re.findall(r"^## \[(\d[^\]]*)\] - (\d{4}-\d\d-\d\d)$", text, re.M)


def test_the_changelog_and_the_metainfo_name_the_version_as_their_newest_release():
    changelog = (REPO / "CHANGELOG.md").read_text("utf-8")
    assert changelog.index("## [Unreleased]") < changelog.index(f"## [{__version__}]")
    version, date = _released(changelog)[0]
    metainfo = ElementTree.parse(REPO / "packaging/org.arenarater.Arena.metainfo.xml")
    newest = metainfo.find("releases/release")
    assert newest is not None
    assert (version, date) == (__version__, newest.get("date"))
    assert newest.get("version") == __version__


def test_every_package_folder_is_listed_in_pyproject():
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(REPO).parts)
        for top in ("arena", "fitting")
        for init in (REPO / top).rglob("__init__.py")
    }
    assert found <= listed, found - listed


def _load_dev():
    spec = importlib.util.spec_from_file_location("dev", REPO / "packaging/dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def dev(monkeypatch):
    """packaging/dev.py as a module, on a Linux machine that has a venv and everything the
    tests need unless a test takes some away."""
    module = _load_dev()
    monkeypatch.setattr(module, "_has_venv", lambda: True)
    monkeypatch.setattr(module, "_present", lambda need: True)
    monkeypatch.setattr(module.sys, "platform", "linux")
    return module


def test_dev_test_wants_the_sandbox_window_and_qt_packages_it_lacks(dev, monkeypatch):
    assert dev.missing_packages("test") == []
    gone = {"bwrap", "git", "lib:xcb-icccm"}
    monkeypatch.setattr(dev, "_present", lambda need: need not in gone)
    assert dev.missing_packages("test") == ["bubblewrap", "git", "libxcb-icccm4"]
    assert dev.missing_packages("demo") == []


@pytest.mark.skipif(sys.platform != "linux", reason="looks for Linux's shared libraries")
def test_dev_tells_commands_and_libraries_that_are_there():
    dev = _load_dev()
    assert dev._present("sh") and dev._present("lib:c")
    assert not dev._present("no-such-command-here") and not dev._present("lib:no-such-lib")


def test_dev_as_root_installs_them_with_apt_get(dev, monkeypatch, capsys):
    ran = []
    monkeypatch.setattr(dev.os, "geteuid", lambda: 0)
    monkeypatch.setattr(dev, "_run", lambda *cmd, **how: ran.append(cmd))
    dev._install_system(["bubblewrap", "git"])
    assert ran[0] == ("apt-get", "update", "-qq")
    assert ran[1][:2] == ("apt-get", "install") and ran[1][-2:] == ("bubblewrap", "git")
    assert "installing bubblewrap git with apt-get" in capsys.readouterr().err


def test_dev_as_a_user_prints_the_apt_get_line_and_goes_on(dev, monkeypatch, capsys):
    monkeypatch.setattr(dev.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(dev, "_run", lambda *cmd, **how: pytest.fail(f"ran {cmd}"))
    dev._install_system(["bubblewrap", "git"])
    (line,) = capsys.readouterr().err.splitlines()
    assert line.endswith("sudo apt-get install bubblewrap git")
    with pytest.raises(SystemExit, match="sudo apt-get install python3-venv bubblewrap"):
        dev._install_system(["python3-venv", "bubblewrap"])


@pytest.mark.skipif(sys.platform != "linux", reason="the packages are Debian's")
def test_ci_installs_no_test_tool_the_set_up_script_would_not(dev):
    # .ci/run leaves the tests' tools to `packaging/dev.py test`, so CI runs that install.
    ci = (REPO / ".ci/run").read_text("utf-8")
    (installed,) = re.findall(r"apt-get install (.*?)>/dev/null", ci, re.S)
    assert "appstream" in installed
    assert not set(dev.TEST_NEEDS.values()) & set(installed.split())
