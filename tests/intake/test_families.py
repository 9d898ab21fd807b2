"""Families made and changed by the rater: create, set (gates run again), rename, archive;
an import into an unknown family refused unless it may create it."""

from __future__ import annotations

import pytest

from arena import family_state
from arena.errors import BadInput
from arena.gates.screening import failures
from arena.intake.families import (
    archive_family,
    create_family,
    describe,
    listed,
    rename_family,
    set_family,
)
from arena.intake.family_settings import FamilySettings
from arena.intake.outputs import import_file
from arena.ledger import catalog
from tests.conftest import native_line
from tests.japanese_answers import ENGLISH_ANSWERS, write_japanese_bench


@pytest.fixture
def bench(tmp_path):
    return write_japanese_bench(tmp_path / "jmt-mini")


def _language_failures(ledger, name):
    found = failures(ledger, family_state.load(ledger, name), gate="language")
    return {(f.case_id, f.system) for f in found}


def test_create_makes_an_empty_family_an_import_then_fills(ledger, bench):
    family = create_family(ledger, "jmt", FamilySettings(language="ja", aspect="chat"))
    assert (family.kind, family.language, family.max_chars) == ("votes", "ja", 20_000)
    report = import_file(ledger, bench, family="jmt", fmt="fastchat", create=False)
    assert (report.family_created, report.outputs_added) == (False, 12)
    assert _language_failures(ledger, "jmt") == ENGLISH_ANSWERS


@pytest.mark.parametrize(
    ("name", "settings", "match"),
    [
        ("", FamilySettings(), "a family's name cannot be empty"),
        ("g", FamilySettings(kind="graded"), "graded families come from suites"),
        ("g", FamilySettings(language="Japanese!"), "not a BCP 47 language tag"),
        ("g", FamilySettings(min_chars=50, max_chars=10), "min_chars 50 is above max_chars 10"),
        ("g", FamilySettings(max_chars=0), "at least 1"),
    ],
)
def test_create_refuses_what_makes_no_sense(ledger, name, settings, match):
    with pytest.raises(BadInput, match=match):
        create_family(ledger, name, settings)
    assert catalog.families(ledger) == []


def test_create_refuses_an_existing_name(ledger):
    create_family(ledger, "f", FamilySettings())
    with pytest.raises(BadInput, match="already exists; change its settings"):
        create_family(ledger, "f", FamilySettings(language="ja"))


def test_an_import_into_an_unknown_family_is_refused_with_a_hint(ledger, bench):
    create_family(ledger, "jmt-bench", FamilySettings(language="ja"))
    with pytest.raises(BadInput) as refused:
        import_file(ledger, bench, family="jmt-bnech", fmt="fastchat", create=False)
    message = str(refused.value)
    assert message.startswith("--family: no family named 'jmt-bnech' (did you mean 'jmt-bench'?)")
    assert "arena family create jmt-bnech" in message and "--create" in message
    assert [f.name for f in catalog.families(ledger)] == ["jmt-bench"]


def test_the_python_api_still_creates_a_family_by_default(ledger, bench):
    report = import_file(ledger, bench, family="new", fmt="fastchat")
    assert report.family_created


def test_setting_the_language_runs_the_gates_again_and_is_recorded(ledger, bench):
    import_file(ledger, bench, family="jmt", fmt="fastchat")  # English, by default
    assert _language_failures(ledger, "jmt") == set()  # the prompts' language is lenient
    result = set_family(ledger, "jmt", FamilySettings(language="ja"), reason="Japanese bench")
    assert set(result.changes) == {"language"} and result.family.language == "ja"
    assert result.regated is not None and result.regated.by_gate["language"] == 3
    assert _language_failures(ledger, "jmt") == ENGLISH_ANSWERS
    shown = describe(ledger, "jmt")
    assert (shown["language"], shown["created"]["language"]) == ("ja", "en")
    assert [(c["setting"], c["value"], c["reason"]) for c in shown["changes"]] == [
        ("language", "ja", "Japanese bench")
    ]


def test_bounds_set_without_gating_are_read_by_the_next_gate_run(ledger, bench):
    import_file(ledger, bench, family="jmt", fmt="fastchat", settings=FamilySettings(language="ja"))
    result = set_family(ledger, "jmt", FamilySettings(max_chars=100), regate=False)
    assert result.regated is None
    from arena.gates.screening import rerun

    summary = rerun(ledger, family_state.load(ledger, "jmt"))
    assert summary.by_gate["length"] == 12  # every answer is longer than 100 characters


def test_a_value_already_in_force_records_nothing(ledger, bench):
    create_family(ledger, "f", FamilySettings(language="ja"))
    assert set_family(ledger, "f", FamilySettings(language="ja")).changes == {}
    with pytest.raises(BadInput, match="nothing to change"):
        set_family(ledger, "f", FamilySettings())


def test_the_kind_changes_only_while_the_family_has_no_outputs(ledger, bench):
    create_family(ledger, "f", FamilySettings())
    assert set_family(ledger, "f", FamilySettings(kind="tests")).family.kind == "tests"
    set_family(ledger, "f", FamilySettings(kind="votes"))
    import_file(ledger, bench, family="f", fmt="fastchat")
    with pytest.raises(BadInput, match="holds outputs: its kind stays votes"):
        set_family(ledger, "f", FamilySettings(kind="tests_then_votes"))


def test_the_reference_must_be_a_system_of_the_family(ledger, bench):
    import_file(ledger, bench, family="f", fmt="fastchat")
    with pytest.raises(BadInput, match="no system 'nobody'"):
        set_family(ledger, "f", FamilySettings(reference="nobody"))
    result = set_family(ledger, "f", FamilySettings(reference="tanaka"))
    assert result.family.reference == catalog.find_system(ledger, "tanaka").system_id
    assert describe(ledger, "f")["reference_label"] == "tanaka"


def test_a_reference_given_at_creation_waits_for_its_system(ledger, bench):
    create_family(ledger, "f", FamilySettings(reference="smith"))
    assert describe(ledger, "f")["reference"] is None
    assert describe(ledger, "f")["reference_label"] == "smith"
    import_file(ledger, bench, family="f", fmt="fastchat", create=False)
    assert describe(ledger, "f")["reference"] == catalog.find_system(ledger, "smith").system_id


def test_rename_and_archive_change_only_how_the_family_is_listed(ledger, bench):
    create_family(ledger, "b", FamilySettings(aspect="writing"))
    create_family(ledger, "a", FamilySettings(aspect="writing"))
    create_family(ledger, "c", FamilySettings())
    rename_family(ledger, "a", "Essays (2024)")
    archive_family(ledger, "b", reason="superseded")
    assert [(r["name"], r["label"]) for r in listed(ledger)] == [
        ("a", "Essays (2024)"),
        ("c", "c"),
    ]
    assert [r["name"] for r in listed(ledger, archived=True)] == ["a", "b", "c"]
    with pytest.raises(BadInput, match="already archived"):
        archive_family(ledger, "b")
    archive_family(ledger, "b", False)
    assert [r["name"] for r in listed(ledger)] == ["a", "b", "c"]
    assert catalog.get_family(ledger, "a").name == "a"  # commands still use the name


def test_a_tests_import_without_any_result_warns_what_will_happen(ledger, tmp_path):
    path = tmp_path / "diffs.jsonl"
    path.write_text(
        "\n".join(native_line("t1", s, f"--- a/x\n+++ b/x\n+{s}\n") for s in ("a", "b")) + "\n",
        "utf-8",
    )
    report = import_file(
        ledger, path, family="fixes", fmt="native", settings=FamilySettings(kind="tests")
    )
    (note,) = report.notes
    assert note.startswith("warning: none of the 2 new outputs has a test result")
    assert "arena tests run --family fixes" in note and "counts as failed" in note


def test_a_tests_import_with_results_does_not_warn(ledger, tmp_path):
    path = tmp_path / "diffs.jsonl"
    path.write_text(
        "\n".join(
            native_line("t1", s, f"--- a/x\n+++ b/x\n+{s}\n", test_result="passed")
            for s in ("a", "b")
        )
        + "\n",
        "utf-8",
    )
    report = import_file(
        ledger, path, family="fixes", fmt="native", settings=FamilySettings(kind="tests")
    )
    assert report.notes == ()
