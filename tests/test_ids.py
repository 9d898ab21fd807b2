"""System ids hash the whole descriptor; an existing system is never overwritten."""

import dataclasses

import pytest

from arena.canonical import canonical_json, content_hash
from arena.errors import BadInput
from arena.ledger import catalog
from arena.records import DESCRIPTOR_FIELDS, SystemDescriptor

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
