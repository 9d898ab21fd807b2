"""`arena gate` re-runs every gate and counts failures per gate and per system."""

import json

import pytest

from arena import family_state
from arena.cli.main import main
from arena.gates.screening import rerun
from arena.intake.outputs import import_file
from arena.ledger import verdicts
from tests.conftest import native_line

PROSE = "This answer explains the idea in plain English, with enough words to judge it well."


def _family(ledger, tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_text(
        "\n".join(
            [
                native_line("c1", "alpha", PROSE, family={"name": "g", "min_chars": 20}),
                native_line("c1", "beta", "   ", finish_reason="length"),
                native_line("c2", "alpha", PROSE + " Again."),
                native_line("c2", "beta", "Short."),
            ]
        ),
        encoding="utf-8",
    )
    import_file(ledger, path, family="g", fmt="native")
    return family_state.load(ledger, "g")


def test_two_failures_of_one_output_count_once_in_failed(ledger, tmp_path):
    family = _family(ledger, tmp_path)
    summary = rerun(ledger, family)
    # beta/c1 is empty, truncated and too short; beta/c2 is too short only.
    assert (summary.outputs, summary.failed) == (4, 2)
    assert summary.by_gate == {"empty": 1, "truncated": 1, "length": 2, "language": 0, "script": 0}
    assert summary.by_system["beta"]["empty"] == 1
    assert summary.by_system["alpha"] == dict.fromkeys(summary.by_gate, 0)


def test_rerunning_unchanged_gates_stores_nothing_new(ledger, tmp_path):
    family = _family(ledger, tmp_path)
    rows = ledger.db["gate_results"].count
    assert rerun(ledger, family).changed == 0
    assert ledger.db["gate_results"].count == rows == 4 * 5


def test_gate_json_matches_the_documented_shape(capsys, tmp_path, small_family_file):
    ledger = str(tmp_path / "l.sqlite")
    main(["--ledger", ledger, "import", str(small_family_file), "--family", "small", "--create"])
    capsys.readouterr()
    assert main(["--ledger", ledger, "gate", "--family", "small", "--json"]) == 0
    (family,) = json.loads(capsys.readouterr().out)["families"]
    assert set(family) == {"name", "outputs", "failed", "by_gate", "by_system"}
    assert family["outputs"] == 12 and family["failed"] == 0
    assert set(family["by_system"]) == {"alpha", "beta", "gamma"}
    assert main(["--ledger", ledger, "gate"]) == 0
    assert "all systems" in capsys.readouterr().out


def _counting(monkeypatch):
    """Count the outputs the gates are run on."""
    from arena import gates

    seen = []
    evaluate = gates.evaluate

    def counted(output, case, family):
        seen.append(output.case_id)
        return evaluate(output, case, family)

    monkeypatch.setattr(gates, "evaluate", counted)
    return seen


def test_outputs_whose_inputs_did_not_change_are_not_gated_again(ledger, tmp_path, monkeypatch):
    family = _family(ledger, tmp_path)
    full = rerun(ledger, family)
    seen = _counting(monkeypatch)
    again = rerun(ledger, family_state.load(ledger, "g"))
    assert seen == [] and again.changed == 0
    # Every output in force is still counted, from its stored verdicts.
    assert again.as_json() == full.as_json()


def test_a_changed_case_language_gates_that_case_again_and_only_it(ledger, tmp_path, monkeypatch):
    from arena.rating.corrections import set_case_language

    _family(ledger, tmp_path)
    seen = _counting(monkeypatch)
    set_case_language(ledger, "g", "c2", "fr", reason="asked in French")
    assert sorted(seen) == ["c2", "c2"]
    seen.clear()
    assert rerun(ledger, family_state.load(ledger, "g")).changed == 0 and seen == []


def test_a_new_gates_version_gates_every_output_once(ledger, tmp_path, monkeypatch):
    from arena import gates

    _family(ledger, tmp_path)
    rows = ledger.db["gate_results"].count
    monkeypatch.setattr(gates, "GATES_VERSION", gates.GATES_VERSION + 1)
    seen = _counting(monkeypatch)
    # Same verdicts: nothing changed, but the new fingerprints are stored.
    assert rerun(ledger, family_state.load(ledger, "g")).changed == 0
    assert len(seen) == 4 and ledger.db["gate_results"].count == rows + 4 * 5
    seen.clear()
    rerun(ledger, family_state.load(ledger, "g"))
    assert seen == []


def test_verdicts_stored_without_a_fingerprint_are_gated_once_more(ledger, tmp_path, monkeypatch):

    state = _family(ledger, tmp_path)
    # As rows written before fingerprints were kept.
    with ledger.atomic():
        verdicts.record_gate_results(
            ledger,
            [(o.output_id, state.gate_results[o.output_id], None) for o in state.in_force[:2]],
        )
    seen = _counting(monkeypatch)
    rerun(ledger, family_state.load(ledger, "g"))
    assert len(seen) == 2
    seen.clear()
    rerun(ledger, family_state.load(ledger, "g"))
    assert seen == []


@pytest.mark.parametrize("seed", range(20))
def test_the_verdicts_in_force_are_the_newest_of_each_gate(ledger, tmp_path, seed):
    import random

    from arena.ledger import catalog
    from arena.records import GATES, GateResult

    state = _family(ledger, tmp_path)
    other = tmp_path / "h.jsonl"
    other.write_text(native_line("c1", "alpha", PROSE, family={"name": "h"}), encoding="utf-8")
    import_file(ledger, other, family="h", fmt="native")
    rng = random.Random(seed)
    # Evaluations of another family's output come in between.
    outputs = [o.output_id for o in state.in_force] + [catalog.outputs(ledger, "h")[0].output_id]
    for _ in range(rng.randint(1, 6)):
        evaluations = []
        for output in rng.sample(outputs, rng.randint(1, len(outputs))):
            gates = rng.sample(GATES, rng.randint(1, len(GATES)))
            evaluations.append(
                (
                    output,
                    [GateResult(g, rng.random() < 0.5, f"r{rng.random()}") for g in gates],
                    rng.choice([None, "a", "b"]),
                )
            )
        with ledger.atomic():
            verdicts.record_gate_results(ledger, evaluations)
    mark = rng.choice(
        [
            None,
            ledger.db.execute("SELECT MAX(seq) FROM gate_results").fetchone()[0]
            - rng.randint(0, 20),
        ]
    )
    # What is in force, by definition: each gate's row with the highest seq, in seq order.
    newest: dict = {}
    for seq, output, gate, passed, reason, fingerprint in ledger.db.execute(
        "SELECT seq, output_id, gate, passed, reason, fingerprint FROM gate_results "
        "WHERE seq <= ? AND output_id IN (SELECT output_id FROM outputs WHERE family = 'g') "
        "ORDER BY seq",
        [mark or 2**62],
    ):
        newest.setdefault(output, {})[gate] = (
            seq,
            GateResult(gate, bool(passed), reason),
            fingerprint,
        )
    expected = {
        o: tuple(r for _, r, _ in sorted(by_gate.values(), key=lambda x: x[0]))
        for o, by_gate in newest.items()
    }
    marks = {o: {f for _, _, f in by_gate.values()} for o, by_gate in newest.items()}
    results, fingerprints = verdicts.gate_verdicts(ledger, "g", up_to=mark)
    assert results == expected
    assert fingerprints == {o: m.pop() for o, m in marks.items() if len(m) == 1 and None not in m}


@pytest.mark.parametrize(
    ("text", "finish", "diff"),
    [
        ("plain", "stop", False),
        ('it\'s "quoted" \\ and \n new', None, True),
        ("日本語", "length", False),
    ],
)
def test_fingerprints_keep_the_form_stored_verdicts_were_made_with(text, finish, diff):
    # A stored verdict is reused only while its fingerprint is worked out the same way:
    # a change of form would gate every output of every ledger once more.
    from arena import gates
    from arena.canonical import sha256_hex
    from arena.gates.screening import Fingerprints
    from arena.records import Case, CaseId, Family, Output, OutputId, SystemId

    family = Family("f", language="en", min_chars=3, max_chars=900)
    case = Case("f", CaseId("c'1"), "general", "A prompt with 'quotes'", language="en")
    output = Output(
        OutputId("o"), "f", case.case_id, SystemId("s"), 0, text, is_diff=diff, finish_reason=finish
    )
    case_part = repr(
        (
            sha256_hex(case.prompt),
            case.language,
            case.detected_language,
            case.expected_languages(family.language),
            family.language,
            family.min_chars,
            family.max_chars,
        )
    )
    expected = sha256_hex(repr((gates.GATES_VERSION, output.content_hash, finish, diff, case_part)))
    assert Fingerprints(family)(output, case) == expected
    assert Fingerprints(family)(output, case, "stored") != expected
