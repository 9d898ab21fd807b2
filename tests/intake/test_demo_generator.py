"""The demo generator (packaging/demo) rewrites the committed demo files byte for byte,
and stays out of the wheel: only its outputs ship, in resources/demo, with the fixes
family's hand-written repository, hidden tests and task file (resources/demo/fixes)."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import REPO

ROOT = REPO
GENERATOR = ROOT / "packaging" / "demo"
DEMO = ROOT / "resources" / "demo"
FIXES = DEMO / "fixes"
OUTPUTS = ("coding.jsonl", "fixes.jsonl", "prose-en.jsonl", "zh-hans.jsonl")


def _package_folder(package: str, package_dir: dict[str, str]) -> Path:
    parts = package.split(".")
    for cut in range(len(parts), 0, -1):
        mapped = package_dir.get(".".join(parts[:cut]))
        if mapped is not None:
            return ROOT / mapped / Path(*parts[cut:])
    return ROOT / package_dir.get("", "") / Path(*parts)


def _wheel_files() -> set[Path]:
    """What pyproject.toml's [tool.setuptools] puts in the wheel: each listed package's
    modules and the files its package-data patterns match."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    package_dir = config.get("package-dir", {})
    patterns = config.get("package-data", {})
    found = set()
    for package in config["packages"]:
        folder = _package_folder(package, package_dir)
        found |= set(folder.glob("*.py"))
        for pattern in patterns.get(package, []) + patterns.get("*", []):
            found |= {path for path in folder.glob(pattern) if path.is_file()}
    return {path.resolve() for path in found}


def test_the_wheel_ships_the_demo_but_not_its_generator():
    shipped = _wheel_files()
    assert {(DEMO / name).resolve() for name in OUTPUTS} <= shipped
    fixes = {p.resolve() for p in FIXES.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert (FIXES / "tasks.toml").resolve() in fixes
    assert (FIXES / "pocketbook" / "pocketbook" / "book.py").resolve() in fixes
    assert fixes <= shipped, sorted(str(p) for p in fixes - shipped)
    generator = {path.resolve() for path in GENERATOR.rglob("*") if path.is_file()}
    assert (GENERATOR / "make_demo.py").resolve() in generator
    assert not shipped & generator, sorted(str(p) for p in shipped & generator)
    assert not [path for path in shipped if path.name == "make_demo.py"]


def test_the_demo_folder_holds_no_code_but_the_fixes_repository_and_its_hidden_tests():
    # resources/ installs whole (package data "**/*"), so a script put there ships too.
    # The fixes family's code is its data: the repository its systems patched and the
    # hidden tests Arena runs on their patches, never imported by Arena.
    data = (FIXES / "pocketbook", FIXES / "hidden")
    code = [p for p in DEMO.rglob("*.py") if not any(folder in p.parents for folder in data)]
    assert code == []


def test_the_generator_modules_stay_small():
    for path in GENERATOR.rglob("*.py"):
        lines = len(path.read_text("utf-8").splitlines())
        assert lines < 400, f"{path.relative_to(ROOT)} has {lines} lines"


def _first_difference(new: bytes, old: bytes) -> str:
    for number, (a, b) in enumerate(zip(new.splitlines(), old.splitlines(), strict=False), 1):
        if a != b:
            return f"line {number} differs:\n  new: {a[:300]!r}\n  old: {b[:300]!r}"
    return f"lengths differ: {len(new.splitlines())} lines new, {len(old.splitlines())} old"


@pytest.mark.slow
def test_the_generator_rewrites_the_committed_demo_byte_for_byte(tmp_path):
    # -S: no site-packages, so this also proves the generator needs only the standard
    # library; -E: no PYTHON* variables.
    result = subprocess.run(
        [sys.executable, "-S", "-E", str(GENERATOR / "make_demo.py"), "--out", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(OUTPUTS)
    for name in OUTPUTS:
        new, old = (tmp_path / name).read_bytes(), (DEMO / name).read_bytes()
        assert new == old, f"{name}: {_first_difference(new, old)}"
