"""prose-en: five systems answer 40 English prompts; some answers are planted to fail a
gate, to tie or to leak a system's identity (``data/prose-en/planted.toml``)."""

from __future__ import annotations

from .common import (
    case_rng,
    cut_mid_sentence,
    load,
    load_family,
    make_record,
    planted,
    read_case,
)
from .prose_styles import EMBER, STYLES, basalt_faq

FAMILY = "prose-en"


def load_cases() -> list[dict]:
    """Every case, in the order of family.toml's ``cases`` files."""
    cases = []
    for name in load(FAMILY, "family.toml")["cases"]:
        data = load(FAMILY, name)
        prefix = data.get("prompt_prefix")
        for raw in data["case"]:
            case = read_case(raw, category=data["category"])
            if prefix is not None:
                case["prompt"] = prefix + case.pop("passage")
            cases.append(case)
    return cases


def _plant(text, plant, case, rng, composed):
    """Apply one planted change (see planted.toml); returns (text, finish_reason)."""
    finish = "stop"
    if "output" in plant:
        text = plant["output"]
    if "same_as" in plant:
        text = composed[(plant["same_as"], 0)]
    if plant.get("crlf"):
        text = text.replace("\n", "\r\n") + "  \r\n"
    if plant.get("pad_faq"):
        text += basalt_faq(case, rng)
    for index in plant.get("extend_drifts", ()):
        text += "\n\n" + EMBER["drifts"][index]
    if "truncate" in plant:
        text = cut_mid_sentence(text, plant["truncate"])
        finish = "length"
    text = plant.get("prefix", "") + text + plant.get("append", "")
    return text, finish


def build() -> list[dict]:
    family, systems = load_family(FAMILY)
    plants = planted(FAMILY)
    records = []
    for case in load_cases():
        composed: dict[tuple[str, int], str] = {}
        for label, system in systems.items():
            for sample in range(system["samples"]):
                rng = case_rng(FAMILY, case["id"], label, sample)
                plain, write = STYLES[label]
                text = (write if case["category"] == "write" else plain)(case, rng, sample)
                text, finish = _plant(
                    text, plants.get((case["id"], label, sample), {}), case, rng, composed
                )
                composed[(label, sample)] = text
                records.append(
                    make_record(
                        family,
                        case,
                        system,
                        sample,
                        text,
                        language="en",
                        finish_reason=finish,
                        rng=rng,
                    )
                )
            if system["samples"] > 1:
                assert composed[(label, 0)] != composed[(label, 1)], (case["id"], label)
    return records
