"""Fuzzing every importer, import-votes and verify with hypothesis.

Each input is either refused with a message naming the line (``BadInput`` with a
line; for verify, a report with problems) and the ledger's bytes unchanged (sha256
of the file after a checkpoint), or accepted. Any other exception fails the test.
Default run: a few hundred inputs; ``--runslow``: over 8,000.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.bundle.export import MANIFEST, MANIFEST_HASH, export_round
from arena.bundle.verify import verify_bundle
from arena.errors import BadInput
from arena.intake.outputs import import_file
from arena.intake.readers import ReadOptions
from arena.intake.votes import import_votes
from arena.ledger import Ledger
from arena.ledger.integrity import check
from arena.rating.session import RatingSession
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.conftest import copy_ledger

from . import fuzzing as fz
from .helpers import build_ledger

FILE_LEVEL = ("no records found", "no votes found")  # refusals of the whole file, not a line
ROTATE = 150  # inputs per ledger: accepted inputs grow it, and each input hashes it


def _settings(n: int) -> settings:
    return settings(
        max_examples=n,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
    )


def _digest(ledger: Ledger) -> str:
    ledger.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return hashlib.sha256(Path(ledger.path).read_bytes()).hexdigest()


class Target:
    """One ledger under fuzzing, renewed every ROTATE inputs."""

    def __init__(self, tmp_path: Path, template: Path | None, figures) -> None:
        self.tmp_path, self.template, self.figures = tmp_path, template, figures
        self.ledger: Ledger | None = None
        self.n = 0

    def fresh(self) -> Ledger:
        if self.ledger is None or self.n % ROTATE == 0:
            if self.ledger is not None:
                assert check(self.ledger) == []
                self.ledger.close()
            path = self.tmp_path / f"fuzz{self.n}.sqlite"
            if self.template is not None:
                copy_ledger(self.template, path)
            self.ledger = Ledger.open(path)
        self.n += 1
        return self.ledger

    def attempt(self, call, kind: str) -> None:
        ledger = self.fresh()
        before = _digest(ledger)
        self.figures["inputs"] += 1
        self.figures[f"mutation_{kind}"] += 1
        try:
            call(ledger)
        except BadInput as exc:
            assert exc.line is not None or exc.message in FILE_LEVEL, f"no line: {exc}"
            assert str(exc).startswith(f"{exc.path}:"), str(exc)
            assert _digest(ledger) == before, f"refused but the ledger changed: {exc}"
            self.figures["refused"] += 1
        else:
            self.figures["accepted"] += 1

    def close(self) -> None:
        if self.ledger is not None:
            assert check(self.ledger) == []
            self.ledger.close()


@pytest.fixture
def small_template(tmp_path_factory) -> Path:
    return build_ledger(
        tmp_path_factory.mktemp("small") / "small.sqlite", family="fz", n_systems=3, n_cases=5
    )


RECORDS = {
    "native": fz.native_record(),
    "alpacaeval": fz.alpaca_record(),
    "fastchat": fz.fastchat_record(),
    "votes": fz.vote_record(),
}
SUFFIX = {
    "native": ".jsonl",
    "alpacaeval": ".json",
    "fastchat": ".jsonl",
    "csv": ".csv",
    "votes": ".jsonl",
}
QUESTIONS = (
    "\n".join(
        json.dumps(
            {"question_id": q, "category": "writing", "turns": [f"Question {q}"] * (1 + q % 2)}
        )
        for q in range(1, 5)
    )
    + "\n"
)


def _inputs(fmt: str, allow_huge: bool):
    records = fz.csv_rows() if fmt == "csv" else st.lists(RECORDS[fmt], min_size=0, max_size=5)

    @st.composite
    def build(draw):
        if draw(st.floats(0, 1)) < 0.08:
            return "random", draw(st.binary(max_size=300))
        base = fz.serialise(fmt, draw(records), draw(st.booleans()), draw(st.booleans()))
        return draw(fz.mutated(fmt, base, allow_huge=allow_huge))

    return build()


def _fuzz(fmt: str, n: int, tmp_path: Path, template: Path | None, figures) -> None:
    target = Target(tmp_path, template, figures)
    folder = tmp_path / "model_answer"
    folder.mkdir()
    (tmp_path / "question.jsonl").write_text(QUESTIONS, encoding="utf-8")
    # A 10 MB line costs seconds (it is parsed, gated and hashed): a few per full run.
    allow_huge = n >= 1000

    @_settings(n)
    @given(_inputs(fmt, allow_huge))
    def run(case):
        kind, data = case
        path = folder / f"input{SUFFIX[fmt]}"
        path.write_bytes(data)
        if fmt == "votes":

            def call(ledger):
                import_votes(ledger, path, family="fz")
        else:

            def call(ledger):
                import_file(ledger, path, family="fz", fmt=fmt, options=ReadOptions())

        target.attempt(call, kind)

    try:
        run()
    finally:
        target.close()


FORMATS = ("native", "alpacaeval", "fastchat", "csv", "votes")
NEST = "[" * 600 + "1" + "]" * 600
DEEP = {
    "native": json.dumps(
        {
            "case": {"id": "c1", "prompt": "P"},
            "system": {"label": "sys0", "model": "test/sys0", "inference": {"t": 0}},
            "output": "o",
        }
    ).replace('{"t": 0}', f'{{"t": {NEST}}}'),
    "alpacaeval": '[{"instruction": "x", "generator": "sys0", "output": "o", "dataset": '
    + NEST
    + "}]",
    "fastchat": '{"question_id": 1, "model_id": "sys0", "choices": [{"turns": ["a"], "x": '
    + NEST
    + "}]}",
    "votes": f'{{"case_id": {NEST}}}',
}


@pytest.mark.parametrize("fmt", sorted(DEEP))
def test_deep_nesting_is_refused_with_a_line(fmt, tmp_path, small_template):
    folder = tmp_path / "model_answer"
    folder.mkdir()
    (tmp_path / "question.jsonl").write_text(QUESTIONS, encoding="utf-8")
    path = folder / f"input{SUFFIX[fmt]}"
    path.write_text(DEEP[fmt] + "\n", encoding="utf-8")
    with Ledger.open(copy_ledger(small_template, tmp_path / "l.sqlite")) as ledger:
        with pytest.raises(BadInput) as refused:
            if fmt == "votes":
                import_votes(ledger, path, family="fz")
            else:
                import_file(ledger, path, family="fz", fmt=fmt)
        assert refused.value.line == 1


DEFAULT_N = 70
FULL_N = 1500


@pytest.mark.parametrize("fmt", FORMATS)
def test_fuzzed_input_is_refused_cleanly_or_accepted(fmt, tmp_path, small_template, figures):
    _fuzz(fmt, DEFAULT_N, tmp_path, small_template if fmt == "votes" else None, figures)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_fuzzed_input_full(fmt, tmp_path, small_template, figures):
    _fuzz(fmt, FULL_N, tmp_path, small_template if fmt == "votes" else None, figures)


# ---------------------------------------------------------------------------------------
# verify


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> dict[str, bytes]:
    """The files of a real round bundle (votes, an undo, a closed round)."""
    where = tmp_path_factory.mktemp("bundle")
    path = build_ledger(where / "ledger.sqlite", family="fz", n_systems=3, n_cases=5)
    with Ledger.open(path) as ledger:
        session = RatingSession(ledger, "fz", seed=1)
        for choice in ("left", "right", "tie", "left", "both_bad", "right", "left"):
            session.vote(choice)
        session.undo()
        close_round(ledger, "fz", RoundSettings())
        export_round(ledger, where / "out", family="fz")
    return {p.name: p.read_bytes() for p in (where / "out").iterdir()}


@st.composite
def bundle_mutation(draw, files: dict[str, bytes]):
    files = dict(files)
    name = draw(st.sampled_from(sorted(files)))
    kind, data = draw(fz.mutated("native", files[name], allow_huge=False))
    action = draw(st.sampled_from(["edit", "edit_and_rehash", "remove", "add"]))
    if action == "remove":
        del files[name]
    elif action == "add":
        files[draw(st.sampled_from(["extra.txt", "votes.jsonl.bak"]))] = data
    else:
        files[name] = data
        if action == "edit_and_rehash" and name not in (MANIFEST, MANIFEST_HASH):
            # A forger who also fixes the hashes: now the content itself must be checked.
            files = _rehashed(files, name, data)
    as_zip = draw(st.booleans())
    return f"{action}/{kind}", files, as_zip


def _rehashed(files: dict[str, bytes], name: str, data: bytes) -> dict[str, bytes]:
    """``files`` with ``name`` replaced and the manifest's hashes fixed, as a forger would."""
    files = {**files, name: data}
    manifest = json.loads(files[MANIFEST])
    manifest["files"][name] = hashlib.sha256(data).hexdigest()
    files[MANIFEST] = json.dumps(manifest, sort_keys=True, indent=1).encode()
    files[MANIFEST_HASH] = f"{hashlib.sha256(files[MANIFEST]).hexdigest()}  {MANIFEST}\n".encode()
    return files


def _write_bundle(files: dict[str, bytes], out: Path, as_zip: bool) -> Path:
    from arena.bundle.export import zip_bytes

    out = out.with_suffix(".zip") if as_zip else out
    shutil.rmtree(out, ignore_errors=True)
    if out.is_file():
        out.unlink()
    if as_zip:
        out.write_bytes(zip_bytes(files))
    else:
        out.mkdir()
        for name, data in files.items():
            (out / name).write_bytes(data)
    return out


def _fuzz_verify(n: int, bundle: dict[str, bytes], tmp_path: Path, figures) -> None:
    @_settings(n)
    @given(bundle_mutation(bundle))
    def run(case):
        kind, files, as_zip = case
        figures["inputs"] += 1
        out = _write_bundle(files, tmp_path / "b", as_zip)
        report = verify_bundle(out)
        if files == bundle:
            assert report.ok, report.problems
            figures["unchanged_verified"] += 1
        elif report.ok:
            # An edit verify does not read (e.g. manifest whitespace, then rehashed).
            figures["changed_but_verified"] += 1
        else:
            figures["refused"] += 1

    run()


def test_fuzzed_bundles_never_crash_verify(bundle, tmp_path, figures):
    _fuzz_verify(60, bundle, tmp_path, figures)


@pytest.mark.slow
def test_fuzzed_bundles_full(bundle, tmp_path, figures):
    _fuzz_verify(1000, bundle, tmp_path, figures)


@pytest.mark.parametrize(
    "name, data",
    [
        ("board.json", b"not json"),
        ("board.json", b"\xe9nchor"),
        ("systems.jsonl", b'{"label": "x"}\n'),
        ("comparisons.jsonl", b'{"weight": 1}\n'),
        ("votes.jsonl", b"[" * 100_000 + b"]" * 100_000 + b"\n"),
    ],
)
def test_verify_reports_unparsable_content_of_a_rehashed_bundle(bundle, tmp_path, name, data):
    report = verify_bundle(_write_bundle(_rehashed(bundle, name, data), tmp_path / "b", False))
    assert report.problems


def test_verify_reads_the_cases_file(bundle, tmp_path):
    forged = _rehashed(bundle, "cases.jsonl", b"\xff\xfe not the cases\n")
    report = verify_bundle(_write_bundle(forged, tmp_path / "b", False))
    assert report.problems


@pytest.mark.parametrize("fmt", ["native", "alpacaeval", "csv"])
def test_a_record_over_the_size_limit_is_refused_with_its_line(tmp_path, capsys, fmt):
    from arena.cli.main import main

    big = "x" * (3 << 20)
    path = tmp_path / {"native": "o.jsonl", "alpacaeval": "o.json", "csv": "o.csv"}[fmt]
    if fmt == "native":
        path.write_text(
            json.dumps(
                {
                    "case": {"id": "c", "prompt": "p"},
                    "system": {"label": "a", "model": "m"},
                    "output": "small",
                }
            )
            + "\n"
            + json.dumps(
                {
                    "case": {"id": "d", "prompt": "p"},
                    "system": {"label": "a", "model": "m"},
                    "output": big,
                }
            )
            + "\n",
            "utf-8",
        )
    elif fmt == "alpacaeval":
        path.write_text(
            json.dumps(
                [
                    {"instruction": "i", "output": "o", "generator": "g"},
                    {"instruction": "j", "output": big, "generator": "g"},
                ],
                indent=1,
            ),
            "utf-8",
        )
    else:
        path.write_text(f"case_id,prompt,system,output\nc,p,a,small\nd,p,a,{big}\n", "utf-8")
    ledger = str(tmp_path / "l.sqlite")
    code = main(
        [
            "--ledger",
            ledger,
            "import",
            str(path),
            "--family",
            "f",
            "--create",
            "--format",
            fmt,
            "--max-record-mb",
            "1",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and f"{path}:" in err, err
    code = main(
        ["--ledger", ledger, "import", str(path), "--family", "f", "--create", "--format", fmt]
    )
    assert code == 0
