"""`arena import-votes BUNDLE --signer KEY`: a colleague's votes, counted on this board.

Each rater of a team votes in their own ledger and exports a signed bundle. Its votes come
in here as votes (sessions, presentations, votes and retractions of this family, each
under the colleague's name), after the bundle is verified and read as every colleague's
bundle is (``colleague_bundle``: refused whole if anything fails, nothing added). The
settler's votes stay behind: this ledger's gates and tests settle its pairs again.

Every row's id is derived from the colleague's id of it, the key that signed it and this
family, so importing a bundle again adds nothing, and a later bundle of the same colleague
(which carries the earlier votes) adds only its new votes and retractions. Two colleagues'
rows never share an id, even where their ids were made from the same content (two ledgers
that imported the same vote log). The colleague's sessions stay theirs: new sessions here,
numbered after this family's. Each output a vote names must be this ledger's output of
the same case, system and sample, with the same text.

A bundle brings only the votes cast on the colleague's machine. Those that came into their
ledger from another colleague's bundle (ids ``bv-``, as this module writes them) are left
out, counted: each person's votes come from their own signed bundle. So a colleague who
imports the lead's merged bundle does not get their own votes back a second time, and the
lead who imports dana's bundle does not get kim's twice.

The name the votes carry on the colleague's machine is often the default ``rater``; here
they take a name of their own (``--rater``), remembered for the key (``rater_keys``), so
that a later bundle of the key comes in under it and no other key votes under it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bundle.colleague_bundle import (
    SIDES,
    ColleagueBundle,
    as_arena_writes,
    matched,
    read_colleague_bundle,
    refuse_held,
)
from arena.errors import BadInput
from arena.ledger import Ledger, catalog, vote_batch, voting
from arena.ledger.rater_keys import RaterKey, add_rater_key, rater_keys
from arena.rating.raters import DEFAULT_RATER, checked
from arena.records import (
    VOTE_CHOICES,
    CaseId,
    OutputId,
    Presentation,
    PresentationId,
    Session,
    SessionId,
    Vote,
    VoteId,
)

# The prefix of the ids of votes brought from a colleague's bundle (``_Rows.shown``).
RELAYED = "bv-"
# Votes checked before their rows are written together (as a vote log's).
BATCH = 10_000


@dataclass(frozen=True)
class ColleagueVotesReport:
    family: str
    signer: str
    records: int  # the colleague's votes and skips in the bundle (the settler's left out)
    votes_added: int
    retractions_added: int
    sessions_added: int
    raters: tuple[str, ...]  # the names their votes have here
    relayed: int = 0  # votes the colleague brought from others' bundles, left out


def import_colleague_votes(
    ledger: Ledger, path: Path, *, family: str, signer: str, rater: str | None = None
) -> ColleagueVotesReport:
    """Bring the votes of the bundle at ``path``, signed by ``signer``, into ``family``,
    under ``rater`` (the name the bundle's one voter takes here)."""
    if catalog.get_family(ledger, family) is None:
        raise BadInput(f"no family named {family!r}: import its outputs first", field="--family")
    bundle = read_colleague_bundle(ledger, path, signer)
    with as_arena_writes(path):
        votes, relayed = _cast_there(bundle.votes)
        voters = list(dict.fromkeys(str(v["actor"]) for v in votes))
    if not votes:
        brought = f" but {relayed} brought from others' bundles" if relayed else ""
        raise BadInput(
            f"the bundle holds no rater's votes{brought}; nothing imported", path=str(path)
        )
    refuse_held(ledger, bundle, [v["vote_id"] for v in votes])
    names, new_keys = _names(ledger, bundle, voters, rater)
    rows = _Rows(ledger, family, bundle, names)
    with as_arena_writes(path):
        outputs = _outputs(ledger, family, bundle, votes)
        shown = [rows.shown(vote, outputs) for vote in votes]
        retractions = {
            r["vote_id"]: r for r in bundle.retractions if r["vote_id"] in rows.presentations
        }
    # Outermost, so that the transaction is rolled back before a refusal is raised.
    with as_arena_writes(path), vote_batch.large_writes(ledger), ledger.atomic():
        for key in new_keys:
            add_rater_key(ledger, key, bundle.sha256)
        sessions = rows.add_sessions(votes, retractions.values())
        added, undone = _write(ledger, rows, votes, shown, retractions)
    raters = tuple(dict.fromkeys(names.values()))
    return ColleagueVotesReport(
        family, signer, len(votes), added, undone, sessions, raters, relayed
    )


def _cast_there(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The votes (and skips) cast on the colleague's machine, and how many others there
    are: the settler's (settled here again) aside, those their ledger imported from another
    bundle, and repeats of those."""
    kept: list[dict[str, Any]] = []
    left_out: set[str] = set()
    for vote in rows:
        if vote["actor"] == "settler":
            continue
        if str(vote["vote_id"]).startswith(RELAYED) or vote["repeat_of"] in left_out:
            left_out.add(vote["vote_id"])
        else:
            kept.append(vote)
    return kept, len(left_out)


def _names(
    ledger: Ledger, bundle: ColleagueBundle, voters: list[str], given: str | None
) -> tuple[dict[str, str], list[RaterKey]]:
    """Each voter's name here, and the keys to record for those new to this ledger."""
    path = str(bundle.path)
    if given is not None and len(voters) > 1:
        raise BadInput(
            f"the bundle holds the votes of {len(voters)} raters ({', '.join(voters)}): each "
            "comes in under the name it has there, so --rater names none of them",
            path=path,
            field="--rater",
        )
    known = rater_keys(ledger)
    claimed = {k.rater: k for k in known}
    here = set(voting.raters(ledger)) | set(claimed)
    names: dict[str, str] = {}
    new: list[RaterKey] = []
    for voter in voters:
        before = next((k for k in known if (k.signer, k.voter) == (bundle.signer, voter)), None)
        if before is not None:
            if given is not None and checked(given) != before.rater:
                raise BadInput(
                    f"the votes of {bundle.signer} came into this ledger as {before.rater!r}: "
                    f"give --rater {before.rater} or leave --rater out",
                    path=path,
                    field="--rater",
                )
            names[voter] = before.rater
            continue
        name = checked(given) if given is not None else checked(voter, field="actor")
        if name == DEFAULT_RATER and len(voters) > 1:
            raise BadInput(
                f"the bundle holds the votes of {len(voters)} raters ({', '.join(voters)}), "
                f"some under the default name {DEFAULT_RATER!r}: a bundle of several raters "
                "comes in only when each has a name of their own",
                path=path,
                field="votes.jsonl",
            )
        if name == DEFAULT_RATER:
            raise BadInput(
                f"the bundle's votes carry the default name {DEFAULT_RATER!r}: name the "
                "colleague with --rater NAME (their votes count under it)",
                path=path,
                field="--rater",
            )
        other = claimed.get(name)
        if other is not None:
            raise BadInput(
                f"{name!r} votes here from bundles signed by {other.signer}, not by "
                f"{bundle.signer}: give the colleague another name with --rater",
                path=path,
                field="--rater",
            )
        if name in here or name in names.values():
            raise BadInput(
                f"{name!r} is already a rater of this ledger: give the colleague another "
                "name with --rater",
                path=path,
                field="--rater",
            )
        names[voter] = name
        new.append(RaterKey(name, bundle.signer, voter))
    return names, new


def _outputs(
    ledger: Ledger, family: str, bundle: ColleagueBundle, votes: list[dict[str, Any]]
) -> dict[str, OutputId]:
    """This family's output for each output ``votes`` name (the colleague's id -> ours):
    the same case, system and sample, with the same text; else a refusal naming each."""
    systems = matched(ledger, family, bundle, votes)
    stored, hashes = catalog.outputs_and_hashes(ledger, family)
    here: dict[tuple[str, str, int], OutputId] = {
        (o.case_id, o.system_id, o.sample): o.output_id for o in stored
    }
    found: dict[str, OutputId] = {}
    missing, other = [], []
    for theirs in sorted({v[side] for v in votes for side in SIDES}):
        row = bundle.outputs[theirs]
        place = (row["case_id"], systems[row["system_id"]], row["sample"])
        shown = f"{row['case_id']}/{bundle.labels.get(row['system_id'], '?')}/{row['sample']}"
        ours = here.get(place)
        if ours is None:
            missing.append(shown)
        elif hashes[ours] != row["content_hash"]:
            other.append(shown)
        else:
            found[theirs] = ours
    if missing or other:
        named = [f"no such output here: {', '.join(sorted(missing))}"] if missing else []
        if other:
            named.append(
                f"another text here than the colleague voted on: {', '.join(sorted(other))}"
            )
        raise BadInput(
            f"{'; '.join(named)} (case/system/sample); nothing imported",
            path=str(bundle.path),
            field="outputs.jsonl",
        )
    return found


class _Rows:
    """The colleague's rows as this family's: ids derived, names and outputs mapped."""

    def __init__(
        self, ledger: Ledger, family: str, bundle: ColleagueBundle, names: dict[str, str]
    ) -> None:
        self.ledger, self.family, self.bundle, self.names = ledger, family, bundle, names
        self.presentations: dict[str, str] = {}  # the colleague's vote id -> presentation id
        self.first: dict[str, Presentation] = {}  # by the colleague's presentation id

    def _id(self, prefix: str, theirs: str) -> str:
        # Family names hold no line break and the signer is a fingerprint: one text per id.
        key = f"{self.family}\n{self.bundle.signer}\n{theirs}"
        return prefix + hashlib.sha256(key.encode("utf-8")).hexdigest()[:28]

    def session(self, theirs: str) -> SessionId:
        return SessionId(self._id("bundle-", theirs))

    def shown(
        self, vote: dict[str, Any], outputs: dict[str, OutputId]
    ) -> tuple[Presentation, Vote]:
        """The presentation and vote of one of the colleague's votes; a presentation voted
        again after an undo is the one first recorded."""
        original = vote["repeat_of"]
        if original is not None and original not in self.presentations:
            raise ValueError(f"repeat_of {original}: no earlier vote of the bundle")
        if vote["choice"] not in (*VOTE_CHOICES, "skip"):
            raise ValueError(f"choice {vote['choice']!r}")
        theirs = vote["presentation_id"]
        left, right = (outputs[vote[side]] for side in SIDES)
        presentation = self.first.setdefault(
            theirs,
            Presentation(
                PresentationId(self._id("bp-", theirs)),
                self.session(vote["session_id"]),
                self.family,
                CaseId(str(vote["case_id"])),
                left,
                right,
                vote["shown_at"],
                None
                if original is None
                else PresentationId(self._id("bp-", self.presentations[original])),
            ),
        )
        self.presentations[vote["vote_id"]] = theirs
        row = Vote(
            VoteId(self._id(RELAYED, vote["vote_id"])),
            presentation.presentation_id,
            self.session(vote["session_id"]),
            self.family,
            presentation.case_id,
            left,
            right,
            vote["choice"],
            vote["shown_at"],
            vote["voted_at"],
            int(vote["active_ms"]),
            self.names[str(vote["actor"])],
            None if original is None else VoteId(self._id(RELAYED, original)),
            str(vote["comment"]),
            bool(vote["identity_leak"]),
        )
        return presentation, row

    def retraction(self, row: dict[str, Any]) -> dict[str, Any]:
        """A retraction of the colleague's as ``voting.retract`` writes one."""
        session = row["session_id"]
        return {
            "retraction_id": self._id("br-", row["retraction_id"]),
            "family": self.family,
            "vote_id": self._id(RELAYED, row["vote_id"]),
            "session_id": None if session is None else self.session(session),
            "retracted_at": row["retracted_at"],
        }

    def add_sessions(
        self, votes: list[dict[str, Any]], retractions: Iterable[dict[str, Any]]
    ) -> int:
        """Record the colleague's sessions this family lacks, numbered after its own, in the
        order they first appear; returns how many."""
        started: dict[str, tuple[str, str]] = {}  # theirs -> (first time, voter)
        for vote in votes:
            at = min(started.get(vote["session_id"], (vote["shown_at"],))[0], vote["shown_at"])
            started[vote["session_id"]] = (at, str(vote["actor"]))
        by_vote = {v["vote_id"]: str(v["actor"]) for v in votes}
        for row in retractions:
            if row["session_id"] is not None and row["session_id"] not in started:
                started[row["session_id"]] = (row["retracted_at"], by_vote[row["vote_id"]])
        known = voting.sessions(self.ledger, self.family)
        have = {s.session_id for s in known}
        number = max((s.number for s in known), default=0)
        added = 0
        for theirs, (at, voter) in started.items():
            if self.session(theirs) in have:
                continue
            number += 1
            voting.add_session(
                self.ledger,
                Session(self.session(theirs), self.family, number, 0, self.names[voter], at),
            )
            added += 1
        return added


def _write(
    ledger: Ledger,
    rows: _Rows,
    votes: list[dict[str, Any]],
    shown: list[tuple[Presentation, Vote]],
    retractions: dict[str, dict[str, Any]],
) -> tuple[int, int]:
    """Write the votes in the colleague's order, each retraction before a later vote on the
    same presentation (undone, then voted again), the others after; (votes, retractions)
    new."""
    added = undone = 0
    pending: list[tuple[Presentation, Vote]] = []
    standing: dict[str, str] = {}  # presentation -> the colleague's vote last on it
    written: set[str] = set()

    def flush() -> None:
        nonlocal added, pending
        try:
            added += vote_batch.record_many(ledger, pending)
        except vote_batch.Refused as refused:
            raise refused.error from None
        pending = []

    for vote, pair in zip(votes, shown, strict=True):
        earlier = standing.get(pair[0].presentation_id)
        if earlier is not None:
            if earlier not in retractions:
                raise ValueError(f"vote {vote['vote_id']}: its presentation has a vote in force")
            flush()
            undone += vote_batch.record_retractions(ledger, [rows.retraction(retractions[earlier])])
            written.add(earlier)
        standing[pair[0].presentation_id] = vote["vote_id"]
        pending.append(pair)
        if len(pending) >= BATCH:
            flush()
    flush()
    rest = [rows.retraction(r) for theirs, r in retractions.items() if theirs not in written]
    undone += vote_batch.record_retractions(ledger, rest)
    return added, undone
