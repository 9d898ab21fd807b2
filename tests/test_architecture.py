"""The dependency directions: arena.ui -> arena core -> fitting, never back."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_linter_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint), str(ROOT / "pyproject.toml")], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 3 kept, 0 broken" in result.stdout


def test_the_cli_imports_no_qt_and_no_ui_at_module_level():
    code = (
        "import sys, arena.cli.main, arena.cli.commands; "
        "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'arena.ui'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert out.strip() == "[]"


def test_no_cli_module_imports_the_ui_outside_a_function():
    for path in (ROOT / "arena" / "cli").glob("*.py"):
        tree = ast.parse(path.read_text("utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("arena.ui"):
                raise AssertionError(f"{path.name}:{node.lineno} imports arena.ui at module level")
            if isinstance(node, ast.Import) and any(
                a.name.startswith("arena.ui") for a in node.names
            ):
                raise AssertionError(f"{path.name}:{node.lineno} imports arena.ui at module level")


def test_every_package_folder_is_listed_for_installation():
    import tomllib

    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for top in ("arena", "fitting")
        for p in (ROOT / top).rglob("__init__.py")
    }
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"


def test_an_installed_copy_finds_its_resources_without_the_checkout(monkeypatch, tmp_path):
    from arena import paths

    monkeypatch.setattr(paths, "CHECKOUT_RESOURCES", tmp_path / "no-checkout")
    assert paths.resource_path("suites", "starter.toml").is_file()
    assert paths.resource_path("demo", "prose-en.jsonl").is_file()


def test_every_resource_folder_is_listed_for_installation():
    import tomllib

    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    folders = {
        "arena_resources." + ".".join(p.relative_to(ROOT / "resources").parts)
        for p in (ROOT / "resources").rglob("*")
        if p.is_dir()
        and all(part.isidentifier() for part in p.relative_to(ROOT / "resources").parts)
        and "__pycache__" not in p.parts
    }
    assert folders <= listed, f"add to [tool.setuptools] packages: {sorted(folders - listed)}"
