"""The child of the SIGKILL harness: votes through RatingSession until it is killed.

It reports on a pipe, one line per step, so the parent knows what was
acknowledged:

- ``READY`` once the ledger is open and the session started;
- ``P <vote as JSON>`` just before the vote is written (the id it is about to write);
- ``A <vote_id>`` only after ``RatingSession.vote()`` / ``.skip()`` returned;
- ``U <vote_id>`` only after ``RatingSession.undo()`` returned;
- ``END`` when the family has no pair left.

Run in a forked child (the fast path of the test) or as a script:
``python kill_child.py LEDGER FAMILY SEED`` writes the same lines to stdout.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import sys


def _say(fd: int, line: str) -> None:
    data = (line + "\n").encode("utf-8")
    while data:
        data = data[os.write(fd, data) :]


def child_main(ledger_path: str, family: str, seed: int, fd: int) -> None:
    from arena.ledger import Ledger, voting
    from arena.rating.session import RatingSession
    from arena.records import VOTE_CHOICES

    real_record_vote = voting.record_vote

    def announcing_record_vote(ledger, vote):
        _say(fd, "P " + json.dumps(dataclasses.asdict(vote)))
        return real_record_vote(ledger, vote)

    voting.record_vote = announcing_record_vote
    rng = random.Random(seed)
    ledger = Ledger.open(ledger_path)
    session = RatingSession(ledger, family, seed=seed)
    _say(fd, "READY")
    while True:
        roll = rng.random()
        if roll < 0.08:
            undone = session.undo()
            if undone is not None:
                _say(fd, f"U {undone.vote_id}")
            continue
        if session.current() is None:
            _say(fd, "END")
            return
        if roll < 0.14:
            vote = session.skip()
        else:
            vote = session.vote(rng.choice(VOTE_CHOICES))
        _say(fd, f"A {vote.vote_id}")


if __name__ == "__main__":
    sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
    child_main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.stdout.fileno())
