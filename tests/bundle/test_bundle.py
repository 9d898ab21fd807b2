"""Exported bundles verify, and every changed byte is caught."""

import json
import random
import shutil

import pytest

from arena.bundle.export import export_round, read_bundle
from arena.bundle.verify import verify_bundle
from arena.errors import BadInput
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.bundle.rebundle import rehash
from tests.votes_helpers import cast


@pytest.fixture
def closed(small_family):
    for index, choice in enumerate(("left", "right", "tie", "left")):
        cast(small_family, case_index=index, choice=choice)
    undone = cast(small_family, case_index=1, choice="both_bad")
    from arena.ledger import voting

    voting.retract(small_family, undone.vote_id)
    close_round(small_family, "small", RoundSettings(weighting="ledger", cap=3.0))
    return small_family


def test_an_exported_folder_and_zip_verify(closed, tmp_path):
    for out in (tmp_path / "bundle", tmp_path / "bundle.zip"):
        found = export_round(closed, out, family="small")
        report = verify_bundle(out)
        assert report.ok, report.problems
        assert report.round == found.round_id and report.systems == 3
    with pytest.raises(BadInput, match="already exists"):
        export_round(closed, tmp_path / "bundle")


def test_the_bundle_holds_what_the_manifest_lists(closed, tmp_path):
    export_round(closed, tmp_path / "b", family="small")
    files = read_bundle(tmp_path / "b")
    manifest = json.loads(files["manifest.json"])
    assert set(manifest["files"]) | {"manifest.json", "manifest.sha256", "manifest.sig"} == set(
        files
    )
    votes = [json.loads(x) for x in files["votes.jsonl"].splitlines()]
    assert len(votes) == 5 and len(files["retractions.jsonl"].splitlines()) == 1
    statuses = {json.loads(x)["status"] for x in files["comparisons.jsonl"].splitlines()}
    assert statuses == {"fitted"}


def _flip(path, position):
    data = bytearray(path.read_bytes())
    data[position] ^= 0x01
    path.write_bytes(bytes(data))


def test_every_flipped_bit_of_a_zip_bundle_is_caught(closed, tmp_path):
    out = tmp_path / "b.zip"
    export_round(closed, out, family="small")
    original = out.read_bytes()
    for position in random.Random(5).sample(range(len(original)), 40):
        out.write_bytes(original)
        _flip(out, position)
        assert not verify_bundle(out).ok, f"a flipped bit at byte {position} went unnoticed"


def _flips(closed, tmp_path, per_file):
    source = tmp_path / "source"
    export_round(closed, source, family="small")
    rng = random.Random(11)
    for file in sorted(source.iterdir()):
        size = file.stat().st_size
        if not size:  # nothing to flip (no events); deleting it is caught by the manifest
            continue
        positions = (
            range(size)
            if per_file is None
            else sorted({0, size - 1, *rng.sample(range(size), min(per_file, size))})
        )
        for position in positions:
            copy = tmp_path / "copy"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(source, copy)
            _flip(copy / file.name, position)
            report = verify_bundle(copy)
            assert not report.ok, f"a flipped bit at {file.name}:{position} went unnoticed"


def test_single_flipped_bits_anywhere_are_caught(closed, tmp_path):
    _flips(closed, tmp_path, per_file=12)


@pytest.mark.slow
def test_every_flipped_byte_of_every_file_is_caught(closed, tmp_path):
    _flips(closed, tmp_path, per_file=None)


def test_a_rehashed_bundle_with_changed_points_fails_the_refit(closed, tmp_path):
    out = tmp_path / "b"
    export_round(closed, out, family="small")
    board = json.loads((out / "board.json").read_text())
    board["systems"][0]["points"] += 5
    (out / "board.json").write_text(json.dumps(board))
    rehash(out)
    report = verify_bundle(out)
    assert any("refit gives" in p for p in report.problems), report.problems


@pytest.mark.parametrize(
    ("key", "forged"), [("left_share_ci95", [0.1, 0.2]), ("left_share", 0.9), ("decisive_votes", 9)]
)
def test_the_summarys_uncertainty_travels_and_is_derived_again(closed, tmp_path, key, forged):
    out = tmp_path / "b"
    export_round(closed, out, family="small")
    board = json.loads((out / "board.json").read_text())
    summary = board["summary"]
    # Three decisive votes (left, right, left; the tie is not one), two for the left.
    assert (summary["decisive_votes"], summary["left_share"]) == (3, pytest.approx(2 / 3))
    assert summary["left_share_ci95"][0] < 2 / 3 < summary["left_share_ci95"][1]
    summary[key] = forged
    (out / "board.json").write_text(json.dumps(board))
    rehash(out)
    problems = verify_bundle(out).problems
    assert any(p.startswith(f"summary {key}: published") for p in problems), problems


def test_verify_on_the_command_line(closed, tmp_path, capsys):
    from arena.cli.main import main

    out = tmp_path / "b.zip"
    path = closed.path
    closed.close()
    assert main(["--ledger", path, "export", "--family", "small", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["verify", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["problems"] == [] and report["systems"] == 3
    _flip(out, 100)
    assert main(["verify", str(out)]) == 1
    assert "do not trust it" in capsys.readouterr().err


def _nudged(points: dict, by: float) -> dict:
    """Each half's points moved by ``by`` of their size (a system a half cannot place, None,
    as it is)."""
    return {
        half: {k: v if v is None else v * (1 + by) for k, v in of.items()}
        for half, of in points.items()
    }


@pytest.mark.parametrize(("by", "trusted"), [(1e-13, True), (1e-2, False)])
def test_split_half_points_refitted_on_another_processor_agree(closed, tmp_path, by, trusted):
    # A refit on another processor moves the last bits (seen: 2e-13 of the points); a
    # forged half is still caught.
    out = tmp_path / "b"
    export_round(closed, out, family="small")
    board = json.loads((out / "board.json").read_text())
    halves = board["summary"]["split_half_points"]
    assert any(v not in (None, 1000.0) for of in halves.values() for v in of.values())
    board["summary"]["split_half_points"] = _nudged(halves, by)
    (out / "board.json").write_text(json.dumps(board))
    rehash(out)
    # (Rehashed, not signed again: the signature's finding is beside the point.)
    problems = verify_bundle(out).problems
    assert (not any("split_half_points" in p for p in problems)) is trusted, problems
