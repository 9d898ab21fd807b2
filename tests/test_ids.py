"""System ids hash the whole descriptor; an existing system is never overwritten."""

import dataclasses

import pytest

from arena.canonical import canonical_json, content_hash
from arena.errors import BadInput
from arena.ledger import catalog
from arena.records import DESCRIPTOR_FIELDS, SystemDescriptor, name_problem

FULL = SystemDescriptor(
    model="acme/writer",
    revision="r3",
    artifact_digest="sha256:ab12",
    quantization="q4_k_m",
    effort="high",
    harness="plain-chat",
    system_prompt="Be brief.",
    answer_contract="markdown",
    parser="none",
    retry_policy="3x",
    inference={"temperature": 0.7, "max_tokens": 512},
)


def test_the_id_is_sha256_of_the_canonical_descriptor():
    expected = content_hash(
        {
            **{f: getattr(FULL, f) for f in DESCRIPTOR_FIELDS},
            "inference": {"temperature": "0.7", "max_tokens": 512},
        }
    )
    assert FULL.system_id == expected
    assert len(FULL.system_id) == 64


def test_the_same_descriptor_always_gives_the_same_id():
    again = SystemDescriptor(**dataclasses.asdict(FULL))
    assert again.system_id == FULL.system_id


@pytest.mark.parametrize("name", DESCRIPTOR_FIELDS)
def test_changing_any_field_gives_a_new_system(name):
    changed = {"inference": {"temperature": 0.8, "max_tokens": 512}}.get(name, "other")
    assert dataclasses.replace(FULL, **{name: changed}).system_id != FULL.system_id


def test_canonical_json_refuses_floats_and_huge_integers():
    with pytest.raises(ValueError, match="floats"):
        canonical_json({"a": 1.5})
    with pytest.raises(ValueError, match="2\\*\\*53"):
        canonical_json({"a": 2**60})
    assert canonical_json({"b": 1, "a": "é"}) == '{"a":"é","b":1}'


def test_a_known_system_is_found_again_and_keeps_its_label(ledger):
    first, added = catalog.add_system(ledger, "writer", FULL)
    again, added_again = catalog.add_system(ledger, "writer-2", FULL)
    assert (first, added, added_again) == (again, True, False)
    assert catalog.find_system(ledger, "writer").descriptor == FULL
    assert catalog.find_system(ledger, "writer-2") is None


def _import(ledger, tmp_path, family, descriptor_extra, name="a.jsonl"):
    import json

    from arena.intake.outputs import import_file

    path = tmp_path / name
    path.write_text(
        json.dumps(
            {
                "case": {"id": "c1", "prompt": "p"},
                "output": "text",
                "system": {"label": "writer", "model": "m", **descriptor_extra},
            }
        ),
        encoding="utf-8",
    )
    return import_file(ledger, path, family=family, fmt="native")


def test_within_a_family_a_label_cannot_name_a_second_descriptor(ledger, tmp_path):
    _import(ledger, tmp_path, "f", {"effort": "high"})
    with pytest.raises(BadInput, match="new system and needs its own label"):
        _import(ledger, tmp_path, "f", {"effort": "low"}, name="b.jsonl")


def test_another_family_may_reuse_a_label_for_another_descriptor(ledger, tmp_path):
    _import(ledger, tmp_path, "f", {"effort": "high"})
    _import(ledger, tmp_path, "g", {"effort": "low"}, name="b.jsonl")
    assert catalog.find_system(ledger, "writer", "f").descriptor.effort == "high"
    assert catalog.find_system(ledger, "writer", "g").descriptor.effort == "low"
    assert catalog.find_system(ledger, "writer") is None  # ambiguous across families


def test_systems_are_found_by_id_prefix(ledger):
    catalog.add_system(ledger, "writer", FULL)
    assert catalog.find_system(ledger, FULL.system_id[:10]).label == "writer"


# ---------------------------------------------------------------------------------------
# What an id or a label may hold: one rule (name_problem), read by every reader.

REFUSED_NAMES = {"c\x001": "U+0000", "c\n1": "U+000A", "c\r1": "U+000D", "\tc": "U+0009",
                 "c\x1b[31m": "U+001B", "c\x7f": "U+007F", "c\x85": "U+0085", "c\x9b": "U+009B",
                 "c\u2028": "U+2028", "c\u2029": "U+2029", "c\udcff": "U+DCFF", "": "empty",
                 "  ": "empty"}  # fmt: skip
ACCEPTED_NAMES = ["c1", "gpt-4 (0613)", "通义千问", "qwen 2.5 · 72B", "é", "a b", "ｃ１"]


@pytest.mark.parametrize("name", sorted(REFUSED_NAMES))
def test_a_name_with_a_control_character_or_none_at_all_is_refused(name):
    assert REFUSED_NAMES[name] in (name_problem(name) or "")


@pytest.mark.parametrize("name", ACCEPTED_NAMES)
def test_any_other_one_line_text_is_a_name(name):
    assert name_problem(name) is None


NAMED = {
    "native case id": ('{"case": {"id": "c\\u0000", "prompt": "p"}, "output": "o", '
                       '"system": {"label": "a", "model": "m"}}', "native", "case.id"),
    "native label": ('{"case": {"id": "c", "prompt": "p"}, "output": "o", '
                     '"system": {"label": "a\\nb", "model": "m"}}', "native", "system.label"),
    "csv case id": ('case_id,prompt,system,output\n"c\x1b",p,a,o', "csv", "case_id"),
    "csv label": ('case_id,prompt,system,output\nc,p,"a\nb",o', "csv", "system"),
    "alpacaeval label": ('[{"instruction": "i", "output": "o", "generator": "g\\u001b"}]',
                         "alpacaeval", "generator"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(NAMED))
def test_every_reader_refuses_such_an_id_and_stores_it_when_the_rule_is_off(
    name, tmp_path, ledger, monkeypatch
):
    from arena.intake.outputs import import_file
    from arena.intake.readers import base

    text, fmt, field = NAMED[name]
    path = tmp_path / f"in.{'csv' if fmt == 'csv' else 'json'}"
    path.write_text(text + "\n", encoding="utf-8")
    with pytest.raises(BadInput) as refused:
        import_file(ledger, path, family="f", fmt=fmt)
    assert str(refused.value).startswith(f"{path}:")
    assert (refused.value.line, refused.value.field) == (1 + (fmt == "csv"), field)
    assert "U+" in refused.value.message and catalog.families(ledger) == []
    # The rule is what stops it: without it, the id is stored as it came.
    monkeypatch.setattr(base, "name_problem", lambda _: None)
    import_file(ledger, path, family="f", fmt=fmt)
    stored = [(c.case_id, s.label) for c in catalog.cases(ledger, "f") for s in
              catalog.systems(ledger, "f")]  # fmt: skip
    assert any(set(c + s) & set("\x00\n\x1b\x85") for c, s in stored)


def test_a_family_is_made_under_a_name_of_one_line_only(ledger, tmp_path):
    from arena.intake.outputs import import_file

    path = tmp_path / "o.jsonl"
    path.write_text('{"case": {"id": "c", "prompt": "p"}, "output": "o", '
                    '"system": {"label": "a", "model": "m"}}\n', encoding="utf-8")  # fmt: skip
    with pytest.raises(BadInput, match="a family's name holds U\\+000A"):
        import_file(ledger, path, family="f\nx", fmt="native")
    assert catalog.families(ledger) == []
