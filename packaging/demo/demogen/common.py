"""What the families share: the data files, seeded random streams, Markdown
helpers and the native record each output becomes."""

from __future__ import annotations

import json
import random
import tomllib
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "data"
SEED = 20250301


# --- the data files -------------------------------------------------------------


def load(family: str, name: str) -> dict[str, Any]:
    """One TOML file of ``data/<family>/``."""
    with open(DATA / family / name, "rb") as handle:
        return tomllib.load(handle)


def load_family(family: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """``data/<family>/family.toml``: the family object and the systems by label, in the
    order they answer."""
    data = load(family, "family.toml")
    defaults = data["defaults"]
    systems = {}
    for label, spec in data["systems"].items():
        systems[label] = {
            "descriptor": {
                "label": label,
                "model": f"demo/{label}",
                "revision": defaults["revision"],
                "harness": defaults["harness"],
                "system_prompt": defaults["system_prompt"],
                "inference": {
                    "temperature": spec["temperature"],
                    "top_p": defaults["top_p"],
                    "max_tokens": spec["max_tokens"],
                },
            },
            "price_in": spec["price_in"],
            "price_out": spec["price_out"],
            "ttft_ms": spec["ttft_ms"],
            "ms_per_token": spec["ms_per_token"],
            "samples": spec.get("samples", 1),
        }
        if "turn_budget" in spec:  # an agent's turns per task (tests families)
            systems[label]["descriptor"]["turn_budget"] = spec["turn_budget"]
    return data["family"], systems


def read_case(raw: dict[str, Any], **defaults: Any) -> dict[str, Any]:
    """A case as the answer styles use it: points as (head, text) pairs, the table as
    (header, rows), the code as (lang, text) plus ``code_intro``, and ``paras`` as lists
    of sentences (the data file has one sentence a line, paragraphs apart)."""
    case = {**defaults, **raw}
    if "points" in case:
        case["points"] = [(p["head"], p["text"]) for p in case["points"]]
    if "table" in case:
        table = case["table"]
        case["table"] = (tuple(table["header"]), [tuple(row) for row in table["rows"]])
    if "code" in case:
        code = case.pop("code")
        case["code"] = (code["lang"], code["text"])
        if "intro" in code:
            case["code_intro"] = code["intro"]
    if "paras" in case:
        case["paras"] = [para.split("\n") for para in case["paras"].split("\n\n")]
    return case


def planted(family: str) -> dict[tuple[str, str, int], dict[str, Any]]:
    """``data/<family>/planted.toml`` by (case, system, sample)."""
    found = {}
    for entry in load(family, "planted.toml")["planted"]:
        entry = dict(entry)
        found[(entry.pop("case"), entry.pop("system"), entry.pop("sample", 0))] = entry
    return found


# --- text helpers ---------------------------------------------------------------


def case_rng(family: str, case_id: str, label: str, sample: int = 0) -> random.Random:
    """A private, reproducible random stream for one output."""
    return random.Random(f"{SEED}:{family}:{case_id}:{label}:{sample}")


def md_table(header, rows) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def fence(lang: str, code: str) -> str:
    return f"```{lang}\n{code.rstrip()}\n```"


def lower_first(text: str) -> str:
    if len(text) > 1 and text[0].isupper() and (text[1].islower() or text[1] == " "):
        return text[0].lower() + text[1:]
    return text


def cut_mid_sentence(text: str, pos: int) -> str:
    """Cut ``text`` at the first word boundary at or after ``pos`` that lies outside
    fenced code and directly follows a letter, so the cut is visibly mid-sentence
    (as when an output hits its token limit)."""
    while pos < len(text):
        outside_code = text[:pos].count("```") % 2 == 0
        if outside_code and text[pos] == " " and text[pos - 1].isalpha():
            return text[:pos]
        pos += 1
    raise ValueError("no place to cut")


# --- the native record ----------------------------------------------------------


def count_tokens(text: str, language: str) -> int:
    if not text.strip():
        return 0
    if language.startswith("zh"):
        cjk = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
        return max(1, int(cjk * 0.9 + (len(text) - cjk) / 4))
    return max(1, round(len(text) / 4.3))


def usage(rng, system, prompt, output, language, finish_reason="stop"):
    """Plausible token counts, latency and list-price cost for one output."""
    sys_prompt = system["descriptor"].get("system_prompt") or ""
    prompt_tokens = count_tokens(sys_prompt + "\n" + prompt, language) + 7
    completion = count_tokens(output, language)
    if output.strip():
        completion = max(1, completion + rng.randint(-3, 3))
    if finish_reason == "length":
        completion = system["descriptor"]["inference"]["max_tokens"]
    latency = system["ttft_ms"] * rng.uniform(0.8, 1.3) + completion * system[
        "ms_per_token"
    ] * rng.uniform(0.9, 1.15)
    cost = (prompt_tokens * system["price_in"] + completion * system["price_out"]) / 1e6
    return {
        "latency_ms": round(latency, 1),
        "cost": round(cost, 7),
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion,
    }


def make_record(
    family_obj,
    case,
    system,
    sample,
    output,
    *,
    language,
    is_diff=False,
    finish_reason="stop",
    test_result=None,
    rng=None,
):
    rng = rng or random.Random(0)
    rec = {
        "family": family_obj,
        "case": {"id": case["id"], "category": case["category"], "prompt": case["prompt"]},
        "system": system["descriptor"],
        "sample": sample,
        "output": output,
        "is_diff": is_diff,
        "finish_reason": finish_reason,
    }
    rec.update(usage(rng, system, case["prompt"], output, language, finish_reason))
    rec["test_result"] = test_result
    return rec


def write_jsonl(path: Path, records) -> Path:
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        for rec in records:
            handle.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path
