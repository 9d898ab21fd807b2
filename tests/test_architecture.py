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
    assert "Contracts: 7 kept, 0 broken" in result.stdout


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


def _modules(*packages: str) -> list[Path]:
    return sorted(p for package in packages for p in (ROOT / package).rglob("*.py"))


def test_no_import_circle():
    import grimp

    graph = grimp.build_graph("arena")
    circles = sorted(
        (importer, imported)
        for importer in graph.modules
        for imported in graph.find_modules_directly_imported_by(importer)
        if graph.find_shortest_chain(importer=imported, imported=importer)
    )
    assert circles == []


def test_no_two_modules_of_one_package_share_a_name():
    # Within a folder a module and a subpackage of one name shadow each other, and names that
    # differ only in case clash on macOS and Windows. Across packages a name may repeat: the
    # package says which one is meant.
    shared = []
    for top in ("arena", "fitting"):
        for folder in [ROOT / top, *(p.parent for p in (ROOT / top).rglob("*/__init__.py"))]:
            names: dict[str, list[str]] = {}
            for child in folder.iterdir():
                if child.suffix == ".py" or (child / "__init__.py").is_file():
                    names.setdefault(child.stem.lower(), []).append(child.name)
            shared += [sorted(n) for n in names.values() if len(n) > 1]
    assert shared == []


def test_the_size_report_lists_the_largest_modules():
    # Sizes are reported (CI prints them), not capped: a module is split by domain noun.
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "module_sizes.py"), "--top", "3"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    sizes = [int(line.split()[0].replace(",", "")) for line in out[:3]]
    assert len(out) == 4 and sizes == sorted(sizes, reverse=True)
    assert out[-1].endswith("modules")


def test_only_the_ledger_touches_the_database():
    # The import contract keeps sqlite3 inside arena.ledger; this keeps its handle there too.
    found = []
    for path in _modules("arena"):
        if (ROOT / "arena" / "ledger") in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in {
                "db",
                "execute",
                "executemany",
                "executescript",
            }:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}")
    assert found == []
