"""`arena judges import`: a judge's verdicts read from one file, in one transaction.

Formats (docs/judges.md): native JSON Lines, FastChat MT-bench pair judgments (two games a
line, the second with the sides swapped) and PandaLM's test set (one annotator column).
The file's sha256 is recorded with each verdict; a file already imported for the judge
adds nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.clock import now_iso
from arena.errors import BadInput
from arena.intake.jsonstream import iter_json_array, iter_json_lines
from arena.ledger import Ledger, catalog, judge_store

FORMATS = ("native", "fastchat-pair", "pandalm")
KINDS = ("human", "model")
_NATIVE = frozenset({"case_id", "left_system", "right_system", "winner", "game"})
_PANDALM_WINNER = {0: "tie", 1: "left", 2: "right"}


@dataclass(frozen=True)
class JudgeImportReport:
    family: str
    judge: str
    records: int
    verdicts_added: int
    skipped: int  # games a FastChat judge could not decide ("error")
    source_sha256: str


# One verdict as read: (line, game, case_id, left name, right name, winner or None to skip).
_Read = tuple[int, int, Any, Any, Any, str | None]


def _bad(path: Path, line: int, field: str, message: str) -> BadInput:
    return BadInput(message, path=str(path), line=line, field=field)


def _object(path: Path, line: int, record: Any) -> dict:
    if not isinstance(record, dict):
        raise _bad(path, line, "record", "expected a JSON object")
    return record


def _native(path: Path, _column: str | None) -> Iterator[_Read]:
    for line, raw in iter_json_lines(path):
        record = _object(path, line, raw)
        unknown = sorted(set(record) - _NATIVE)
        if unknown:
            raise _bad(path, line, unknown[0], "unknown field")
        winner = record.get("winner")
        if winner not in ("left", "right", "tie"):
            raise _bad(path, line, "winner", "expected left, right or tie")
        game = record.get("game", 1)
        if isinstance(game, bool) or not isinstance(game, int) or game < 1:
            raise _bad(path, line, "game", "expected a game number ≥ 1")
        yield (
            line,
            game,
            record.get("case_id"),
            record.get("left_system"),
            record.get("right_system"),
            winner,
        )


def _fastchat_winner(path: Path, line: int, field: str, value: Any, first: str) -> str | None:
    if value == "error":  # the judge's answer held no verdict: FastChat's own reading
        return None
    if value in ("tie", "tie (inconsistent)"):
        return "tie"
    if value not in ("model_1", "model_2"):
        raise _bad(path, line, field, "expected model_1, model_2, tie or error")
    return "left" if value == first else "right"


def _fastchat_pair(path: Path, _column: str | None) -> Iterator[_Read]:
    for line, raw in iter_json_lines(path):
        record = _object(path, line, raw)
        for field in ("question_id", "model_1", "model_2", "g1_winner", "g2_winner"):
            if field not in record:
                raise _bad(path, line, field, "missing")
        case, one, two = record["question_id"], record["model_1"], record["model_2"]
        # Game 1 shows model_1 as A (left); game 2 swaps them. Both winners name models.
        yield (
            line,
            1,
            case,
            one,
            two,
            _fastchat_winner(path, line, "g1_winner", record["g1_winner"], "model_1"),
        )
        yield (
            line,
            2,
            case,
            two,
            one,
            _fastchat_winner(path, line, "g2_winner", record["g2_winner"], "model_2"),
        )


def _pandalm(path: Path, column: str | None) -> Iterator[_Read]:
    if column is None:
        raise BadInput("give the annotator column to read (e.g. annotator2)", field="--column")
    for line, raw in iter_json_array(path):
        record = _object(path, line, raw)
        for field in ("idx", "cmp_key", column):
            if field not in record:
                raise _bad(path, line, field, "missing")
        models = record["cmp_key"].split("_") if isinstance(record["cmp_key"], str) else []
        if len(models) != 2:
            raise _bad(path, line, "cmp_key", "expected two model names joined by _")
        winner = _PANDALM_WINNER.get(record[column])
        if winner is None or isinstance(record[column], bool):
            raise _bad(path, line, column, "expected 0 (tie), 1 or 2")
        yield line, 1, record["idx"], models[0], models[1], winner


_READERS: dict[str, Callable[[Path, str | None], Iterator[_Read]]] = {
    "native": _native,
    "fastchat-pair": _fastchat_pair,
    "pandalm": _pandalm,
}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def import_judge(
    ledger: Ledger,
    path: Path,
    *,
    family: str,
    judge: str,
    kind: str,
    fmt: str = "native",
    column: str | None = None,
) -> JudgeImportReport:
    """Read ``path`` as ``fmt`` and store its verdicts as ``judge``'s, all or none."""
    if catalog.get_family(ledger, family) is None:
        raise catalog.no_such_family(ledger, family)
    if not judge or judge == "rater":
        raise BadInput("a judge needs a name other than 'rater'", field="--judge")
    if kind not in KINDS:
        raise BadInput(f"expected one of {', '.join(KINDS)}", field="--kind")
    if fmt not in FORMATS:
        raise BadInput(f"expected one of {', '.join(FORMATS)}", field="--format")
    if not path.is_file():
        raise BadInput("no such file", path=str(path))
    known = judge_store.judge_kind(ledger, family, judge)
    if known is not None and known != kind:
        raise BadInput(f"judge {judge!r} is already a {known} judge", field="--kind")
    sha = _sha256(path)
    cases = {c.case_id for c in catalog.cases(ledger, family)}
    systems: dict[str, str | None] = {}

    def system(line: int, field: str, name: Any) -> str:
        if not isinstance(name, str) or not name:
            raise _bad(path, line, field, "expected a system label or id")
        if name not in systems:
            found = catalog.find_system(ledger, name, family)
            systems[name] = None if found is None else found.system_id
        found_id = systems[name]
        if found_id is None:
            raise _bad(path, line, field, f"no system {name!r} in family {family!r}")
        return found_id

    rows, lines, skipped, at = [], set(), 0, now_iso()
    for line, game, case, left, right, winner in _READERS[fmt](path, column):
        lines.add(line)
        if isinstance(case, bool) or not isinstance(case, (str, int)) or str(case) not in cases:
            raise _bad(path, line, "case_id", f"no case {case!r} in family {family!r}")
        left_id, right_id = system(line, "left_system", left), system(line, "right_system", right)
        if left_id == right_id:
            raise _bad(path, line, "right_system", "a system cannot be judged against itself")
        if winner is None:
            skipped += 1
            continue
        rows.append(
            {
                "family": family,
                "judge": judge,
                "kind": kind,
                "case_id": str(case),
                "left_system": left_id,
                "right_system": right_id,
                "winner": winner,
                "game": game,
                "source_sha256": sha,
                "source_line": line,
                "imported_at": at,
            }
        )
    added = 0
    if not judge_store.source_imported(ledger, family, judge, sha):
        source = {"family": family, "judge": judge, "source_sha256": sha, "format": fmt}
        with ledger.atomic():
            judge_store.add_source(ledger, {**source, "signer": None, "imported_at": at})
            judge_store.add_verdicts(ledger, rows)
        added = len(rows)
    return JudgeImportReport(family, judge, len(lines), added, skipped, sha)
