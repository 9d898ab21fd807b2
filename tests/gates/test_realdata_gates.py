"""The gates on real third-party outputs (../shared/realdata), when the folder is present.

The files are read where they lie, never copied. What is checked is what a careful reader
found by hand: no output in the language its prompt asks for fails the Language gate once
case languages are read from the prompts, and each failure left in an English family is an
English prompt that asks for another language, one `case set-language` away from passing.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from arena import family_state
from arena.gates.evidence import language_pieces
from arena.gates.language_gate import expected_codes
from arena.intake.outputs import FamilySettings, import_file
from arena.ledger import Ledger
from arena.rating.corrections import set_case_language
from tests.conftest import REALDATA

REAL = REALDATA
pytestmark = pytest.mark.skipif(not REAL.is_dir(), reason="no ../shared/realdata in this clone")

SWE_RUNS = {
    "autocoderover-acr-run-1": "predictions_for_swebench.json",
    "autocoderover-acr-val-sbfl": "predictions_for_swebench.json",
    "sweagent-gpt4-cost_2_1": "all_preds.jsonl",
}


def _swe_native(out: Path) -> Path:
    """SWE-bench Lite patches and their outcomes as a tests_then_votes native file."""
    root = REAL / "swebench-diffs"
    resolved = {
        (o["system"], o["instance_id"]): o["resolved"]
        for o in map(json.loads, (root / "outcomes.jsonl").open(encoding="utf-8"))
    }
    lines = []
    for run, name in SWE_RUNS.items():
        text = (root / run / name).read_text(encoding="utf-8")
        records = (
            json.loads(text)
            if name.endswith(".json")
            else [json.loads(line) for line in text.split("\n") if line]
        )
        for r in records:
            lines.append(
                json.dumps(
                    {
                        "case": {"id": r["instance_id"], "prompt": f"Resolve {r['instance_id']}."},
                        "system": {"label": run, "model": r["model_name_or_path"], "harness": run},
                        "output": r["model_patch"] or "",
                        "is_diff": True,
                        "test_result": "passed" if resolved[(run, r["instance_id"])] else "failed",
                    }
                )
            )
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    folder = tmp_path_factory.mktemp("real")
    with Ledger.open(folder / "real.sqlite") as ledger:
        for name in ("gpt4", "claude", "llama-2-70b-chat-hf"):
            import_file(
                ledger,
                REAL / "alpacaeval" / name / "model_outputs.json",
                family="alpaca",
                fmt="alpacaeval",
            )
        for path in sorted((REAL / "fastchat-arena-hard" / "model_answer").glob("*.jsonl")):
            import_file(ledger, path, family="arenahard", fmt="fastchat")
        for name in ("gpt-4", "ELYZA-japanese-Llama-2-7b-fast-instruct"):
            import_file(
                ledger,
                REAL / "fastchat-japanese-mt-bench" / "model_answer" / f"{name}.jsonl",
                family="jmt",
                fmt="fastchat",
                settings=FamilySettings(language="ja"),
            )
        import_file(
            ledger,
            _swe_native(folder / "swe.jsonl"),
            family="swe",
            fmt="native",
            settings=FamilySettings(kind="tests_then_votes"),
        )
        yield ledger


def _language_failures(ledger, family):
    state = family_state.load(ledger, family)
    return [
        o
        for o in state.in_force
        if state.fails_gate(o.output_id)
        and any(r.gate == "language" and not r.passed for r in state.gate_results[o.output_id])
    ]


def test_japanese_answers_and_patch_comments_pass_the_language_gate(real):
    assert _language_failures(real, "jmt") == []
    assert _language_failures(real, "swe") == []


def test_a_prompt_written_in_russian_expects_russian(real):
    state = family_state.load(real, "arenahard")
    detected = {c.case_id: c.detected_language for c in state.cases.values() if c.detected_language}
    assert "ru" in detected.values()


@pytest.mark.parametrize("family", ["alpaca", "arenahard"])
def test_each_failure_left_is_one_case_language_away_from_passing(real, family):
    failing = _language_failures(real, family)
    state = family_state.load(real, family)
    # Few, and grouped on few cases: prompts that ask for another language.
    assert 0 < len(failing) <= 12 and len({o.case_id for o in failing}) <= 6
    asked: dict[str, Counter[str]] = {}
    for output in failing:
        read: Counter[str] = Counter()
        for piece in language_pieces(output, state.cases[output.case_id], state.family):
            if piece.language and piece.language != "en":
                read[piece.language] += piece.weight
        asked.setdefault(output.case_id, Counter()).update(read)
    for case_id, read in asked.items():
        set_case_language(
            real, family, case_id, read.most_common(1)[0][0], reason="the prompt asks for it"
        )
    still = {o.output_id for o in _language_failures(real, family)}
    assert not still & {o.output_id for o in failing}


@pytest.mark.parametrize(("family", "asked"), [("alpaca", {"fr"}), ("arenahard", {"nl", "vi"})])
def test_no_pair_is_settled_by_the_language_gate_where_most_answers_share_another_language(
    real, family, asked
):
    state = family_state.load(real, family)
    # Read here from the evidence, apart from the rule: each answer's main language.
    main: dict[str, list[str]] = {}
    for output in state.in_force:
        read: Counter[str] = Counter()
        for piece in language_pieces(output, state.cases[output.case_id], state.family):
            read[piece.language] += piece.weight
        language, weight = read.most_common(1)[0] if read else ("", 0)
        if language and 2 * weight > read.total():
            main.setdefault(output.case_id, []).append(language)
    shared = {
        case_id: language
        for case_id, languages in main.items()
        for language, n in Counter(languages).most_common(1)
        if language not in expected_codes(state.cases[case_id], state.family)
        and n >= 2
        and 2 * n >= len(languages)
    }
    assert set(shared.values()) == asked  # the prompts that ask for French, Dutch, Vietnamese
    language_failing = {
        o.output_id
        for o in state.in_force
        if any(r.gate == "language" and not r.passed for r in state.gate_results[o.output_id])
    }
    settled_by_language = [
        c
        for c in state.settled
        if c.rule in ("gate_loses", "both_gated")
        and {c.output_a, c.output_b} & language_failing & state.failing
    ]
    assert settled_by_language  # the other Language failures still settle
    assert not [c for c in settled_by_language if c.case_id in shared]
    assert set(state.in_doubt) == set(shared)
