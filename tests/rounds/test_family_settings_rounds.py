"""A family's settings change by recorded changes: the next round is worked out with them,
records them, and its bundle carries them (not the settings of the day it is exported)."""

from __future__ import annotations

import json

from arena.bundle.export import export_round
from arena.bundle.verify import verify_bundle
from arena.intake.families import rename_family, set_family
from arena.intake.family_settings import FamilySettings
from arena.intake.outputs import import_file
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.japanese_answers import write_japanese_bench


def _counts(ledger) -> tuple[int, int]:
    return ledger.db["round_comparisons"].count, ledger.db["gate_results"].count


def test_a_changed_setting_is_worked_out_again_and_recorded(ledger, tmp_path):
    import_file(ledger, write_japanese_bench(tmp_path / "jmt"), family="jmt", fmt="fastchat")
    first = close_round(ledger, "jmt", RoundSettings())
    assert first.family_settings.language == "en"
    assert first.to_json()["settings"]["family"]["language"] == "en"
    english = {r.label: r.gate_failure_share for r in first.systems}
    assert english == {"smith": 0.0, "tanaka": 0.0}

    set_family(ledger, "jmt", FamilySettings(language="ja"), regate=False)
    comparisons, verdicts = _counts(ledger)
    second = close_round(ledger, "jmt", RoundSettings())
    # Not restated: the gates ran again on what they read, and the round has its own rows.
    assert _counts(ledger)[0] > comparisons and _counts(ledger)[1] > verdicts
    assert second.family_settings.language == "ja"
    assert {r.label: r.gate_failure_share for r in second.systems} == {
        "smith": 0.5,
        "tanaka": 0.0,
    }

    # The first round's bundle keeps the settings it was closed with, and verifies.
    export_round(ledger, tmp_path / "first", round_id=first.round_id)
    manifest = json.loads((tmp_path / "first" / "manifest.json").read_text("utf-8"))
    assert manifest["family"]["language"] == "en"
    assert verify_bundle(tmp_path / "first").ok
    export_round(ledger, tmp_path / "second", round_id=second.round_id)
    assert verify_bundle(tmp_path / "second").ok


def test_a_new_label_changes_nothing_a_round_is_worked_out_from(ledger, tmp_path):
    import_file(ledger, write_japanese_bench(tmp_path / "jmt"), family="jmt", fmt="fastchat")
    close_round(ledger, "jmt", RoundSettings())
    rename_family(ledger, "jmt", "Japanese MT-bench (mini)")
    comparisons, _ = _counts(ledger)
    again = close_round(ledger, "jmt", RoundSettings())
    assert _counts(ledger)[0] == comparisons  # restated: shares the earlier comparisons
    assert again.family_settings.name == "jmt"
