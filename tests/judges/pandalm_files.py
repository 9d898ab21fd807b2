"""PandaLM's test set as Arena files: each item a case with its two answers, and one
annotator's labels as a vote log (`python tests/judges/pandalm_files.py TESTSET OUT N`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

CHOICE = {0: "tie", 1: "left", 2: "right"}


def choix_points(items: list[dict], columns: tuple[str, ...]) -> dict[str, float]:
    """choix's unpenalized ML fit (ILSR) of the annotators' labels in ``columns`` together,
    ties half each way, in points from llama-7b: an implementation sharing no code with
    Arena's."""
    import numpy as np
    import pytest

    from fitting import POINTS_PER_LOGIT

    choix = pytest.importorskip("choix")
    names = sorted({m for i in items for m in i["cmp_key"].split("_")})
    comp = np.zeros((len(names), len(names)))
    for item in items:
        first, second = (names.index(m) for m in item["cmp_key"].split("_"))
        for column in columns:
            y = {0: 0.5, 1: 1.0, 2: 0.0}[item[column]]
            comp[first, second] += y
            comp[second, first] += 1 - y
    strengths = choix.ilsr_pairwise_dense(comp, alpha=0.0, tol=1e-12, max_iter=10_000)
    top = strengths[names.index("llama-7b")]
    return {n: 1000 + POINTS_PER_LOGIT * (s - top) for n, s in zip(names, strengths, strict=True)}


def pandalm_ledger(testset: Path, folder: Path) -> str:
    """A ledger in ``folder`` of family ``p``: PandaLM's items, annotator 1's labels as
    the rater's votes and annotators 2 and 3 imported as human judges; its path."""
    from arena.cli.main import main

    ledger = str(folder / "ledger.sqlite")
    outputs, votes = write_files(testset, folder / "files")
    assert main(["--ledger", ledger, "import", str(outputs), "--family", "p", "--create"]) == 0
    assert main(["--ledger", ledger, "import-votes", str(votes), "--family", "p"]) == 0
    for n in (2, 3):
        args = ["--family", "p", "--judge", f"annotator{n}", "--kind", "human"]
        args += ["--format", "pandalm", "--column", f"annotator{n}"]
        assert main(["--ledger", ledger, "judges", "import", str(testset), *args]) == 0
    return ledger


def write_files(testset: Path, out: Path, annotator: int = 1) -> tuple[Path, Path]:
    """Write ``outputs.jsonl`` and ``votes.jsonl`` (annotator ``annotator``) into ``out``."""
    items = json.loads(testset.read_text(encoding="utf-8"))
    out.mkdir(parents=True, exist_ok=True)
    outputs, votes = out / "outputs.jsonl", out / "votes.jsonl"
    with outputs.open("w", encoding="utf-8") as o, votes.open("w", encoding="utf-8") as v:
        for item in items:
            models = item["cmp_key"].split("_")
            prompt = "\n\n".join(p for p in (item["instruction"], item["input"]) if p)
            for model, answer in zip(models, (item["response1"], item["response2"]), strict=True):
                record = {
                    "case": {"id": item["idx"], "prompt": prompt},
                    "system": {"label": model, "model": model},
                    # Six answers are JSON booleans: kept as the JSON text.
                    "output": answer if isinstance(answer, str) else json.dumps(answer),
                }
                o.write(json.dumps(record, ensure_ascii=False) + "\n")
            vote = {
                "case_id": item["idx"],
                "left_system": models[0],
                "right_system": models[1],
                "choice": CHOICE[item[f"annotator{annotator}"]],
                "session": "pandalm",
                "actor": f"annotator{annotator}",
                "shown_at": "2023-04-30T00:00:00Z",
                "voted_at": "2023-04-30T00:00:00Z",
            }
            v.write(json.dumps(vote) + "\n")
    return outputs, votes


if __name__ == "__main__":
    write_files(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 1)
