"""The Script gate: Traditional-only characters in a Simplified-Chinese answer."""

from __future__ import annotations

from functools import cache

from arena.gates.langid import KANA, is_simplified_chinese
from arena.paths import resource_path
from arena.records import Case, Family, GateResult, Output

GATE = "script"
TABLE = ("script", "traditional_only.txt")
SHOWN = 8  # characters named in a reason


@cache
def traditional_only() -> frozenset[str]:
    """The shipped table (made by ``resources/script/make_table.py`` from OpenCC)."""
    text = resource_path(*TABLE).read_text(encoding="utf-8")
    return frozenset(
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")
    )


# Results are frozen records: those with a fixed reason are made once, not per output.
_NONE_FOUND = GateResult(GATE, True, "Script: no Traditional-only characters outside the prompt")


@cache
def _not_checked(language: str) -> GateResult:
    return GateResult(GATE, True, f"Script: not checked for family language {language}")


def script(output: Output, case: Case, family: Family) -> GateResult:
    """Fail when a Simplified-Chinese answer has Traditional-only characters its prompt lacks.

    Lines with kana are Japanese, whose kanji share many Traditional forms,
    so they are not judged. Characters the prompt itself uses may be quoted.
    """
    if not is_simplified_chinese(family.language):
        return _not_checked(family.language)
    text = output.text
    suspects = (set(text) & traditional_only()) - set(case.prompt)
    if suspects and KANA.search(text):
        judged = "\n".join(line for line in text.splitlines() if not KANA.search(line))
        suspects &= set(judged)
        text = judged
    if not suspects:
        return _NONE_FOUND
    # Name them in order of appearance, so the reason points at the first drift.
    ordered = sorted(suspects, key=text.index)
    count = sum(text.count(char) for char in ordered)
    named = " ".join(ordered[:SHOWN]) + (" …" if len(ordered) > SHOWN else "")
    return GateResult(
        GATE,
        False,
        f"Script: {count} Traditional-only characters not in the prompt "
        f"({len(ordered)} distinct): {named}",
    )
