"""The board of a closed round: rows, axis, unranked systems, categories, summary, keys."""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtCore import Qt

from arena.rounds.board_vocabulary import POINTS, columns_for
from arena.rounds.closing import AXIS_SPAN
from arena.rounds.model import RoundSettings
from arena.rounds.scoring import describe_settled
from arena.ui.board import close_round_dialog
from arena.ui.board.board_model import DASH
from arena.ui.board.split_plot import split_points
from arena.ui.board.summary_panel import summary_items


@pytest.fixture
def board(qtbot, open_window, board_ledger, monkeypatch):
    """A window on the board of a round just closed on ``family`` (penalty 0.02)."""
    monkeypatch.setattr(
        close_round_dialog, "ask_round_settings", lambda *_: RoundSettings(penalty=0.02)
    )

    def open_board(family: str = "prose"):
        window = open_window(board_ledger)
        window.families.select(family)
        assert window.round_actions.close_round(), window.ops.last_error
        return window

    return open_board


def cells(model) -> list[dict[str, str]]:
    return [
        {model.header(c): model.data(model.index(r, i)) for i, c in enumerate(model.columns)}
        for r in range(model.rowCount())
    ]


def test_the_rows_are_the_rounds_ranked_systems_as_displayed(board):
    window = board()
    found, model = window.board.found.to_json(), window.board.model
    ranked = [r for r in found["systems"] if not r["unranked"]]
    shown = cells(model)
    assert (
        [row["System"] for row in shown]
        == [r["label"] for r in ranked]
        == ["alpha", "beta", "gamma"]
    )
    for row, system in zip(shown, ranked, strict=True):
        assert row["Rank"] == str(system["rank"])
        assert row[model.header(POINTS)] == f"{system['points']:.0f}"
        assert row["Votes"] == str(system["votes"])
    assert [r["rank"] for r in ranked] == sorted(r["rank"] for r in ranked)
    assert shown[2]["p50 latency"] == DASH  # gamma reports no latency
    assert shown[1]["Gate failures"] == f"{100 * ranked[1]['gate_failure_share']:.0f}%"


def test_the_axis_starts_at_most_600_below_the_top_and_marks_far_behind(board):
    model = board().board.model
    top = max(r.points for r in model.rows)
    assert (
        top - AXIS_SPAN <= model.axis.start < min(r.points for r in model.rows if not r.far_behind)
    )
    gamma = next(r for r in model.rows if r.label == "gamma")
    assert gamma.far_behind and model.axis.fraction(gamma.points) is None
    assert "far behind" in model.marks(gamma)
    assert model.header(POINTS) == f"Points (axis from {model.axis.start:.0f})"


def test_unranked_systems_are_listed_below_the_table_with_why(board):
    page = board().board
    assert {r.label for r in page.model.unranked} == {"delta", "epsilon", "zeta"}
    text = page.unranked.text()
    assert "zeta — no votes" in text
    assert "delta — not connected to the anchor" in text
    assert page.unranked.isVisibleTo(page)


def test_the_category_selector_shows_the_category_refit(qtbot, board):
    page = board().board
    page.category_box.setFocus()
    qtbot.keyClick(page.category_box, Qt.Key.Key_End)
    assert page.category == "explain"
    refit = page.found.to_json()["categories"]["explain"]["systems"]
    assert [r.label for r in page.model.rows] == [r["label"] for r in refit if not r["unranked"]]
    points = [page.model.data(page.model.index(r, 2)) for r in range(page.model.rowCount())]
    assert points == [f"{r['points']:.0f}" for r in refit if not r["unranked"]]
    headers = [page.model.header(c) for c in page.model.columns]
    assert "Votes (all)" in headers and "Rank" in headers
    assert "(all):" in page.notes.text() and "category explain" in page.title.text()
    qtbot.keyClick(page.category_box, Qt.Key.Key_Home)
    assert page.category is None and "Votes" in [page.model.header(c) for c in page.model.columns]


def test_the_round_selector_lists_rounds_newest_first(board):
    window = board()
    first = window.board.found.round_id
    assert window.round_actions.close_round()
    page = window.board
    assert page.round_box.count() == 2 and "newest" in page.round_box.itemText(0)
    assert page.found.round_id != first
    page.choose_round(first)
    assert page.found.round_id == first


def test_a_tests_then_votes_board_shows_its_columns_and_diff_length_bias(board):
    page = board("patches").board
    headers = [page.model.header(c) for c in page.model.columns]
    for name in ("Run", "Pass rate", "Failed tests", "Cost / solution", "Agent p50", "Votes"):
        assert name in headers
    assert "Test run p50" in headers
    assert "Cost / output" not in headers
    alpha = cells(page.model)[0]
    assert (alpha["Pass rate"], alpha["Failed tests"]) == ("75%", "25%")
    titles = [item.title for item in summary_items(page.found, page.kind)]
    assert "Diff length bias" in titles and "Length bias" not in titles


def test_the_summary_says_what_each_figure_means(board):
    page = board().board
    summary = page.found.to_json()["summary"]
    items = {item.title: item for item in summary_items(page.found, page.kind)}
    # Three repeats cannot tell how consistent the rater is: said so, with the count.
    agreement = items["Rater agreement"]
    assert agreement.figure == "—"
    assert "Not enough votes to tell: 3 repeats (2 agreed); it needs 10" in agreement.sentence
    # So few votes tell neither split-half τ nor a length bias; each says why.
    for title, key in (
        ("Split-half τ", "split_half_tau"),
        ("Length bias", "length_bias_points_per_sd"),
    ):
        assert summary[key] is None
        assert items[title].figure == "—"
        assert summary["unavailable"][key] in items[title].sentence
    assert "Positive = favours longer" in items["Length bias"].sentence
    assert items["Left out of the fit"].figure == "5"
    assert "5 on retired cases" in items["Left out of the fit"].sentence
    shown = " ".join(label.text() for label in page.summary.labels)
    assert "Not enough votes to tell" in shown and "Split-half τ" in shown


def test_a_told_summary_gives_its_figures_and_the_length_bias_standard_error():
    from arena.rounds.model import RoundSummary
    from arena.rounds.round_records import SplitHalves

    class Found:
        summary = RoundSummary(
            rater_agreement=2 / 3,
            repeats=12,
            split_half_tau=0.8,
            split_half_points=SplitHalves({"a": 1.0, "b": 2.0}, {"a": 1.0, "b": 2.0}),
            length_bias_points_per_sd=-120.4,
            length_bias_standard_error=30.2,
            unavailable={},
        )
        judges, pooled = None, ()  # the rater's own round

    items = {item.title: item for item in summary_items(Found(), "votes")}
    assert items["Rater agreement"].figure == "67%"
    assert "On 12 pairs shown twice with sides swapped" in items["Rater agreement"].sentence
    assert items["Split-half τ"].figure == "0.80"
    assert items["Length bias"].figure == "−120 ± 30 points per SD"
    assert "(± 30: one standard error)" in items["Length bias"].sentence


def test_the_split_plot_shows_systems_of_both_halves_or_says_why_not(board):
    page = board().board
    points = page.summary.plot.points
    halves = page.found.summary.split_half_points
    both = [s for s, v in halves.odd.items() if v is not None and halves.even[s]]
    assert len(points) == len(both) == 3 and page.summary.plot.note == ""
    empty = dataclasses.replace(halves, even=dict.fromkeys(halves.even))
    assert split_points(empty, {}) == (
        [],
        "Not enough sessions: the even-numbered sessions have no fitted votes yet.",
    )
    assert not page.summary.plot.grab().isNull()


def test_b_opens_the_board_from_the_list_and_esc_goes_back(qtbot, board):
    window = board()
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert window.pages.currentWidget() is window.families
    assert window.families.selected_name() == "prose"
    qtbot.keyClick(window.families.table, Qt.Key.Key_B)
    assert window.pages.currentWidget() is window.board and window.board.found is not None
    window.toggle_theme()  # the board follows the theme without a reload
    assert not window.grab().isNull()


def test_a_family_without_rounds_says_how_to_close_one(qtbot, open_window, board_ledger):
    window = open_window(board_ledger)
    window.families.select("patches")
    assert window.show_board()
    page = window.board
    # Votes and no round: the page opens on the preview; the last round is one key away.
    assert page.found is None and page.previewing
    page.toggle_preview()
    assert not page.previewing and page.model.rowCount() == 0
    assert "No round of patches" in page.hint.text()
    assert not window.round_actions.actions["export_csv"].isEnabled()


def test_a_tests_family_shows_its_run_pass_rate_trials_and_no_vote_columns():
    assert [c.header for c in columns_for("tests")] == [
        "Rank",
        "System",
        "Run",
        "Points",
        "Marks",
        "Pass rate",
        "Passed",
        "No output",
        "Cost / solution",
        "Agent p50",
        "Test run p50",
        "Gate failures",
    ]


def test_a_graded_round_shows_scores_intervals_and_tiers(qtbot, open_window, tmp_path):
    from arena.graded.runs import collect_run
    from arena.graded.suites import load_suite
    from arena.ledger import Ledger
    from arena.rounds.closing import close_round
    from tests.graded.fake_endpoint import FakeEndpoint, Reply
    from tests.graded.test_graded import _settings

    suite = load_suite("starter")
    path = tmp_path / "graded.sqlite"
    with (
        Ledger.open(path) as ledger,
        FakeEndpoint({t.input: [Reply(t.reference)] for t in suite.tasks[1:]}) as server,
    ):
        collect_run(
            ledger,
            suite,
            _settings(server.url),
            label="tiny",
            tier="reference",
            revision="r1",
            artifact_digest="sha256:" + "0" * 64,
        )
        closed = close_round(ledger, "starter", RoundSettings(seed=4))
    window = open_window(path)
    window.show_board("starter")
    model = window.board.model
    (row,) = cells(model)
    (system,) = closed.to_json()["systems"]
    assert row["System"] == "tiny" and row["Tier"] == "reference"
    assert row["Score"] == f"{100 * system['headline']:.1f}%"
    assert row["Passed"] == "23/24"
    low, high = system["ci95"]
    assert row["95% interval"] == f"{100 * low:.1f}% – {100 * high:.1f}%"
    assert "bootstrap seed 4" in window.board.board_text().subtitle


def test_the_summary_says_how_much_was_settled_without_a_vote(board):
    page = board().board
    settled = page.found.summary.settled
    items = {item.title: item for item in summary_items(page.found, page.kind)}
    item = items["Settled without a vote"]
    assert item.figure == f"{100 * settled.weight_share:.0f}% of the weight"
    assert item.sentence == describe_settled(settled, page.kind)
    assert "settled without a vote" in item.sentence
    shown = " ".join(label.text() for label in page.summary.labels)
    assert "Settled without a vote" in shown
    # A round closed before the summary recorded this says nothing about it.
    older = dataclasses.replace(
        page.found, summary=dataclasses.replace(page.found.summary, settled=None)
    )
    assert "Settled without a vote" not in [i.title for i in summary_items(older, page.kind)]
