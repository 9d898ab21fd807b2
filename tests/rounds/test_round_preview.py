"""A board while voting: fitted as a round would be, stored nowhere."""

import json
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.errors import BadInput
from arena.intake.outputs import FamilySettings, import_file
from arena.intake.votes import import_votes
from arena.ledger import Ledger, catalog, chain, events
from arena.ledger import round_store as stored_rounds
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from arena.rounds.preview import Previewer, fitted_heads, newer, preview, refit
from tests.conftest import native_line

SYSTEMS = ("alpha", "beta", "gamma", "delta")
CASES = [f"c{i}" for i in range(12)]


def _family(ledger: Ledger, folder: Path) -> None:
    lines = [
        native_line(
            case,
            system,
            f"{system} answers {case} in plain English, with a sentence or two for the reader.",
            category="odd" if int(case[1:]) % 2 else "even",
        )
        for case in CASES
        for system in SYSTEMS
    ]
    path = folder / "outputs.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    import_file(ledger, path, family="f", fmt="native", settings=FamilySettings(reference="beta"))


def _vote(ledger: Ledger, folder: Path, votes: list[tuple[str, str, str, str]]) -> None:
    path = folder / "votes.jsonl"
    path.write_text(
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
            for case, left, right, choice in votes
        )
        + "\n",
        encoding="utf-8",
    )
    import_votes(ledger, path, family="f")


def _round_robin(rounds: int) -> list[tuple[str, str, str, str]]:
    """Every system pair on each case; the earlier system wins but one time in three."""
    votes = []
    for case in CASES[:rounds]:
        for i, left in enumerate(SYSTEMS):
            for right in SYSTEMS[i + 1 :]:
                votes.append((case, left, right, "right" if len(votes) % 3 == 2 else "left"))
    return votes


@pytest.fixture
def voted(ledger, tmp_path):
    _family(ledger, tmp_path)
    _vote(ledger, tmp_path, _round_robin(6))
    return ledger


def test_preview_is_the_board_a_round_closed_now_fits_but_for_intervals(voted):
    shown = preview(voted, "f")
    closed = close_round(voted, "f", RoundSettings())
    for board, round_board in [(shown.board, closed.board)] + [
        (shown.categories[name], closed.categories[name]) for name in ("even", "odd")
    ]:
        assert board.anchor == round_board.anchor
        assert [r.to_json() | {"ci95": None} for r in board.systems] == [
            r.to_json() | {"ci95": None} for r in round_board.systems
        ]
        assert all(r.ci95 is None for r in board.systems)
        # The same check of its regime: only the bootstrap is left to the close.
        assert board.uncertainty == round_board.uncertainty
    assert shown.votes == 36 and not shown.intervals
    assert shown.settings == RoundSettings()


def test_preview_writes_nothing(voted, ledger_path):
    before = ledger_path.read_bytes(), catalog.marks(voted), chain.heads(voted, "f")
    preview(voted, "f")
    assert (ledger_path.read_bytes(), catalog.marks(voted), chain.heads(voted, "f")) == before
    assert stored_rounds.rounds(voted, "f") == []


def test_preview_reads_on_a_read_only_connection_beside_the_writer(voted, ledger_path):
    with Ledger.open(ledger_path, readonly=True) as reader:
        assert preview(reader, "f").board == preview(voted, "f").board


def test_later_votes_and_corrections_are_newer_than_the_preview(voted, tmp_path):
    previewer = Previewer("f")
    first = previewer(voted)
    assert not newer(fitted_heads(voted, "f"), first)
    late = ("c9", "c10", "c11")
    _vote(voted, tmp_path, [(case, "delta", "alpha", "left") for case in late])
    assert newer(fitted_heads(voted, "f"), first)
    second = previewer(voted)
    assert second.votes == first.votes + 3
    delta = next(r for r in second.board.systems if r.label == "delta")
    assert delta.points > next(r for r in first.board.systems if r.label == "delta").points
    # A correction moves the family's state, which the next preview reads again.
    for case in late:
        events.add_event(voted, "f", "retire_case", case_id=case)
    assert newer(fitted_heads(voted, "f"), second)
    assert previewer(voted).board == first.board


def test_a_round_is_newer_than_nothing_and_as_new_as_its_votes(voted, tmp_path):
    assert newer(fitted_heads(voted, "f"), None)
    closed = close_round(voted, "f", RoundSettings())
    assert not newer(fitted_heads(voted, "f"), closed)
    _vote(voted, tmp_path, [("c7", "alpha", "beta", "tie")])
    assert newer(fitted_heads(voted, "f"), closed)


def test_a_family_without_votes_is_not_newer_than_nothing(ledger, tmp_path):
    _family(ledger, tmp_path)
    assert not newer(fitted_heads(ledger, "f"), None)


def test_only_voted_families_have_a_preview(ledger, tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(native_line("t0", "a", "diff", test_result="passed") + "\n", "utf-8")
    import_file(ledger, path, family="t", fmt="native", settings=FamilySettings(kind="tests"))
    with pytest.raises(BadInput, match="only voted families"):
        preview(ledger, "t")
    with pytest.raises(BadInput, match="no family"):
        preview(ledger, "nowhere")


def test_round_show_preview_prints_the_board_as_not_a_round(voted, ledger_path, capsys):
    shown = preview(voted, "f")
    voted.close()  # the command opens the ledger itself
    assert main(["--ledger", str(ledger_path), "round", "show", "--family", "f", "--preview"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("f: preview, not a round, the fit of 36 votes so far")
    assert "intervals: at close" in out or "uncertainty unavailable" in out
    top = next(r for r in shown.board.systems if r.rank == 1)
    assert f"   1  {top.label}  " in out
    assert (
        main(
            ["--ledger", str(ledger_path), "round", "show", "--family", "f", "--preview", "--json"]
        )
        == 2
    )
    assert "never exported" in capsys.readouterr().err


def test_refit_fits_again_only_what_moved(voted, ledger_path, tmp_path):
    first = refit(str(ledger_path), "f", None)
    assert first is not None and refit(str(ledger_path), "f", first) is None
    # A new output moves the catalog, not the chains: the preview is fitted again.
    path = tmp_path / "more.jsonl"
    line = native_line("c0", "epsilon", "epsilon answers c0 plainly.", category="even")
    path.write_text(line + "\n", "utf-8")
    import_file(voted, path, family="f", fmt="native")
    again = refit(str(ledger_path), "f", first)
    assert again is not None and again.votes == first.votes
    assert "epsilon" in {r.label for r in again.board.systems}
    assert "epsilon" not in {r.label for r in first.board.systems}
