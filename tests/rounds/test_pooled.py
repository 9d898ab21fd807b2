"""Pooled rounds (`round close --with-judges`): the fit, the weighting, what stays the
rater's, and the default round untouched by judges in the ledger."""

from __future__ import annotations

import json
import random
import sqlite3

import numpy as np
import pytest

from arena.bundle.battles_out import export_battles
from arena.bundle.export import export_round, read_bundle
from arena.cli.main import main
from arena.errors import BadInput
from arena.ledger import Ledger, events, voting
from arena.ledger import round_store as stored_rounds
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from arena.rounds.scoring import fit_battles
from fitting import POINTS_PER_LOGIT, fit_prediction_powered
from tests.conftest import copy_ledger
from tests.rounds import pooled_ledger as pl

# What differs between two rounds closed on the same votes, and why it may: each round's
# own id and closing time, the ledger's head at export (a ledger holding judges has more
# commits), and the manifest's hash and signature, which cover those fields.
VOLATILE = ("round", "closed_at", "ledger_head")


@pytest.fixture
def voted(ledger, tmp_path):
    pl.build(ledger, tmp_path)
    return ledger


@pytest.fixture
def judged(voted, tmp_path):
    pl.add_judges(voted, tmp_path)
    return voted


def _choix_points(verdicts: list[tuple[pl.Verdict, float]], anchor: str) -> dict[str, float]:
    """choix's unpenalized ML fit (ILSR) of weighted verdicts, ties half each way, in
    points relative to ``anchor``: an implementation that shares no code with Arena's."""
    choix = pytest.importorskip("choix")
    names = list(pl.STRENGTH)
    comp = np.zeros((len(names), len(names)))
    for (_, left, right, winner), weight in verdicts:
        y = {"left": 1.0, "right": 0.0, "tie": 0.5}[winner]
        i, j = names.index(left), names.index(right)
        comp[i, j] += weight * y
        comp[j, i] += weight * (1 - y)
    strengths = choix.ilsr_pairwise_dense(comp, alpha=0.0, tol=1e-12, max_iter=10_000)
    top = strengths[names.index(anchor)]
    return {n: 1000 + POINTS_PER_LOGIT * (s - top) for n, s in zip(names, strengths, strict=True)}


def _points(found) -> dict[str, float]:
    return {row.label: row.points for row in found.systems}


def test_the_default_round_is_byte_for_byte_the_same_with_judges_in_the_ledger(tmp_path):
    # One ledger of votes, copied: judges go into the copy only.
    path = tmp_path / "votes.sqlite"
    with Ledger.open(path) as ledger:
        pl.build(ledger, tmp_path)
    copy = copy_ledger(path, tmp_path / "with-judges.sqlite")
    with Ledger.open(copy) as other:
        pl.add_judges(other, tmp_path)
        assert len(other.conn.execute("SELECT * FROM judge_verdicts").fetchall()) == 5 * pl.CASES
        alone = close_round(other, pl.FAMILY, RoundSettings())
        export_round(other, tmp_path / "judged", family=pl.FAMILY)
    with Ledger.open(path) as ledger:
        plain = close_round(ledger, pl.FAMILY, RoundSettings())
        export_round(ledger, tmp_path / "plain", family=pl.FAMILY)
    # The stored round, every field but its id and closing time.
    shown = [{k: v for k, v in r.to_json().items() if k not in VOLATILE} for r in (plain, alone)]
    assert json.dumps(shown[0], sort_keys=True) == json.dumps(shown[1], sort_keys=True)
    # The exported bundle, file by file (board, comparisons, chains, outputs, ...).
    files = [read_bundle(tmp_path / name) for name in ("plain", "judged")]
    assert set(files[0]) == set(files[1]) and "judges.jsonl" not in files[1]
    for name in sorted(set(files[0]) - {"manifest.json", "manifest.sha256", "manifest.sig"}):
        assert files[0][name] == files[1][name], name
    manifests = [
        {k: v for k, v in json.loads(f["manifest.json"]).items() if k not in VOLATILE}
        for f in files
    ]
    assert manifests[0] == manifests[1] and "with_judges" not in manifests[0]["settings"]
    # Worked out from the same inputs: closing again with judges imported restates the round.
    inputs = [
        sqlite3.connect(path).execute("SELECT inputs FROM rounds").fetchall()
        for path in (path, copy)
    ]
    assert inputs[0] == inputs[1]


def test_pooled_points_equal_choix_on_the_votes_and_verdicts_together(judged):
    found = close_round(judged, pl.FAMILY, RoundSettings(penalty=0.0, with_judges=("colleague",)))
    # The colleague has no more verdicts than the rater has votes: each is one vote.
    assert found.judges[0].weight == 1.0 and found.judges[0].fitted == pl.CASES
    expected = _choix_points(
        [(v, 1.0) for v in pl.rater_votes() + pl.colleague()], found.anchor.label
    )
    assert max(abs(_points(found)[n] - expected[n]) for n in expected) < 0.001
    rater_only = close_round(judged, pl.FAMILY, RoundSettings(penalty=0.0))
    assert max(abs(_points(found)[n] - _points(rater_only)[n]) for n in expected) > 5


def test_a_model_judge_on_no_voted_item_leaves_the_raters_board(judged):
    # The LLM judged other pairs of each case than the rater voted on: no vote can
    # correct it, so the prediction-powered board gives it no weight.
    found = close_round(judged, pl.FAMILY, RoundSettings(penalty=0.0, with_judges=("llm",)))
    (entry,) = found.judges
    assert (entry.verdicts, entry.fitted) == (4 * pl.CASES, 4 * pl.CASES)
    assert (entry.method, entry.lam, entry.effective_votes) == ("prediction_powered", 0.0, pl.CASES)
    rater_only = close_round(judged, pl.FAMILY, RoundSettings(penalty=0.0))
    assert _points(found) == _points(rater_only)
    assert found.board.uncertainty.method == "sandwich, prediction-powered"


def _echo(seed: int = 5) -> list[pl.Verdict]:
    """A model judge that judged the rater's own items in both orders and says what the
    rater said 80% of the time (else a draw of its own)."""
    rng = random.Random(seed)
    swap = {"left": "right", "right": "left", "tie": "tie"}
    found = []
    for case, left, right, winner in pl.rater_votes():
        said = winner if rng.random() < 0.8 else pl._draw(rng, left, right)
        again = winner if rng.random() < 0.8 else pl._draw(rng, left, right)
        found += [(case, left, right, said), (case, right, left, swap[again])]
    return found


def test_a_model_judge_gives_the_prediction_powered_board(judged, tmp_path):
    pl.add_judge(judged, tmp_path, "echo", _echo() + pl.llm(), kind="model")
    found = close_round(judged, pl.FAMILY, RoundSettings(with_judges=("echo",)))
    (entry,) = found.judges
    assert entry.method == "prediction_powered" and 0.0 < entry.lam <= 1.0
    low, high = entry.effective_votes_ci95
    assert pl.CASES < low < entry.effective_votes < high
    # The same fit from the verdicts themselves: each vote with the mean of the judge's
    # two verdicts on its item, the judge's other items unlabeled, at the recorded lam.
    names = list(pl.STRENGTH)
    y_of = {"left": 1.0, "right": 0.0, "tie": 0.5}
    said: dict[tuple[str, str, str], list[float]] = {}
    for case, left, right, winner in _echo() + pl.llm():
        first, second = sorted((left, right))
        y = y_of[winner] if left == first else 1.0 - y_of[winner]
        said.setdefault((case, first, second), []).append(y)
    votes = pl.rater_votes()
    voted = set()
    a, b, y, y_hat = [], [], [], []
    for case, left, right, winner in votes:
        first, second = sorted((left, right))
        voted.add((case, first, second))
        mean = float(np.mean(said[(case, first, second)]))
        a.append(names.index(left))
        b.append(names.index(right))
        y.append(y_of[winner])
        y_hat.append(mean if left == first else 1.0 - mean)
    others = [(k, float(np.mean(v))) for k, v in said.items() if k not in voted]
    again = fit_prediction_powered(
        np.array(a),
        np.array(b),
        np.array(y),
        np.array(y_hat),
        unlabeled_a=np.array([names.index(k[1]) for k, _ in others]),
        unlabeled_b=np.array([names.index(k[2]) for k, _ in others]),
        unlabeled_y_hat=np.array([m for _, m in others]),
        n_systems=len(names),
        lam=entry.lam,
        anchor=names.index(found.anchor.label),
    )
    points = _points(found)
    assert max(abs(points[n] - again.board.points[i]) for i, n in enumerate(names)) < 1e-6
    # Narrower than the rater's board alone, never wider.
    rater_only = close_round(judged, pl.FAMILY, RoundSettings())
    alone = {row.label: row.ci95 for row in rater_only.systems}
    for row in found.systems:
        if row.label != found.anchor.label:
            sandwich = row.ci95[1] - row.ci95[0]
            assert sandwich < alone[row.label][1] - alone[row.label][0]


def test_what_stays_the_raters_in_a_pooled_round(judged):
    plain = close_round(judged, pl.FAMILY, RoundSettings())
    pooled = close_round(judged, pl.FAMILY, RoundSettings(with_judges=("colleague", "llm")))
    assert _points(pooled) != _points(plain)
    # Votes, decisive votes and both-bad shares count the rater's votes; the summary is hers.
    rows = [{r.label: (r.votes, r.decisive_votes, r.both_bad_share) for r in f.systems}
            for f in (plain, pooled)]  # fmt: skip
    assert rows[0] == rows[1]
    summaries = [f.summary.to_json() for f in (plain, pooled)]
    summaries[0].pop("settled"), summaries[1].pop("settled")
    assert summaries[0] == summaries[1]
    # Intervals as the rater's board has them, the judges' verdicts resampled with their cases.
    sure = pooled.board.uncertainty
    assert sure is not None and sure.available and sure.regime.judges == 2
    assert all(row.ci95 is not None for row in pooled.systems)
    assert {r.label: r.ci95 for r in pooled.systems} != {r.label: r.ci95 for r in plain.systems}


def test_more_judges_than_were_checked_have_no_intervals(judged, tmp_path):
    names = [f"j{n}" for n in range(6)]
    for seed, name in enumerate(names):
        pl.add_judge(judged, tmp_path, name, pl.colleague(seed=10 + seed))
    pooled = close_round(judged, pl.FAMILY, RoundSettings(with_judges=tuple(names)))
    assert pooled.board.uncertainty.reason == (
        "pooled with 6 judges; intervals were checked with up to 5"
    )
    assert all(row.ci95 is None for row in pooled.systems)


def test_a_judge_that_adds_no_comparison_changes_nothing_but_the_settings(voted, tmp_path):
    # Every verdict of this judge is on a case the rater retired: left out, as her votes are.
    events.add_event(voted, pl.FAMILY, "retire_case", case_id=pl.case_id(0))
    pl.add_judge(voted, tmp_path, "late", [(pl.case_id(0), "alpha", "beta", "left")] * 3)
    plain = close_round(voted, pl.FAMILY, RoundSettings()).to_json()
    pooled = close_round(voted, pl.FAMILY, RoundSettings(with_judges=("late",))).to_json()
    (entry,) = pooled["settings"].pop("with_judges")
    assert (entry["verdicts"], entry["fitted"], entry["left_out"]) == (3, 0, {"retired_case": 3})
    # The same cases; the pooled round's case set is told since the plain round.
    assert pooled["settings"]["case_set"]["since"] == plain["round"]
    for shown in (plain, pooled):
        for key in VOLATILE:
            shown.pop(key, None)
        shown["settings"]["case_set"].pop("since")
        shown["settings"]["case_set"].update(added=[], retired=[])
    assert json.dumps(plain, sort_keys=True) == json.dumps(pooled, sort_keys=True)


def test_unknown_judges_are_refused_and_nothing_is_stored(judged):
    with pytest.raises(BadInput, match="no judge 'nobody' in family 'p'; its judges: colleague"):
        close_round(judged, pl.FAMILY, RoundSettings(with_judges=("colleague", "nobody")))
    assert stored_rounds.rounds(judged, pl.FAMILY) == []


def test_a_pooled_round_is_closed_again_when_its_judges_grow(judged, tmp_path):
    settings = RoundSettings(with_judges=("llm", "colleague"))
    first = close_round(judged, pl.FAMILY, settings)
    again = close_round(judged, pl.FAMILY, RoundSettings(with_judges=("colleague", "llm")))
    assert again.to_json()["systems"] == first.to_json()["systems"]
    # A second pass over ten pairs: their second games (the same games again would be
    # refused, or not stored twice).
    pl.add_judge(judged, tmp_path, "colleague", pl.colleague(seed=9)[:10], first_game=2)
    grown = close_round(judged, pl.FAMILY, settings)
    assert grown.judges[0].verdicts == pl.CASES + 10
    assert len(grown.judges[0].sources) == 2
    assert [r["pooled"] for r in stored_rounds.rounds(judged, pl.FAMILY)] == [1, 1, 1]


def test_round_show_says_the_round_is_pooled_and_with_whom(tmp_path, capsys):
    path = tmp_path / "cli.sqlite"
    with Ledger.open(path) as ledger:
        pl.build(ledger, tmp_path)
        pl.add_judges(ledger, tmp_path)
    base = ["--ledger", str(path), "round"]
    assert main([*base, "close", "--family", "p", "--with-judges", "llm,colleague", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [j["judge"] for j in shown["settings"]["with_judges"]] == ["colleague", "llm"]
    assert main([*base, "show", "--family", "p"]) == 0
    text = capsys.readouterr().out
    assert "pooled with judges colleague, llm" in text.splitlines()[0]
    n = 4 * pl.CASES
    # A model judge on no voted item: prediction-powered at weight 0, worth no vote more.
    assert (
        f"pooled: llm (model), {n} verdicts, {n} predicting the rater's, prediction-powered "
        f"at lam 0: worth {pl.CASES} rater votes (95% {pl.CASES}–{pl.CASES})" in text
    )
    assert (
        "settled without a vote: Every fitted comparison is a vote by the rater or a verdict "
        "of a pooled judge (colleague, llm)." in text
    )
    assert main([*base, "close", "--family", "p", "--with-judges", "gpt"]) == 2
    assert "--with-judges: no judge 'gpt'" in capsys.readouterr().err


def test_pooling_with_a_rater_without_votes_is_refused(ledger, tmp_path):
    pl.build(ledger, tmp_path)
    pl.add_judges(ledger, tmp_path)
    for vote_id in [r[0] for r in ledger.conn.execute("SELECT vote_id FROM votes")]:
        voting.retract(ledger, vote_id)
    with pytest.raises(BadInput, match="the rater has no votes in the fit"):
        close_round(ledger, pl.FAMILY, RoundSettings(with_judges=("colleague",)))
    assert stored_rounds.rounds(ledger, pl.FAMILY) == []


def test_with_judges_names_at_least_one(tmp_path, capsys):
    path = tmp_path / "cli.sqlite"
    with Ledger.open(path) as ledger:
        pl.build(ledger, tmp_path)
    command = ["--ledger", str(path), "round", "close", "--family", "p", "--with-judges", " , "]
    assert main(command) == 2
    assert "--with-judges: name at least one judge" in capsys.readouterr().err


def test_a_pooled_rounds_battles_give_back_its_points(judged, tmp_path):
    # A person's verdicts are comparisons of the fit (a model's are predictions, which a
    # battles file cannot carry).
    pooled = close_round(judged, pl.FAMILY, RoundSettings(with_judges=("colleague",)))
    export_battles(judged, tmp_path / "battles.json", round_id=pooled.round_id)
    battles = json.loads((tmp_path / "battles.json").read_text("utf-8"))
    assert sum(b["source"] == "judge" for b in battles) == pl.CASES
    board = fit_battles(str(tmp_path / "battles.json"), anchor=pooled.anchor.label)
    refit = {s["system"]: s["points"] for s in board["systems"]}
    assert max(abs(refit[n] - p) for n, p in _points(pooled).items()) < 0.01
