"""`arena import-votes`: votes cast elsewhere, moved into a family's ledger.

JSON Lines, one vote per line (docs/formats.md). Ids are derived from the
file's content, so importing the same file again adds nothing; one bad line
and nothing is added.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from arena.canonical import content_hash
from arena.errors import BadInput
from arena.intake.jsonstream import Progress, iter_json_lines
from arena.ledger import Ledger, catalog, voting
from arena.records import (
    IDLE_CAP_MS,
    VOTE_CHOICES,
    CaseId,
    Presentation,
    PresentationId,
    Session,
    SessionId,
    Vote,
    VoteId,
    output_id,
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
    with ledger.atomic():
        for line, record in iter_json_lines(path, progress):
            run.add(line, redactor.value(record))
    return VoteImportReport(family, run.records, run.added, run.sessions_added)


class _VoteImport:
    def __init__(self, ledger: Ledger, path: Path, family: str) -> None:
        self.ledger = ledger
        self.path = path
        self.family = family
        self.records = self.added = self.sessions_added = 0
        self.by_line: dict[int, tuple[PresentationId, VoteId]] = {}
        self.keys: dict[str, int] = {}
        self.sessions = {s.session_id: s for s in voting.sessions(ledger, family)}
        self.cases = {c.case_id for c in catalog.cases(ledger, family)}

    def _bad(self, line: int, field: str, message: str) -> BadInput:
        return BadInput(message, path=str(self.path), line=line, field=field)

    def _system(self, line: int, field: str, name: Any) -> str:
        if not isinstance(name, str) or not name:
            raise self._bad(line, field, "expected a system label or id")
        system = catalog.find_system(self.ledger, name, self.family)
        if system is None:
            raise self._bad(line, field, f"no system {name!r} in family {self.family!r}")
        return system.system_id

    def _sample(self, line: int, field: str, value: Any) -> int:
        if value is None:
            return 0
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self._bad(line, field, "expected a sample index ≥ 0")
        return value

    def _session(self, line: int, value: Any, actor: str, started: str) -> SessionId:
        if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
            raise self._bad(line, "session", "expected a session name or number")
        session_id = SessionId(
            "import-" + content_hash({"family": self.family, "session": str(value)})[:24]
        )
        if session_id not in self.sessions:
            number = max((s.number for s in self.sessions.values()), default=0) + 1
            session = Session(session_id, self.family, number, 0, actor, started)
            self.ledger.db.table("sessions").insert(session.__dict__)
            self.sessions[session_id] = session
            self.sessions_added += 1
        return session_id

    def add(self, line: int, record: Any) -> None:
        self.records += 1
        if not isinstance(record, dict):
            raise self._bad(line, "(record)", "expected a JSON object")
        for name in REQUIRED:
            if name not in record:
                raise self._bad(line, name, "missing")
        unknown = set(record) - set(REQUIRED) - set(OPTIONAL)
        if unknown:
            raise self._bad(line, sorted(unknown)[0], "unknown field")
        case_id = str(record["case_id"]) if isinstance(record["case_id"], (str, int)) else None
        if case_id not in self.cases:
            raise self._bad(line, "case_id", f"no case {record['case_id']!r} in {self.family!r}")
        choice = record["choice"]
        if choice not in VOTE_CHOICES:
            raise self._bad(line, "choice", f"expected one of {', '.join(VOTE_CHOICES)}")
        actor = record["actor"]
        if not isinstance(actor, str) or not actor or actor == "settler":
            raise self._bad(line, "actor", "expected the name of who voted (not 'settler')")
        shown_at, shown = _time(record["shown_at"], self.path, line, "shown_at")
        voted_at, voted = _time(record["voted_at"], self.path, line, "voted_at")
        if voted < shown:
            raise self._bad(line, "voted_at", "is before shown_at")
        left = output_id(
            self.family,
            case_id,
            self._system(line, "left_system", record["left_system"]),
            self._sample(line, "left_sample", record.get("left_sample")),
        )
        right = output_id(
            self.family,
            case_id,
            self._system(line, "right_system", record["right_system"]),
            self._sample(line, "right_sample", record.get("right_sample")),
        )
        for name, oid in (("left_system", left), ("right_system", right)):
            if catalog.get_output(self.ledger, oid) is None:
                raise self._bad(line, name, "this system has no such output on this case")
        if left == right:
            raise self._bad(line, "right_system", "a vote needs two different outputs")
        repeat_of = record.get("repeat_of")
        original: tuple[PresentationId, VoteId] | tuple[None, None] = (None, None)
        if repeat_of is not None:
            if repeat_of not in self.by_line:
                raise self._bad(
                    line, "repeat_of", "expected the line number of an earlier vote in this file"
                )
            original = self.by_line[repeat_of]
        session_id = self._session(line, record["session"], actor, shown_at)
        # The ids hash what the vote is, not where it sits: the record without its line
        # reference, plus the vote that reference resolved to.
        fields = {k: v for k, v in record.items() if k != "repeat_of"}
        key = content_hash(
            {"family": self.family, "record": _hashable(fields), "repeat_of": original[1]}
        )
        presentation = Presentation(
            PresentationId("imp-" + key[:28]),
            session_id,
            self.family,
            CaseId(case_id),
            left,
            right,
            shown_at,
            original[0],
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
            original[1],
        )
        if key in self.keys:
            raise self._bad(line, "(record)", f"the same vote as line {self.keys[key]}")
        self.keys[key] = line
        voting.record_presentation(self.ledger, presentation)
        self.added += voting.record_vote(self.ledger, vote) == "recorded"
        self.by_line[line] = (presentation.presentation_id, vote.vote_id)


def _hashable(record: dict[str, Any]) -> dict[str, Any]:
    return {k: (repr(v) if isinstance(v, float) else v) for k, v in record.items()}
