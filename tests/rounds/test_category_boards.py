"""A category's board shows its own evidence: its votes beside the family's, its own marks.

The hand-worked example: systems a, b, c; threshold 2 decisive votes.

category x: x0 a beats b, x1 a beats c, x2 b and c both bad
category y: y0 a beats b, y1 b beats a, y2 c beats b, y3 a ties c, y4 b and c both bad

       in x: votes decisive both-bad | in y: votes decisive both-bad | all: votes decisive
    a          2       2      0/2    |        3       2      0/3     |       5       4
    b          2       1      1/2    |        4       3      1/4     |       6       4
    c          2       1      1/2    |        3       1      1/3     |       5       2

Family-wide, nobody is preliminary (fewest decisive: c with 2); in x, b and c are (1 each);
in y, c is (1).
"""

from __future__ import annotations

import json
import re

import pytest

from arena.cli.main import main
from arena.intake.outputs import import_file
from arena.intake.votes import import_votes
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.conftest import native_line

TEXT = "A helpful answer of reasonable length, written in plain English for the reader."
VOTES = [
    ("x0", "a", "b", "left"),
    ("x1", "a", "c", "left"),
    ("x2", "b", "c", "both_bad"),
    ("y0", "a", "b", "left"),
    ("y1", "b", "a", "left"),
    ("y2", "c", "b", "left"),
    ("y3", "a", "c", "tie"),
    ("y4", "b", "c", "both_bad"),
]
# system: (votes, decisive votes, both-bad share) per view.
EXPECTED = {
    "x": {"a": (2, 2, 0.0), "b": (2, 1, 0.5), "c": (2, 1, 0.5)},
    "y": {"a": (3, 2, 0.0), "b": (4, 3, 0.25), "c": (3, 1, 1 / 3)},
    None: {"a": (5, 4, 0.0), "b": (6, 4, 2 / 6), "c": (5, 2, 2 / 5)},
}
PRELIMINARY = {"x": {"b", "c"}, "y": {"c"}, None: set()}


@pytest.fixture
def categories(ledger, tmp_path):
    cases = sorted({v[0] for v in VOTES})
    lines = [
        native_line(case, s, f"{s} {TEXT} {case}", category=case[0])
        for case in cases
        for s in ("a", "b", "c")
    ]
    outputs = tmp_path / "o.jsonl"
    outputs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    import_file(ledger, outputs, family="f", fmt="native")
    votes = tmp_path / "v.jsonl"
    votes.write_text(
        "\n".join(
            json.dumps(
                {
                    "case_id": case,
                    "left_system": left,
                    "right_system": right,
                    "choice": choice,
                    "session": 1,
                    "actor": "rater",
                    "shown_at": "2026-11-01T10:00:00Z",
                    "voted_at": "2026-11-01T10:00:20Z",
                }
            )
            for case, left, right, choice in VOTES
        ),
        encoding="utf-8",
    )
    import_votes(ledger, votes, family="f")
    return close_round(ledger, "f", RoundSettings(threshold=2))


@pytest.mark.parametrize("view", ["x", "y", None])
def test_a_category_board_counts_its_own_votes_and_marks_from_its_own_decisive_votes(
    categories, view
):
    board = categories.categories[view] if view else categories.board
    family = {r.label: r for r in categories.board.systems}
    for row in board.systems:
        votes, decisive, both_bad = EXPECTED[view][row.label]
        assert row.decisive_votes == decisive
        assert row.preliminary == (row.label in PRELIMINARY[view])
        # The family-wide columns stay the family's in every view.
        assert row.votes == family[row.label].votes == EXPECTED[None][row.label][0]
        if view is None:
            assert row.category_votes is None and row.both_bad_share == pytest.approx(both_bad)
        else:
            assert row.category_votes == votes
            assert row.category_both_bad_share == pytest.approx(both_bad)


def test_round_show_category_json_and_text(ledger, categories, capsys):
    ledger.close()
    assert main(["--ledger", ledger.path, "round", "show", "--category", "x", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    rows = {r["label"]: r for r in shown["systems"]}
    assert {k: (r["category_votes"], r["votes"], r["preliminary"]) for k, r in rows.items()} == {
        "a": (2, 5, False),
        "b": (2, 6, True),
        "c": (2, 5, True),
    }
    assert main(["--ledger", ledger.path, "round", "show", "--category", "x"]) == 0
    text = capsys.readouterr().out
    cells = [re.split(r"\s{2,}", line.strip()) for line in text.splitlines()]
    header = next(c for c in cells if c[0] == "rank")
    assert header[:7] == ["rank", "system", "points", "marks", "votes", "votes (all)", "both bad"]
    assert header[7].endswith("(all)")
    b = next(c for c in cells if len(c) > 1 and c[1] == "b")
    assert b[3].startswith("preliminary") and b[4:7] == ["2", "6", "50%"]
    assert main(["--ledger", ledger.path, "round", "show", "--json"]) == 0
    whole = json.loads(capsys.readouterr().out)
    assert "category_votes" not in whole["systems"][0]
