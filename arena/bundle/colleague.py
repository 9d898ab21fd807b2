"""`arena judges import --format bundle`: a colleague's votes, read from their verified bundle.

The bundle is verified and read as ``colleague_bundle`` does for every use of a colleague's
bundle (refused whole if it fails `arena verify --signer`, if the rater's key signed it, or
if it holds votes this ledger holds). Its votes in force (not retracted, not skips, not the
settler's) then become the judge's verdicts on the pairs as the colleague saw them,
``both_bad`` a tie. A vote's game is its place among the colleague's votes on that case and
pair as shown (1 the first), so a later bundle of the same colleague, which carries the
earlier votes, finds them again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from arena.bundle.colleague_bundle import (
    as_arena_writes,
    matched,
    read_colleague_bundle,
    refuse_held,
)
from arena.judges.importing import JudgeImportReport, Source, check_judge, store_verdicts
from arena.judges.verdict_files import Read
from arena.ledger import Ledger

_WINNER = {"left": "left", "right": "right", "tie": "tie", "both_bad": "tie", "skip": None}


def import_bundle(
    ledger: Ledger, path: Path, *, family: str, judge: str, kind: str, signer: str
) -> JudgeImportReport:
    """Store the votes of the bundle at ``path``, signed by ``signer``, as ``judge``'s."""
    check_judge(ledger, family, judge, kind)
    bundle = read_colleague_bundle(ledger, path, signer)
    with as_arena_writes(path):
        retracted = {r["vote_id"] for r in bundle.retractions}
        votes, games = [], Counter[tuple[str, str, str]]()
        for line, vote in enumerate(bundle.votes, start=1):
            pair = (str(vote["case_id"]), *bundle.systems(vote))
            games[pair] += 1  # every vote counts, so a later bundle numbers alike
            if vote["actor"] != "settler" and vote["vote_id"] not in retracted:
                votes.append((line, games[pair], vote))
    refuse_held(ledger, bundle, [v["vote_id"] for *_, v in votes])
    ours = matched(ledger, family, bundle, (v for *_, v in votes))

    def reads() -> Iterator[Read]:
        for line, game, vote in votes:
            left, right = (ours[system] for system in bundle.systems(vote))
            fields = ("case_id", "left_output", "right_output")
            yield Read(line, game, vote["case_id"], left, right, _WINNER[vote["choice"]], fields)

    source = Source(f"{path}:votes.jsonl", bundle.sha256, "bundle", signer)
    return store_verdicts(ledger, reads(), family=family, judge=judge, kind=kind, source=source)
