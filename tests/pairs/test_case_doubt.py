"""A case's language is in doubt when most of its answers agree on another language."""

from __future__ import annotations

from arena.pairs.case_doubt import (
    DOUBT_MIN_SYSTEMS,
    Doubt,
    cases_in_doubt,
    language_read,
    may_doubt,
    set_aside,
)
from arena.records import CaseId, GateResult, OutputId, OutputPlace, SystemId


def _verdict(passed: bool, reason: str) -> tuple[GateResult, ...]:
    return (GateResult("empty", True, "Empty: not blank"), GateResult("language", passed, reason))


ENGLISH = _verdict(True, "Language: 100% of prose and comments is en, family language is en")
UNDETERMINED = _verdict(
    True, "Language: undetermined: 12 letters of prose and comments, under the 30 needed to tell"
)
MIXED = _verdict(False, "Language: 84% of prose and comments is not en (de 46%, es 38%), x")


def _in(language: str, *, read: bool = False) -> tuple[GateResult, ...]:
    which = "read " if read else ""
    return _verdict(
        False, f"Language: 90% of prose and comments {which}is {language}, family language is en"
    )


def _case(*verdicts: tuple[GateResult, ...], case: str = "c", systems: list[str] | None = None):
    names = systems or [f"s{i}" for i in range(len(verdicts))]
    places = [
        OutputPlace(OutputId(f"{case}-{i}"), CaseId(case), SystemId(name), "")
        for i, name in enumerate(names)
    ]
    return places, {p.output_id: v for p, v in zip(places, verdicts, strict=True)}


def test_what_a_verdict_reads_an_output_as():
    assert language_read(_in("nl")) == "nl"
    assert language_read(_in("pt", read=True)) == "pt"
    assert language_read(ENGLISH) == ""
    assert language_read(MIXED) == ""
    assert language_read(UNDETERMINED) is None
    assert language_read(()) is None


def test_half_of_the_answers_with_a_verdict_in_one_other_language_put_the_case_in_doubt():
    places, results = _case(_in("nl"), _in("nl"), ENGLISH, ENGLISH, UNDETERMINED)
    assert cases_in_doubt(places, results) == {
        CaseId("c"): Doubt(CaseId("c"), "nl", outputs=2, of=4, systems=2)
    }
    assert "2 of 4 answers" in cases_in_doubt(places, results)[CaseId("c")].describe()


def test_fewer_than_half_or_a_mix_of_languages_is_no_doubt():
    assert cases_in_doubt(*_case(_in("nl"), _in("nl"), ENGLISH, ENGLISH, ENGLISH)) == {}
    assert cases_in_doubt(*_case(_in("nl"), _in("de"), ENGLISH)) == {}
    assert cases_in_doubt(*_case(MIXED, MIXED, ENGLISH)) == {}


def test_one_system_alone_cannot_put_a_case_in_doubt():
    assert DOUBT_MIN_SYSTEMS == 2
    assert cases_in_doubt(*_case(_in("de"), ENGLISH)) == {}
    # Two samples of one system are one system's say.
    places, results = _case(_in("de"), _in("de"), ENGLISH, systems=["a", "a", "b"])
    assert cases_in_doubt(places, results) == {}


def test_a_case_whose_language_the_rater_decided_is_not_in_doubt():
    places, results = _case(_in("nl"), _in("nl"), ENGLISH)
    assert CaseId("c") in cases_in_doubt(places, results)
    assert cases_in_doubt(places, results, decided={CaseId("c")}) == {}


def test_only_outputs_naming_another_language_may_start_a_doubt():
    _, results = _case(_in("nl"), ENGLISH, MIXED, UNDETERMINED)
    assert may_doubt(results) == {OutputId("c-0")}


def test_a_doubt_sets_aside_the_language_gate_only_on_its_case():
    doubted = {CaseId("c")}
    assert set_aside(CaseId("c"), frozenset({"length"}), doubted) == {"length", "language"}
    assert set_aside(CaseId("d"), frozenset({"length"}), doubted) == {"length"}


def test_the_language_gates_own_reasons_read_as_the_language_they_name():
    from arena.gates import language
    from arena.records import Case, Family, Output
    from tests.gates.conftest import _load

    read = []
    for lang, family, kind, text in _load("wrong_language_samples").WRONG:
        output = Output(
            OutputId("o"), "f", CaseId("c"), SystemId("s"), 0, text, is_diff=kind == "diff"
        )
        result = language(
            output, Case("f", CaseId("c"), "general", "A prompt."), Family("f", language=family)
        )
        if not result.passed:
            read.append((lang, language_read((result,))))
    assert len(read) >= 60
    assert all(found == lang for lang, found in read), read
