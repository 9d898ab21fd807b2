"""Without a penalty, a reference that never loses gives way to a rankable anchor: in the
round, in `round show`, in `arena fit` and in the bundle's check."""

from __future__ import annotations

import json

import pytest

from arena.bundle.export import export_round
from arena.bundle.verify import verify_bundle
from arena.cli.main import main
from arena.intake.outputs import import_file
from arena.intake.votes import import_votes
from arena.ledger import Ledger
from arena.rounds.anchor_words import anchor_why
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from arena.rounds.round_records import AnchorFallback
from tests.bundle.rebundle import rehash
from tests.conftest import native_line

TEXT = "A helpful answer of reasonable length, written in plain English for the reader"
# R beats S 5-0 and T 5-0, S beats T 3-2: one case each.
VOTES = (
    [("R", "S", "left")] * 5
    + [("T", "R", "right")] * 5
    + [("S", "T", "left")] * 3
    + [("S", "T", "right")] * 2
)


def rst_family(ledger: Ledger, tmp_path) -> None:
    """Family f of R, S and T (reference R), one case per vote of ``VOTES``."""
    family = {"name": "f", "min_chars": 20, "reference": "R"}
    lines = [
        native_line(f"c{i}", s, f"{s}: {TEXT} {i}.", **({"family": family} if i + j == 0 else {}))
        for i in range(len(VOTES))
        for j, s in enumerate("RST")
    ]
    (tmp_path / "o.jsonl").write_text("\n".join(lines), encoding="utf-8")
    import_file(ledger, tmp_path / "o.jsonl", family="f", fmt="native")
    votes = [
        {
            "case_id": f"c{i}",
            "left_system": left,
            "right_system": right,
            "choice": choice,
            "session": 1,
            "actor": "rater",
            "shown_at": "2026-11-01T10:00:00Z",
            "voted_at": "2026-11-01T10:00:20Z",
        }
        for i, (left, right, choice) in enumerate(VOTES)
    ]
    (tmp_path / "v.jsonl").write_text("\n".join(map(json.dumps, votes)), encoding="utf-8")
    import_votes(ledger, tmp_path / "v.jsonl", family="f")


FALLBACK = {"weight": 10.0, "among": 2, "tied": ["S", "T"], "tie_broken_by": "label"}


def test_a_round_without_penalty_anchors_on_a_rankable_system_and_says_why(
    ledger_path, tmp_path, capsys
):
    with Ledger.open(ledger_path) as ledger:
        rst_family(ledger, tmp_path)
        closed = close_round(ledger, "f", RoundSettings(penalty=0.0))
        export_round(ledger, tmp_path / "b", family="f")
    rows = {r.label: r for r in closed.board.systems}
    assert (rows["S"].rank, rows["T"].rank, rows["R"].status) == (1, 2, "unbounded_above")
    assert rows["S"].points - rows["T"].points == pytest.approx(70.4, abs=0.05)  # log10(1.5)
    anchor = closed.board.anchor
    assert (anchor.label, anchor.reason) == ("S", "requested_unrankable")
    assert anchor.fallback == AnchorFallback.from_json(FALLBACK)
    assert main(["--ledger", str(ledger_path), "round", "show", "--family", "f", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["anchor"]["fallback"] == FALLBACK
    assert main(["--ledger", str(ledger_path), "round", "show", "--family", "f"]) == 0
    text = capsys.readouterr().out
    assert "standing in for the family's reference" in text and "most-voted" not in text
    assert "R (never loses to the ranked systems" in text
    report = verify_bundle(tmp_path / "b")
    assert report.ok, report.problems


def test_verify_derives_the_anchor_again(ledger, tmp_path):
    rst_family(ledger, tmp_path)
    close_round(ledger, "f", RoundSettings(penalty=0.0))
    out = tmp_path / "b"
    export_round(ledger, out, family="f")
    board = json.loads((out / "board.json").read_text())
    board["anchor"]["fallback"]["tied"] = ["S"]
    (out / "board.json").write_text(json.dumps(board))
    rehash(out)
    problems = verify_bundle(out).problems
    assert any(p.startswith("board.json: anchor: published S") for p in problems), problems


def test_arena_fit_without_penalty_ranks_s_and_t_and_says_why_r_is_not(tmp_path, capsys):
    battles = [
        {"model_a": a, "model_b": b, "winner": "model_a" if choice == "left" else "model_b"}
        for a, b, choice in VOTES
    ]
    path = tmp_path / "battles.json"
    path.write_text(json.dumps(battles), encoding="utf-8")
    assert main(["fit", str(path), "--penalty", "0", "--anchor", "R"]) == 0
    text = capsys.readouterr().out
    assert "anchor: S (standing in for --anchor R" in text
    assert "both systems that can be ranked have the same comparison weight (10)" in text
    ranked = [line.split()[:2] for line in text.splitlines() if line.strip()[:1].isdigit()]
    assert ranked == [["1", "S"], ["2", "T"]]
    assert "unranked: R (never loses to the ranked systems" in text
    assert main(["fit", str(path), "--penalty", "0", "--json"]) == 0
    board = json.loads(capsys.readouterr().out)
    assert (board["anchor"], board["anchor_reason"]) == ("S", "none_requested")
    assert board["anchor_fallback"] == {**FALLBACK, "tie_broken_by": "file_order"}


def test_the_most_voted_is_named_only_when_it_has_the_most():
    alone = AnchorFallback(12.0, 3, (), None)
    assert "the most-voted system that can be ranked" in anchor_why("none_requested", alone)
    some = AnchorFallback(10.0, 3, ("S", "T"), "label")
    assert "S, T tie for the most comparison weight (10 each) among the 3" in anchor_why(
        "none_requested", some
    )
    every = AnchorFallback(10.0, 3, ("R", "S", "T"), "label")
    said = anchor_why("none_requested", every)
    assert "all 3 systems that can be ranked have the same" in said and "most" not in said
