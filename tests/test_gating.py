"""`arena gate` re-runs every gate and counts failures per gate and per system."""

import json

from arena import family_state
from arena.cli.main import main
from arena.gating import rerun
from arena.importing import import_file
from tests.conftest import native_line

PROSE = "This answer explains the idea in plain English, with enough words to judge it well."


def _family(ledger, tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_text("\n".join([
        native_line("c1", "alpha", PROSE, family={"name": "g", "min_chars": 20}),
        native_line("c1", "beta", "   ", finish_reason="length"),
        native_line("c2", "alpha", PROSE + " Again."),
        native_line("c2", "beta", "Short."),
    ]), encoding="utf-8")
    import_file(ledger, path, family="g", fmt="native")
    return family_state.load(ledger, "g")


def test_two_failures_of_one_output_count_once_in_failed(ledger, tmp_path):
    family = _family(ledger, tmp_path)
    summary = rerun(ledger, family)
    # beta/c1 is empty, truncated and too short; beta/c2 is too short only.
    assert (summary.outputs, summary.failed) == (4, 2)
    assert summary.by_gate == {"empty": 1, "truncated": 1, "length": 2, "language": 0,
                               "script": 0}
    assert summary.by_system["beta"]["empty"] == 1
    assert summary.by_system["alpha"] == dict.fromkeys(summary.by_gate, 0)


def test_rerunning_unchanged_gates_stores_nothing_new(ledger, tmp_path):
    family = _family(ledger, tmp_path)
    rows = ledger.db["gate_results"].count
    assert rerun(ledger, family).changed == 0
    assert ledger.db["gate_results"].count == rows == 4 * 5


def test_gate_json_matches_the_documented_shape(capsys, tmp_path, small_family_file):
    ledger = str(tmp_path / "l.sqlite")
    main(["--ledger", ledger, "import", str(small_family_file), "--family", "small"])
    capsys.readouterr()
    assert main(["--ledger", ledger, "gate", "--family", "small", "--json"]) == 0
    (family,) = json.loads(capsys.readouterr().out)["families"]
    assert set(family) == {"name", "outputs", "failed", "by_gate", "by_system"}
    assert family["outputs"] == 12 and family["failed"] == 0
    assert set(family["by_system"]) == {"alpha", "beta", "gamma"}
    assert main(["--ledger", ledger, "gate"]) == 0
    assert "all systems" in capsys.readouterr().out
