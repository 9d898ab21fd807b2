"""A simulated rater through the real session and round close: the round's intervals,
settled comparisons and summary against the simulator's own record of what happened."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from arena.bundle.export import export_round
from arena.bundle.verify import verify_bundle
from arena.cli.round_cmd import public
from arena.ledger import Ledger
from arena.ledger import round_store as stored_rounds
from arena.rounds import simulation, uncertainty
from arena.rounds.model import RoundSettings
from fitting import bootstrap_points, rater_agreement
from fitting import simulate as sim
from tests.bundle.rebundle import rehash

SEED = 4


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("simulated")
    rng = np.random.default_rng(SEED)
    systems = sim.draw_systems(5, rng=rng, settle_share=0.2)
    family = sim.draw_family(systems, 40, rng=rng, samples=2, identical_share=0.02)
    traits = sim.RaterTraits(inconsistency=0.1, memory=0.4, length_preference=1.0)
    ledger = Ledger.open(folder / "ledger.sqlite")
    closed, run, rater = simulation.simulate_round(
        ledger,
        family,
        traits,
        260,
        folder=folder,
        seed=SEED,
        session_votes=90,
        # Vote ids are random, and so is which votes come back: twelve runs at the default
        # share (0.1) had 5 to 19 repeats, where agreement needs 10; at 0.2, 20 to 41.
        repeat_share=0.2,
        settings=RoundSettings(seed=SEED),
        # The intervals need 60 votes on every system: coverage-first spreads 260 votes
        # over the 5 systems evenly, where adaptive choice leaves a far one with fewer.
        pair_choice="coverage",
    )
    yield ledger, family, closed, run, rater, folder
    ledger.close()


def test_the_rater_votes_through_the_real_session_in_numbered_sessions(simulated):
    _, _, closed, run, rater, _ = simulated
    assert (run.votes, run.sessions) == (260, 3)
    assert run.repeats > 0 and len(rater.answers) == 260
    # Answering is the simulation's own overhead: microseconds a vote (the ledger's writes
    # are the session's).
    assert run.rater_seconds < 0.05 * run.session_seconds
    assert closed.summary.repeats == run.repeats


def test_the_rounds_settled_comparisons_are_those_the_simulation_planted(simulated):
    ledger, family, closed, _, _, _ = simulated
    planted, _ = sim.settled_pairs(family)
    stored = [
        c
        for c in stored_rounds.items(ledger, closed.round_id, "comparison")
        if c["source"] == "settled"
    ]
    systems = {row.system: int(row.label.rsplit("-", 1)[1]) for row in closed.board.systems}

    def key(case, a, b, y, w):
        return (case, *sorted([(a, y), (b, 1 - y)]), w)

    found = sorted(
        key(
            int(c["case_id"][1:]),
            systems[c["system_a"]],
            systems[c["system_b"]],
            c["y"],
            c["weight"],
        )
        for c in stored
    )
    expected = sorted(
        key(*row)
        for row in zip(
            planted.case.tolist(),
            planted.a.tolist(),
            planted.b.tolist(),
            planted.y.tolist(),
            planted.w.tolist(),
            strict=True,
        )
    )
    assert found == expected and found


def _independent_intervals(family, rater):
    """The interval again from the simulator's own record: its first answer on each pair
    (a repeat is a later answer on the same pair) and the pairs the rules settle."""
    seen, votes = set(), []
    for case, left, right, choice in rater.answers:
        pair = (case, min(left, right), max(left, right))
        if pair not in seen:
            seen.add(pair)
            votes.append((case, left // 2, right // 2, (1.0, 0.0, 0.5, 0.5)[choice]))
    settled, _ = sim.settled_pairs(family)
    case, a, b, y = (np.array(column) for column in zip(*votes, strict=True))
    return bootstrap_points(
        np.r_[a, settled.a],
        np.r_[b, settled.b],
        np.r_[y, settled.y],
        np.r_[np.ones(y.size), settled.w],
        cluster=np.r_[case, settled.case],
        n_systems=5,
        rng=np.random.default_rng([SEED, uncertainty.stream(None)]),
        anchor=0,
        n_resamples=uncertainty.RESAMPLES,
    )


def test_the_board_shows_intervals_the_simulators_record_gives_again(simulated):
    _, family, closed, _, rater, _ = simulated
    record = closed.board.uncertainty
    assert record is not None and record.available, record
    assert record.regime.systems == 5 and record.regime.cases == 40
    again = _independent_intervals(family, rater)
    for row in closed.board.systems:
        index = int(row.label.rsplit("-", 1)[1])
        assert row.points == pytest.approx(again.points[index], abs=1e-6)
        assert row.ci95 == pytest.approx([again.low[index], again.high[index]], abs=1e-6)
        assert row.ci95[0] <= row.points <= row.ci95[1]
    anchor = next(r for r in closed.board.systems if r.label == simulation.label(0))
    assert anchor.ci95 == [1000.0, 1000.0]
    shown = public(closed)
    assert shown["uncertainty"]["available"]
    assert all(len(r["ci95"]) == 2 for r in shown["systems"])
    # A category has fewer votes than the calibrated region needs: it says so.
    for board in closed.categories.values():
        assert board.uncertainty is not None


def test_the_summary_agrees_with_the_simulators_record(simulated):
    _, _, closed, _, rater, _ = simulated
    first: dict = {}
    originals, repeats, swapped = [], [], []
    for case, left, right, choice in rater.answers:
        pair = (case, min(left, right), max(left, right))
        if pair in first:
            shown_left, earlier = first[pair]
            originals.append(sim.CHOICES[earlier])
            repeats.append(sim.CHOICES[choice])
            swapped.append(left != shown_left)
        else:
            first[pair] = (left, choice)
    assert all(swapped)  # the scheduler shows a repeat with its sides swapped
    summary = closed.summary.to_json()
    assert summary["repeats"] == len(repeats) >= 10
    expected = rater_agreement(originals, repeats, swapped=np.array(swapped))
    assert summary["rater_agreement"] == pytest.approx(expected.share)
    # 230-odd votes on outputs of different lengths: the length bias is told, with its error.
    assert summary["length_bias_points_per_sd"] is not None
    assert summary["length_bias_standard_error"] > 0
    assert "length_bias_points_per_sd" not in summary["unavailable"]


def test_the_export_carries_the_intervals_and_verify_bootstraps_them_again(simulated, tmp_path):
    ledger, _, closed, _, _, _ = simulated
    out = tmp_path / "bundle"
    export_round(ledger, out, round_id=closed.round_id)
    board = json.loads((out / "board.json").read_text("utf-8"))
    assert board["uncertainty"]["available"] and board["systems"][0]["ci95"]
    report = verify_bundle(out, allow_unsigned=True)
    assert report.ok, report.problems
    # Every row of the family's board and of its one category's (all cases are "general").
    assert report.intervals == len(closed.board.systems) * 2
    # A published interval made narrower, every hash fixed: the bootstrap again disagrees.
    forged = tmp_path / "forged"
    shutil.copytree(out, forged)
    board["systems"][1]["ci95"][0] += 5.0
    (forged / "board.json").write_text(json.dumps(board, sort_keys=True, indent=1), "utf-8")
    (forged / "manifest.sig").unlink(missing_ok=True)
    rehash(forged)
    problems = verify_bundle(forged, allow_unsigned=True).problems
    assert any("95% interval" in p for p in problems), problems
