"""Closing rounds: comparisons, left-out reasons, weighting, points, summary, categories."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

import fitting
from arena import family_state
from arena.intake.outputs import import_file
from arena.intake.votes import import_votes
from arena.ledger import catalog, events, family_changes
from arena.ledger import round_store as stored_rounds
from arena.ledger.round_store import find_round
from arena.rounds.closing import close_round
from arena.rounds.comparisons import family_comparisons
from arena.rounds.model import RoundSettings
from arena.rounds.scoring import fitted_weights
from tests.conftest import REPO, native_line

POINTS_PER_LOGIT = 400 / math.log(10)
TEXT = "A helpful answer of reasonable length, written in plain English for the reader."


def _outputs(ledger, tmp_path, lines, **family):
    path = tmp_path / "o.jsonl"
    settings = {"name": "f", "min_chars": 20, **family}
    path.write_text(
        "\n".join(
            [native_line(*lines[0][:3], family=settings, **lines[0][3])]
            + [native_line(*line[:3], **line[3]) for line in lines[1:]]
        ),
        encoding="utf-8",
    )
    import_file(ledger, path, family="f", fmt="native")


def _votes(ledger, tmp_path, votes, name="v.jsonl"):
    path = tmp_path / name
    path.write_text(
        "\n".join(
            json.dumps(
                {
                    "case_id": case,
                    "left_system": left,
                    "right_system": right,
                    "choice": choice,
                    "session": session,
                    "actor": actor,
                    "shown_at": "2026-11-01T10:00:00Z",
                    "voted_at": "2026-11-01T10:00:20Z",
                    **extra,
                }
            )
            for case, left, right, choice, session, actor, extra in votes
        ),
        encoding="utf-8",
    )
    return import_votes(ledger, path, family="f")


def _v(case, left, right, choice, session=1, actor="rater", **extra):
    return (case, left, right, choice, session, actor, extra)


@pytest.fixture
def two_systems(ledger, tmp_path):
    _outputs(
        ledger,
        tmp_path,
        [(f"c{i}", s, f"{s} {TEXT} {i}", {}) for i in range(4) for s in ("a", "b")],
        reference="b",
    )
    return ledger


def test_three_wins_to_one_is_400_log10_3_points_apart_without_penalty(two_systems, tmp_path):
    _votes(
        two_systems,
        tmp_path,
        [
            _v("c0", "a", "b", "left"),
            _v("c1", "b", "a", "right"),
            _v("c2", "a", "b", "left"),
            _v("c3", "a", "b", "right"),
        ],
    )
    board = close_round(two_systems, "f", RoundSettings(penalty=0.0)).to_json()
    points = {r["label"]: r["points"] for r in board["systems"]}
    assert points["b"] == 1000.0
    assert points["a"] == pytest.approx(1000 + 400 * math.log10(3), abs=1e-6)
    assert [r["rank"] for r in board["systems"]] == [1, 2]
    assert board["anchor"] == {
        "system": catalog.find_system(two_systems, "b", "f").system_id,
        "label": "b",
        "reason": "requested",
        "fallback": None,
    }


def test_the_board_columns_are_computed_from_the_outputs(ledger, tmp_path):
    _outputs(
        ledger,
        tmp_path,
        [
            ("c1", "a", TEXT, {"cost": 0.01, "latency_ms": 100.0, "test_result": "passed"}),
            ("c2", "a", TEXT + " 2", {"cost": 0.03, "latency_ms": 300.0, "test_result": "errored"}),
            ("c3", "a", "", {"latency_ms": 200.0, "test_result": "passed"}),
            ("c1", "b", TEXT + " b", {"test_result": "failed"}),
        ],
        kind="tests_then_votes",
    )
    closed = close_round(ledger, "f", RoundSettings()).to_json()
    row = {r["label"]: r for r in closed["systems"]}["a"]
    assert row["cost_per_output"] == pytest.approx(0.02)
    assert row["p50_latency_ms"] == 200.0
    assert row["gate_failure_share"] == pytest.approx(1 / 3)
    assert row["pass_rate"] == pytest.approx(2 / 3)
    assert row["failed_tests_share"] == pytest.approx(1 / 3)
    assert row["both_bad_share"] is None and row["votes"] == 0


def test_votes_are_left_out_by_reason_and_repeats_are_kept_for_agreement(ledger, tmp_path):
    _outputs(
        ledger,
        tmp_path,
        [
            ("c1", "a", TEXT, {}),
            ("c1", "b", TEXT + " b", {}),
            ("c2", "a", TEXT + " 2", {}),
            ("c2", "b", "", {}),  # b fails Empty
            ("c3", "a", TEXT + " 3", {}),
            ("c3", "b", TEXT + " 3", {}),  # identical: settles
            ("c4", "a", TEXT + " 4", {}),
            ("c4", "b", TEXT + " 4b", {}),
            ("c5", "a", TEXT + " 5", {}),
            ("c5", "b", TEXT + " 5b", {}),
        ],
    )
    _votes(
        ledger,
        tmp_path,
        [
            _v("c1", "a", "b", "left"),
            _v("c1", "b", "a", "right", repeat_of=1),
            _v("c2", "a", "b", "left"),
            _v("c3", "a", "b", "tie"),
            _v("c4", "a", "b", "right"),
            _v("c5", "a", "b", "both_bad"),
            _v("c5", "b", "a", "left", repeat_of=6),
        ],
    )
    events.add_event(ledger, "f", "retire_case", case_id="c4")
    c5b = next(o for o in catalog.outputs(ledger, "f") if o.case_id == "c5" and "5b" in o.text)
    events.add_event(ledger, "f", "remove_output", output_id=c5b.output_id)
    board = close_round(ledger, "f", RoundSettings()).to_json()
    assert board["summary"]["left_out"] == {
        "failing_gate": 1,
        "settled_pair": 1,
        "retired_case": 1,
        "removed_output": 2,
    }
    # Only c1's repeat is still in force: mapped back, "right" on the swapped pair = "left".
    assert (board["summary"]["rater_agreement"], board["summary"]["repeats"]) == (None, 1)
    # One repeat cannot tell how consistent the rater is: the summary says so instead.
    assert board["summary"]["unavailable"]["rater_agreement"] == "1 repeat (1 agreed); it needs 10"
    fitted = [
        c
        for c in stored_rounds.items(ledger, board["round"], "comparison")
        if c["status"] == "fitted"
    ]
    assert sorted((c["source"], c["rule"] or c["choice"]) for c in fitted) == [
        ("settled", "gate_loses"),
        ("settled", "identical"),
        ("vote", "left"),
    ]


def test_ledger_weighting_caps_each_actors_whole_family_total(two_systems, tmp_path):
    _votes(
        two_systems,
        tmp_path,
        [_v(f"c{i}", "a", "b", "left", actor="ann") for i in range(4)]
        + [_v("c0", "b", "a", "left", actor="bob")],
    )
    comparisons = family_comparisons(two_systems, family_state.load(two_systems, "f"))
    weights = fitted_weights(comparisons, RoundSettings(weighting="ledger", cap=2.0))
    by_actor = {}
    for c, w in zip(comparisons, weights, strict=True):
        by_actor.setdefault(c.actor, []).append(w)
    assert by_actor["ann"] == [0.5] * 4  # 4 votes scaled down to a total of 2
    assert by_actor["bob"] == [1.0]  # under the cap: unchanged
    unit = fitted_weights(comparisons, RoundSettings())
    assert list(unit) == [1.0] * 5


def test_a_category_view_is_the_refit_of_that_categorys_comparisons(ledger, tmp_path):
    lines = [
        (f"{k}{i}", s, f"{s} {TEXT} {k}{i}", {"category": k})
        for k in ("x", "y")
        for i in range(3)
        for s in ("a", "b", "c")
    ]
    _outputs(ledger, tmp_path, lines)
    _votes(
        ledger,
        tmp_path,
        [
            _v("x0", "a", "b", "left"),
            _v("x1", "b", "c", "left"),
            _v("x2", "c", "a", "right"),
            _v("y0", "c", "a", "left"),
            _v("y1", "b", "a", "tie"),
            _v("y2", "c", "b", "left"),
        ],
    )
    board = close_round(ledger, "f", RoundSettings(penalty=0.5)).to_json()
    ids = sorted(catalog.systems(ledger, "f"), key=lambda s: s.label)
    index = {s.system_id: i for i, s in enumerate(ids)}
    x = [
        c
        for c in stored_rounds.items(ledger, board["round"], "comparison")
        if c["category"] == "x" and c["status"] == "fitted"
    ]
    direct = fitting.fit_points(
        [index[c["system_a"]] for c in x],
        [index[c["system_b"]] for c in x],
        [c["y"] for c in x],
        n_systems=3,
        penalty=0.5,
        anchor=None,
    )
    view = {r["system"]: r["points"] for r in board["categories"]["x"]["systems"]}
    for s in ids:
        assert view[s.system_id] == pytest.approx(direct.points[index[s.system_id]], abs=1e-9)
    assert set(board["categories"]) == {"x", "y"}


def test_a_closed_round_is_stored_and_found_again(two_systems, tmp_path):
    _votes(two_systems, tmp_path, [_v("c0", "a", "b", "left")])
    board = close_round(two_systems, "f", RoundSettings(base=1500.0, threshold=3)).to_json()
    found = find_round(two_systems, board["round"][:8])
    assert found["systems"] == board["systems"]
    assert found["settings"]["base"] == 1500.0 and found["settings"]["threshold"] == 3
    assert all(r["preliminary"] for r in found["systems"])
    assert find_round(two_systems, family="f")["round"] == board["round"]


def test_split_half_tau_compares_odd_and_even_sessions(ledger, tmp_path):
    _outputs(
        ledger,
        tmp_path,
        [(f"c{i}", s, f"{s} {TEXT} {i}", {}) for i in range(21) for s in ("a", "b", "c")],
    )
    # Both halves order a > b > c: tau = 1 (20 votes in each half, as tau needs).
    votes = [
        _v(f"c{i}", win, lose, "left", session=s)
        for s in (1, 2)
        for i, (win, lose) in enumerate([("a", "b"), ("b", "c"), ("a", "c")] * 7)
    ]
    _votes(ledger, tmp_path, votes)
    summary = close_round(ledger, "f", RoundSettings()).to_json()["summary"]
    assert summary["split_half_tau"] == pytest.approx(1.0)
    # Every output has the same length: no spread of lengths, no length bias to report.
    assert summary["length_bias_points_per_sd"] is None
    assert summary["diff_length_bias_points_per_sd"] is None


def test_a_system_without_comparisons_is_listed_without_points(ledger, tmp_path):
    _outputs(
        ledger,
        tmp_path,
        [("c0", "a", TEXT, {}), ("c0", "b", TEXT + " b", {}), ("c1", "z", TEXT + " z", {})],
    )
    _votes(ledger, tmp_path, [_v("c0", "a", "b", "left")])
    closed = close_round(ledger, "f", RoundSettings()).to_json()
    rows = {r["label"]: r for r in closed["systems"]}
    assert rows["z"]["points"] is None and rows["z"]["unranked"]
    assert rows["z"]["status"] == "no_comparisons"


def test_bad_settings_are_refused_with_the_option_named():
    from arena.errors import BadInput

    with pytest.raises(BadInput, match="--penalty"):
        RoundSettings(penalty=-1)
    with pytest.raises(BadInput, match="--cap"):
        RoundSettings(weighting="ledger", cap=0)
    assert RoundSettings(weighting="ledger").cap == 1000.0


def test_the_length_bias_of_a_rater_who_prefers_longer_answers_is_positive(ledger, tmp_path):
    rng = np.random.default_rng(3)
    lines, votes = [], []
    for i in range(60):
        short, long_ = TEXT, TEXT + " More detail." * int(rng.integers(1, 8))
        lines += [(f"c{i}", "a", short + f" {i}", {}), (f"c{i}", "b", long_ + f" {i}", {})]
        left, right = ("a", "b") if i % 2 else ("b", "a")
        longer_side = "right" if left == "a" else "left"
        choice = (
            longer_side if rng.random() < 0.8 else ("left" if longer_side == "right" else "right")
        )
        votes.append(_v(f"c{i}", left, right, choice))
    _outputs(ledger, tmp_path, lines)
    _votes(ledger, tmp_path, votes)
    assert (
        close_round(ledger, "f", RoundSettings()).to_json()["summary"]["length_bias_points_per_sd"]
        > 0
    )


def test_round_show_prints_the_board_and_the_documented_json(two_systems, tmp_path, capsys):
    from arena.cli.main import main

    _votes(two_systems, tmp_path, [_v("c0", "a", "b", "left")])
    path = str(Path(two_systems.path))
    two_systems.close()
    assert main(["--ledger", path, "round", "close", "--family", "f", "--penalty", "0.2"]) == 0
    printed = capsys.readouterr().out
    assert "rater agreement" in printed
    assert "settled without a vote: Every fitted comparison is a vote by the rater." in printed
    assert main(["--ledger", path, "round", "show", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert set(shown) == {
        "round",
        "family",
        "kind",
        "closed_at",
        "settings",
        "anchor",
        "systems",
        "summary",
        "uncertainty",
    }
    # Two systems and one vote: no interval, and the board says why.
    assert not shown["uncertainty"]["available"]
    assert shown["uncertainty"]["reason"] == "2 ranked systems; intervals were checked for 3–50"
    assert all(r["ci95"] is None for r in shown["systems"])
    assert shown["kind"] == "votes" and shown["settings"]["events"] == []
    assert shown["summary"]["settled"] == {
        "by_rule": {"gate": 0, "identical": 0, "tests": 0, "overruled": 0},
        "weight_share": 0.0,
    }
    assert shown["settings"]["penalty"] == 0.2
    assert main(["--ledger", path, "round", "show", "--category", "nope"]) == 2


def test_the_documented_defaults_are_the_real_ones():
    from arena.cli.main import build_parser

    defaults = RoundSettings()
    docs = (REPO / "docs" / "cli.md").read_text("utf-8")
    assert f"`--penalty {defaults.penalty:g}`" in docs
    assert f"`--threshold {defaults.threshold:g}`" in docs
    round_parser = build_parser()._subparsers._group_actions[0].choices["round"]
    close = round_parser._subparsers._group_actions[0].choices["close"].format_help()
    assert f"(default {defaults.penalty:g})" in close


def _close_again(ledger, settings=None):
    """Close a round and say whether it stored comparisons of its own."""
    before = ledger.db["round_comparisons"].count
    closed = close_round(ledger, "f", settings or RoundSettings())
    return closed, ledger.db["round_comparisons"].count > before


def test_closing_again_with_nothing_new_restates_the_round(two_systems, tmp_path):
    from arena.bundle.export import export_round
    from arena.bundle.verify import verify_bundle

    _votes(two_systems, tmp_path, [_v("c0", "a", "b", "left"), _v("c1", "b", "a", "tie")])
    first, stored = _close_again(two_systems)
    again, stored_again = _close_again(two_systems)
    assert stored and not stored_again and again.round_id != first.round_id
    shown, shown_again = first.to_json(), again.to_json()
    for key in ("round", "closed_at"):
        del shown[key], shown_again[key]
    # The same cases, told since the round it restates.
    cases = shown_again["settings"].pop("case_set")
    same = {"since": first.round_id, "added": [], "retired": []}
    assert cases == {**shown["settings"].pop("case_set"), **same}
    assert shown_again == shown
    assert list(stored_rounds.items(two_systems, again.round_id, "comparison")) == list(
        stored_rounds.items(two_systems, first.round_id, "comparison")
    )
    for r in (first, again):
        export_round(two_systems, tmp_path / r.round_id, round_id=r.round_id)
    assert verify_bundle(tmp_path / again.round_id).ok
    for name in ("comparisons.jsonl", "board.json", "outputs.jsonl", "gates.jsonl"):
        assert (tmp_path / again.round_id / name).read_bytes() == (
            tmp_path / first.round_id / name
        ).read_bytes()
    # A third close names the round whose comparisons it shares, not the restatement.
    third, _ = _close_again(two_systems)
    assert (
        two_systems.db.execute(
            "SELECT comparisons_of FROM rounds WHERE round_id = ?", [third.round_id]
        ).fetchone()[0]
        == first.round_id
    )


@pytest.mark.parametrize(
    "change", ["vote", "retraction", "event", "settings", "reference", "outputs", "gates"]
)
def test_anything_new_is_worked_out_again(two_systems, tmp_path, monkeypatch, change):
    from arena import gates
    from arena.ledger import voting

    _votes(two_systems, tmp_path, [_v("c0", "a", "b", "left"), _v("c1", "b", "a", "tie")])
    _close_again(two_systems)
    settings = RoundSettings()
    if change == "vote":
        _votes(two_systems, tmp_path, [_v("c2", "a", "b", "right")], name="more.jsonl")
    elif change == "retraction":
        voting.undo_last(two_systems, "f")
    elif change == "event":
        events.add_event(two_systems, "f", "retire_case", case_id="c3")
    elif change == "settings":
        settings = RoundSettings(penalty=0.5)
    elif change == "reference":
        family_changes.add_change(
            two_systems, "f", "reference", catalog.find_system(two_systems, "a").system_id
        )
    elif change == "outputs":
        _outputs(two_systems, tmp_path, [("c9", s, f"{s} {TEXT} 9", {}) for s in ("a", "b")])
    else:
        monkeypatch.setattr(gates, "GATES_VERSION", gates.GATES_VERSION + 1)
    assert _close_again(two_systems, settings)[1]


def test_gates_are_looked_at_again_only_when_what_they_read_changed(
    two_systems, tmp_path, monkeypatch
):
    from arena.gates import screening
    from arena.rating.corrections import set_case_language

    refreshed = []
    refresh = screening.refresh
    monkeypatch.setattr(
        screening, "refresh", lambda *a, **k: refreshed.append(1) or refresh(*a, **k)
    )
    _votes(two_systems, tmp_path, [_v("c0", "a", "b", "left")])
    _close_again(two_systems)
    assert len(refreshed) == 1
    # New votes: the verdicts the last round left are still up to date.
    _votes(two_systems, tmp_path, [_v("c1", "a", "b", "right")], name="more.jsonl")
    assert _close_again(two_systems)[1] and len(refreshed) == 1
    set_case_language(two_systems, "f", "c2", "de", reason="asked in German")
    _close_again(two_systems)
    assert len(refreshed) == 3  # the correction itself, then the round
