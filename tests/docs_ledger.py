"""What the commands whose ``--json`` the docs describe print on the demo ledger, for
tests/test_docs.py: the demo rated through the rating session (with a flag), closed,
exported and corrected, a graded family and a votes family collected from the tests' fake
endpoint."""

from __future__ import annotations

import contextlib
import io
import json
import os
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.cli.main import main
from tests.conftest import REPO, native_line


def printed_json(folder: Path) -> dict[str, Any]:
    """Each command's output by name; run with ``HOME`` in ``folder`` (the signing key)."""
    from arena.intake.demo import build_demo
    from tests.graded.fake_endpoint import Fail, FakeEndpoint, Judging

    ledger = folder / "demo.sqlite"
    build_demo(ledger, replace=False)
    _rate(ledger, "prose-en", votes=60)

    def arena(*args: str, as_json: bool = True, exits: int = 0) -> Any:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["--ledger", str(ledger), *args, *(["--json"] if as_json else [])])
        assert code == exits, (args, err.getvalue())
        return json.loads(out.getvalue()) if as_json else None

    answers = folder / "answers.jsonl"
    answers.write_text('{"task_id": "reasoning-01", "output": "Answer: 42"}\n')
    small = folder / "small.jsonl"
    small.write_text("\n".join(native_line(c, s, f"{s} on {c}.") for c in "ab" for s in "xy"))
    votes = folder / "votes.jsonl"
    vote = {"case_id": "explain-01", "left_system": "aurora-7b", "right_system": "basalt-13b"}
    at = {"shown_at": "2026-11-01T10:00:00Z", "voted_at": "2026-11-01T10:00:30Z"}
    votes.write_text(json.dumps({**vote, "choice": "left", "session": "s", "actor": "ann", **at}))
    bundle, battles = str(folder / "round.zip"), str(folder / "battles.json")
    out: dict[str, Any] = {}
    arena("round", "close", "--family", "prose-en")
    out["round show"] = arena("round", "show", "--family", "prose-en")
    out["round show category"] = arena(
        "round", "show", "--family", "prose-en", "--category", "explain"
    )
    arena("round", "close", "--family", "fixes")
    out["round show tests"] = arena("round", "show", "--family", "fixes")
    arena("export", "--family", "prose-en", "--out", bundle, as_json=False)
    with zipfile.ZipFile(bundle) as opened:
        out["manifest"] = json.loads(opened.read("manifest.json"))
    out["verify"] = arena("verify", bundle)
    arena("export", "--family", "prose-en", "--format", "battles", "--out", battles, as_json=False)
    out["fit"] = arena("fit", battles)
    out["key"] = arena("key")
    out["import"] = arena("import", str(small), "--family", "small", "--create")
    cases = folder / "cases.jsonl"
    cases.write_text('{"id": "q1", "prompt": "Say hi."}\n{"id": "q2", "prompt": "Fail."}\n')
    systems = folder / "systems.toml"
    arena("family", "create", "asked")
    out["case import"] = arena("case", "import", str(cases), "--family", "asked")
    # One case's request fails, so the summary lists a failed job (and exits 1).
    with FakeEndpoint({"Fail.": [Fail(400)]}) as server:
        out["collect"] = arena(
            "collect", "starter", "--endpoint", server.url, "--model", "fake", "--family", "g"
        )
        systems.write_text(f'[[system]]\nlabel = "x"\nbase_url = "{server.url}"\nmodel = "m"\n')
        arena("systems", "add", str(systems), "--family", "asked", as_json=False)
        out["systems list"] = arena("systems", "list", "--family", "asked")
        out["collect family"] = arena("collect", "--family", "asked", "--retries", "0", exits=1)
    out["import graded"] = arena(
        "import",
        str(answers),
        "--kind",
        "graded",
        "--suite",
        "starter",
        "--model",
        "m",
        "--family",
        "imported",
    )
    out["grade"] = arena("grade", "g")
    arena("round", "close", "--family", "g")
    out["round show graded"] = arena("round", "show", "--family", "g")
    out["import-votes"] = arena("import-votes", str(votes), "--family", "prose-en")
    bundle_of, signer = _colleague_bundle(folder)
    out["import-votes bundle"] = arena(
        "import-votes", bundle_of, "--family", "prose-en", "--signer", signer, "--rater", "kim"
    )
    arena("round", "close", "--family", "prose-en", "--raters", "kim,rater")
    out["round show raters"] = arena("round", "show", "--family", "prose-en")
    out["tests run"] = arena("tests", "run", "--family", "fixes", "--no-sandbox")
    out["tasks import"] = arena(
        "tasks", "import", str(REPO / "resources/demo/fixes/tasks.toml"), "--family", "fixes"
    )
    arena("family", "set", "prose-en", "--aspect", "prose", "--reason", "docs", "--no-gate")
    out["family show"] = arena("family", "show", "prose-en")
    out["family list"] = arena("family", "list")
    out["case retire"] = arena(
        "case", "retire", "write-10", "--family", "prose-en", "--reason", "docs"
    )
    out["event list"] = arena("event", "list", "--family", "prose-en")
    out["flags"] = arena("flags")
    out["status"] = arena("status")
    out["gate"] = arena("gate")
    out["gate list"] = arena("gate", "--list")
    with FakeEndpoint(default=Judging(unparsed_every=3)) as server:
        out["judges run"] = arena(
            "judges", "run", "--family", "prose-en", "--judge", "llm", "--base-url", server.url,
            "--model", "m", "--template", "pairwise", "--sample", "6",
        )  # fmt: skip
    out["check"] = arena("check")
    return out


def _colleague_bundle(folder: Path) -> tuple[str, str]:
    """A colleague's round of the demo, voted on their machine and signed by their key: the
    bundle and the key's fingerprint."""
    from arena.intake.demo import build_demo

    ledger, bundle = folder / "colleague.sqlite", folder / "colleague.zip"
    build_demo(ledger, replace=False)
    _rate(ledger, "prose-en", votes=6)
    from arena.bundle.signing import fingerprint, load_or_create_key

    key = folder / "colleague.pem"
    with contextlib.redirect_stdout(io.StringIO()), _environment({"ARENA_SIGNING_KEY": str(key)}):
        for args in (["round", "close", "--family", "prose-en"],
                     ["export", "--family", "prose-en", "--out", str(bundle)]):  # fmt: skip
            assert main(["--ledger", str(ledger), *args]) == 0, args
    return str(bundle), fingerprint(load_or_create_key(key).public_key())


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _rate(path: Path, family: str, *, votes: int) -> None:
    """``votes`` votes through the rating session (left, right or tie in turn), and a flag."""
    from arena.ledger import Ledger
    from arena.rating.session import RatingSession

    with Ledger.open(path) as ledger:
        session = RatingSession(ledger, family, seed=1, repeat_share=0.2)
        session.flag("the left answer quotes the prompt")
        for n in range(votes):
            session.vote(("left", "right", "left", "tie")[n % 4])
