"""What an import would do, worked out before it is done: the window's import dialog.

``preview_file`` reads a file as an import would (without the ledger): how many records,
systems and cases, the settings a native file carries, how many outputs come with a test
result, and the language its prompts are written in; ``plan`` says in one line what
importing it into a family would do ("80 records … into new family jmt (votes, ja, …)").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.gates.case_language import detect_case_language
from arena.intake.family_settings import FamilySettings
from arena.intake.readers import DEFAULT_KINDS, READERS, ReadOptions, guess_format
from arena.intake.readers.sniff import sniff_format
from arena.records import Family
from arena.texts import counted

# Records read to preview a file: enough to count a large benchmark, quick on a laptop.
PREVIEW_RECORDS = 50_000
# Prompts read to suggest a language (spread over the file's first cases).
LANGUAGE_PROMPTS = 60
TESTED = ("tests", "tests_then_votes")


@dataclass(frozen=True)
class FilePreview:
    path: Path
    fmt: str
    records: int
    # False when reading stopped at PREVIEW_RECORDS.
    complete: bool
    systems: tuple[str, ...]
    cases: int
    # Records that come with a test result (or a report's trial result).
    results: int
    # The settings a native file carries (its first record's ``family``), name included.
    family: dict[str, Any] = field(default_factory=dict)
    # The language most prompts are written in, and why; None when they do not say.
    language: str | None = None
    language_evidence: str = ""


def proposed_format(path: Path) -> str:
    """The format a file's content shows, else the one its name suggests."""
    found = sniff_format(path)
    return found if found in READERS else guess_format(path)


def suggest_language(prompts: Iterable[str]) -> tuple[str, str] | None:
    """The language most of ``prompts`` are confidently written in, read as import reads a
    case's prompt (``detect_case_language``), with the count that says so; None when fewer
    than half of them name one language."""
    found: Counter[str] = Counter()
    read = 0
    for prompt in prompts:
        read += 1
        detected = detect_case_language(prompt, "und")
        if detected is not None:
            found[detected[0]] += 1
    if not found:
        return None
    language, count = found.most_common(1)[0]
    if 2 * count <= read:
        return None
    return language, f"{count} of {read} prompts read as {language}"


def preview_file(
    path: Path, fmt: str, options: ReadOptions | None = None, *, limit: int = PREVIEW_RECORDS
) -> FilePreview:
    """Read ``path`` as ``fmt`` (up to ``limit`` records); a bad record raises ``BadInput``
    as the import would, before anything is stored."""
    records = results = 0
    systems: dict[str, None] = {}
    prompts: dict[str, str] = {}
    family: dict[str, Any] = {}
    complete = True
    for parsed in READERS[fmt](path, options or ReadOptions()):
        if records >= limit:
            complete = False
            break
        records += 1
        if records == 1:
            family = dict(parsed.family)
        systems.setdefault(parsed.label)
        prompts.setdefault(parsed.case_id, parsed.prompt)
        results += parsed.test_result is not None or parsed.trial_result is not None
    step = max(1, len(prompts) // LANGUAGE_PROMPTS)
    sample = list(prompts.values())[::step][:LANGUAGE_PROMPTS]
    suggested = suggest_language(sample)
    return FilePreview(
        path=path,
        fmt=fmt,
        records=records,
        complete=complete,
        systems=tuple(systems),
        cases=len(prompts),
        results=results,
        family=family,
        language=suggested[0] if suggested else None,
        language_evidence=suggested[1] if suggested else "",
    )


def new_family(preview: FilePreview, name: str, settings: FamilySettings) -> Family:
    """The family an import of ``preview`` with ``settings`` would create as ``name``."""
    given = {
        **{k: v for k, v in preview.family.items() if k not in ("name", "reference")},
        **{k: v for k, v in settings.given().items() if k != "reference"},
    }
    given.setdefault("kind", DEFAULT_KINDS.get(preview.fmt, "votes"))
    return Family(name=name, **given)


def _settings(family: Family) -> str:
    return f"{family.kind}, {family.language}, {family.min_chars}–{family.max_chars} characters" + (
        f", aspect {family.aspect}" if family.aspect else ""
    )


def plan(preview: FilePreview, family: Family, *, new: bool) -> str:
    """What importing ``preview`` into ``family`` (``new``: created by the import) does."""
    count = f"{preview.records:,}" + ("" if preview.complete else "+")
    records = counted(preview.records, "record", shown=count)
    cases = counted(preview.cases, "case", shown=f"{preview.cases:,}")
    text = (
        f"{records} ({counted(len(preview.systems), 'system')}, {cases}, {preview.fmt}) into "
        f"{'new family' if new else 'family'} {family.name} "
        f"({_settings(family)}). Every new output is screened by the gates."
    )
    if family.kind in TESTED and not preview.results:
        text += (
            " None of them has a test result: until `arena tests run` records their trials "
            "every one counts as failed (docs/tests.md)."
        )
    return text
