"""Frozen records that the core passes around, named as in SPEC.md.

The ledger turns rows into these; gates, settling, scheduling and the UI
read them. Nothing here touches SQLite or Qt.
"""

from __future__ import annotations

import math
import re
from dataclasses import KW_ONLY, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, NewType

from arena.canonical import content_hash, sha256_hex

if TYPE_CHECKING:
    import numpy as np

SystemId = NewType("SystemId", str)
OutputId = NewType("OutputId", str)
CaseId = NewType("CaseId", str)
VoteId = NewType("VoteId", str)
PresentationId = NewType("PresentationId", str)
SessionId = NewType("SessionId", str)

# A presentation and the vote in force on it, as the ledger reads a family's history:
# id, case, left and right output, repeat of; vote id, choice, session, time and actor
# of the vote.
ShownRow = tuple[
    PresentationId,
    CaseId,
    OutputId,
    OutputId,
    PresentationId | None,
    VoteId | None,
    str | None,
    SessionId | None,
    str | None,
    str | None,
]


@dataclass(frozen=True)
class PairShowings:
    """Each pair of outputs' votes in force on a first showing (skips apart) and skips in
    force, as columns: a pair names its two outputs by their numbers here (places in
    ``outputs``); pairs with neither may be left out."""

    # The outputs the pairs name, and the case of each.
    outputs: tuple[OutputId, ...]
    cases: tuple[CaseId, ...]
    # Per pair (int64 arrays): its two outputs' numbers, its votes and its skips.
    first: np.ndarray
    second: np.ndarray
    votes: np.ndarray
    skips: np.ndarray


@dataclass(frozen=True)
class HistorySummary:
    """What a family's scheduler starts from (``arena.pairs.scheduling``): counts of every
    vote in force and the few presentations it must know one by one, with their places.
    ``arena.ledger.history`` reads it from the ledger's kept counts without reading the
    whole history; ``scheduling.summarize`` counts it from a whole history."""

    # How many presentations the family holds.
    presentations: int
    # (place in the family's presentations, row): the presentations at the end of the
    # history, those whose votes wait for their repeat, and the originals of their repeats
    # with the repeats of those, in order. A place below the end's only keeps the order.
    rows: tuple[tuple[int, ShownRow], ...]
    # Votes in force (skips and repeats included) by (left system, right system).
    sides: tuple[tuple[SystemId, SystemId, int], ...]
    # Votes in force on a first showing (skips apart) by (left system, right system,
    # choice, half of its session: the parity of the session's number, -1 for none).
    first_showings: tuple[tuple[SystemId, SystemId, str, int, int], ...]
    # Votes in force (skips apart, repeats included) by actor.
    by_actor: tuple[tuple[str, int], ...]
    # Each pair of outputs' votes and skips in force.
    pairs: PairShowings


Kind = Literal["votes", "tests", "tests_then_votes", "graded"]
KINDS: tuple[str, ...] = ("votes", "tests", "tests_then_votes", "graded")
# The kinds whose boards rest on the rater's votes.
VOTED_KINDS: tuple[str, ...] = ("votes", "tests_then_votes")
# How a rating session picks the next system pair once each has a vote (arena.pairs.adaptive).
PAIR_CHOICES: tuple[str, ...] = ("adaptive", "coverage")
# Whether a tests family's systems may differ in harness or turn budget (the first: no).
MIXED_HARNESS_CHOICES: tuple[str, ...] = ("report", "allow")
Choice = Literal["left", "right", "tie", "both_bad", "skip"]
CHOICES: tuple[str, ...] = ("left", "right", "tie", "both_bad", "skip")
# What a rater can answer (a skip is not a vote).
VOTE_CHOICES: tuple[str, ...] = ("left", "right", "tie", "both_bad")
# Time on a pair beyond this is idle time, not judging time.
IDLE_CAP_MS = 5 * 60 * 1000
TestResult = Literal["passed", "failed", "errored"]
TEST_RESULTS: tuple[str, ...] = ("passed", "failed", "errored")
# A trial's result: one stopped at its time or another limit counts as failed.
TrialResult = Literal["passed", "failed", "errored", "timed_out", "resource_limit"]
TRIAL_RESULTS: tuple[str, ...] = ("passed", "failed", "errored", "timed_out", "resource_limit")
# Where a trial came from: a report imported with the outputs, a run in a sandbox, in a
# weak one that lets tests read the user's files, or in none (docs/tests.md).
TrialSource = Literal["imported", "sandbox", "weak_sandbox", "no_sandbox"]
TRIAL_SOURCES: tuple[str, ...] = ("imported", "sandbox", "weak_sandbox", "no_sandbox")
# How a trial's diff was put in place: ``git apply``, or ``patch --fuzz`` after it failed.
AppliedWith = Literal["git-apply", "patch-fuzz"]
GATES: tuple[str, ...] = ("empty", "truncated", "length", "language", "script")
# A BCP 47 language tag as Arena accepts one (the native schema uses the same pattern).
LANGUAGE_TAG = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$")
# What no id or label holds: C0 and C1 controls and DEL (NUL, newline, escape...), the line
# and paragraph separators, and lone surrogates (not UTF-8 text: SQLite cannot store them).
_NOT_IN_NAMES = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be an id or a label (a case's, a system's, a judge's, a family's,
    a voter's), or None: the one rule every reader applies (docs/formats.md)."""
    if not name.strip():
        return "cannot be empty"
    found = _NOT_IN_NAMES.search(name)
    if found is not None:
        code = f"U+{ord(found.group()):04X}"
        return f"holds {code}: an id or a label is one line of text, with no control characters"
    return None


# Every field of a system descriptor; the id hashes all of them.
DESCRIPTOR_FIELDS: tuple[str, ...] = (
    "model",
    "revision",
    "artifact_digest",
    "quantization",
    "effort",
    "harness",
    "system_prompt",
    "answer_contract",
    "parser",
    "retry_policy",
    "inference",
)
# Fields added later: a descriptor hashes them only when they are set, so the id of every
# system stored before they existed stays what it was.
ADDED_FIELDS: tuple[str, ...] = (
    "suite_hash",
    "harness_manifest",
    "runner",
    "turn_budget",
    "aliases",
)


@dataclass(frozen=True)
class Family:
    name: str
    kind: Kind = "votes"
    language: str = "en"
    min_chars: int = 1
    max_chars: int = 20_000
    aspect: str = ""
    reference: SystemId | None = None


@dataclass(frozen=True)
class Case:
    """One prompt of a family.

    ``language`` is the language the case expects when the file said so or the
    rater set it (strict: only that language passes); ``detected_language`` is
    what import read in the prompt itself (lenient: that language or the
    family's passes), with ``language_evidence`` saying why.
    """

    family: str
    case_id: CaseId
    category: str
    prompt: str
    language: str | None = None
    detected_language: str | None = None
    language_evidence: str = ""

    def expected_languages(self, family_language: str) -> tuple[str, ...]:
        """The language tags an answer to this case may be in, the strictest first."""
        if self.language is not None:
            return (self.language,)
        if self.detected_language is not None:
            return (self.detected_language, family_language)
        return (family_language,)


def _hashable(value: Any) -> Any:
    """Floats become their shortest decimal string so the descriptor can be hashed."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"non-finite number {value!r} in a system descriptor")
        return repr(value)
    if isinstance(value, dict):
        return {str(k): _hashable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_hashable(v) for v in value]
    return value


@dataclass(frozen=True)
class SystemDescriptor:
    """What produced outputs. Any field changed is a new system."""

    model: str
    revision: str | None = None
    artifact_digest: str | None = None
    quantization: str | None = None
    effort: str | None = None
    harness: str | None = None
    system_prompt: str | None = None
    answer_contract: str | None = None
    parser: str | None = None
    retry_policy: str | None = None
    inference: dict[str, Any] = field(default_factory=dict)
    # Added since the first systems were stored (ADDED_FIELDS): hashed only when set.
    suite_hash: str | None = None
    harness_manifest: str | None = None
    runner: dict[str, Any] = field(default_factory=dict)
    # An agent's turns (steps) allowed per task, for tests families' Run column.
    turn_budget: int | None = None
    # Other names the system goes by (a product name, its maker), beyond its label, model
    # id and its model family's names: an output naming one is an identity leak.
    aliases: list[str] = field(default_factory=list)

    def canonical(self) -> dict[str, Any]:
        fields = {name: _hashable(getattr(self, name)) for name in DESCRIPTOR_FIELDS}
        for name in ADDED_FIELDS:
            value = getattr(self, name)
            if value not in (None, {}, []):
                fields[name] = _hashable(value)
        return fields

    @property
    def system_id(self) -> SystemId:
        return SystemId(content_hash(self.canonical()))


@dataclass(frozen=True)
class System:
    system_id: SystemId
    label: str
    descriptor: SystemDescriptor


def output_id(family: str, case_id: str, system_id: str, sample: int) -> OutputId:
    """An output is named by where it sits, so re-importing it finds it again."""
    return OutputId(
        content_hash({"family": family, "case": case_id, "system": system_id, "sample": sample})
    )


# Keyword-only, so that a record built on it keeps its own fields as its positional arguments.
@dataclass(frozen=True, kw_only=True)
class OutputDetails:
    """What a file or an endpoint says of an output beside its text: read by an importer
    (``ParsedOutput``), stored with the output (``Output``)."""

    is_diff: bool = False
    finish_reason: str | None = None
    latency_ms: float | None = None
    cost: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    def details(self) -> dict[str, Any]:
        """These fields by name, to give another record the same details."""
        return {f.name: getattr(self, f.name) for f in fields(OutputDetails)}


@dataclass(frozen=True)
class Output(OutputDetails):
    output_id: OutputId
    family: str
    case_id: CaseId
    system_id: SystemId
    sample: int
    text: str
    # Keyword-only as the details are, so a seventh positional argument is refused.
    _: KW_ONLY
    # What a report imported with the output said; a trial, when there is one, has the say.
    test_result: TestResult | TrialResult | None = None

    @property
    def content_hash(self) -> str:
        """sha256 of the text's UTF-8 bytes: how exported bundles refer to it."""
        return sha256_hex(self.text)


class OutputPlace(NamedTuple):
    """An output without its text: its case, its system and its text key
    (``arena.texts.text_key``), all that choosing pairs reads of it, and its number in the
    ledger (its ``output_keys`` rowid, what the pair showings name it by; -1: not read)."""

    output_id: OutputId
    case_id: CaseId
    system_id: SystemId
    text_key: str
    number: int = -1


@dataclass(frozen=True)
class GateResult:
    gate: str
    passed: bool
    reason: str = ""


EventKind = Literal[
    "retire_case",
    "remove_output",
    "flag",
    "set_language",
    "overrule",
    "retract",
    "confirm_language",
]


@dataclass(frozen=True)
class Event:
    """One row of the events chain; which fields are set depends on ``kind``."""

    seq: int
    event_id: str
    family: str
    kind: EventKind
    at: str
    actor: str = "rater"
    note: str = ""
    case_id: str | None = None
    output_id: str | None = None
    presentation_id: str | None = None
    gate: str | None = None
    language: str | None = None
    target_event: str | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Event:
        """An event from its ledger row (or a bundle's copy of it)."""
        return cls(
            seq=row["seq"],
            event_id=row["event_id"],
            family=row["family"],
            kind=row["kind"],
            at=row["at"],
            note=row["note"],
            case_id=row.get("case_id"),
            output_id=row.get("output_id"),
            presentation_id=row.get("presentation_id"),
            gate=row.get("gate"),
            language=row.get("language"),
            target_event=row.get("target_event"),
            # Rows written before events had an actor were the rater's.
            actor=row.get("actor") or "rater",
        )


@dataclass(frozen=True)
class Session:
    session_id: SessionId
    family: str
    number: int
    seed: int
    actor: str
    started_at: str


@dataclass(frozen=True)
class ShownPair:
    """What a presentation and a vote on it both record: the presentation, the session the
    row was written in, and the pair with its left/right assignment."""

    presentation_id: PresentationId
    session_id: SessionId
    family: str
    case_id: CaseId
    left_output: OutputId
    right_output: OutputId


@dataclass(frozen=True)
class Presentation(ShownPair):
    """One showing of a pair, with its left/right assignment."""

    shown_at: str
    repeat_of: PresentationId | None = None


@dataclass(frozen=True)
class _VoteKey:
    # A base of its own so that vote_id stays Vote's first field and argument (votes are
    # made positionally): a dataclass lists its bases' fields first, the last base's first.
    vote_id: VoteId


@dataclass(frozen=True)
class Vote(ShownPair, _VoteKey):
    """The rater's choice on a presentation (``skip`` is recorded but is not a vote)."""

    choice: Choice
    shown_at: str
    voted_at: str
    active_ms: int
    actor: str = "rater"
    repeat_of: VoteId | None = None
    comment: str = ""
    identity_leak: bool = False


@dataclass(frozen=True)
class Trial:
    """One run of a task's hidden tests on one output (or a report of one), append-only.

    The newest trial of an output is its result in force. ``output_id`` is None for a
    task the system did not answer (``reason`` ``no_output``).
    """

    trial_id: str
    family: str
    case_id: CaseId
    system_id: SystemId
    sample: int
    output_id: OutputId | None
    result: TrialResult
    source: TrialSource
    at: str
    reason: str = ""
    sandbox: str = ""
    duration_ms: float | None = None
    exit_code: int | None = None
    log_tail: str = ""
    log_hash: str | None = None
    # The task (``Task.task_hash``) the run was made against; None for an imported trial.
    task_hash: str | None = None
    # None when no diff was applied (an imported trial, an empty or refused diff).
    applied_with: AppliedWith | None = None
