"""A round of named raters (`round close --raters`): verify re-derives it from the bundle
and catches the recorded raters changed, even in a bundle signed again."""

from __future__ import annotations

import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from arena.bundle.export import MANIFEST, export_round
from arena.bundle.signing import SIGNATURE, sign
from arena.bundle.verify import verify_bundle
from arena.ledger import catalog, voting
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.bundle.rebundle import rehash
from tests.rating.colleague import rated_by_colleague
from tests.votes_helpers import show_and_vote

KEY = Ed25519PrivateKey.generate()


@pytest.fixture
def bundle(ledger, tmp_path):
    family = rated_by_colleague(ledger, tmp_path)
    session = voting.start_session(ledger, family, seed=5)
    outputs = catalog.outputs(ledger, family)
    for n in range(24, 40):
        alpha, beta = [o for o in outputs if o.case_id == f"c{n:02d}"][:2]
        show_and_vote(ledger, session, alpha, beta, "left")
    close_round(ledger, family, RoundSettings(raters=("dana",)))
    out = tmp_path / "bundle"
    export_round(ledger, out, family=family, key=KEY)
    return out


def _resigned(folder, change) -> list[str]:
    manifest = json.loads((folder / MANIFEST).read_text("utf-8"))
    change(manifest["settings"])
    (folder / MANIFEST).write_text(json.dumps(manifest, sort_keys=True, indent=1), "utf-8")
    rehash(folder)
    (folder / SIGNATURE).write_bytes(sign((folder / MANIFEST).read_bytes(), KEY))
    return verify_bundle(folder).problems


def test_a_round_of_named_raters_verifies(bundle):
    assert verify_bundle(bundle).problems == []
    settings = json.loads((bundle / MANIFEST).read_text("utf-8"))["settings"]
    assert settings["raters"] == ["dana"]


def test_the_recorded_raters_changed_are_caught_in_a_bundle_signed_again(bundle):
    found = _resigned(bundle, lambda settings: settings.update(raters=["dana", "rater"]))
    assert any("other_rater" in p for p in found), found


def test_the_recorded_raters_dropped_are_caught_too(bundle):
    found = _resigned(bundle, lambda settings: settings.pop("raters"))
    assert any("other_rater" in p for p in found), found
