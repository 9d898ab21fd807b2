"""A votes family of cases with turns, and systems files pointing at a scripted server."""

from __future__ import annotations

import json
from pathlib import Path

from arena.collecting.systems_file import add_systems
from arena.intake.case_import import import_cases
from arena.intake.families import create_family
from arena.intake.family_settings import FamilySettings
from arena.ledger import Ledger

KEY = "sk-proj-Pl4nted/Key+for_collect-0123456789"


def cases_file(folder: Path, count: int, turns: int = 2) -> Path:
    path = folder / "cases.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"c{i:03}",
                    "category": "writing" if i % 2 else "reasoning",
                    "turns": [f"Question {i}, turn {t + 1}." for t in range(turns)],
                }
            )
            + "\n"
            for i in range(count)
        ),
        encoding="utf-8",
    )
    return path


def systems_file(folder: Path, url: str, *, labels=("brief", "thorough"), **extra) -> Path:
    """One [[system]] table a label; ``extra`` fields are added or replace the defaults."""
    lines = []
    for label in labels:
        fields = {
            "label": label,
            "base_url": f"{url}/v1",
            "model": "tiny-model",
            "system_prompt": f"Answer in a {label} way.",
            "temperature": 0.0,
            "max_tokens": 64,
            "api_key_env": "ARENA_COLLECT_TEST_KEY",
            **extra,
        }
        lines += ["[[system]]", *(f"{k} = {json.dumps(v)}" for k, v in fields.items()), ""]
    path = folder / "systems.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def make_family(
    ledger_path: Path,
    folder: Path,
    url: str,
    *,
    cases: int,
    turns: int = 2,
    kind: str = "votes",
    **extra,
) -> None:
    with Ledger.open(ledger_path) as ledger:
        with ledger.atomic():
            create_family(ledger, "fam", FamilySettings(kind=kind, language="en"))
        import_cases(ledger, cases_file(folder, cases, turns), family="fam", fmt="native")
        add_systems(ledger, systems_file(folder, url, **extra), "fam")
