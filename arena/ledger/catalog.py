"""Families, cases, systems and outputs: what imports add (gate results: ``verdicts``)."""

from __future__ import annotations

import dataclasses
import json

from arena.clock import now_iso
from arena.errors import BadInput, did_you_mean
from arena.ledger import family_changes
from arena.ledger.connection import Ledger
from arena.records import (
    Case,
    CaseId,
    Family,
    Output,
    OutputId,
    OutputPlace,
    System,
    SystemDescriptor,
    SystemId,
    name_problem,
)
from arena.texts import text_key


def _family(row: dict) -> Family:
    return Family(
        name=row["name"],
        kind=row["kind"],
        language=row["language"],
        min_chars=row["min_chars"],
        max_chars=row["max_chars"],
        aspect=row["aspect"],
        reference=row["reference"],
    )


def get_family(ledger: Ledger, name: str) -> Family | None:
    """The family with its settings in force (``family_changes``), or None."""
    rows = ledger.rows("SELECT * FROM families WHERE name = ?", [name])
    if not rows:
        return None
    return family_changes.in_force(ledger, _family(rows[0]), family_changes.changes(ledger, name))[
        0
    ]


def family_as_created(ledger: Ledger, name: str) -> tuple[Family, str] | None:
    """The family's settings as it was created (no change applied), and when."""
    rows = ledger.rows("SELECT * FROM families WHERE name = ?", [name])
    return (_family(rows[0]), rows[0]["created_at"]) if rows else None


def families(ledger: Ledger) -> list[Family]:
    """Every family, archived or not, with its settings in force, by name."""
    return [family for family, _ in family_listings(ledger)]


def family_listings(ledger: Ledger) -> list[tuple[Family, family_changes.Listing]]:
    """Every family with its settings in force, and its label and archived state."""
    changed = family_changes.by_family(ledger)
    return [
        family_changes.in_force(ledger, _family(r), changed.get(r["name"], ()))
        for r in ledger.rows("SELECT * FROM families ORDER BY name")
    ]


def no_such_family(ledger: Ledger, name: str, *, field: str = "--family") -> BadInput:
    """The refusal of an unknown family name, with the names it may be a typo of."""
    names = [r[0] for r in ledger.conn.execute("SELECT name FROM families ORDER BY name")]
    return BadInput(f"no family named {name!r}{did_you_mean(name, names)}", field=field)


def add_family(ledger: Ledger, family: Family) -> None:
    # Every way a family is made comes here: its name is checked once, by the one rule.
    problem = name_problem(family.name)
    if problem is not None:
        raise BadInput(f"a family's name {problem}", field="family")
    ledger.insert(
        "families",
        {
            "name": family.name,
            "kind": family.kind,
            "language": family.language,
            "min_chars": family.min_chars,
            "max_chars": family.max_chars,
            "aspect": family.aspect,
            "reference": family.reference,
            "created_at": now_iso(),
        },
    )


def set_reference(ledger: Ledger, family: str, system_id: SystemId) -> None:
    ledger.conn.execute("UPDATE families SET reference = ? WHERE name = ?", [system_id, family])


def add_system(ledger: Ledger, label: str, descriptor: SystemDescriptor) -> tuple[SystemId, bool]:
    """Store a system once; return its id and whether it was new.

    The same descriptor always maps to the same id, so a known system is
    found again and keeps the label it was first stored with.
    """
    system_id = descriptor.system_id
    db = ledger.conn
    if db.execute("SELECT 1 FROM systems WHERE system_id = ?", [system_id]).fetchone():
        return system_id, False
    db.execute(
        "INSERT INTO systems (system_id, label, descriptor, created_at) VALUES (?, ?, ?, ?)",
        [
            system_id,
            label,
            json.dumps(dataclasses.asdict(descriptor), sort_keys=True, ensure_ascii=False),
            now_iso(),
        ],
    )
    return system_id, True


def check_label(ledger: Ledger, family: str, label: str, system_id: SystemId) -> None:
    """Refuse a label that already names another system of ``family``.

    Labels are how people name systems in commands, so within a family each
    names one descriptor; a changed descriptor is a new system and needs a new label.
    """
    clash = ledger.conn.execute(
        "SELECT system_id FROM systems WHERE label = ? AND system_id != ? AND system_id IN "
        "(SELECT system_id FROM outputs WHERE family = ?) LIMIT 1",
        [label, system_id, family],
    ).fetchone()
    if clash:
        raise BadInput(
            f"label {label!r} already names system {clash[0][:12]}… in family {family!r} with a "
            "different descriptor; a changed descriptor is a new system and needs its own label",
            field="system.label",
        )


def _system(row: dict) -> System:
    fields = json.loads(row["descriptor"])
    return System(SystemId(row["system_id"]), row["label"], SystemDescriptor(**fields))


def systems(ledger: Ledger, family: str | None = None) -> list[System]:
    if family is None:
        rows = ledger.rows("SELECT * FROM systems ORDER BY label")
    else:
        rows = ledger.rows(
            "SELECT * FROM systems WHERE system_id IN "
            "(SELECT system_id FROM outputs WHERE family = ?) ORDER BY label",
            [family],
        )
    return [_system(r) for r in rows]


def find_system(ledger: Ledger, name: str, family: str | None = None) -> System | None:
    """A system by label (within ``family`` when given), full id or id prefix (8+ characters).

    None when nothing, or more than one system, matches.
    """
    scope, params = "", [name, name]
    if family is not None:
        scope, params = (
            " AND system_id IN (SELECT system_id FROM outputs WHERE family = ?)",
            [name, name, family],
        )
    rows = ledger.rows(f"SELECT * FROM systems WHERE (label = ? OR system_id = ?){scope}", params)
    if not rows and len(name) >= 8:
        rows = ledger.rows(
            f"SELECT * FROM systems WHERE system_id LIKE ?{scope}", [name + "%", *params[2:]]
        )
    return _system(rows[0]) if len(rows) == 1 else None


def get_case(ledger: Ledger, family: str, case_id: str) -> Case | None:
    rows = ledger.rows("SELECT * FROM cases WHERE family = ? AND case_id = ?", [family, case_id])
    return _case(rows[0]) if rows else None


def check_same_case(old: Case, new: Case) -> None:
    """Refuse ``new`` when it gives a stored case another prompt, category or language.

    The detected language is import's reading of the prompt, not what the file
    says, so it is not compared.
    """
    for what in ("prompt", "category", "language"):
        if getattr(old, what) != getattr(new, what):
            raise BadInput(
                f"case {new.case_id!r} is already in family {new.family!r} with a different {what}",
                field=f"case.{what}",
            )


def add_case(ledger: Ledger, case: Case) -> bool:
    """Store a case; an identical case is found again, a different one refused."""
    old = get_case(ledger, case.family, case.case_id)
    if old is not None:
        check_same_case(old, case)
        return False
    ledger.conn.execute(
        "INSERT INTO cases (family, case_id, category, prompt, language, detected_language, "
        "language_evidence) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            case.family,
            case.case_id,
            case.category,
            case.prompt,
            case.language,
            case.detected_language,
            case.language_evidence,
        ],
    )
    return True


def _case(row: dict) -> Case:
    return Case(
        row["family"],
        CaseId(row["case_id"]),
        row["category"],
        row["prompt"],
        row["language"],
        row["detected_language"],
        row["language_evidence"],
    )


def cases(ledger: Ledger, family: str, *, up_to: int | None = None) -> list[Case]:
    """The cases of ``family`` in import order (``up_to``: those stored by that rowid)."""
    cut, params = ("", [family]) if up_to is None else (" AND rowid <= ?", [family, up_to])
    return [
        _case(r)
        for r in ledger.rows(f"SELECT * FROM cases WHERE family = ?{cut} ORDER BY rowid", params)
    ]


_OUTPUT_COLUMNS = (
    "output_id",
    "family",
    "case_id",
    "system_id",
    "sample",
    "text",
    "is_diff",
    "finish_reason",
    "latency_ms",
    "cost",
    "prompt_tokens",
    "completion_tokens",
    "test_result",
)


# The columns in the order ``_output`` unpacks them.
_SELECT_OUTPUTS = f"SELECT {', '.join(_OUTPUT_COLUMNS)} FROM outputs"


def _output(row: tuple) -> Output:
    # Unpacked, not zipped into a dict of keywords: a round reads every output of a family.
    *place, is_diff, finish_reason, latency_ms, cost, prompt_tokens, completion_tokens, test = row
    return Output(
        *place,
        is_diff=bool(is_diff),
        finish_reason=finish_reason,
        latency_ms=latency_ms,
        cost=cost,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        test_result=test,
    )


def add_output(ledger: Ledger, output: Output, import_id: str) -> bool:
    """Store an output once. The same output again adds nothing; a changed one is refused."""
    found = ledger.conn.execute(
        f"{_SELECT_OUTPUTS} WHERE output_id = ?", [output.output_id]
    ).fetchone()
    if found is not None:
        if _output(found) != output:
            raise BadInput(
                f"sample {output.sample} of this system on case {output.case_id!r} is already "
                "in the ledger with different content; outputs are never overwritten "
                "(give the new one another sample index or system descriptor)",
                field="output",
            )
        return False
    row = {name: getattr(output, name) for name in _OUTPUT_COLUMNS}
    row.update(is_diff=int(output.is_diff), content_hash=output.content_hash, import_id=import_id)
    ledger.insert("outputs", row)
    ledger.conn.execute("INSERT INTO output_keys VALUES (?, ?, ?, ?, ?)", key_row(output))
    return True


def text_keys(ledger: Ledger, family: str) -> dict[OutputId, str]:
    """The stored text key of every output of ``family`` (migration 0014)."""
    return dict(
        ledger.conn.execute(
            "SELECT output_id, text_key FROM output_keys WHERE family = ?", [family]
        ).fetchall()
    )


def key_row(output: Output) -> tuple[str, str, str, str, str]:
    """The ``output_keys`` row of ``output``: where it sits and its text key."""
    return (
        output.output_id,
        output.family,
        output.case_id,
        output.system_id,
        text_key(output.text),
    )


def outputs(ledger: Ledger, family: str, *, up_to: int | None = None) -> list[Output]:
    """The outputs of ``family`` in import order (only those stored by mark ``up_to``)."""
    where, params = "family = ? AND rowid <= ?", [family, up_to if up_to is not None else 2**62]
    rows = ledger.conn.execute(f"{_SELECT_OUTPUTS} WHERE {where} ORDER BY rowid", params)
    return [_output(r) for r in rows]


# An ``OutputPlace``'s columns in ``output_keys``: its rowid is the output's number.
PLACE_COLUMNS = "output_id, case_id, system_id, text_key, rowid"


def output_places(ledger: Ledger, family: str) -> list[OutputPlace]:
    """Every output of ``family`` without its text, in no set order: one pass over a
    covering index, where reading the outputs whole makes a record of every text."""
    rows = ledger.conn.execute(
        f"SELECT {PLACE_COLUMNS} FROM output_keys WHERE family = ?",
        [family],
    )
    return list(map(OutputPlace._make, rows))


def outputs_and_hashes(ledger: Ledger, family: str) -> tuple[list[Output], dict[OutputId, str]]:
    """The outputs of ``family`` in import order, and the content hash stored with each
    (``Output.content_hash`` of its text, which `arena check` holds it to): read with the
    text at no cost, where working it out again hashes every text."""
    rows = ledger.conn.execute(
        f"SELECT {', '.join(_OUTPUT_COLUMNS)}, content_hash FROM outputs WHERE family = ? "
        "ORDER BY rowid",
        [family],
    ).fetchall()
    return [_output(r[:-1]) for r in rows], {r[0]: r[-1] for r in rows}


def count_outputs(ledger: Ledger, family: str) -> int:
    """How many outputs ``family`` holds, in force or not."""
    return ledger.conn.execute(
        "SELECT COUNT(*) FROM outputs WHERE family = ?", [family]
    ).fetchone()[0]


_MARKED = (("outputs", "rowid"), ("gate_results", "seq"), ("trials", "seq"), ("cases", "rowid"))


def marks(ledger: Ledger) -> dict[str, int]:
    """How far the outputs, gate results, trials and cases stand now (rows are only ever
    added to them): a round records these, so its export shows the family as it was at
    closing, and what it was worked out from."""
    return {
        table: ledger.conn.execute(f"SELECT COALESCE(MAX({key}), 0) FROM {table}").fetchone()[0]
        for table, key in _MARKED
    }


def get_output(ledger: Ledger, output_id: OutputId) -> Output | None:
    row = ledger.conn.execute(f"{_SELECT_OUTPUTS} WHERE output_id = ?", [output_id]).fetchone()
    return _output(row) if row else None


def find_output(ledger: Ledger, name: str) -> list[Output]:
    """Outputs whose id is ``name`` or, for 8+ characters, starts with it."""
    found = get_output(ledger, OutputId(name))
    if found is not None:
        return [found]
    if len(name) < 8:
        return []
    return [
        _output(r)
        for r in ledger.conn.execute(
            f"{_SELECT_OUTPUTS} WHERE output_id LIKE ? LIMIT 2", [name + "%"]
        )
    ]


def record_import(ledger: Ledger, row: dict) -> None:
    ledger.insert("imports", {**row, "imported_at": now_iso()})
