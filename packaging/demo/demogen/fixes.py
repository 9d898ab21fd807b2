"""fixes: three systems' patches to the pocketbook repository, whose hidden tests Arena
runs (``data/fixes/patches.toml``).

Unlike the other families, the code, the issues and the hidden tests are not data of
this generator but files that ship with Arena (``resources/demo/fixes/``: the repository
``pocketbook/``, the task file ``tasks.toml``, the hidden tests ``hidden/``); they are
written by hand. This module reads them and writes each system's patch as the diff its
edits make to that repository, the case prompts as the task file gives them.
"""

from __future__ import annotations

import hashlib
import tomllib

from .common import DATA, case_rng, load, load_family, make_record
from .gitdiff import apply_edits, make_diff

FAMILY = "fixes"
FIXES = DATA.parents[2] / "resources" / "demo" / "fixes"
REPOSITORY = FIXES / "pocketbook"


def repository_files() -> dict[str, str]:
    """Every file of the repository as it ships, by its path inside it."""
    return {
        path.relative_to(REPOSITORY).as_posix(): path.read_bytes().decode("utf-8")
        for path in sorted(REPOSITORY.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def load_tasks() -> list[dict]:
    with open(FIXES / "tasks.toml", "rb") as handle:
        return tomllib.load(handle)["task"]


def load_patches() -> dict[tuple[str, str], dict]:
    """``data/fixes/patches.toml`` by (task, system)."""
    return {(p["task"], p["system"]): p for p in load(FAMILY, "patches.toml")["patch"]}


def _diffstat(diff: str) -> list[str]:
    """The diffstat lines `git format-patch` puts under the message."""
    counts: dict[str, list[int]] = {}
    path = ""
    for line in diff.splitlines():
        if line.startswith("+++ b/"):
            path = line[6:]
            counts[path] = [0, 0]
        elif line.startswith("+") and not line.startswith("+++"):
            counts[path][0] += 1
        elif line.startswith("-") and not line.startswith("---"):
            counts[path][1] += 1
    width = max(len(p) for p in counts)
    lines = []
    for name, (added, removed) in counts.items():
        lines.append(f" {name:<{width}} | {added + removed} {'+' * added}{'-' * removed}")
    added, removed = (sum(c[i] for c in counts.values()) for i in (0, 1))
    files = f"{len(counts)} file{'s' if len(counts) > 1 else ''} changed"
    insertions = f"{added} insertion{'s' if added != 1 else ''}(+)"
    deletions = f"{removed} deletion{'s' if removed != 1 else ''}(-)"
    return [*lines, f" {files}, {insertions}, {deletions}"]


def format_patch(diff: str, mail: dict) -> str:
    """``diff`` as `git format-patch` writes a one-commit mail (without the signature
    lines it ends with)."""
    commit = hashlib.sha1(diff.encode("utf-8")).hexdigest()
    head = [
        f"From {commit} Mon Sep 17 00:00:00 2001",
        f"From: {mail['author']}",
        f"Date: {mail['date']}",
        f"Subject: [PATCH] {mail['subject']}",
        "",
        mail["body"],
        "---",
        *_diffstat(diff),
        "",
    ]
    return "\n".join(head) + "\n" + diff


def patch_text(files: dict[str, str], patch: dict, patches: dict[tuple[str, str], dict]) -> str:
    source = patch
    if "same_as" in patch:
        source = patches[(patch["task"], patch["same_as"])]
    seen, _ = apply_edits(files, source.get("against", []))
    if "mail" in patch:
        return format_patch(make_diff(seen, source["edit"], abbrev=40), patch["mail"])
    return make_diff(seen, source["edit"])


def build() -> list[dict]:
    family, systems = load_family(FAMILY)
    files = repository_files()
    patches = load_patches()
    records = []
    for task in load_tasks():
        case = {"id": task["id"], "category": task["category"], "prompt": task["prompt"]}
        for label, system in systems.items():
            patch = patches[(task["id"], label)]
            records.append(
                make_record(
                    family,
                    case,
                    system,
                    0,
                    patch_text(files, patch, patches),
                    language="en",
                    is_diff=True,
                    test_result=patch["result"],
                    rng=case_rng(FAMILY, task["id"], label),
                )
            )
    return records
