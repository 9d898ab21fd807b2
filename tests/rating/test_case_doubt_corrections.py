"""A case in doubt: its Language verdicts settle nothing until the rater sets or confirms
its language, everywhere the family is read, in a round, its export and verify."""

from __future__ import annotations

import json
import shutil

import pytest

from arena import family_state
from arena.bundle.export import export_round, read_bundle
from arena.bundle.verify import verify_bundle
from arena.cli.main import main
from arena.errors import BadInput
from arena.rating.corrections import confirm_case_language, retract, set_case_language
from arena.rating.status import family_status
from arena.rating.status_count import full_status_row
from arena.records import CaseId
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.bundle.rebundle import rehash
from tests.conftest import native_line
from tests.rating.test_corrections import ENGLISH, FRENCH, import_with_english_cases

PROMPT = "Write the paragraph in French."


@pytest.fixture
def doubted(ledger, tmp_path):
    """Case t asks for French: alpha and beta answer in French, gamma in English."""
    lines = [
        native_line("t", "alpha", FRENCH, prompt=PROMPT, family={"name": "m", "language": "en"}),
        native_line("t", "beta", FRENCH + " Voilà.", prompt=PROMPT),
        native_line("t", "gamma", ENGLISH, prompt=PROMPT),
    ]
    return import_with_english_cases(ledger, tmp_path, lines)


def _language_settled(ledger) -> list:
    state = family_state.load(ledger, "m")
    return [c for c in state.settled if c.case_id == "t" and c.rule in ("gate_loses", "both_gated")]


def test_most_answers_in_another_language_put_the_case_in_doubt_and_settle_nothing(doubted):
    state = family_state.load(doubted, "m")
    assert list(state.in_doubt) == [CaseId("t")]
    assert state.in_doubt[CaseId("t")].language == "fr"
    assert not state.failing
    assert _language_settled(doubted) == []
    # The quick count of status and the rating session agree with the whole family.
    row = family_status(doubted, "m")[0]
    assert row["gate_failures"] == 0
    assert {k: row[k] for k in ("settled_pairs", "pending_pairs", "gate_failures")} == {
        k: full_status_row(doubted, "m")[k]
        for k in ("settled_pairs", "pending_pairs", "gate_failures")
    }
    rating = family_state.for_rating(doubted, "m")
    assert len(rating.pending) == row["pending_pairs"] == 9


def test_confirming_the_familys_language_restores_the_verdicts_and_retracting_undoes_it(doubted):
    event = confirm_case_language(doubted, "m", "t", reason="the prompt wants English here")
    state = family_state.load(doubted, "m")
    assert state.in_doubt == {}
    assert len(state.failing) == 2
    # The English answer beats both French ones; the French ones tie.
    assert sorted(c.rule for c in _language_settled(doubted)) == [
        "both_gated",
        "gate_loses",
        "gate_loses",
    ]
    with pytest.raises(BadInput, match="already confirmed"):
        confirm_case_language(doubted, "m", "t")
    retract(doubted, event)
    assert list(family_state.load(doubted, "m").in_doubt) == [CaseId("t")]
    assert _language_settled(doubted) == []


def test_setting_the_case_language_ends_the_doubt_and_the_english_answer_fails(doubted):
    set_case_language(doubted, "m", "t", "fr", reason="the prompt asks for French")
    state = family_state.load(doubted, "m")
    assert state.in_doubt == {}
    assert [c.rule for c in _language_settled(doubted)] == ["gate_loses", "gate_loses"]


def test_a_case_not_in_doubt_cannot_be_confirmed(doubted):
    with pytest.raises(BadInput, match="'u' is not in doubt"):
        confirm_case_language(doubted, "m", "u")
    with pytest.raises(BadInput, match="no case 'nope'"):
        confirm_case_language(doubted, "m", "nope")


def test_the_cli_lists_the_doubt_with_a_status_per_verdict_and_takes_the_confirmation(
    doubted, ledger_path, capsys
):
    doubted.close()
    assert main(["--ledger", str(ledger_path), "gate", "--list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [f["status"] for f in listed["failures"]] == ["in_doubt", "in_doubt"]
    [doubt] = listed["cases_in_doubt"]
    assert (doubt["case_id"], doubt["language"], doubt["outputs"], doubt["of"]) == ("t", "fr", 2, 3)
    assert main(["--ledger", str(ledger_path), "gate", "--family", "m"]) == 0
    assert "m: 1 case in doubt" in capsys.readouterr().out
    assert main(["--ledger", str(ledger_path), "gate", "--list"]) == 0
    text = capsys.readouterr().out
    assert "case t in doubt: 2 of 3 answers with a Language verdict are in fr" in text
    assert "`arena case confirm-language t --family m`" in text
    assert "0 failing verdicts, 2 in doubt on 1 case" in text

    args = ["--ledger", str(ledger_path), "case", "confirm-language", "t", "--family", "m"]
    assert main([*args, "--json"]) == 0
    event = json.loads(capsys.readouterr().out)["event"]
    assert main(["--ledger", str(ledger_path), "gate", "--list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [f["status"] for f in listed["failures"]] == ["failed", "failed"]
    assert listed["cases_in_doubt"] == []
    assert main(["--ledger", str(ledger_path), "event", "retract", event[:12]]) == 0
    assert main(args) == 0  # in doubt again, so it can be confirmed again
    assert "keeps its language" in capsys.readouterr().out


def test_the_round_records_the_confirmation_and_verify_settles_the_doubt_again(doubted, tmp_path):
    close_round(doubted, "m", RoundSettings())
    out = tmp_path / "in-doubt"
    export_round(doubted, out, family="m")
    assert verify_bundle(out).ok

    event = confirm_case_language(doubted, "m", "t", reason="English is asked for")
    closed = close_round(doubted, "m", RoundSettings())
    assert [(e.kind, e.event_id) for e in closed.events] == [("confirm_language", event)]
    out = tmp_path / "confirmed"
    export_round(doubted, out, family="m")
    events = read_bundle(out)["events.jsonl"].decode()
    assert '"confirm_language"' in events
    report = verify_bundle(out)
    assert report.ok, report.problems

    # A forger drops the confirmation from the events and the round's settings: the doubt
    # comes back, and the published Language comparisons no longer follow the rules.
    forged = tmp_path / "forged"
    shutil.copytree(out, forged)
    (forged / "events.jsonl").write_text("", "utf-8")
    manifest = json.loads((forged / "manifest.json").read_text("utf-8"))
    manifest["settings"]["events"] = []
    (forged / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    rehash(forged)
    problems = verify_bundle(forged, allow_unsigned=True).problems
    assert any("settled comparisons are not those the rules give" in p for p in problems), problems
