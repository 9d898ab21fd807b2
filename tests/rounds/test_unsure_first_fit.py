"""A round whose rater's pairs were drawn first where a run judge was unsure: the
prediction-powered fit weighs the votes by the recorded probabilities, stays unbiased,
and `arena verify` fits it again from the bundle."""

from __future__ import annotations

import json

import numpy as np

from arena import fit
from arena.bundle.export import export_round, read_bundle
from arena.bundle.verify import verify_bundle
from arena.intake.outputs import import_file
from arena.ledger import family_changes, judge_runs
from arena.rating.session import RatingSession
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from arena.rounds.settings_text import settings_lines
from tests.conftest import native_line
from tests.rounds import pooled_ledger as pl

BOOST = 4.0


def _draw_without_replacement(rng, weights, n):
    """Draw ``n`` of the items one by one, each with probability proportional to its
    weight among those left, as the scheduler does: (items, pi, candidates)."""
    left = list(range(len(weights)))
    chosen, pis, ms = [], [], []
    for _ in range(n):
        w = np.array([weights[i] for i in left])
        at = int(rng.choice(len(left), p=w / w.sum()))
        chosen.append(left[at])
        pis.append(w[at] / w.sum())
        ms.append(len(left))
        del left[at]
    return chosen, np.array(pis), np.array(ms)


def test_the_weighted_fit_is_unbiased_where_unsure_first_chose_the_votes():
    # Three systems, 150 items per system pair; a judge unsure of a fifth of them (where
    # the rater's outcomes run the other way), right on the others. The target: the
    # rater's board over every item. 40 votes per pair, drawn uniformly or unsure first.
    rng = np.random.default_rng(5)
    pairs = [(0, 1), (0, 2), (1, 2)]
    strength = np.array([0.6, 0.0, -0.5])
    items = 150
    a = np.repeat([p[0] for p in pairs], items)
    b = np.repeat([p[1] for p in pairs], items)
    unsure = np.tile(np.arange(items) < items // 5, len(pairs))
    p_win = 1 / (1 + np.exp(strength[b] - strength[a]))
    p_win = np.where(unsure, 1 - p_win, p_win)  # the judge's doubtful items go the other way
    errors = {"uniform": [], "unsure_first": []}
    for _ in range(60):
        y = (rng.random(a.size) < p_win).astype(float)
        y_hat = np.where(unsure, 0.5, np.clip(p_win + rng.normal(0, 0.1, a.size), 0, 1))
        truth = fit.fit_points(a, b, y, n_systems=3, anchor=1).points
        for design in errors:
            voted, probability = [], []
            for s in range(len(pairs)):
                weights = np.where(unsure[s * items : (s + 1) * items], BOOST, 1.0)
                if design == "uniform":
                    weights = np.ones(items)
                chosen, pis, ms = _draw_without_replacement(rng, weights, 40)
                voted += [s * items + c for c in chosen]
                probability += list(pis * ms)  # m * pi: 1 for a uniform draw
            voted = np.array(voted)
            rest = np.setdiff1d(np.arange(a.size), voted)
            inverse = 1 / np.array(probability)
            result = fit.fit_prediction_powered(
                a[voted],
                b[voted],
                y[voted],
                y_hat[voted],
                unlabeled_a=a[rest],
                unlabeled_b=b[rest],
                unlabeled_y_hat=y_hat[rest],
                n_systems=3,
                anchor=1,
                n_resamples=1,
                selection_probability=None
                if design == "uniform"
                else 1 / inverse / (1 / inverse).max(),
            )
            errors[design].append(result.board.points - truth)
    for design, found in errors.items():
        mean = np.mean(found, axis=0)
        spread = np.std(found, axis=0) / np.sqrt(len(found))
        # Mean error within 3 standard errors of 0, and a few points at most.
        assert np.all(np.abs(mean) < np.maximum(3 * spread, 3.0)), (design, mean, spread)


def _family(ledger, folder):
    outputs = folder / "outputs.jsonl"
    outputs.write_text(
        "\n".join(
            native_line(
                pl.case_id(i),
                label,
                f"{label} explains question {i} in plain English sentences. "
                + "It keeps the answer clear for the reader. " * (1 + (i + n) % 3),
            )
            for i in range(pl.CASES)
            for n, label in enumerate(pl.STRENGTH)
        )
        + "\n",
        encoding="utf-8",
    )
    import_file(ledger, outputs, family=pl.FAMILY, fmt="native")


def _run_judge(ledger, unsure_cases):
    """A run judge (its replies only) that said tie on ``unsure_cases`` for every pair."""
    from arena.ledger import catalog

    ids = {s.label: s.system_id for s in catalog.systems(ledger, pl.FAMILY)}
    with ledger.atomic():
        judge_runs.add_judge(
            ledger, pl.FAMILY, judge_runs.StoredJudge("run", "1" * 64, {}, "2" * 64), "2026"
        )
        for i in range(pl.CASES):
            for left, right in pl.PAIRS:
                verdict = "tie" if i in unsure_cases else "left"
                judge_runs.add_reply(
                    ledger,
                    pl.FAMILY,
                    judge_runs.Reply(
                        "run", "1" * 64, pl.case_id(i), ids[left], ids[right], 1, verdict,
                        0, "3" * 64, "2" * 64, None, None, None, "2026-01-01T00:00:00Z",
                    ),
                )  # fmt: skip


def test_verify_fits_again_a_round_closed_with_unsure_first(ledger, tmp_path):
    _family(ledger, tmp_path)
    pl.add_judge(ledger, tmp_path, "llm", pl.llm(), kind="model")
    _run_judge(ledger, set(range(0, pl.CASES, 4)))
    with ledger.atomic():
        family_changes.add_change(ledger, pl.FAMILY, "unsure_first", "on")
    session = RatingSession(ledger, pl.FAMILY, seed=3, repeat_share=0.0)
    rng = np.random.default_rng(0)
    for _ in range(150):
        if session.current() is None:
            break
        session.vote(("left", "right", "tie")[int(rng.integers(3))])
    rows = ledger.conn.execute("SELECT probability, candidates, unsure FROM presentation_draws")
    drawn = list(rows)
    assert any(abs(p * m - 1) > 1e-9 for p, m, _ in drawn)
    # Unsure items come first more often than their share (a quarter of the cases): in the
    # first votes, before the least-voted rule has used most of them up.
    first = drawn[:40]
    assert sum(u for *_, u in first) / len(first) > 0.4
    found = close_round(ledger, pl.FAMILY, RoundSettings(with_judges=("llm",)))
    assert found.unsure_first == "on"
    design = dict(settings_lines("votes", found))["pair design"]
    assert "unsure first" in design
    export_round(ledger, tmp_path / "bundle", family=pl.FAMILY)
    files = read_bundle(tmp_path / "bundle")
    assert "draws.jsonl" in files
    report = verify_bundle(tmp_path / "bundle", allow_unsigned=True)
    assert report.problems == []
    # Verify weighs the votes by the draws: without them the board it fits differs.
    broken = tmp_path / "broken"
    export_round(ledger, broken, family=pl.FAMILY)
    text = (broken / "draws.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in text]
    for row in rows:
        row["probability"], row["candidates"] = 1.0, 1
    (broken / "draws.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
    )
    assert verify_bundle(broken, allow_unsigned=True).problems != []
    manifest = json.loads(files["manifest.json"])
    assert manifest["settings"]["unsure_first"] == "on"
