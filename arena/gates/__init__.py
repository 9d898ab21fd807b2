"""Gates: automatic checks run on every output before any pair is shown.

Each gate is a pure function of (output, case, family) returning a
``GateResult`` whose reason a person can read; ``evaluate`` runs all five,
in ``GATES`` order, because every gate's result is stored, not only the
first failure.
"""

from __future__ import annotations

from collections.abc import Callable

from arena.gates.basic import LIMIT_REASONS, empty, is_truncated, length, truncated
from arena.gates.language_gate import language
from arena.gates.script_gate import script
from arena.records import GATES, Case, Family, GateResult, Output

Gate = Callable[[Output, Case, Family], GateResult]

# Stored verdicts are reused while their inputs are unchanged (arena.gates.screening.Fingerprints):
# bump this whenever a gate's logic, its thresholds or its resources change, so every
# output is gated again once.
GATES_VERSION = 2

GATE_FUNCTIONS: dict[str, Gate] = {
    "empty": empty,
    "truncated": truncated,
    "length": length,
    "language": language,
    "script": script,
}


def evaluate(output: Output, case: Case, family: Family) -> tuple[GateResult, ...]:
    """Every gate's result for ``output``, in ``GATES`` order."""
    if output.case_id != case.case_id:
        raise ValueError(
            f"case: output {output.output_id} answers {output.case_id}, not {case.case_id}"
        )
    return tuple(GATE_FUNCTIONS[name](output, case, family) for name in GATES)


__all__ = [
    "GATES_VERSION",
    "GATE_FUNCTIONS",
    "LIMIT_REASONS",
    "Gate",
    "empty",
    "evaluate",
    "is_truncated",
    "language",
    "length",
    "script",
    "truncated",
]
