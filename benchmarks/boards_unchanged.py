"""Boards of the real families, closed by an earlier commit and again by this tree: the same?

    python benchmarks/boards_unchanged.py --before 12bd250              # every family (~5 min)
    python benchmarks/boards_unchanged.py --before 12bd250 --only swe,pandalm --keep /tmp/bu

Builds a ledger per family from ``../shared/realdata`` with a ``git worktree`` of
``--before`` (every command runs as that tree's ``python -m arena``), closes its rounds
there, then closes each stored round again with this tree on a copy of the ledger and
compares them as ``tests/rounds/test_boards_unchanged.py`` does (``same_round``: settings,
results, comparisons, receipts and ``arena round show``, byte for byte, leaving out the
round's id, time and link to the previous round). Prints, per round, identical or what
differs. The real data are not copied anywhere: the ledgers live in a temporary folder
unless ``--keep``.

Families (votes drawn from fixed seeds where the data have no votes on these outputs):

- ``alpaca``: AlpacaEval outputs of gpt4, claude, llama-2-70b-chat-hf; 600 drawn votes;
- ``arenahard``: FastChat arena_hard_1k answers of 4 models; 600 drawn votes;
- ``jmt``: Japanese MT-bench, 3 models, language ja; 240 drawn votes;
- ``swe``: the 3 SWE-bench Lite runs with their reports and the 300-task list (tests);
- ``swe-ttv``: the same as tests_then_votes, with drawn votes on pairs both resolved;
- ``pandalm``: PandaLM's 999 items, annotator 1's votes, annotators 2 and 3 as judges;
- ``chatbot``: the 13,459 Chatbot Arena battles (texts stand-ins: the data have none),
  the crowd's votes, GPT-4, Claude 3 Opus and GPT-3.5 as judges.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.fixtures.boards_before.build import arena  # noqa: E402
from tests.fixtures.boards_before.same_round import (  # noqa: E402
    close_again,
    differences,
    round_ids,
)
from tests.judges.pandalm_files import write_files  # noqa: E402

REALDATA = REPO.parent / "shared" / "realdata"
SWE_RUNS = {
    "autocoderover-acr-run-1": "predictions_for_swebench.json",
    "autocoderover-acr-val-sbfl": "predictions_for_swebench.json",
    "sweagent-gpt4-cost_2_1": "all_preds.jsonl",
}
CHOICE = {"model_a": "left", "model_b": "right", "tie": "tie", "tie (bothbad)": "both_bad"}
JUDGES = {
    "gpt4": "gpt-4-0125-preview",
    "claude3": "claude-3-opus-20240229",
    "gpt35": "gpt-3.5-turbo",
}

Run = Callable[..., str]


@contextlib.contextmanager
def worktree(rev: str) -> Iterator[Path]:
    """A checkout of ``rev`` beside the repository, removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="arena-worktree-")) / "tree"
    git = ["git", "-C", str(REPO), "worktree"]
    subprocess.run([*git, "add", "--detach", str(folder), rev], check=True, capture_output=True)
    try:
        yield folder
    finally:
        subprocess.run([*git, "remove", "--force", str(folder)], check=True)
        shutil.rmtree(folder.parent, ignore_errors=True)


def _lines(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return path


def _answered(ledger: Path, family: str) -> dict[str, list[str]]:
    """Each case of ``family`` and the labels of the systems that answered it."""
    with contextlib.closing(sqlite3.connect(f"file:{ledger}?mode=ro", uri=True)) as db:
        rows = db.execute(
            "SELECT o.case_id, s.label FROM outputs o JOIN systems s USING (system_id) "
            "WHERE o.family = ? ORDER BY o.case_id, s.label",
            [family],
        ).fetchall()
    found: dict[str, list[str]] = {}
    for case, label in rows:
        if label not in found.setdefault(case, []):
            found[case].append(label)
    return found


def _strength(label: str) -> float:
    """A fixed strength per system, from its label."""
    return int(hashlib.sha256(label.encode()).hexdigest()[:8], 16) / 2**32 * 3 - 1.5


def drawn_votes(
    answered: dict[str, list[str]], count: int, seed: int, pairs_of: Callable | None = None
) -> list[dict[str, Any]]:
    """``count`` votes on random cases and pairs (``pairs_of(case)`` limits the pairs),
    choices from the Bradley–Terry model of ``_strength`` with ties and both-bad."""
    rng = random.Random(seed)
    cases = sorted(answered)
    found = []
    for n in range(count):
        case = rng.choice(cases)
        pairs = (pairs_of or _every_pair)(case, answered[case])
        if not pairs:
            continue
        left, right = rng.choice(pairs)
        if rng.random() < 0.5:
            left, right = right, left
        draw = rng.random()
        p = 1 / (1 + 10 ** ((_strength(right) - _strength(left)) * 0.4))
        choice = (
            "tie"
            if draw < 0.1
            else "both_bad"
            if draw < 0.15
            else ("left" if rng.random() < p else "right")
        )
        minute = n * 3
        at = f"2026-10-{1 + minute // 1440:02d}T{minute // 60 % 24:02d}:{minute % 60:02d}"
        found.append(
            {
                "case_id": case,
                "left_system": left,
                "right_system": right,
                "choice": choice,
                "session": f"s{n // 100}",
                "actor": "drawn",
                "shown_at": at + ":00+00:00",
                "voted_at": at + f":{10 + n % 40:02d}+00:00",
            }
        )
    return found


def _every_pair(case: str, labels: list[str]) -> list[tuple[str, str]]:
    return [(a, b) for i, a in enumerate(labels) for b in labels[i + 1 :]]


def _with_votes(run: Run, work: Path, family: str, votes: list[dict]) -> None:
    run("import-votes", str(_lines(work / f"{family}-votes.jsonl", votes)), "--family", family)


def alpaca(run: Run, ledger: Path, work: Path) -> list[str]:
    for name in ("gpt4", "claude", "llama-2-70b-chat-hf"):
        path = REALDATA / "alpacaeval" / name / "model_outputs.json"
        run("import", str(path), "--family", "alpaca", "--format", "alpacaeval", "--create")
    _with_votes(run, work, "alpaca", drawn_votes(_answered(ledger, "alpaca"), 600, 1))
    return ["--family alpaca", "--family alpaca --weighting ledger --seed 2"]


def arenahard(run: Run, ledger: Path, work: Path) -> list[str]:
    for path in sorted((REALDATA / "fastchat-arena-hard" / "model_answer").glob("*.jsonl")):
        run("import", str(path), "--family", "arenahard", "--format", "fastchat", "--create")
    votes = drawn_votes(_answered(ledger, "arenahard"), 600, 2)
    _with_votes(run, work, "arenahard", votes)
    return ["--family arenahard"]


def jmt(run: Run, ledger: Path, work: Path) -> list[str]:
    run("family", "create", "jmt", "--language", "ja")
    for path in sorted((REALDATA / "fastchat-japanese-mt-bench" / "model_answer").glob("*.jsonl")):
        run("import", str(path), "--family", "jmt", "--format", "fastchat", "--turns", "first")
    _with_votes(run, work, "jmt", drawn_votes(_answered(ledger, "jmt"), 240, 3))
    return ["--family jmt"]


def _swe(run: Run, family: str, *kind: str) -> None:
    tasks = REALDATA / "swebench-diffs" / "swe-bench-lite-tasks.txt"
    for name, predictions in SWE_RUNS.items():
        path = REALDATA / "swebench-diffs" / name / predictions
        run("import", str(path), "--family", family, "--tasks", str(tasks), "--create", *kind)


def swe(run: Run, ledger: Path, work: Path) -> list[str]:
    _swe(run, "swe")
    return ["--family swe --allow-missing"]


def swe_ttv(run: Run, ledger: Path, work: Path) -> list[str]:
    _swe(run, "swe-ttv", "--kind", "tests_then_votes")
    outcomes = REALDATA / "swebench-diffs" / "outcomes.jsonl"
    resolved = {
        (o["instance_id"], o["system"])
        for o in map(json.loads, outcomes.open(encoding="utf-8"))
        if o["resolved"]
    }

    def both_resolved(case: str, labels: list[str]) -> list[tuple[str, str]]:
        return [p for p in _every_pair(case, labels) if all((case, s) in resolved for s in p)]

    votes = drawn_votes(_answered(ledger, "swe-ttv"), 300, 4, both_resolved)
    _with_votes(run, work, "swe-ttv", votes)
    return ["--family swe-ttv --allow-missing"]


def pandalm(run: Run, ledger: Path, work: Path) -> list[str]:
    testset = REALDATA / "pandalm" / "testset-v1.json"
    outputs, votes = write_files(testset, work / "pandalm")
    run("import", str(outputs), "--family", "pandalm", "--create")
    run("import-votes", str(votes), "--family", "pandalm")
    for n in (2, 3):
        judge = ["--judge", f"annotator{n}", "--kind", "human", "--format", "pandalm"]
        run("judges", "import", str(testset), "--family", "pandalm", *judge, "--column",
            f"annotator{n}")  # fmt: skip
    return ["--family pandalm", "--family pandalm --with-judges annotator2,annotator3"]


def chatbot(run: Run, ledger: Path, work: Path) -> list[str]:
    folder = REALDATA / "chatbot-arena-judges"
    battles = [json.loads(line) for line in (folder / "human.jsonl").open(encoding="utf-8")]
    answers = {(b["question_id"], m) for b in battles for m in (b["model_a"], b["model_b"])}
    outputs = [
        {
            "case": {"id": case, "prompt": f"Chatbot Arena question {case}"},
            "system": {"label": model, "model": model},
            # The data hold no texts: a stand-in, different for every system.
            "output": f"{model} answers question {case}.",
        }
        for case, model in sorted(answers)
    ]
    run("import", str(_lines(work / "chatbot.jsonl", outputs)), "--family", "chatbot", "--create")
    votes = []
    for n, b in enumerate(battles):
        at = f"2023-05-{1 + n // 1000:02d}T{n // 60 % 24:02d}:{n % 60:02d}"
        votes.append(
            {
                "case_id": b["question_id"],
                "left_system": b["model_a"],
                "right_system": b["model_b"],
                "choice": CHOICE[b["winner"]],
                "session": f"s{n // 1000}",
                "actor": "crowd",
                "shown_at": at + ":00+00:00",
                "voted_at": at + ":30+00:00",
            }
        )
    _with_votes(run, work, "chatbot", votes)
    for judge, name in JUDGES.items():
        seen: dict[tuple[str, str, str], int] = {}
        verdicts = []
        for line in (folder / f"{name}.jsonl").open(encoding="utf-8"):
            b = json.loads(line)
            key = (b["question_id"], b["model_a"], b["model_b"])
            seen[key] = seen.get(key, 0) + 1
            verdicts.append(
                {
                    "case_id": b["question_id"],
                    "left_system": b["model_a"],
                    "right_system": b["model_b"],
                    "winner": CHOICE[b["winner"]].replace("both_bad", "tie"),
                    "game": seen[key],
                }
            )
        path = _lines(work / f"{judge}.jsonl", verdicts)
        run("judges", "import", str(path), "--family", "chatbot", "--judge", judge, "--kind",
            "model")  # fmt: skip
    return ["--family chatbot", "--family chatbot --with-judges gpt4,claude3,gpt35 --seed 1"]


FAMILIES = {
    "alpaca": alpaca,
    "arenahard": arenahard,
    "jmt": jmt,
    "swe": swe,
    "swe-ttv": swe_ttv,
    "pandalm": pandalm,
    "chatbot": chatbot,
}


def compare(tree: Path, folder: Path, name: str) -> list[tuple[str, list[str]]]:
    """Build family ``name`` with ``tree``, close its rounds, close them again here."""
    ledger = folder / name / "before.sqlite"
    ledger.parent.mkdir(parents=True)
    work = folder / name / "files"
    work.mkdir()

    def run(*args: str) -> str:
        return arena(tree, ledger, *args)

    run("init")
    for close in FAMILIES[name](run, ledger, work):
        run("round", "close", *close.split())
    copy = ledger.with_name("after.sqlite")
    for suffix in ("", ".heads.json", ".status.json"):
        if Path(str(ledger) + suffix).exists():
            shutil.copyfile(str(ledger) + suffix, str(copy) + suffix)
    if Path(str(ledger) + ".files").exists():
        shutil.copytree(str(ledger) + ".files", str(copy) + ".files")
    return [
        (f"{family} {before[:12]}", differences(copy, before, close_again(copy, before)))
        for before, family in round_ids(copy)
    ]


def main() -> None:
    global REALDATA
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True, help="the commit that builds the ledgers")
    parser.add_argument("--realdata", type=Path, default=REALDATA)
    parser.add_argument("--only", help="families to build, comma-separated: " + ",".join(FAMILIES))
    parser.add_argument("--keep", type=Path, help="build the ledgers here and keep them")
    args = parser.parse_args()
    REALDATA = args.realdata
    if not args.realdata.is_dir():
        raise SystemExit(f"no real data at {args.realdata}")
    names = args.only.split(",") if args.only else list(FAMILIES)
    differing = 0
    with worktree(args.before) as tree, tempfile.TemporaryDirectory() as temp:
        folder = args.keep or Path(temp)
        print(f"before: {args.before} ({tree}); after: this tree ({REPO})")
        for name in names:
            start = time.perf_counter()
            for round_name, found in compare(tree, folder, name):
                differing += bool(found)
                said = "identical" if not found else "DIFFERENT: " + ", ".join(found)
                print(f"{name:10} {round_name:32} {said}", flush=True)
            print(f"{name:10} ({time.perf_counter() - start:.0f} s)", flush=True)
    print("every round identical" if not differing else f"{differing} rounds differ")
    raise SystemExit(1 if differing else 0)


if __name__ == "__main__":
    main()
