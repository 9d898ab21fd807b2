"""Must-show: the real window under Xvfb, driven by keys alone (xdotool), creates a family
with language ja through the import dialog, and its Language failures are those of the CLI
import of the same file with --language ja."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena import family_state
from arena.cli.main import main as arena_main
from arena.gates.screening import failures
from arena.ledger import Ledger, catalog
from tests.japanese_answers import ENGLISH_ANSWERS
from tests.ui.real_window import artefacts, run_under_xvfb


def _language_failures(path: Path, family: str) -> set[tuple[str, str, str]]:
    with Ledger.open(path, readonly=True) as ledger:
        found = failures(ledger, family_state.load(ledger, family), gate="language")
    return {(f.case_id, f.system, f.reason) for f in found}


@pytest.mark.skipif(
    shutil.which("xvfb-run") is None or shutil.which("xdotool") is None,
    reason="xvfb-run and xdotool are needed to drive the real window",
)
def test_keys_create_a_japanese_family_through_the_import_dialog(tmp_path, capsys):
    out = artefacts(tmp_path / "shots")
    printed = run_under_xvfb("tests.ui.xvfb_import", tmp_path, out, timeout=240)
    assert "into jmt-ja (new family)" in printed
    assert (out / "import-dialog.png").stat().st_size > 10_000
    window = tmp_path / "window.sqlite"
    with Ledger.open(window, readonly=True) as ledger:
        family = catalog.get_family(ledger, "jmt-ja")
        assert (family.kind, family.language) == ("votes", "ja")
    answers = tmp_path / "jmt-mini" / "model_answer" / "answers.jsonl"
    cli = tmp_path / "cli.sqlite"
    args = ["--ledger", str(cli), "import", str(answers), "--family", "jmt-ja", "--create"]
    assert arena_main([*args, "--language", "ja"]) == 0, capsys.readouterr().err
    found = _language_failures(window, "jmt-ja")
    assert found == _language_failures(cli, "jmt-ja")
    assert {(case, system) for case, system, _ in found} == ENGLISH_ANSWERS
