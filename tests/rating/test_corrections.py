"""The rater's corrections: each an event, honoured everywhere, carried in the export, undoable."""

from __future__ import annotations

import json
import shutil

import pytest

from arena import family_state
from arena.bundle.export import MANIFEST, MANIFEST_HASH, export_round, read_bundle
from arena.bundle.verify import verify_bundle
from arena.cli.main import main
from arena.errors import BadInput
from arena.intake.outputs import import_file
from arena.ledger import Ledger, catalog
from arena.rating.corrections import (
    overrule,
    remove_output,
    retire_case,
    retract,
    set_case_language,
)
from arena.rating.status import family_status
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.bundle.rebundle import rehash
from tests.conftest import native_line

ENGLISH = (
    "The answer walks through the question step by step, naming each part plainly "
    "so that a reader new to the subject can follow it without trouble."
)
FRENCH = (
    "La réponse reprend la question pas à pas, en nommant chaque partie simplement "
    "afin qu'un lecteur novice puisse la suivre sans aucune difficulté."
)


def import_with_english_cases(ledger, tmp_path, lines: list[str]):
    """Import family ``m``: case t's ``lines``, then cases u and v answered in English by
    alpha, beta and gamma."""
    for case in ("u", "v"):
        for label in ("alpha", "beta", "gamma"):
            lines.append(native_line(case, label, f"{label} on {case}: {ENGLISH}"))
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    import_file(ledger, path, family="m", fmt="native")
    return ledger


@pytest.fixture
def mixed(ledger, tmp_path):
    """Case t asks for a French answer: alpha answers in French, beta and gamma in English."""
    lines = [
        native_line(
            "t",
            "alpha",
            FRENCH,
            prompt="Translate the paragraph into French.",
            family={"name": "m", "language": "en"},
        ),
        native_line("t", "beta", ENGLISH, prompt="Translate the paragraph into French."),
        native_line(
            "t", "gamma", ENGLISH + " Fine.", prompt="Translate the paragraph into French."
        ),
    ]
    return import_with_english_cases(ledger, tmp_path, lines)


def _output(ledger: Ledger, case: str, label: str):
    system = catalog.find_system(ledger, label, "m")
    return next(
        o
        for o in catalog.outputs(ledger, "m")
        if o.case_id == case and o.system_id == system.system_id
    )


def _language_failures(ledger):
    state = family_state.load(ledger, "m")
    return {
        (o.case_id, catalog.find_system(ledger, o.system_id).label)
        for o in state.in_force
        if any(r.gate == "language" and not r.passed for r in state.gate_results[o.output_id])
    }


def test_setting_a_case_language_regates_the_case_and_its_retraction_undoes_it(mixed):
    assert _language_failures(mixed) == {("t", "alpha")}
    event = set_case_language(mixed, "m", "t", "fr", reason="the prompt asks for French")
    # The case now expects French only: the English answers fail, the French one passes.
    assert _language_failures(mixed) == {("t", "beta"), ("t", "gamma")}
    assert family_state.load(mixed, "m").cases["t"].language == "fr"
    retract(mixed, event, reason="changed my mind")
    assert _language_failures(mixed) == {("t", "alpha")}
    assert family_state.load(mixed, "m").cases["t"].language is None


def test_an_overrule_frees_the_output_for_the_rater_and_counts_in_the_summary(mixed):
    before = family_status(mixed, "m")[0]
    french = _output(mixed, "t", "alpha")
    event = overrule(mixed, french.output_id[:10], "language", reason="asked for French")
    after = family_status(mixed, "m")[0]
    assert after["gate_failures"] == before["gate_failures"] - 1
    # alpha-beta and alpha-gamma on t were settled by the gate; now the rater judges them.
    assert after["settled_pairs"] == before["settled_pairs"] - 2
    assert after["pending_pairs"] == before["pending_pairs"] + 2
    closed = close_round(mixed, "m", RoundSettings())
    assert [e.event_id for e in closed.events] == [event]
    assert closed.events[0].gate == "language"
    retract(mixed, event)
    assert family_status(mixed, "m")[0] == before


def test_the_summary_counts_settled_comparisons_by_rule_and_their_weight_share(mixed):
    settled = close_round(mixed, "m", RoundSettings()).summary.settled
    # Only the French answer fails a gate: it loses to beta and to gamma on case t.
    assert settled is not None and settled.to_json() == {
        "by_rule": {"gate": 2, "identical": 0, "tests": 0, "overruled": 0},
        "weight_share": 1.0,
    }


def test_retire_and_remove_take_pairs_out_and_refuse_to_repeat(mixed):
    pending = family_status(mixed, "m")[0]["pending_pairs"]
    retire_case(mixed, "m", "u", reason="ambiguous prompt")
    assert family_status(mixed, "m")[0]["pending_pairs"] == pending - 3
    with pytest.raises(BadInput, match="already retired"):
        retire_case(mixed, "m", "u", reason="again")
    remove_output(mixed, _output(mixed, "v", "gamma").output_id, reason="wrong file")
    assert family_status(mixed, "m")[0]["pending_pairs"] == pending - 5
    with pytest.raises(BadInput, match="already removed"):
        remove_output(mixed, _output(mixed, "v", "gamma").output_id, reason="again")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda lg: overrule(lg, "0" * 64, "language", reason="x"), "no output has id"),
        (lambda lg: overrule(lg, "zz%_", "language", reason="x"), "no output has id"),
        (
            lambda lg: overrule(lg, _output(lg, "u", "beta").output_id, "language", reason="x"),
            "passes output",
        ),
        (
            lambda lg: overrule(lg, _output(lg, "t", "alpha").output_id, "language", reason=" "),
            "say why",
        ),
        (lambda lg: set_case_language(lg, "m", "t", "french!"), "not a language tag"),
        (lambda lg: set_case_language(lg, "m", "nope", "fr"), "no case"),
        (lambda lg: retire_case(lg, "m", "u", reason=""), "say why"),
        (lambda lg: retract(lg, "not-an-event"), "no event"),
    ],
)
def test_bad_corrections_are_refused_and_change_nothing(mixed, call, message):
    events = mixed.db["events"].count
    with pytest.raises(BadInput, match=message):
        call(mixed)
    assert mixed.db["events"].count == events


def test_a_retraction_cannot_be_retracted_nor_an_event_retracted_twice(mixed):
    event = retire_case(mixed, "m", "u", reason="ambiguous")
    undo = retract(mixed, event)
    with pytest.raises(BadInput, match="already retracted"):
        retract(mixed, event)
    with pytest.raises(BadInput, match="cannot be retracted"):
        retract(mixed, undo)


def _cli(capsys, ledger_path, *args):
    code = main(["--ledger", str(ledger_path), *args])
    return code, capsys.readouterr()


def test_the_cli_lists_failures_and_takes_every_correction(mixed, ledger_path, capsys):
    mixed.close()
    code, out = _cli(capsys, ledger_path, "gate", "--list", "--family", "m", "--json")
    assert code == 0
    [failure] = json.loads(out.out)["failures"]
    assert (failure["case_id"], failure["system"], failure["gate"]) == ("t", "alpha", "language")
    assert failure["excerpt"] == FRENCH[:200] and failure["overruled_by"] is None
    assert "Language" in failure["reason"]
    code, out = _cli(capsys, ledger_path, "gate", "--list", "--gate", "empty")
    assert code == 0 and "0 failing verdicts" in out.out

    code, out = _cli(
        capsys,
        ledger_path,
        "overrule",
        failure["output_id"][:12],
        "--gate",
        "language",
        "--reason",
        "the prompt asks for French",
        "--json",
    )
    assert code == 0
    overrule_event = json.loads(out.out)["event"]
    code, out = _cli(capsys, ledger_path, "gate", "--list", "--json")
    assert json.loads(out.out)["failures"][0]["overruled_by"] == overrule_event

    assert (
        _cli(capsys, ledger_path, "case", "set-language", "t", "--family", "m", "--language", "fr")[
            0
        ]
        == 0
    )
    assert (
        _cli(capsys, ledger_path, "case", "retire", "u", "--family", "m", "--reason", "ambiguous")[
            0
        ]
        == 0
    )
    code, out = _cli(capsys, ledger_path, "event", "list", "--family", "m", "--json")
    kinds = [e["kind"] for e in json.loads(out.out)["events"]]
    assert kinds == ["overrule", "set_language", "retire_case"]
    code, out = _cli(capsys, ledger_path, "event", "retract", overrule_event[:10])
    assert code == 0 and "retracted" in out.out
    code, out = _cli(capsys, ledger_path, "event", "list", "--family", "m")
    assert "(retracted)" in out.out and "set_language" in out.out
    code, out = _cli(
        capsys, ledger_path, "overrule", "0" * 12, "--gate", "language", "--reason", "x"
    )
    assert code == 2 and "no output has id" in out.err


def test_the_export_carries_the_corrections_and_verify_reapplies_them(mixed, tmp_path):
    set_case_language(mixed, "m", "t", "fr", reason="asks for French")
    retire_case(mixed, "m", "v", reason="ambiguous")
    overrule(mixed, _output(mixed, "t", "beta").output_id, "language", reason="close enough")
    close_round(mixed, "m", RoundSettings())
    out = tmp_path / "b"
    export_round(mixed, out, family="m")
    files = read_bundle(out)
    kinds = [
        json.loads(line)["kind"] for line in files["events.jsonl"].decode().split("\n") if line
    ]
    assert kinds == ["set_language", "retire_case", "overrule"]
    report = verify_bundle(out)
    assert report.ok, report.problems

    # A forger drops the retirement, re-chains nothing, and rehashes the manifest: caught.
    forged = tmp_path / "forged"
    shutil.copytree(out, forged)
    lines = (forged / "events.jsonl").read_text("utf-8").split("\n")
    (forged / "events.jsonl").write_text("\n".join(lines[:1] + lines[2:]), "utf-8")
    rehash(forged)
    assert not verify_bundle(forged).ok


def test_invented_or_dropped_settled_comparisons_fail_verify(mixed, tmp_path):
    close_round(mixed, "m", RoundSettings())
    out = tmp_path / "b"
    export_round(mixed, out, family="m")
    rows = [json.loads(x) for x in (out / "comparisons.jsonl").read_text("utf-8").split("\n") if x]
    settled = next(r for r in rows if r["source"] == "settled")
    for name, changed in (
        ("dropped", [r for r in rows if r is not settled]),
        (
            "invented",
            [
                *rows,
                {
                    **settled,
                    "output_a": settled["output_b"],
                    "output_b": settled["output_a"],
                    "y": 0.0,
                },
            ],
        ),
        ("flipped", [{**r, "y": 1 - r["y"]} if r is settled else r for r in rows]),
    ):
        forged = tmp_path / name
        shutil.copytree(out, forged)
        (forged / "comparisons.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in changed),
            "utf-8",
        )
        rehash(forged)
        problems = verify_bundle(forged).problems
        assert any("settled" in p for p in problems), (name, problems)
    assert (out / MANIFEST).exists() and (out / MANIFEST_HASH).exists()
