"""A team on three machines: each rater votes in their own ledger and exports a signed
bundle; the lead brings the others' votes in as votes (`arena import-votes BUNDLE
--signer`), verified, once, under their names, and one board fits all three."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from arena.bundle.export import export_round, read_bundle, zip_bytes
from arena.bundle.signing import fingerprint
from arena.cli.main import main
from arena.intake.outputs import import_file
from arena.ledger import Ledger, catalog, rater_keys, round_store, voting
from arena.rating.session import RatingSession
from arena.records import VoteId
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.votes_helpers import show_and_vote

_TABLES = ("sessions", "presentations", "votes", "retractions", "rater_keys")


@dataclass
class Machine:
    """One rater's laptop: a folder with a ledger and a signing key."""

    folder: Path
    family: str
    key: Ed25519PrivateKey

    @property
    def ledger(self) -> str:
        return str(self.folder / "ledger.sqlite")

    @property
    def signer(self) -> str:
        return fingerprint(self.key.public_key())

    @property
    def key_file(self) -> Path:
        return self.folder / "key.pem"

    def export(self, name: str) -> Path:
        """Close a round and export it, signed by this machine's key."""
        with Ledger.open(self.ledger) as ledger:
            close_round(ledger, self.family, RoundSettings())
            out = self.folder.parent / name
            export_round(ledger, out, family=self.family, key=self.key)
        return out


def _machine(tmp_path: Path, name: str, family: str, outputs: Path) -> Machine:
    folder = tmp_path / name
    folder.mkdir()
    machine = Machine(folder, family, Ed25519PrivateKey.generate())
    pem = machine.key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    machine.key_file.write_bytes(pem)
    with Ledger.open(machine.ledger) as ledger:
        import_file(ledger, outputs, family=family, fmt="native")
    return machine


def _sit(machine: Machine, choices: str, *, undo_after: int | None = None) -> None:
    """A sitting of the default rater: one vote a letter (l, r, t, b); after vote
    ``undo_after`` the rater undoes it and votes the pair (shown again) the other way."""
    names = {"l": "left", "r": "right", "t": "tie", "b": "both_bad"}
    with Ledger.open(machine.ledger) as ledger:
        sitting = RatingSession(ledger, machine.family, seed=3, repeat_share=0.0)
        for index, letter in enumerate(choices, start=1):
            sitting.current()
            sitting.vote(names[letter])
            if index == undo_after:
                undone = sitting.undo()
                assert undone is not None
                view = sitting.current()
                assert view is not None  # the same showing, voted again
                assert view.presentation.presentation_id == undone.presentation_id
                sitting.vote("right" if undone.choice == "left" else "left")


def _repeat(machine: Machine) -> None:
    """The newest vote in force shown again with sides swapped, and voted."""
    with Ledger.open(machine.ledger) as ledger:
        original = voting.votes_in_force(ledger, machine.family)[-1]
        outputs = {o.output_id: o for o in catalog.outputs(ledger, machine.family)}
        session = voting.start_session(ledger, machine.family, seed=4)
        show_and_vote(
            ledger,
            session,
            outputs[original.right_output],
            outputs[original.left_output],
            "right" if original.choice == "left" else "left",
            repeat_of=original,
        )


def _vote_log(machine: Machine, path: Path) -> None:
    """Votes of ``cy``, cast elsewhere and imported into cy's own ledger (a line a vote)."""
    shown = [("c1", "alpha", "beta", "left"), ("c2", "beta", "gamma", "tie"),
             ("c3", "gamma", "alpha", "right"), ("c4", "alpha", "gamma", "left")]  # fmt: skip
    lines = [
        {"case_id": case, "left_system": left, "right_system": right, "choice": choice,
         "session": "1", "actor": "cy", "shown_at": "2026-12-01T09:00:00Z",
         "voted_at": "2026-12-01T09:00:07Z"}
        for case, left, right, choice in shown
    ]  # fmt: skip
    lines.append({**lines[0], "left_system": "beta", "right_system": "alpha",
                  "choice": "right", "repeat_of": 1})  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert main(["--ledger", machine.ledger, "import-votes", str(path),
                 "--family", machine.family]) == 0  # fmt: skip


@pytest.fixture
def team(tmp_path, small_family_file, monkeypatch):
    """The lead and two colleagues, each voted and exported; the lead's key in force."""
    lead = _machine(tmp_path, "lead", "small", small_family_file)
    bea = _machine(tmp_path, "bea", "small", small_family_file)
    cy = _machine(tmp_path, "cy", "team", small_family_file)  # a family named otherwise
    _sit(lead, "lrtl")
    _sit(bea, "lrbtl", undo_after=2)
    _repeat(bea)
    _vote_log(cy, tmp_path / "cy.jsonl")
    bundles = {"bea": bea.export("bea-1.zip"), "cy": cy.export("cy-1")}
    monkeypatch.setenv("ARENA_SIGNING_KEY", str(lead.key_file))
    return {"lead": lead, "bea": bea, "cy": cy}, bundles


def _import(machine: Machine, bundle: Path, signer: str, *extra: str) -> int:
    return main(["--ledger", machine.ledger, "import-votes", str(bundle), "--family",
                 machine.family, "--signer", signer, *extra])  # fmt: skip


def _rows(machine: Machine) -> dict[str, int]:
    with sqlite3.connect(machine.ledger) as conn:
        return {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in _TABLES}


def _in_force(machine: Machine) -> list[tuple[str, str, str, str, str]]:
    """(actor, case, left system, right system, choice) of every vote in force."""
    with Ledger.open(machine.ledger, readonly=True) as ledger:
        outputs = {o.output_id: o for o in catalog.outputs(ledger, machine.family)}
        labels = {s.system_id: s.label for s in catalog.systems(ledger, machine.family)}
        return [
            (v.actor, v.case_id, *(labels[outputs[o].system_id] for o in (v.left_output,
             v.right_output)), v.choice)
            for v in voting.votes_in_force(ledger, machine.family, include_skips=True)
        ]  # fmt: skip


def _repeats(machine: Machine) -> list[tuple[str, str, str, str, str]]:
    """The rows of ``_in_force`` that are repeats."""
    with Ledger.open(machine.ledger, readonly=True) as ledger:
        flags = [v.repeat_of is not None for v in voting.votes_in_force(ledger, machine.family,
                 include_skips=True)]  # fmt: skip
    return [row for row, repeat in zip(_in_force(machine), flags, strict=True) if repeat]


def _by(rows, actor):
    return sorted(row[1:] for row in rows if row[0] == actor)


def test_the_lead_brings_both_colleagues_in_and_one_board_fits_all_three(team, capsys):
    machines, bundles = team
    lead, bea, cy = machines["lead"], machines["bea"], machines["cy"]
    assert _import(lead, bundles["bea"], bea.signer, "--rater", "bea") == 0
    out = capsys.readouterr().out
    assert "7 votes of bea read" in out and "7 new, 1 new retraction, 2 new sessions" in out
    assert _import(lead, bundles["cy"], cy.signer) == 0  # cy voted as "cy": no --rater
    assert "5 votes of cy read" in capsys.readouterr().out
    rows = _in_force(lead)
    # Each colleague's votes in force, as on their machine, under their name here.
    assert _by(rows, "bea") == _by(_in_force(bea), "rater")
    assert _by(rows, "cy") == _by(_in_force(cy), "cy")
    assert len(_by(rows, "rater")) == 4
    with Ledger.open(lead.ledger, readonly=True) as ledger:
        sessions = {s.session_id: s for s in voting.sessions(ledger, "small")}
        votes = voting.votes_in_force(ledger, "small")
        assert [(s.number, s.actor) for s in sessions.values()] == [
            (1, "rater"), (2, "bea"), (3, "bea"), (4, "cy"),
        ]  # fmt: skip
        assert all(sessions[v.session_id].actor == v.actor for v in votes)
        repeats = [v for v in votes if v.repeat_of is not None]
        assert sorted(v.actor for v in repeats) == ["bea", "cy"]
        by_id = {v.vote_id: v for v in votes}
        for repeat in repeats:  # the repeat_of links lead to the colleague's own earlier vote
            original = by_id[repeat.repeat_of]
            assert original.actor == repeat.actor
            assert (original.left_output, original.right_output) == (
                repeat.right_output, repeat.left_output,
            )  # fmt: skip
            shown = voting.get_presentation(ledger, repeat.presentation_id)
            assert shown is not None and shown.repeat_of == original.presentation_id
        assert rater_keys.rater_keys(ledger) == [
            rater_keys.RaterKey("bea", bea.signer, "rater"),
            rater_keys.RaterKey("cy", cy.signer, "cy"),
        ]
    assert main(["--ledger", lead.ledger, "check"]) == 0
    capsys.readouterr()
    # The lead's round fits every rater's votes (repeats aside), and its bundle verifies.
    with Ledger.open(lead.ledger) as ledger:
        closed = close_round(ledger, "small", RoundSettings())
        items = list(round_store.items(ledger, closed.round_id, "comparison"))
    fitted = [c["actor"] for c in items if c["source"] == "vote" and c["status"] == "fitted"]
    # Every vote in force but the two repeats (kept for rater agreement, not fitted).
    assert {"rater", "bea", "cy"} == set(fitted)
    assert len(fitted) == len(rows) - len(_repeats(lead)) == 4 + 5 + 4
    out = lead.folder.parent / "lead.zip"
    with Ledger.open(lead.ledger) as ledger:
        export_round(ledger, out, family="small", key=lead.key)
    assert main(["verify", str(out), "--signer", lead.signer]) == 0
    # Each rater's whole contribution capped (the ledger weighting): verify re-derives it too.
    capped = lead.folder.parent / "lead-capped"
    with Ledger.open(lead.ledger) as ledger:
        closed = close_round(ledger, "small", RoundSettings(weighting="ledger", cap=3.0))
        export_round(ledger, capped, family="small", key=lead.key)
        items = list(round_store.items(ledger, closed.round_id, "comparison"))
    weights = {actor: 0.0 for actor in ("rater", "bea", "cy")}
    for c in items:
        if c["source"] == "vote" and c["status"] == "fitted":
            weights[c["actor"]] += c["fitted_weight"]
    assert weights == pytest.approx({"rater": 3.0, "bea": 3.0, "cy": 3.0})
    assert main(["verify", str(capped), "--signer", lead.signer]) == 0


def _rezipped(bundle: Path, out: Path, change) -> Path:
    files = read_bundle(bundle)
    change(files)
    out.write_bytes(zip_bytes(files))
    return out


def _edited(files):
    files["votes.jsonl"] = files["votes.jsonl"].replace(b'"both_bad"', b'"left"', 1)


def _removed(files):
    files["votes.jsonl"] = b"".join(files["votes.jsonl"].splitlines(keepends=True)[1:])


def test_a_tampered_or_otherwise_signed_bundle_adds_nothing(team, tmp_path, capsys):
    machines, bundles = team
    lead, bea, cy = machines["lead"], machines["bea"], machines["cy"]
    before = _rows(lead)
    for name, change, why in (("edited", _edited, "votes.jsonl: sha256 differs"),
                              ("removed", _removed, "votes.jsonl: sha256 differs")):  # fmt: skip
        forged = _rezipped(bundles["bea"], tmp_path / f"{name}.zip", change)
        assert _import(lead, forged, bea.signer, "--rater", "bea") == 2
        err = capsys.readouterr().err
        assert f"{forged}: refused, nothing imported" in err and why in err
    # Rehashed by hand, the manifest no longer matches the signature.
    assert _import(lead, bundles["cy"], bea.signer) == 2
    assert f"signed by {cy.signer}, not by {bea.signer}" in capsys.readouterr().err
    # A bundle the lead's own key signed holds the lead's votes, whoever cast them.
    with Ledger.open(bea.ledger) as ledger:
        own = tmp_path / "signed-by-lead.zip"
        export_round(ledger, own, family="small", key=lead.key)
    assert _import(lead, own, lead.signer, "--rater", "bea") == 2
    assert f"{own}: --signer {lead.signer} is your own key" in capsys.readouterr().err
    # Voted under the default name, the colleague needs a name here.
    assert _import(lead, bundles["bea"], bea.signer) == 2
    assert "carry the default name 'rater': name the colleague with --rater" in (
        capsys.readouterr().err
    )
    assert _import(lead, bundles["bea"], bea.signer, "--rater", "rater") == 2
    capsys.readouterr()
    assert _rows(lead) == before
    assert main(["--ledger", lead.ledger, "check"]) == 0


def test_a_bundle_wants_its_signer_and_a_vote_log_none(team, capsys):
    machines, bundles = team
    lead = machines["lead"]
    assert main(["--ledger", lead.ledger, "import-votes", str(bundles["cy"]),
                 "--family", "small"]) == 2  # fmt: skip
    assert "is a bundle: give --signer FINGERPRINT" in capsys.readouterr().err
    log = lead.folder.parent / "cy.jsonl"
    assert _import(lead, log, machines["cy"].signer) == 2
    assert "is not a bundle (a folder or .zip holding manifest.json): --signer" in (
        capsys.readouterr().err
    )
    empty = lead.folder / "empty"
    empty.mkdir()
    assert _import(lead, empty, machines["cy"].signer) == 2
    assert "a folder without manifest.json: neither a bundle nor a vote log" in (
        capsys.readouterr().err
    )


def test_the_same_bundle_twice_adds_nothing_and_names_stay_with_their_key(team, capsys):
    machines, bundles = team
    lead, bea, cy = machines["lead"], machines["bea"], machines["cy"]
    assert _import(lead, bundles["bea"], bea.signer, "--rater", "bea") == 0
    once = _rows(lead)
    for extra in (("--rater", "bea"), ()):  # the key's name is remembered
        assert _import(lead, bundles["bea"], bea.signer, *extra) == 0
        assert "7 votes of bea read" in capsys.readouterr().out
        assert _rows(lead) == once
    assert _import(lead, bundles["bea"], bea.signer, "--json") == 0
    assert json.loads(capsys.readouterr().out) == {
        "family": "small", "signer": bea.signer, "records": 7, "votes_added": 0,
        "retractions_added": 0, "sessions_added": 0, "raters": ["bea"], "relayed": 0,
    }  # fmt: skip
    assert _import(lead, bundles["bea"], bea.signer, "--rater", "bee") == 2
    assert "came into this ledger as 'bea': give --rater bea" in capsys.readouterr().err
    # Another key cannot vote under bea's name, nor under a name of the lead's ledger.
    assert _import(lead, bundles["cy"], cy.signer, "--rater", "bea") == 2
    assert f"'bea' votes here from bundles signed by {bea.signer}" in capsys.readouterr().err
    with Ledger.open(lead.ledger) as ledger:
        RatingSession(ledger, "small", seed=5, actor="cy").vote("left")
    assert _import(lead, bundles["cy"], cy.signer) == 2
    assert "'cy' is already a rater of this ledger" in capsys.readouterr().err
    assert _import(lead, bundles["cy"], cy.signer, "--rater", "cyril") == 0
    assert "5 votes of cyril read" in capsys.readouterr().out


def test_a_later_bundle_adds_only_the_new_votes_and_retractions(team, capsys):
    machines, bundles = team
    lead, bea = machines["lead"], machines["bea"]
    assert _import(lead, bundles["bea"], bea.signer, "--rater", "bea") == 0
    first = _rows(lead)
    _sit(bea, "rl")  # bea votes more, then undoes a vote of the first sitting ...
    with Ledger.open(bea.ledger) as ledger:
        earlier = [v for v in voting.votes_in_force(ledger, "small") if v.repeat_of is None]
        voting.retract(ledger, earlier[3].vote_id)
        # ... and votes that showing again: the retraction must come in before this vote.
        again = VoteId(voting.new_id())
        voting.record_vote(ledger, replace(earlier[3], vote_id=again, choice="tie"))
    later = bea.export("bea-2.zip")
    capsys.readouterr()
    assert _import(lead, later, bea.signer) == 0
    assert "10 votes of bea read" in capsys.readouterr().out
    assert _rows(lead) == {**first, "sessions": first["sessions"] + 1,
                           "presentations": first["presentations"] + 2,
                           "votes": first["votes"] + 3, "retractions": 2}  # fmt: skip
    assert _by(_in_force(lead), "bea") == _by(_in_force(bea), "rater")
    assert _import(lead, later, bea.signer) == 0  # and again: nothing
    assert _rows(lead)["votes"] == first["votes"] + 3
    assert main(["--ledger", lead.ledger, "check"]) == 0


def test_votes_on_another_text_than_this_ledgers_are_refused(team, tmp_path, capsys):
    machines, bundles = team
    lead = machines["lead"]
    changed = tmp_path / "changed.jsonl"
    lines = (tmp_path / "small.jsonl").read_text(encoding="utf-8").splitlines()
    changed.write_text("\n".join(line.replace("c1 in a few", "c1 in many") for line in lines)
                       + "\n", encoding="utf-8")  # fmt: skip
    other = Machine(tmp_path / "other", "small", lead.key)
    other.folder.mkdir()
    with Ledger.open(other.ledger) as ledger:
        import_file(ledger, changed, family="small", fmt="native")
    assert _import(other, bundles["cy"], machines["cy"].signer) == 2
    err = capsys.readouterr().err
    assert (
        "outputs.jsonl: another text here than the colleague voted on: c1/alpha/0, c1/beta/0 ("
        in err
    )
    assert "nothing imported" in err
    assert _rows(other)["votes"] == 0


def test_a_bundle_of_several_raters_comes_in_only_with_a_name_each(
    team, tmp_path, monkeypatch, capsys
):
    machines, _ = team
    lead, bea = machines["lead"], machines["bea"]
    _vote_log(lead, tmp_path / "cy-at-lead.jsonl")  # cy's votes cast on the lead's machine
    merged = lead.export("lead.zip")
    monkeypatch.setenv("ARENA_SIGNING_KEY", str(bea.key_file))
    before = _rows(bea)
    capsys.readouterr()
    assert _import(bea, merged, lead.signer) == 2
    assert "holds the votes of 2 raters (rater, cy), some under the default name" in (
        capsys.readouterr().err
    )
    assert _import(bea, merged, lead.signer, "--rater", "lee") == 2
    assert "each comes in under the name it has there, so --rater names none" in (
        capsys.readouterr().err
    )
    assert _rows(bea) == before


def test_a_vote_log_cannot_add_to_a_colleagues_votes(team, capsys):
    machines, bundles = team
    lead, bea = machines["lead"], machines["bea"]
    assert _import(lead, bundles["bea"], bea.signer, "--rater", "bea") == 0
    log = lead.folder.parent / "cy.jsonl"
    as_bea = lead.folder.parent / "as-bea.jsonl"
    as_bea.write_text(log.read_text(encoding="utf-8").replace('"cy"', '"bea"'), encoding="utf-8")
    before = _rows(lead)
    capsys.readouterr()
    assert main(["--ledger", lead.ledger, "import-votes", str(as_bea), "--family", "small"]) == 2
    assert f"as-bea.jsonl:1: actor: 'bea' votes here from bundles signed by {bea.signer}" in (
        capsys.readouterr().err
    )
    assert _rows(lead) == before


def test_a_colleague_is_never_the_one_at_the_keyboard(team):
    from arena.errors import BadInput
    from arena.rating.raters import at_keyboard

    machines, bundles = team
    lead, bea = machines["lead"], machines["bea"]
    assert _import(lead, bundles["bea"], bea.signer, "--rater", "bea") == 0
    with Ledger.open(lead.ledger) as ledger:
        assert at_keyboard(ledger) == "rater"  # bea votes on her machine: nothing to ask
        with pytest.raises(BadInput, match="'bea' is a colleague whose votes come from"):
            at_keyboard(ledger, "bea")


def test_a_merged_bundle_brings_only_what_its_signer_cast(team, monkeypatch, capsys):
    machines, bundles = team
    lead, bea, cy = machines["lead"], machines["bea"], machines["cy"]
    assert _import(lead, bundles["bea"], bea.signer, "--rater", "bea") == 0
    assert _import(lead, bundles["cy"], cy.signer) == 0
    merged = lead.export("lead-merged.zip")  # the lead's 4 votes, bea's 7 and cy's 5
    capsys.readouterr()
    # bea takes the team's board home: the lead's votes come in, hers do not come back, and
    # cy's come only from cy's own bundle.
    monkeypatch.setenv("ARENA_SIGNING_KEY", str(bea.key_file))
    before = _in_force(bea)
    assert _import(bea, merged, lead.signer, "--rater", "lead") == 0
    out = capsys.readouterr().out
    assert "4 votes of lead read" in out and "4 new" in out
    assert "12 votes the colleague brought from others' bundles left out" in out
    after = _in_force(bea)
    assert _by(after, "rater") == _by(before, "rater")  # bea's own, once
    assert _by(after, "lead") == _by(_in_force(lead), "rater")
    assert _by(after, "cy") == []
    assert _import(bea, bundles["cy"], cy.signer) == 0
    assert _by(_in_force(bea), "cy") == _by(_in_force(cy), "cy")
