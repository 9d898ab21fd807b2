"""The cycle collector, paused while a large structure is built.

Closing a round, or reading a family's pairs and history for a rating session, makes
hundreds of thousands of objects and no reference cycles: each collection the
allocations set off would only walk them again (a third of a close at a million votes,
a fifth of opening a session on 190,000 pairs).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()
