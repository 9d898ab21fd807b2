"""PandaLM's three annotators as three raters of one family: the board is the fit of all
2,997 votes (checked against choix, which shares no code with Arena's fit), whoever cast
them, and is the board of the same votes cast by one person."""

from __future__ import annotations

import json

import pytest

from arena.cli.main import main
from arena.ledger import Ledger
from arena.rating import corrections
from tests.conftest import REALDATA
from tests.judges.pandalm_files import choix_points, write_files

TESTSET = REALDATA / "pandalm" / "testset-v1.json"
pytestmark = pytest.mark.skipif(not TESTSET.is_file(), reason="no ../shared/realdata/pandalm")
ANNOTATORS = (1, 2, 3)


def _ledger(folder, *, one_person: bool) -> str:
    """The test set as a family with every annotator's labels as votes, each under the
    annotator's name or all under the default rater's (a session each), the gates' 62
    failing verdicts set aside so that every vote is fitted."""
    ledger = str(folder / "ledger.sqlite")
    logs = []
    for n in ANNOTATORS:
        outputs, votes = write_files(TESTSET, folder / f"annotator{n}", annotator=n)
        if one_person:
            lines = [json.loads(line) for line in votes.read_text("utf-8").splitlines()]
            for line in lines:
                line.update(actor="rater", session=f"sitting {n}")
            votes.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
        logs.append(votes)
    assert main(["--ledger", ledger, "import", str(outputs), "--family", "p", "--create"]) == 0
    for votes in logs:
        assert main(["--ledger", ledger, "import-votes", str(votes), "--family", "p"]) == 0
    with Ledger.open(ledger) as opened:
        failing = opened.conn.execute(
            "SELECT output_id, gate FROM gate_results WHERE passed = 0"
        ).fetchall()
        assert len({output for output, _ in failing}) == 62
        for output_id, gate in failing:
            corrections.overrule(opened, output_id, gate, reason="every vote fitted")
    return ledger


@pytest.fixture(scope="module")
def boards(tmp_path_factory):
    team = _ledger(tmp_path_factory.mktemp("three"), one_person=False)
    one = _ledger(tmp_path_factory.mktemp("one"), one_person=True)
    return team, one


def test_the_team_board_is_the_fit_of_all_2997_votes(boards, capsys):
    team, one = boards
    capsys.readouterr()
    assert main(["--ledger", team, "round", "close", "--family", "p", "--json"]) == 0
    closed = json.loads(capsys.readouterr().out)
    shown = {row["label"]: row for row in closed["systems"]}
    assert sum(row["votes"] for row in shown.values()) == 2 * 2997
    expected = choix_points(
        json.loads(TESTSET.read_text(encoding="utf-8")), tuple(f"annotator{n}" for n in ANNOTATORS)
    )
    # The round's penalty (0.01) moves no point by more than a few hundredths.
    for label, row in shown.items():
        assert row["points"] == pytest.approx(expected[label], abs=0.05)
    # The same votes cast by one person: the same board, to the last digit.
    assert main(["--ledger", one, "round", "close", "--family", "p", "--json"]) == 0
    alone = {row["label"]: row for row in json.loads(capsys.readouterr().out)["systems"]}
    for label, row in shown.items():
        assert row["points"] == alone[label]["points"]
        assert row["ci95"] == alone[label]["ci95"]
