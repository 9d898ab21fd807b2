"""κ between two raters depends on the order each item is coded in: the between-raters
block codes it as the reference rater first saw it, so the pair's κ reads the same as the
other rater's row where the judges are compared with the reference."""

from __future__ import annotations

import numpy as np
import pytest

from arena.judges.between_raters import between_raters
from arena.ledger.judge_store import JudgeVerdict
from tests.judges.test_between_raters import CODE, hand_kappa


def _two_raters(rng: np.random.Generator) -> tuple[list[JudgeVerdict], list[JudgeVerdict]]:
    """dana saw every item x left of y; lee saw the odd items the other way round."""
    dana, lee = [], []
    for i in range(80):
        a, b = (str(rng.choice(["left", "right", "tie"], p=p)) for p in ([0.6, 0.2, 0.2],) * 2)
        dana.append(JudgeVerdict("dana", f"c{i}", "x", "y", a, 1))
        lee.append(JudgeVerdict("lee", f"c{i}", *(("y", "x") if i % 2 else ("x", "y")), b, 1))
    return dana, lee


def _oriented(verdicts: list[JudgeVerdict], first: dict[str, str]) -> list[int]:
    """Each answer coded -1/0/+1 on the item with ``first[case]`` as its first system."""
    return [
        CODE[v.winner] if v.left_system == first[v.case_id] else -CODE[v.winner] for v in verdicts
    ]


def test_kappa_is_on_the_reference_raters_order_whoever_voted_first():
    dana, lee = _two_raters(np.random.default_rng(3))
    given = {"dana": dana, "lee": lee}  # dana voted first
    for reference in ("dana", "lee"):
        orders = {v.case_id: v.left_system for v in given[reference]}
        expected = hand_kappa(_oriented(dana, orders), _oriented(lee, orders))
        (pair,) = between_raters(given, reference=reference)["pairs"]
        assert pair["raters"] == ["dana", "lee"]  # listed as given, whoever is the reference
        assert pair["kappa"]["value"] == pytest.approx(expected, abs=1e-6)
    # The two orders do give two κ: the reference is not a formality.
    by_dana = between_raters(given, reference="dana")["pairs"][0]["kappa"]["value"]
    by_lee = between_raters(given, reference="lee")["pairs"][0]["kappa"]["value"]
    assert by_dana != pytest.approx(by_lee, abs=1e-3)
    # Without a reference, the first given.
    assert between_raters(given)["pairs"][0]["kappa"]["value"] == pytest.approx(by_dana)


def test_the_other_raters_row_and_the_pair_read_one_kappa(ledger, tmp_path):
    import json

    from arena.intake.votes import import_votes
    from arena.judges.comparison import judges_report
    from tests.rating.colleague import SYSTEMS, rated_by_colleague

    rated_by_colleague(ledger, tmp_path)  # dana: case n, SYSTEMS n and n+1 (mod 3), n < 24
    lines = []
    for n in range(24):
        left, right = SYSTEMS[n % 3], SYSTEMS[(n + 1) % 3]
        lines.append(
            {
                "case_id": f"c{n:02d}",
                "left_system": right if n % 2 else left,  # lee saw the odd ones swapped
                "right_system": left if n % 2 else right,
                "choice": ("left", "left", "left", "right", "tie")[n % 5],
                "session": "lee's tuesday",
                "actor": "lee",
                "shown_at": f"2026-11-02T10:{n:02d}:00Z",
                "voted_at": f"2026-11-02T10:{n:02d}:30Z",
            }
        )
    path = tmp_path / "lee.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    import_votes(ledger, path, family="team")
    kappas = []
    for reference, other in (("lee", "dana"), ("dana", "lee")):
        report = judges_report(ledger, "team", rater=reference)
        (row,) = report["judges"]
        (pair,) = report["between_raters"]["pairs"]
        assert row["judge"] == other and row["overlap"] == pair["overlap"] == 24
        assert row["kappa"]["value"] is not None
        kappas.append(row["kappa"]["value"])
        assert pair["kappa"]["value"] == pytest.approx(row["kappa"]["value"], abs=1e-12)
    assert kappas[0] != pytest.approx(kappas[1], abs=1e-3)  # the order matters here
