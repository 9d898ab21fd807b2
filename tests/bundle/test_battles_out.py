"""`arena export --format battles`: a round's fitted comparisons in FastChat / LMArena
battles JSON, refitted by `arena fit` and by arena-rank to the round's points."""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys

import numpy as np
import pytest

from arena.bundle.battles_out import export_battles
from arena.cli.main import main
from arena.errors import BadInput
from arena.intake.outputs import import_file
from arena.ledger import catalog
from arena.rating.session import RatingSession
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from arena.rounds.scoring import fit_battles
from tests.conftest import REALDATA, native_line

SYSTEMS = {"alpha": 1.2, "beta": 0.6, "gamma": 0.0, "delta": -0.5}


def _answer(label: str, case: int) -> str:
    if label == "delta" and case % 4 == 0:
        return ""  # the Empty gate: pairs with delta on these cases settle without a vote
    return f"{label} answers case {case} in a few plain English sentences for the reader."


def _edge(ledger, pair) -> float:
    """How much stronger the left system is (the simulated rater's truth)."""
    labels = {s.system_id: s.label for s in catalog.systems(ledger, "f")}
    return SYSTEMS[labels[pair.left.system_id]] - SYSTEMS[labels[pair.right.system_id]]


@pytest.fixture
def voted(ledger, tmp_path):
    lines = [native_line(f"c{i}", s, _answer(s, i)) for i in range(12) for s in SYSTEMS]
    source = tmp_path / "f.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    import_file(ledger, source, family="f", fmt="native")
    session, rng = RatingSession(ledger, "f", seed=1), random.Random(2)
    for n in range(60):
        pair = session.current()
        if pair is None:
            break
        edge = _edge(ledger, pair)
        choice = "tie" if n % 9 == 4 else "both_bad" if n % 13 == 6 else None
        if choice is None:
            choice = "left" if rng.random() < 1 / (1 + np.exp(-edge)) else "right"
        session.vote(choice)
    return ledger


def test_the_battles_refit_to_the_rounds_points_with_arena_fit(voted, tmp_path):
    # Ledger weighting with a low cap: the rater's votes weigh less than 1 each.
    found = close_round(voted, "f", RoundSettings(seed=1, weighting="ledger", cap=20))
    out = tmp_path / "battles.json"
    _, count = export_battles(voted, out, family="f")
    battles = json.loads(out.read_text("utf-8"))
    assert count == len(battles) > 0
    assert {b["winner"] for b in battles} == {"model_a", "model_b", "tie", "tie (bothbad)"}
    assert any(b["source"] == "settled" for b in battles)
    assert any(b["weight"] < 1 for b in battles if b["source"] == "vote")
    assert all(isinstance(b["tstamp"], float) and b["question_id"] for b in battles)
    refit = fit_battles(
        str(out), penalty=found.settings.penalty, anchor=found.anchor.label, base=1000.0
    )
    theirs = {s["system"]: s["points"] for s in refit["systems"]}
    ours = {row.label: row.points for row in found.systems}
    assert theirs.keys() == ours.keys()
    assert max(abs(theirs[k] - ours[k]) for k in ours) < 0.01


def test_the_command_writes_the_file_and_refuses_an_existing_one(voted, tmp_path, capsys):
    close_round(voted, "f", RoundSettings(seed=1))
    out = tmp_path / "b.json"
    args = ["--ledger", voted.path, "export", "--family", "f", "--format", "battles"]
    assert main([*args, "--out", str(out)]) == 0
    assert "battles of round" in capsys.readouterr().out
    assert main([*args, "--out", str(out)]) == 2


def test_a_weight_that_is_not_a_number_is_refused_with_its_line(tmp_path):
    path = tmp_path / "b.jsonl"
    path.write_text(
        '{"model_a": "x", "model_b": "y", "winner": "model_a", "weight": 1}\n'
        '{"model_a": "x", "model_b": "y", "winner": "tie", "weight": "heavy"}\n'
    )
    with pytest.raises(BadInput) as refused:
        fit_battles(str(path))
    assert (refused.value.line, refused.value.field) == (2, "weight")


_ARENA_RANK = """
import json, sys
import numpy as np, pandas as pd
from arena_rank.models.bradley_terry import BradleyTerry
from arena_rank.utils.data_utils import PairDataset
frame = pd.DataFrame(json.load(open(sys.argv[1])))
model = BradleyTerry(n_competitors=frame[["model_a", "model_b"]].stack().nunique())
dataset = PairDataset.from_pandas(frame)
model.fit(dataset)
ratings = np.asarray(model.params["ratings"]) * model.alpha
print(json.dumps(dict(zip(dataset.competitors, ratings.tolist()))))
"""


def test_arena_rank_refits_a_unit_weight_round_to_the_same_points(ledger, tmp_path):
    if importlib.util.find_spec("arena_rank") is None:
        pytest.skip("arena-rank is not installed")
    lines = [
        native_line(f"c{i}", s, f"{s} answers case {i} in a few plain sentences for the reader.")
        for i in range(15)
        for s in SYSTEMS
    ]
    source = tmp_path / "f.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    import_file(ledger, source, family="f", fmt="native")
    session, rng = RatingSession(ledger, "f", seed=3), random.Random(4)
    while (pair := session.current()) is not None:
        edge = _edge(ledger, pair)
        session.vote("left" if rng.random() < 1 / (1 + np.exp(-edge)) else "right")
    # arena-rank fits without a penalty: so does this round (its data are not separable).
    found = close_round(ledger, "f", RoundSettings(seed=1, penalty=1e-9))
    out = tmp_path / "battles.json"
    export_battles(ledger, out, family="f")
    assert {b["weight"] for b in json.loads(out.read_text("utf-8"))} == {1.0}
    ran = subprocess.run(
        [sys.executable, "-c", _ARENA_RANK, str(out)], capture_output=True, text=True, check=True
    )
    theirs = json.loads(ran.stdout.splitlines()[-1])
    ours = {row.label: row.points for row in found.systems}
    anchor = found.anchor.label
    gaps = [abs((theirs[k] - theirs[anchor]) - (ours[k] - ours[anchor])) for k in ours]
    assert max(gaps) < 0.1


@pytest.mark.skipif(not (REALDATA / "fastchat-arena-hard").is_dir(), reason="no ../shared/realdata")
def test_a_real_rounds_battles_refit_with_arena_fit_and_arena_rank(ledger, tmp_path):
    """FastChat arena-hard answers of four models, 150 votes by a rater who prefers the
    longer answer, a closed round: its battles give back its points."""
    for answers in sorted((REALDATA / "fastchat-arena-hard" / "model_answer").glob("*.jsonl")):
        import_file(ledger, answers, family="hard", fmt="fastchat")
    session, rng = RatingSession(ledger, "hard", seed=7), random.Random(8)
    for _ in range(150):
        pair = session.current()
        longer = len(pair.left.text) > len(pair.right.text)
        session.vote(("left" if longer else "right") if rng.random() < 0.7 else "tie")
    found = close_round(ledger, "hard", RoundSettings(seed=1, penalty=1e-9))
    out = tmp_path / "battles.json"
    export_battles(ledger, out, family="hard")
    ours = {row.label: row.points for row in found.systems}
    refit = fit_battles(str(out), penalty=1e-9, anchor=found.anchor.label)
    assert max(abs(s["points"] - ours[s["system"]]) for s in refit["systems"]) < 0.01
    if importlib.util.find_spec("arena_rank") is None:
        pytest.skip("arena-rank is not installed")
    ran = subprocess.run(
        [sys.executable, "-c", _ARENA_RANK, str(out)], capture_output=True, text=True, check=True
    )
    theirs, anchor = json.loads(ran.stdout.splitlines()[-1]), found.anchor.label
    gaps = [abs((theirs[k] - theirs[anchor]) - (ours[k] - ours[anchor])) for k in ours]
    assert max(gaps) < 0.1
