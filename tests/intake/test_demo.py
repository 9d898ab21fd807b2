"""The bundled demo builds, and its planted gate failures and settled pairs are where
resources/demo/README.md says they are."""

import pytest

from arena.intake.demo import build_demo
from arena.ledger import Ledger, catalog, verdicts
from arena.rating.status import family_status


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    build_demo(path, replace=False)
    with Ledger.open(path, readonly=True) as ledger:
        yield ledger


def _failures(ledger, family):
    labels = {s.system_id: s.label for s in catalog.systems(ledger, family)}
    results = verdicts.gate_results(ledger, family)
    found = set()
    for output in catalog.outputs(ledger, family):
        for r in results[output.output_id]:
            if not r.passed:
                found.add((output.case_id, labels[output.system_id], output.sample, r.gate))
    return found


def test_the_demo_has_the_promised_sizes(demo):
    status = {row["name"]: row for row in family_status(demo)}
    assert (status["prose-en"]["systems"], status["prose-en"]["cases"]) == (5, 40)
    assert len({c.category for c in catalog.cases(demo, "prose-en")}) >= 3
    assert (status["zh-hans"]["systems"], status["zh-hans"]["cases"]) == (4, 12)
    assert (status["coding"]["systems"], status["coding"]["cases"]) == (4, 12)
    assert (status["fixes"]["systems"], status["fixes"]["cases"]) == (3, 6)
    samples = {(o.system_id, o.sample) for o in catalog.outputs(demo, "prose-en")}
    assert len(samples) == 6, "one system answers every case twice"


def test_every_gate_fails_where_planted_in_the_prose_family(demo):
    found = _failures(demo, "prose-en")
    assert {gate for *_, gate in found} == {"empty", "truncated", "length", "language"}
    assert ("explain-07", "dune-mini", 0, "empty") in found
    assert ("explain-02", "basalt-13b", 0, "truncated") in found
    assert ("advise-02", "dune-mini", 0, "length") in found
    assert ("explain-05", "ember-large", 0, "language") in found
    assert ("summarise-08", "ember-large", 1, "language") in found


def test_the_chinese_family_catches_traditional_drift_but_not_quoted_characters(demo):
    found = _failures(demo, "zh-hans")
    assert ("zh-02", "dune-mini", 0, "script") in found
    assert ("zh-06", "ember-large", 0, "script") in found
    assert ("zh-09", "ember-large", 0, "language") in found
    assert not {f for f in found if f[0] in ("zh-04", "zh-05")}


def test_only_two_passing_different_diffs_reach_the_rater(demo):
    (coding,) = family_status(demo, "coding")
    assert coding["pending_pairs"] == 17
    assert _failures(demo, "coding") >= {
        ("code-05", "dune-mini", 0, "empty"),
        ("code-09", "basalt-13b", 0, "truncated"),
    }


def test_the_fixes_family_leaves_two_passing_different_diffs_to_the_rater(demo):
    # Before its tests run here, on the results shipped with its outputs (tests/trials/
    # test_demo_trials.py runs them); its patches pass every gate.
    (fixes,) = family_status(demo, "fixes")
    assert fixes["pending_pairs"] == 7
    assert _failures(demo, "fixes") == set()


def test_the_demo_can_be_rebuilt_where_it_was(tmp_path):
    # As `arena demo` does at its default path: the old ledger's head file and file store
    # go with it, or the fresh ledger would refuse to be written behind the old head.
    path = tmp_path / "demo.sqlite"
    build_demo(path, replace=True)
    (tmp_path / "demo.sqlite.files").mkdir()
    assert build_demo(path, replace=True) == "4 families, 354 outputs"
    assert not (tmp_path / "demo.sqlite.files").exists()
