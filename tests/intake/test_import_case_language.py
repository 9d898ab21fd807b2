"""The language a case expects: given by the file, read from the prompt, or set by the rater."""

from __future__ import annotations

import csv

import pytest

from arena import family_state
from arena.errors import BadInput
from arena.intake.outputs import import_file
from arena.ledger import catalog
from arena.rating.corrections import set_case_language
from tests.conftest import native_line

ENGLISH = (
    "The answer walks through the question step by step, naming each part plainly "
    "so that a reader new to the subject can follow it without trouble."
)
FRENCH = (
    "La réponse reprend la question pas à pas, en nommant chaque partie simplement "
    "afin qu'un lecteur novice puisse la suivre sans aucune difficulté."
)
RUSSIAN = (
    "Ответ разбирает вопрос шаг за шагом и просто называет каждую часть, чтобы "
    "читатель, новый в этой теме, мог без труда следовать за ним."
)
RUSSIAN_PROMPT = (
    "Объясните простыми словами, почему небо голубое, и приведите два примера "
    "из повседневной жизни, которые помогают это понять."
)


def _import(ledger, tmp_path, lines, name="f.jsonl", fmt="native"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return import_file(ledger, path, family="f", fmt=fmt)


def _language_verdicts(ledger):
    state = family_state.load(ledger, "f")
    labels = {s.system_id: s.label for s in catalog.systems(ledger, "f")}
    return {
        (o.case_id, labels[o.system_id]): next(
            r.passed for r in state.gate_results[o.output_id] if r.gate == "language"
        )
        for o in state.in_force
    }


def test_a_case_that_names_its_language_is_judged_by_it_alone(ledger, tmp_path):
    prompt = "Translate the paragraph into French."
    _import(
        ledger,
        tmp_path,
        [
            native_line(
                "t", "alpha", FRENCH, prompt=prompt, family={"name": "f", "language": "en"}
            ),
            native_line("v", "alpha", FRENCH, prompt=prompt, language="fr"),
            native_line("v", "beta", ENGLISH, prompt=prompt, language="fr"),
        ],
    )
    assert catalog.get_case(ledger, "f", "v").language == "fr"
    assert _language_verdicts(ledger) == {
        ("t", "alpha"): False,
        ("v", "alpha"): True,
        ("v", "beta"): False,
    }


def test_a_case_imported_again_with_another_language_is_refused(ledger, tmp_path):
    _import(ledger, tmp_path, [native_line("v", "alpha", "x", language="fr")])
    with pytest.raises(BadInput, match="different language") as error:
        _import(
            ledger, tmp_path, [native_line("v", "beta", "x", language="de")], name="again.jsonl"
        )
    assert error.value.line == 1 and error.value.field == "case.language"


def test_csv_takes_a_language_column_and_refuses_a_bad_tag(ledger, tmp_path):
    good = tmp_path / "good.csv"
    with open(good, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(
            [
                ["case_id", "prompt", "system", "output", "language"],
                ["t", "Translate into French.", "alpha", FRENCH, "fr"],
                ["t", "Translate into French.", "beta", ENGLISH, "fr"],
            ]
        )
    import_file(ledger, good, family="f", fmt="csv")
    assert _language_verdicts(ledger) == {("t", "alpha"): True, ("t", "beta"): False}
    bad = tmp_path / "bad.csv"
    bad.write_text("case_id,prompt,system,output,language\nu,P,alpha,x,french!\n", encoding="utf-8")
    with pytest.raises(BadInput, match="language tag") as error:
        import_file(ledger, bad, family="f", fmt="csv")
    assert (error.value.line, error.value.field) == (2, "language")


def test_a_prompt_written_in_another_language_is_detected_with_its_evidence(ledger, tmp_path):
    _import(
        ledger,
        tmp_path,
        [
            native_line(
                "r", "alpha", RUSSIAN, prompt=RUSSIAN_PROMPT, family={"name": "f", "language": "en"}
            ),
            native_line("r", "beta", ENGLISH, prompt=RUSSIAN_PROMPT),
            native_line(
                "e",
                "alpha",
                RUSSIAN,
                prompt="Explain why the sky is blue, with two "
                "everyday examples that help a reader see it.",
            ),
        ],
    )
    case = catalog.get_case(ledger, "f", "r")
    assert (case.language, case.detected_language) == (None, "ru")
    assert "ru" in case.language_evidence and "letters" in case.language_evidence
    assert catalog.get_case(ledger, "f", "e").detected_language is None
    # Detected, not declared: the prompt's language and the family's both pass.
    assert _language_verdicts(ledger) == {
        ("r", "alpha"): True,
        ("r", "beta"): True,
        ("e", "alpha"): False,
    }


def test_a_language_the_rater_set_holds_for_outputs_imported_later(ledger, tmp_path):
    _import(
        ledger,
        tmp_path,
        [
            native_line(
                "t",
                "alpha",
                FRENCH,
                prompt="Translate the paragraph into French.",
                family={"name": "f", "language": "en"},
            )
        ],
    )
    set_case_language(ledger, "f", "t", "fr")
    _import(
        ledger,
        tmp_path,
        [
            native_line("t", "beta", ENGLISH, prompt="Translate the paragraph into French."),
            native_line(
                "t", "gamma", FRENCH + " Voilà.", prompt="Translate the paragraph into French."
            ),
        ],
        name="later.jsonl",
    )
    assert _language_verdicts(ledger) == {
        ("t", "alpha"): True,
        ("t", "beta"): False,
        ("t", "gamma"): True,
    }
