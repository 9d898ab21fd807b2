"""`arena import-votes`: votes cast elsewhere, moved into a family's ledger.

JSON Lines, one vote per line (docs/formats.md). Ids are derived from the
file's content, so importing the same file again adds nothing; one bad line
and nothing is added. Lines are checked one by one and written a batch at a
time (``vote_batch.record_many``): the same rows, hash chains and refusals as
writing each line as it is read, at a million lines.
"""

from __future__ import annotations

import hashlib
from array import array
from bisect import bisect_left
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from arena.canonical import content_hash
from arena.errors import BadInput, unknown_field
from arena.intake.jsonstream import Progress, iter_json_lines
from arena.ledger import Ledger, catalog, vote_batch, voting
from arena.ledger.rater_keys import rater_keys
from arena.records import (
    IDLE_CAP_MS,
    VOTE_CHOICES,
    CaseId,
    OutputId,
    Presentation,
    PresentationId,
    Session,
    SessionId,
    Vote,
    VoteId,
    name_problem,
)
from arena.redact import Redactor

REQUIRED = (
    "case_id",
    "left_system",
    "right_system",
    "choice",
    "session",
    "actor",
    "shown_at",
    "voted_at",
)
OPTIONAL = ("left_sample", "right_sample", "repeat_of")
_REQUIRED = frozenset(REQUIRED)
_FIELDS = frozenset(REQUIRED + OPTIONAL)
# Lines checked before their rows are written together.
BATCH = 10_000
# Larger integers cannot be hashed (arena.canonical).
_SAFE_INT = 2**53
_PLAIN = frozenset({str, int, float, bool, type(None)})


@dataclass(frozen=True)
class VoteImportReport:
    family: str
    records: int
    votes_added: int
    sessions_added: int


def _time(value: Any, path: Path, line: int, name: str) -> tuple[str, datetime]:
    if not isinstance(value, str):
        raise BadInput("expected an ISO 8601 time", path=str(path), line=line, field=name)
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise BadInput(
            f"not an ISO 8601 time: {value!r}", path=str(path), line=line, field=name
        ) from None
    if moment.tzinfo is None:
        raise BadInput(
            "give the time zone (e.g. Z or +00:00)", path=str(path), line=line, field=name
        )
    return value, moment


def import_votes(
    ledger: Ledger,
    path: Path,
    *,
    family: str,
    redactor: Redactor | None = None,
    progress: Progress | None = None,
) -> VoteImportReport:
    target = catalog.get_family(ledger, family)
    if target is None:
        raise BadInput(f"no family named {family!r}: import its outputs first", field="--family")
    if not path.is_file():
        raise BadInput("no such file", path=str(path))
    redactor = redactor or Redactor()
    run = _VoteImport(ledger, path, family)
    with vote_batch.large_writes(ledger), ledger.atomic():
        try:
            for line, record in iter_json_lines(path, progress):
                run.add(line, _redacted(redactor, record))
        except BadInput:
            run.flush()  # a refusal of an earlier line comes first
            raise
        run.flush()
        if not run.records:  # as an import of outputs or cases: an empty file is a mistake
            raise BadInput("no votes found", path=str(path))
    return VoteImportReport(family, run.records, run.added, run.sessions_added)


def _redacted(redactor: Redactor, record: Any) -> Any:
    """``redactor.value(record)``; a line of plain values under the known field names
    comes back as it is when there is no secret to look for."""
    if (
        redactor.secrets
        or type(record) is not dict
        or not _FIELDS.issuperset(record)
        or not _PLAIN.issuperset(map(type, record.values()))
    ):
        return redactor.value(record)
    return record


class _Lines:
    """The lines read so far and the id each was given (14 bytes a line: ids are
    "imp-"/"imv-" and 28 hex digits), for ``repeat_of`` and to refuse a line given twice.

    Each batch's ids are checked against all before, by their first 8 bytes kept
    sorted in an array; a match is confirmed on the whole id. Flat arrays, not a
    dict: a million lines take some 30 MB.
    """

    def __init__(self) -> None:
        self.lines = array("q")
        self.ids = bytearray()
        self._sorted = np.empty(0, dtype=np.uint64)
        self._checked = 0  # lines whose ids are in _sorted

    def add(self, line: int, digest: str) -> None:
        self.lines.append(line)
        self.ids += bytes.fromhex(digest[:28])

    def find(self, line: Any) -> str | None:
        """The id digits of the earlier line numbered ``line`` (as a dict keyed by line
        numbers finds it: 1.0 and true are line 1), or None."""
        if isinstance(line, float) and line.is_integer():
            line = int(line)
        if type(line) not in (int, bool):
            return None
        at = bisect_left(self.lines, line)
        if at == len(self.lines) or self.lines[at] != line:
            return None
        return self.ids[14 * at : 14 * at + 14].hex()

    def first_repeat(self) -> tuple[int, int] | None:
        """The first line since the last call whose id an earlier line has, with that
        earlier line; then the lines since the last call count as checked."""
        start, end = self._checked, len(self.lines)
        if start == end:
            return None
        view = np.frombuffer(bytes(self.ids[14 * start : 14 * end]), dtype=np.uint8)
        new = view.reshape(-1, 14)[:, :8].copy().view(">u8").ravel().astype(np.uint64)
        suspects: set[int] = set()
        if self._sorted.size:
            at = np.searchsorted(self._sorted, new).clip(0, self._sorted.size - 1)
            suspects.update(np.flatnonzero(self._sorted[at] == new).tolist())
        order = np.argsort(new, kind="stable")
        ordered = new[order]
        suspects.update(order[np.flatnonzero(ordered[1:] == ordered[:-1]) + 1].tolist())
        self._sorted = np.insert(self._sorted, np.searchsorted(self._sorted, ordered), ordered)
        self._checked = end
        for index in sorted(suspects):
            earlier = self._earlier_same_id(start + index)
            if earlier is not None:
                return self.lines[start + index], self.lines[earlier]
        return None

    def _earlier_same_id(self, index: int) -> int | None:
        wanted = bytes(self.ids[14 * index : 14 * index + 14])
        at = self.ids.find(wanted, 0, 14 * index)
        while at != -1 and at % 14:
            at = self.ids.find(wanted, at + 1, 14 * index)
        return None if at == -1 else at // 14


class _VoteImport:
    def __init__(self, ledger: Ledger, path: Path, family: str) -> None:
        self.ledger = ledger
        self.path = path
        self.family = family
        self.records = self.added = self.sessions_added = 0
        self.seen = _Lines()
        self.pending: list[tuple[Presentation, Vote]] = []
        self.pending_lines: list[int] = []
        known = voting.sessions(ledger, family)
        self.sessions = {s.session_id for s in known}
        self.session_ids: dict[str, SessionId] = {}
        self.last_number = max((s.number for s in known), default=0)
        self.cases = {c.case_id for c in catalog.cases(ledger, family)}
        # Colleagues' names: their votes come from bundles their key signed, not from logs.
        self.colleagues = {k.rater: k.signer for k in rater_keys(ledger)}
        # Looked up once each: systems by the name given, outputs by where they sit.
        self.systems: dict[str, str | None] = {}
        self.outputs: dict[str, dict[tuple[str, int], OutputId]] = {}

    def _bad(self, line: int, field: str, message: str) -> BadInput:
        return BadInput(message, path=str(self.path), line=line, field=field)

    def _system(self, line: int, field: str, name: Any) -> str:
        if not isinstance(name, str) or not name:
            raise self._bad(line, field, "expected a system label or id")
        if name not in self.systems:
            system = catalog.find_system(self.ledger, name, self.family)
            self.systems[name] = None if system is None else system.system_id
        system_id = self.systems[name]
        if system_id is None:
            raise self._bad(line, field, f"no system {name!r} in family {self.family!r}")
        return system_id

    def _sample(self, line: int, field: str, value: Any) -> int:
        if value is None:
            return 0
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self._bad(line, field, "expected a sample index ≥ 0")
        return value

    def _output(self, case_id: str, system_id: str, sample: int) -> OutputId | None:
        """The id of the output of ``system_id`` (its sample ``sample``) on the case, if
        the ledger has it (each case's outputs are read once)."""
        stored = self.outputs.get(case_id)
        if stored is None:
            stored = self.outputs[case_id] = vote_batch.case_outputs(
                self.ledger, self.family, case_id
            )
        return stored.get((system_id, sample))

    def _session(self, line: int, value: Any, actor: str, started: str) -> SessionId:
        if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
            raise self._bad(line, "session", "expected a session name or number")
        name = str(value)
        session_id = self.session_ids.get(name)
        if session_id is None and (problem := name_problem(name)) is not None:
            raise self._bad(line, "session", problem)
        if session_id is None:
            session_id = self.session_ids[name] = SessionId(
                "import-" + content_hash({"family": self.family, "session": name})[:24]
            )
        if session_id not in self.sessions:
            self.last_number += 1
            session = Session(session_id, self.family, self.last_number, 0, actor, started)
            voting.add_session(self.ledger, session)
            self.sessions.add(session_id)
            self.sessions_added += 1
        return session_id

    def _key(self, line: int, fields: dict[str, Any], original: str | None) -> str:
        """content_hash of what the vote is: orjson writes canonical JSON's bytes for
        these values (strings, integers within ±2**53, null)."""
        for name, value in fields.items():
            if type(value) is int and not -_SAFE_INT <= value <= _SAFE_INT:
                raise self._bad(line, name, "a number beyond ±2**53: give it as a string")
        body = {"family": self.family, "record": fields, "repeat_of": original}
        return hashlib.sha256(orjson.dumps(body, option=orjson.OPT_SORT_KEYS)).hexdigest()

    def add(self, line: int, record: Any) -> None:
        self.records += 1
        if not isinstance(record, dict):
            raise self._bad(line, "(record)", "expected a JSON object")
        # An unknown field first: "choise" is better named than "choice: missing".
        if not _FIELDS.issuperset(record):
            unknown = sorted(set(record) - _FIELDS)[0]
            raise self._bad(line, unknown, unknown_field(unknown, _FIELDS))
        if not _REQUIRED.issubset(record):
            raise self._bad(line, next(n for n in REQUIRED if n not in record), "missing")
        case_id = str(record["case_id"]) if isinstance(record["case_id"], (str, int)) else None
        if case_id not in self.cases:
            raise self._bad(line, "case_id", f"no case {record['case_id']!r} in {self.family!r}")
        choice = record["choice"]
        if choice not in VOTE_CHOICES:
            raise self._bad(line, "choice", f"expected one of {', '.join(VOTE_CHOICES)}")
        actor = record["actor"]
        if not isinstance(actor, str) or not actor or actor == "settler":
            raise self._bad(line, "actor", "expected the name of who voted (not 'settler')")
        if (problem := name_problem(actor)) is not None:
            raise self._bad(line, "actor", problem)
        if actor in self.colleagues:
            raise self._bad(
                line,
                "actor",
                f"{actor!r} votes here from bundles signed by {self.colleagues[actor]}: "
                "a vote log cannot add to their votes",
            )
        shown_at, shown = _time(record["shown_at"], self.path, line, "shown_at")
        voted_at, voted = _time(record["voted_at"], self.path, line, "voted_at")
        if voted < shown:
            raise self._bad(line, "voted_at", "is before shown_at")
        left = self._output(
            case_id,
            self._system(line, "left_system", record["left_system"]),
            self._sample(line, "left_sample", record.get("left_sample")),
        )
        right = self._output(
            case_id,
            self._system(line, "right_system", record["right_system"]),
            self._sample(line, "right_sample", record.get("right_sample")),
        )
        missing = "this system has no such output on this case"
        if left is None:
            raise self._bad(line, "left_system", missing)
        if right is None:
            raise self._bad(line, "right_system", missing)
        if left == right:
            raise self._bad(line, "right_system", "a vote needs two different outputs")
        repeat_of = record.get("repeat_of")
        original: str | None = None
        if repeat_of is not None:
            original = self.seen.find(repeat_of)
            if original is None:
                raise self._bad(
                    line, "repeat_of", "expected the line number of an earlier vote in this file"
                )
        session_id = self._session(line, record["session"], actor, shown_at)
        # The ids hash what the vote is, not where it sits: the record without its line
        # reference, plus the vote that reference resolved to.
        fields = record
        if "repeat_of" in record:
            fields = {k: v for k, v in record.items() if k != "repeat_of"}
        key = self._key(line, fields, None if original is None else "imv-" + original)
        self.seen.add(line, key)
        presentation = Presentation(
            PresentationId("imp-" + key[:28]),
            session_id,
            self.family,
            CaseId(case_id),
            left,
            right,
            shown_at,
            None if original is None else PresentationId("imp-" + original),
        )
        active = int((voted - shown).total_seconds() * 1000)
        vote = Vote(
            VoteId("imv-" + key[:28]),
            presentation.presentation_id,
            session_id,
            self.family,
            CaseId(case_id),
            left,
            right,
            choice,
            shown_at,
            voted_at,
            min(active, IDLE_CAP_MS),
            actor,
            None if original is None else VoteId("imv-" + original),
        )
        self.pending.append((presentation, vote))
        self.pending_lines.append(line)
        if len(self.pending) >= BATCH:
            self.flush()

    def flush(self) -> None:
        """Write the lines read since the last flush, after refusing a line given twice;
        the first refusal in line order is the one raised."""
        pending, lines = self.pending, self.pending_lines
        self.pending, self.pending_lines = [], []
        repeated = self.seen.first_repeat()
        if repeated is not None:
            del pending[lines.index(repeated[0]) :]
        try:
            self.added += vote_batch.record_many(self.ledger, pending)
        except vote_batch.Refused as refused:
            raise refused.error from None
        if repeated is not None:
            line, first = repeated
            raise self._bad(line, "(record)", f"the same vote as line {first}")
