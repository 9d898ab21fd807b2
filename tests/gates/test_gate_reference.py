"""Every gate's verdict on a varied corpus is what it was when the reference was made.

The import gates outputs a batch at a time (``gate_pool.evaluate_batch``) and the
window one at a time (``gates.evaluate``): both must give, word for word, the
results stored in ``gate_reference.json`` (see ``reference_corpus.py``).
"""

from __future__ import annotations

import json

from arena import gates
from arena.intake import gate_pool
from tests.gates.reference_corpus import REFERENCE, corpus, verdicts


def _reference() -> dict[str, list[list[object]]]:
    return json.loads(REFERENCE.read_text(encoding="utf-8"))


def test_each_output_gated_alone_matches_the_reference() -> None:
    reference = _reference()
    found = {o.output_id: verdicts(gates.evaluate(o, c, f)) for o, c, f in corpus()}
    assert found.keys() == reference.keys()
    assert [k for k in found if found[k] != reference[k]] == []


def test_outputs_gated_in_batches_match_the_reference() -> None:
    reference = _reference()
    by_family: dict[object, list] = {}
    for output, case, family in corpus():
        by_family.setdefault(family, []).append((output, case))
    found = {}
    for family, batch in by_family.items():
        for (output, _), results in zip(
            batch, gate_pool.evaluate_batch(family, batch), strict=True
        ):
            found[output.output_id] = verdicts(results)
    assert found.keys() == reference.keys()
    assert [k for k in found if found[k] != reference[k]] == []
