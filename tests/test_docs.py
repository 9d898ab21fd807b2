"""The docs checked against Arena, as sqlite-utils checks its own: every ``arena …`` command
line in docs/, README.md and benchmarks/README.md parses with the real argument parser,
every command has a synopsis in docs/cli.md, every ``--json`` field list of the docs is what
the command prints on the demo ledger, and every link between the docs resolves, anchor
included."""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
from collections.abc import Iterator
from typing import Any

import pytest

from arena import __version__
from arena.cli.main import build_parser
from tests.conftest import REPO
from tests.docs_checks import (
    JsonSpec,
    command_lines,
    documented_keys,
    heading_anchors,
    json_specs,
    links,
)
from tests.docs_ledger import printed_json

DOCS = sorted((REPO / "docs").glob("*.md")) + [REPO / "README.md", REPO / "benchmarks/README.md"]
PARSER = build_parser()


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {**PARSER._option_string_actions, **parser._option_string_actions}


def structure_problems(line: str) -> list[str]:
    """What in ``line`` the parser does not know: a command, an option, or a choice listed
    as ``--opt a|b``. Placeholders (upper case, ``…``) and option values pass."""
    words = line.replace("[", " ").replace("]", " ").split()[1:]
    parser, path, problems = PARSER, "arena", []
    choosing = True  # until a command with no subcommands, or a placeholder, is reached
    i = 0
    while i < len(words):
        word = words[i]
        if re.fullmatch(r"--?[A-Za-z][\w-]*(=.*)?", word):
            name = word.split("=")[0]
            action = _options(parser).get(name)
            if action is None:
                problems.append(f"{path}: unknown option {name}")
            elif action.nargs != 0 and "=" not in word and i + 1 < len(words):
                value = words[i + 1]
                if not value.startswith("-"):
                    i += 1
                    alternatives = value.rstrip(".").split("|")
                    if action.choices is not None and len(alternatives) > 1:
                        problems += [
                            f"{path} {name}: {a!r} is not one of its choices"
                            for a in alternatives
                            if a not in action.choices
                        ]
        elif choosing and re.fullmatch(r"[a-z][a-z-]*", word) and _subcommands(parser):
            found = _subcommands(parser).get(word)
            if found is None:
                problems.append(f"{path}: unknown command {word!r}")
                break
            parser, path = found, f"{path} {word}"
        else:
            choosing = False
        i += 1
    return problems


def without_optional_parts(line: str) -> list[str]:
    """The words of a synopsis once its optional (bracketed) parts are dropped."""
    previous = None
    while previous != line:
        previous, line = line, re.sub(r"\[[^\[\]]*\](\.\.\.)?", " ", line)
    try:
        return shlex.split(line)
    except ValueError:
        return line.split()


def _filled(words: list[str]) -> list[str]:
    """``words`` with a placeholder value (``GATE``, ``N``) of an option that takes choices
    or numbers replaced by one it takes."""
    filled = list(words)
    for i, (word, value) in enumerate(zip(words, words[1:], strict=False)):
        action = PARSER._option_string_actions.get(word)
        for parser in _subcommand_chain(words):
            action = parser._option_string_actions.get(word, action)
        if action is not None and re.fullmatch(r"[A-Z][A-Z_]*|λ", value):
            if action.choices is not None:
                filled[i + 1] = str(next(iter(action.choices)))
            elif action.type in (int, float):
                filled[i + 1] = "1"
    return filled


def _subcommand_chain(words: list[str]) -> list[argparse.ArgumentParser]:
    chain, parser = [], PARSER
    for word in words:
        found = _subcommands(parser).get(word)
        if found is None:
            break
        chain.append(found)
        parser = found
    return chain


def parse_problem(line: str) -> str | None:
    """Why the real parser refuses the required part of ``line``, if it does."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            PARSER.parse_args(_filled(without_optional_parts(line)[1:]))
    except SystemExit:
        return err.getvalue().strip().splitlines()[-1]
    return None


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_command_line_parses(doc):
    problems = []
    for number, line, whole in command_lines(doc.read_text("utf-8")):
        found = structure_problems(line)
        if whole and not found and "COMMAND" not in line:
            refused = parse_problem(line)
            found = [refused] if refused else []
        problems += [f"{doc.name}:{number}: {line}\n    {p}" for p in found]
    assert not problems, "\n".join(problems)


def test_a_planted_unknown_flag_or_command_is_caught():
    assert structure_problems("arena round close --family F --frobnicate") == [
        "arena round close: unknown option --frobnicate"
    ]
    assert structure_problems("arena round reopen --family F") == [
        "arena round: unknown command 'reopen'"
    ]
    assert structure_problems("arena export --format bundle|zip") == [
        "arena export --format: 'zip' is not one of its choices"
    ]
    assert "required" in parse_problem("arena round close [--json]")


def _leaf_commands(parser: argparse.ArgumentParser, path: str) -> Iterator[str]:
    subcommands = _subcommands(parser)
    if not subcommands:
        yield path
    for name, sub in subcommands.items():
        yield from _leaf_commands(sub, f"{path} {name}")


@pytest.mark.parametrize("command", list(_leaf_commands(PARSER, "arena")))
def test_every_command_has_a_synopsis_in_cli_md(command):
    synopses = [line for _, line, whole in command_lines(_read("docs/cli.md")) if whole]
    assert any(re.match(rf"{re.escape(command)}( |$)", s) for s in synopses)


def _read(name: str) -> str:
    return (REPO / name).read_text("utf-8")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_link_resolves(doc):
    problems = []
    for number, target in links(doc.read_text("utf-8")):
        if re.match(r"[a-z]+:", target):
            continue  # a web address: not fetched here
        name, _, anchor = target.partition("#")
        path = (doc.parent / name).resolve() if name else doc
        if not path.exists():
            problems.append(f"{doc.name}:{number}: {target}: no such file")
        elif anchor and (path.suffix != ".md" or anchor not in heading_anchors(path.read_text())):
            problems.append(f"{doc.name}:{number}: {target}: no such heading")
    assert not problems, "\n".join(problems)


# -- the --json field lists --------------------------------------------------------------------


@pytest.fixture(scope="module")
def printed(tmp_path_factory) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("docs")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(folder / "home"))  # the signing key goes there
        patch.setenv("XDG_DATA_HOME", str(folder / "home" / "data"))
        yield printed_json(folder)


def _each(value: Any) -> list[dict[str, Any]]:
    return value if isinstance(value, list) else [value]


# Where each --json field list of the docs is printed: (doc, heading, n-th list under it) ->
# (the outputs above, the path to the objects it describes, the lists it adds to). Every list
# found in the docs must be here, so a new one cannot go unchecked.
Where = tuple[str, str, int]
SYSTEMS: Where = ("cli.md", "arena round", 1)
WHERE: dict[Where, tuple[tuple[str, ...], tuple[str, ...], tuple[Where, ...]]] = {
    ("cli.md", "arena import", 0): (("import",), (), ()),
    ("cli.md", "arena import", 1): (("import graded",), (), ()),
    ("cli.md", "arena family", 0): (("family show",), (), ()),
    ("cli.md", "arena family", 1): (("family list",), (), ()),
    ("cli.md", "arena status", 0): (("status",), (), ()),
    ("cli.md", "arena status", 1): (("status",), ("families",), ()),
    ("cli.md", "arena check", 0): (("check",), (), ()),
    ("cli.md", "arena gate", 0): (("gate",), (), ()),
    ("cli.md", "arena gate", 1): (("gate",), ("families",), ()),
    ("cli.md", "arena gate", 2): (("gate list",), (), ()),
    ("cli.md", "arena case", 0): (("case retire",), (), ()),
    ("cli.md", "arena case", 1): (("case import",), (), ()),
    ("cli.md", "arena event", 0): (("event list",), (), ()),
    ("cli.md", "arena flags", 0): (("flags",), (), ()),
    ("cli.md", "arena flags", 1): (("flags",), ("flags",), ()),
    ("cli.md", "arena round", 0): (
        ("round show", "round show category", "round show raters"),
        (),
        (),
    ),
    SYSTEMS: (("round show", "round show category"), ("systems",), ()),
    ("cli.md", "arena round", 2): (("round show tests",), ("systems",), (SYSTEMS,)),
    ("cli.md", "arena round", 3): (("round show graded",), ("systems",), (SYSTEMS,)),
    ("cli.md", "arena round", 4): (
        ("round show", "round show tests", "round show raters"),
        ("summary",),
        (),
    ),
    ("cli.md", "Round settings", 0): (
        ("round show", "round show tests", "round show raters"),
        ("settings",),
        (),
    ),
    ("cli.md", "arena import-votes", 0): (("import-votes",), (), ()),
    ("cli.md", "arena import-votes", 1): (("import-votes bundle",), (), ()),
    ("cli.md", "arena verify", 0): (("verify",), (), ()),
    ("cli.md", "arena key", 0): (("key",), (), ()),
    ("cli.md", "arena fit", 0): (("fit",), (), ()),
    ("cli.md", "arena collect", 0): (("collect",), (), ()),
    ("cli.md", "arena collect", 1): (("collect family",), (), ()),
    ("cli.md", "arena judges run", 0): (("judges run",), (), ()),
    ("cli.md", "arena systems", 0): (("systems list",), (), ()),
    ("cli.md", "arena grade", 0): (("grade",), (), ()),
    ("cli.md", "arena tasks", 0): (("tasks import",), (), ()),
    ("cli.md", "arena tests", 0): (("tests run",), (), ()),
    ("fitting.md", "`arena fit` input formats", 0): (("fit",), (), ()),
}
# Keys a list names that only some objects carry (tests families, a category view, graded
# runs); the rest must be in every object the list describes.
SOMETIMES = {
    "untested_outputs", "unanswered_tasks", "mixed_agents", "category", "category_votes",
    "category_both_bad_share", "uncertainty", "pass_rate", "failed_tests_share",
    "agents", "raters", "between_raters",
}  # fmt: skip


def _specs() -> dict[tuple[str, str, int], JsonSpec]:
    return {
        (doc.name, spec.heading, spec.ordinal): spec
        for doc in DOCS
        for spec in json_specs(doc.read_text("utf-8"))
    }


def test_every_json_field_list_is_checked():
    assert set(_specs()) == set(WHERE)


@pytest.mark.parametrize("where", list(WHERE), ids=lambda w: f"{w[0]}:{w[1]}:{w[2]}")
def test_a_json_field_list_is_what_the_command_prints(printed, where):
    specs = _specs()
    outputs, path, adds_to = WHERE[where]
    objects = []
    for name in outputs:
        found = _each(printed[name])
        for key in path:
            found = [item for value in found for item in _each(value[key])]
        objects += found
    assert objects, f"nothing printed to check {where} against"
    documented = documented_keys(specs[where])
    allowed, required = set(documented.top), set(documented.top)
    for other in adds_to:
        allowed |= documented_keys(specs[other]).top
        required |= documented_keys(specs[other]).top - SOMETIMES
    seen = set().union(*(o.keys() for o in objects))
    assert seen <= allowed, f"printed but not documented: {seen - allowed}"
    assert required <= seen, f"documented but not printed: {required - seen}"
    for o in objects:
        assert required - SOMETIMES <= o.keys(), f"missing in one object: {o}"
    for key, keys in documented.nested.items():
        items = [item for o in objects if o.get(key) for item in _each(o[key])]
        assert items, f"nothing printed under {key!r} to check {keys} against"
        assert set().union(*(i.keys() for i in items)) == keys, key


def test_the_bundle_manifest_names_the_version_arena_prints(printed):
    assert printed["manifest"]["software"] == __version__
    assert printed["round show"]["settings"]["software"] == __version__


def test_family_list_rows_have_the_keys_of_show_before_reference_label(printed):
    shown = list(printed["family show"])
    rows = printed["family list"]["families"]
    assert rows and all(list(row) == shown[: shown.index("reference_label")] for row in rows)
