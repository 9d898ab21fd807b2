"""`arena judges show` drawing its item bootstraps by counts, refitting the length bias on
every resample at once and reading the judge's worth from arrays: its figures equal the
ones computed as before (the oracles in tests/fitting/reference_judge_*.py and
tests/judges/reference_worth.py), on PandaLM's annotators and on a fixed-seed ledger of the
benchmark's (benchmarks/judges_bench.py): every value and every interval but the item
bootstraps' to 1e-9, the length bias's ends to 1e-6 of its width (the same resamples, each
fitted to the estimator's tolerance), the item bootstraps' ends within their Monte Carlo
error (other draws of the same distribution)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from arena import fit
from arena.judges import comparison
from arena.ledger import Ledger, catalog, judge_store
from tests.conftest import REALDATA
from tests.fitting import reference_judge_agreement, reference_judge_board
from tests.judges import reference_worth
from tests.judges.pandalm_files import pandalm_ledger

TESTSET = REALDATA / "pandalm" / "testset-v1.json"
# The figures whose intervals come from the bootstrap over items (drawn by counts now).
BY_ITEMS = {
    "agreement_with_ties",
    "agreement_without_ties",
    "kappa",
    "position_consistency",
    "first_position_preference",
    "alpha",
}
# An interval end of 2000 percentile resamples has a Monte Carlo SD of about 1.5% of the
# interval's width; two independent ones differ by about 2%: 7 SD.
MONTE_CARLO = 0.15


def _old_report(ledger: Ledger, family: str, monkeypatch: pytest.MonkeyPatch) -> dict:
    """The report with the agreement figures and the length bias computed as before."""
    with monkeypatch.context() as patched:
        for name in ("pair_agreement", "position_bias", "krippendorff_alpha"):
            patched.setattr(fit, name, getattr(reference_judge_agreement, name), raising=False)
        patched.setattr(
            fit, "length_bias_interval", reference_judge_board.length_bias_interval, raising=False
        )
        return comparison.judges_report(ledger, family)


def _compare(old, new, path: str = "") -> None:
    if isinstance(old, dict):
        assert old.keys() == new.keys(), path
        for key in old:
            _compare(old[key], new[key], f"{path}/{key}")
        if {"value", "low", "high"} <= old.keys() and old["low"] is not None:
            width = old["high"] - old["low"]
            name = path.rsplit("/", 1)[-1]
            if name in BY_ITEMS or "/between_raters/" in path:
                tolerance = MONTE_CARLO * width + 1e-9
            elif name == "length_bias":
                tolerance = 1e-6 * width + 1e-9
            else:
                return
            for end in ("low", "high"):
                assert new[end] == pytest.approx(old[end], abs=tolerance), f"{path}/{end}"
    elif isinstance(old, list):
        assert len(old) == len(new), path
        for n, (a, b) in enumerate(zip(old, new, strict=True)):
            _compare(a, b, f"{path}[{n}]")
    elif isinstance(old, float) and isinstance(new, float):
        if path.endswith(("/low", "/high")) and path.rsplit("/", 2)[-2] in BY_ITEMS | {
            "length_bias"
        }:
            return  # compared with their figure
        if "/between_raters/" in path and path.endswith(("/low", "/high")):
            return
        assert new == pytest.approx(old, abs=1e-9 * max(1.0, abs(old))), path
    else:
        assert old == new, path


def _worth_as_before(ledger: Ledger, family: str, report: dict) -> dict[str, dict | None]:
    systems = [s.system_id for s in catalog.systems(ledger, family)]
    index = {s: i for i, s in enumerate(systems)}
    votes = judge_store.rater_verdicts(ledger, family)
    verdicts = judge_store.verdicts(ledger, family)
    cases = {c: i for i, c in enumerate(sorted({v.case_id for v in votes + verdicts}))}
    anchor = report["anchor"]["system"] if report["anchor"] else None
    found = {}
    for row in report["judges"]:
        mine = [v for v in verdicts if v.judge == row["judge"]]
        found[row["judge"]] = reference_worth.judge_worth(
            votes,
            mine,
            index,
            cases,
            anchor=None if anchor is None else index[anchor],
            seed=report["seed"],
        )
    return found


@pytest.mark.skipif(not TESTSET.is_file(), reason="no ../shared/realdata/pandalm")
def test_pandalm_figures_equal_the_old_computation(tmp_path, monkeypatch):
    ledger = pandalm_ledger(TESTSET, tmp_path)
    with Ledger.open(Path(ledger)) as opened:
        new = comparison.judges_report(opened, "p")
        old = _old_report(opened, "p", monkeypatch)
    assert [row["length_bias"]["low"] for row in new["judges"]] != [None, None]
    _compare(old, new)


def test_a_fixed_seed_ledger_s_figures_equal_the_old_computation(tmp_path, monkeypatch):
    from benchmarks.judges_bench import build

    path = tmp_path / "bench.sqlite"
    build(path, votes=1500, verdicts=1200, systems=6, cases=200)
    with Ledger.open(path) as ledger:
        new = comparison.judges_report(ledger, "big")
        old = _old_report(ledger, "big", monkeypatch)
        worth = _worth_as_before(ledger, "big", new)
    _compare(old, new)
    for row in new["judges"]:
        figure, lam = worth[row["judge"]]
        assert row["worth_lam"] == pytest.approx(lam, abs=1e-12)
        for key in ("value", "low", "high", "count"):
            assert row["worth"][key] == pytest.approx(figure[key], abs=1e-9)
        assert math.isfinite(row["length_bias"]["low"])
