"""The disagreement list: the items where a judge and the rater differ, most confident
first (order worked out by hand in disagreement_ledger.py), and `arena judges
disagreements`."""

from __future__ import annotations

import json

import pytest

from arena.cli.main import main
from arena.errors import BadInput
from arena.judges.comparison import judges_report
from arena.judges.disagreements import disagreements
from arena.ledger import Ledger, catalog
from tests.conftest import REALDATA
from tests.judges.disagreement_ledger import EXPECTED, build
from tests.judges.pandalm_files import write_files


@pytest.fixture(scope="module")
def ledger_path(tmp_path_factory):
    folder = tmp_path_factory.mktemp("disagreements")
    return build(folder / "ledger.sqlite", folder)


@pytest.fixture
def found(ledger_path):
    with Ledger.open(ledger_path, readonly=True) as ledger:
        return disagreements(ledger, "f", "gpt")


def test_most_confident_first(found):
    assert [d.case_id for d in found] == EXPECTED
    assert [d.opposite for d in found] == [True] * 4 + [False] * 2
    support = [d.judge_consistent + d.rater_consistent for d in found]
    assert support == [2, 1, 1, 0, 1, 0]


def test_answers_are_said_on_the_sides_the_rater_first_saw(found, ledger_path):
    by_case = {d.case_id: d for d in found}
    q2 = by_case["q2"]  # the rater chose a twice, the second time shown on the right
    assert (q2.left.label, q2.right.label) == ("a", "b")
    assert q2.rater == ("left", "left") and q2.rater_answer == "left"
    assert (q2.judge_in_order, q2.judge_swapped, q2.judge_answer) == (("right",), (), "right")
    q5 = by_case["q5"]  # the judge chose its left side in both orders: b, then c
    assert (q5.judge_in_order, q5.judge_swapped, q5.judge_answer) == (("left",), ("right",), "tie")
    assert not q5.judge_consistent and q5.rater_answer == "left"
    q4 = by_case["q4"]
    assert (q4.left.label, q4.right.label, q4.rater_answer) == ("a", "c", "tie")
    assert q4.judge_in_order == q4.judge_swapped == ("left",)
    with Ledger.open(ledger_path, readonly=True) as ledger:
        for d in found:  # the outputs the window opens are the two systems' on that case
            for side in (d.left, d.right):
                output = catalog.get_output(ledger, side.output_id)
                assert output is not None
                assert (output.case_id, output.system_id) == (d.case_id, side.system_id)


def test_the_list_is_what_agreement_with_ties_counts_against(found, ledger_path):
    with Ledger.open(ledger_path, readonly=True) as ledger:
        row = judges_report(ledger, "f")["judges"][0]
    agreed = row["agreement_with_ties"]["value"] * row["overlap"]
    assert row["overlap"] - round(agreed) == len(found) == 6


def test_an_unknown_judge_is_named(ledger_path):
    with Ledger.open(ledger_path, readonly=True) as ledger:
        with pytest.raises(BadInput, match=r"no judge 'claude' in f \(judges: gpt\)"):
            disagreements(ledger, "f", "claude")
        with pytest.raises(BadInput, match="no judge 'rater'"):
            disagreements(ledger, "f", "rater")


def test_cli_lists_them_and_limits_and_prints_json(ledger_path, capsys):
    at = ["--ledger", str(ledger_path), "judges", "disagreements", "--family", "f"]
    assert main([*at, "--judge", "gpt", "--limit", "2"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines()[2:4]]
    assert [r[:4] for r in rows] == [["1", "q3", "a", "b"], ["2", "q1", "a", "b"]]
    assert rows[0][4:] == ["left,", "left", "right", "right", "|", "right"]
    assert "the first 2 of 6 disagreements" in out
    assert main([*at, "--judge", "gpt", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["family"], shown["judge"], shown["count"]) == ("f", "gpt", 6)
    first = shown["disagreements"][0]
    assert set(first) == {
        "case_id", "left", "right", "vote_id", "rater", "rater_answer", "judge_in_order",
        "judge_swapped", "judge_answer", "opposite", "judge_consistent", "rater_consistent",
    }  # fmt: skip
    assert set(first["left"]) == {"system_id", "label", "output_id"}
    assert [d["case_id"] for d in shown["disagreements"]] == EXPECTED
    assert main([*at, "--judge", "nobody"]) == 2
    assert "--judge: no judge 'nobody'" in capsys.readouterr().err


TESTSET = REALDATA / "pandalm" / "testset-v1.json"


@pytest.mark.skipif(not TESTSET.is_file(), reason="no ../shared/realdata/pandalm")
def test_pandalm_disagreements_are_the_annotators_differing_labels(tmp_path):
    outputs, votes = write_files(TESTSET, tmp_path / "files")
    at = ["--ledger", str(tmp_path / "ledger.sqlite")]
    assert main([*at, "import", str(outputs), "--family", "p", "--create"]) == 0
    assert main([*at, "import-votes", str(votes), "--family", "p"]) == 0
    items = json.loads(TESTSET.read_text(encoding="utf-8"))
    for n, expected in ((2, (87, 52)), (3, (71, 39))):
        judge = ["--family", "p", "--judge", f"annotator{n}", "--kind", "human"]
        judge += ["--format", "pandalm", "--column", f"annotator{n}"]
        assert main([*at, "judges", "import", str(TESTSET), *judge]) == 0
        with Ledger.open(tmp_path / "ledger.sqlite", readonly=True) as ledger:
            found = disagreements(ledger, "p", f"annotator{n}")
        # Labels: 0 a tie, 1 response 1 (shown left) better, 2 response 2 better.
        differ = {str(i["idx"]): (i["annotator1"], i[f"annotator{n}"]) for i in items}
        differ = {case: pair for case, pair in differ.items() if pair[0] != pair[1]}
        assert {d.case_id for d in found} == set(differ)
        opposite = {case for case, pair in differ.items() if set(pair) == {1, 2}}
        assert {d.case_id for d in found if d.opposite} == opposite
        assert found[: len(opposite)] == [d for d in found if d.opposite]  # opposite first
        assert (len(found), len(opposite)) == expected  # as docs/judges.md gives them
        said = {1: "left", 2: "right", 0: "tie"}
        assert all(
            (d.rater_answer, d.judge_answer) == tuple(said[a] for a in differ[d.case_id])
            for d in found
        )
