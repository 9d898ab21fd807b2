"""The fit's default settings: plain numbers, readable without loading numpy or SciPy."""

from __future__ import annotations

import math

#: Points per unit of log-strength: 400 points = a factor of 10 in odds.
POINTS_PER_LOGIT = 400.0 / math.log(10.0)

#: Default ridge penalty lambda: a N(0, 1/lambda) prior on strengths, i.e. a
#: standard deviation of 10 logits (~1,700 points). It keeps a system that
#: never loses finite and moves points of systems with 100+ decisive votes by
#: a few points at most. See docs/fitting.md.
DEFAULT_PENALTY = 0.01

#: Default decisive-vote threshold below which a system is preliminary.
DEFAULT_THRESHOLD = 10

#: Fewest comparisons with lengths that differ for a length bias to be reported: below
#: it the coefficient is too loose to tell (docs/fitting.md, "When a figure cannot be told").
MIN_LENGTH_COMPARISONS = 50
