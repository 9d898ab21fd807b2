"""Planted secrets never reach the ledger, its WAL or an exported bundle.

Imported files: secrets are planted in every field an imported file can carry
(prompts, outputs, system fields, inference settings, CSV cells, FastChat turns,
AlpacaEval fields, vote logs) and under secret-looking keys (``api_key``,
``authorization`` ...). Configured secrets are given to the importer's ``Redactor``
as ``--api-key-env`` would; values under secret-looking keys are not configured
anywhere. After the imports, votes, a closed round and an exported bundle (folder
and .zip), every byte of the database, its WAL and the bundle is searched for each
secret, raw and JSON-escaped.

An endpoint: the key `arena collect` sends comes back in every disguise an endpoint
might give it (case, hex, base64 at each offset, URL-encoding, reversed, spaced out,
in pieces over turns, quoted by a 401); none of it reaches a file or the output.
"""

from __future__ import annotations

import base64
import csv
import io
import json
import random
import re
import string
import urllib.parse
from pathlib import Path

import pytest

from arena.bundle.export import export_round
from arena.cli.main import main
from arena.intake.outputs import import_file
from arena.intake.readers import ReadOptions
from arena.intake.votes import import_votes
from arena.ledger import Ledger
from arena.rating.session import RatingSession
from arena.redact import KeyFinder, Redactor
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.collecting.helpers import make_family
from tests.graded.fake_endpoint import Echo, Fail, FakeEndpoint, Token

from .helpers import answer_text

TRICKY = string.ascii_letters + string.digits + "._-/+=\"\\'~é"


class Planter:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.configured: list[str] = []  # given to the Redactor
        self.unconfigured: list[str] = []  # only under secret-looking keys
        self.positions: dict[str, int] = {}

    def _token(self) -> str:
        body = "".join(self.rng.choice(TRICKY) for _ in range(self.rng.randint(12, 40)))
        return f"sk-{self.rng.choice(['live', 'proj', 'ant'])}-{body}"

    def secret(self, position: str) -> str:
        token = self._token()
        self.configured.append(token)
        self.positions[position] = self.positions.get(position, 0) + 1
        return token

    def keyed(self, position: str) -> str:
        token = self._token()
        self.unconfigured.append(token)
        self.positions[position] = self.positions.get(position, 0) + 1
        return token

    @property
    def total(self) -> int:
        return len(self.configured) + len(self.unconfigured)


def _native(p: Planter, batch: int, n_cases: int) -> str:
    lines = []
    for case in range(n_cases):
        for system in range(3):
            s = p.secret
            lines.append(
                json.dumps(
                    {
                        "family": "sec",
                        "case": {
                            "id": f"n{batch}-{case}",
                            "category": f"cat {s('native case.category')}"
                            if case % 5 == 0
                            else "general",
                            "prompt": f"Prompt {case} with {s('native case.prompt')} inside.",
                        },
                        "system": {
                            "label": f"n{batch}-sys{system}",
                            "model": f"m/{batch}-{system}-{s('native system.model')}",
                            "system_prompt": f"Use key {s('native system.system_prompt')}",
                            "harness": s("native system.harness"),
                            "inference": {
                                "temperature": 0.2,
                                "api_key": p.keyed("native inference.api_key (key)"),
                                "headers": {
                                    "Authorization": "Bearer "
                                    + p.keyed("native inference.headers.Authorization (key)"),
                                    "X-Note": s("native inference.headers.X-Note"),
                                },
                                "base_url": f"https://h/?key={s('native inference.base_url')}",
                            },
                        },
                        "output": answer_text(system, case) + f" Echo: {s('native output')}",
                        "finish_reason": s("native finish_reason") if case % 7 == 0 else "stop",
                    },
                    ensure_ascii=bool(case % 2),
                )
            )
    return "\n".join(lines) + "\n"


def _csv(p: Planter, batch: int, n_cases: int) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["case_id", "prompt", "system", "output", "category", "finish_reason"])
    for case in range(n_cases):
        for system in range(3):
            s = p.secret
            writer.writerow(
                [
                    f"v{batch}-{case}",
                    f"Prompt {s('csv prompt')}",
                    f"v{batch}-sys{system}-{s('csv system')}"
                    if system == 2
                    else f"v{batch}-sys{system}",
                    answer_text(system, case) + " " + s("csv output"),
                    f"cat-{s('csv category')}",
                    s("csv finish_reason"),
                ]
            )
    return out.getvalue()


def _alpaca(p: Planter, batch: int, n_cases: int) -> str:
    records = [
        {
            "instruction": f"Instruction {batch}-{case}: {p.secret('alpaca instruction')}",
            "output": answer_text(system, case) + p.secret("alpaca output"),
            "generator": f"a{batch}-gen{system}",
            "dataset": f"set {p.secret('alpaca dataset')}",
        }
        for case in range(n_cases)
        for system in range(3)
    ]
    return json.dumps(records, ensure_ascii=False)


def _fastchat(p: Planter, batch: int, n_cases: int, folder: Path) -> Path:
    questions = folder / "question.jsonl"
    questions.write_text(
        "\n".join(
            json.dumps(
                {
                    "question_id": f"f{batch}-{q}",
                    "category": f"c {p.secret('fastchat category')}",
                    "turns": [f"Ask {p.secret('fastchat question turn')}", "And then?"],
                }
            )
            for q in range(n_cases)
        )
        + "\n",
        encoding="utf-8",
    )
    answers = folder / "model_answer" / f"answers{batch}.jsonl"
    answers.parent.mkdir(exist_ok=True)
    answers.write_text(
        "\n".join(
            json.dumps(
                {
                    "question_id": f"f{batch}-{q}",
                    "model_id": f"f{batch}-m{m}",
                    "choices": [
                        {
                            "index": 0,
                            "turns": [
                                answer_text(m, q) + p.secret("fastchat answer turn"),
                                answer_text(m, q + 1),
                            ],
                        }
                    ],
                }
            )
            for q in range(n_cases)
            for m in range(3)
        )
        + "\n",
        encoding="utf-8",
    )
    return answers


def _votes(p: Planter, batch: int, n_cases: int) -> str:
    lines = []
    for case in range(n_cases):
        lines.append(
            json.dumps(
                {
                    "case_id": f"n{batch}-{case}",
                    "left_system": f"n{batch}-sys0",
                    "right_system": f"n{batch}-sys1",
                    "choice": "left",
                    "session": f"s {p.secret('vote log session')}",
                    "actor": f"ann {p.secret('vote log actor')}",
                    "shown_at": "2026-11-30T10:00:00Z",
                    "voted_at": "2026-11-30T10:00:05Z",
                }
            )
        )
    return "\n".join(lines) + "\n"


def _forms(secret: str) -> set[bytes]:
    return {
        secret.encode("utf-8"),
        json.dumps(secret)[1:-1].encode("ascii"),
        json.dumps(secret, ensure_ascii=False)[1:-1].encode("utf-8"),
        secret.replace('"', '""').encode("utf-8"),
    }  # as a CSV cell quotes it


def _leaks(planter: Planter, blobs: dict[str, bytes]) -> list[str]:
    """Every planted secret found in ``blobs`` (each starts with "sk-": look only there)."""
    by_length: dict[int, dict[bytes, str]] = {}
    for secret in planter.configured + planter.unconfigured:
        for form in _forms(secret):
            by_length.setdefault(len(form), {})[form] = secret
    found = []
    for name, blob in blobs.items():
        for hit in re.finditer(b"sk-", blob):
            at = hit.start()
            for length, forms in by_length.items():
                secret = forms.get(blob[at : at + length])
                if secret is not None:
                    found.append(f"{secret!r} in {name}")
    return found


def _blobs(ledger_path: Path, *folders: Path) -> dict[str, bytes]:
    blobs = {}
    for suffix in ("", "-wal"):
        f = Path(str(ledger_path) + suffix)
        if f.exists():
            blobs[f.name] = f.read_bytes()
    for folder in folders:
        for f in folder.rglob("*"):
            if f.is_file():
                blobs[str(f)] = f.read_bytes()
    return blobs


def _plant_and_scan(tmp_path: Path, batches: int, n_cases: int, figures) -> None:
    planter = Planter(random.Random(20261130))
    path = tmp_path / "ledger.sqlite"
    leaks = []
    with Ledger.open(path) as ledger:
        for batch in range(batches):
            folder = tmp_path / f"batch{batch}"
            folder.mkdir()
            files = {
                "native": folder / "n.jsonl",
                "csv": folder / "v.csv",
                "alpacaeval": folder / "a.json",
            }
            files["native"].write_text(_native(planter, batch, n_cases), encoding="utf-8")
            files["csv"].write_text(_csv(planter, batch, n_cases), encoding="utf-8")
            files["alpacaeval"].write_text(_alpaca(planter, batch, n_cases), encoding="utf-8")
            answers = _fastchat(planter, batch, n_cases, folder)
            votes = folder / "votes.jsonl"
            votes.write_text(_votes(planter, batch, n_cases), encoding="utf-8")
            redactor = Redactor(planter.configured)
            for fmt, file in files.items():
                import_file(
                    ledger, file, family="sec", fmt=fmt, options=ReadOptions(redactor=redactor)
                )
            import_file(
                ledger,
                answers,
                family="sec",
                fmt="fastchat",
                options=ReadOptions(redactor=redactor),
            )
            import_votes(ledger, votes, family="sec", redactor=redactor)
            # Before any checkpoint: the WAL holds the newest pages.
            leaks += _leaks(planter, _blobs(path))
        session = RatingSession(ledger, "sec", seed=4)
        for choice in ("left", "right", "tie", "both_bad") * 5:
            session.vote(choice)
        close_round(ledger, "sec", RoundSettings())
        export_round(ledger, tmp_path / "bundle", family="sec")
        export_round(ledger, tmp_path / "bundle.zip", family="sec")
        leaks += _leaks(planter, _blobs(path, tmp_path / "bundle"))
        (tmp_path / "zip").mkdir()
        (tmp_path / "zip" / "bundle.zip").write_bytes((tmp_path / "bundle.zip").read_bytes())
    leaks += _leaks(planter, _blobs(path, tmp_path / "zip"))  # after the closing checkpoint
    # The control: the same scan finds every planted secret in the input files.
    inputs = {}
    for batch in range(batches):
        inputs.update(_blobs(tmp_path / "none", tmp_path / f"batch{batch}"))
    seen = {hit.rsplit(" in ", 1)[0] for hit in _leaks(planter, inputs)}
    assert seen == {repr(x) for x in planter.configured + planter.unconfigured}
    figures["secrets_planted"] += planter.total
    figures["positions"] += len(planter.positions)
    figures["secrets_found_on_disk"] += len(leaks)
    assert not leaks, leaks[:10]
    assert planter.total >= 2000


def test_no_planted_secret_reaches_the_disk(tmp_path, figures):
    _plant_and_scan(tmp_path, batches=1, n_cases=40, figures=figures)


@pytest.mark.slow
def test_no_planted_secret_reaches_the_disk_full(tmp_path, figures):
    _plant_and_scan(tmp_path, batches=5, n_cases=120, figures=figures)


# --- a key an endpoint echoes back, in the forms it might take ----------------------

ECHOED = "sk-proj-Zq9vX2mL7pR4tY8wK3nB6cF1hJ5dG0sAqWeRtYuI"  # four 12-character pieces


def _disguises(key: str) -> dict[str, tuple[str, str]]:
    """name -> (what the endpoint sends, the part of it made of the key alone)."""
    raw = key.encode()
    plain = {
        "as sent": key,
        "upper-cased": key.upper(),
        "lower-cased": key.lower(),
        "hex": raw.hex(),
        "HEX": raw.hex().upper(),
        "hex bytes spaced": " ".join(f"{b:02x}" for b in raw),
        "reversed": key[::-1],
        "URL-encoded": urllib.parse.quote(key, safe=""),
        "form-encoded": urllib.parse.quote_plus(key),
        **{f"spaced by {sep!r}": sep.join(key) for sep in (" ", "-", ".", "_", "/", "\n", "\r\n")},
    }
    forms = {name: (text, text) for name, text in plain.items()}
    for offset in range(3):
        for name, encode in (("base64", base64.b64encode), ("urlsafe", base64.urlsafe_b64encode)):
            text = encode(b"x" * offset + raw).decode()
            # The characters made of the key's bits alone (as arena.redact cuts them).
            core = text[(offset * 8 + 5) // 6 : ((offset + len(raw)) * 8) // 6]
            forms[f"{name} at offset {offset}"] = (text, core)
            forms[f"{name} at offset {offset}, unpadded"] = (text.rstrip("="), core)
    return forms


def _echo_and_export(tmp_path, monkeypatch, capsys, name):
    """Collect from an endpoint echoing ``ECHOED`` in every disguise (one case each; the
    last case gets it in 12-character pieces, one a turn, and two cases a 401 that
    quotes it), close a round, export it; every file and what was printed, by name."""
    monkeypatch.setenv("ARENA_COLLECT_TEST_KEY", ECHOED)
    forms = _disguises(ECHOED)
    script: dict = {
        f"Question {i}, turn 1.": [Token(lambda _key, t=text: f"Debug: {t}\nAnswer: 42")]
        for i, (text, _) in enumerate(forms.values())
    }
    pieces = len(forms)
    for turn in range(4):
        piece = ECHOED[12 * turn : 12 * turn + 12]
        script[f"Question {pieces}, turn {turn + 1}."] = [Token(lambda _k, p=piece: f"Part: {p}")]
    hexed = json.dumps({"error": {"message": f"invalid key {ECHOED.encode().hex()}"}})
    script[f"Question {pieces + 1}, turn 1."] = [Fail(401, body=hexed)]
    script[f"Question {pieces + 2}, turn 1."] = [Fail(401, body=f"no: {' '.join(ECHOED)}")]
    folder = tmp_path / name
    folder.mkdir()
    path = folder / "arena.sqlite"
    with FakeEndpoint(script, default=Echo()) as server:
        make_family(path, tmp_path, server.url, cases=pieces + 4, turns=4)
        for form in ([], ["--json"]):
            main(["--ledger", str(path), "collect", "--family", "fam", *form])
    printed = capsys.readouterr()
    with Ledger.open(path) as ledger:
        session = RatingSession(ledger, "fam", seed=2)
        for choice in ("left", "right", "tie", "both_bad"):
            session.vote(choice)
        close_round(ledger, "fam", RoundSettings())
        export_round(ledger, folder / "bundle", family="fam")
        export_round(ledger, folder / "bundle.zip", family="fam")
    found = _blobs(path, folder, Path.home())
    return found | {"stdout": printed.out.encode(), "stderr": printed.err.encode()}


def _echoes_found(blobs: dict[str, bytes]) -> dict[str, list[str]]:
    """Each disguise (and piece) of the key found in ``blobs``, with where."""
    wanted = {name: core for name, (_, core) in _disguises(ECHOED).items()}
    wanted |= {f"piece {i}": ECHOED[12 * i : 12 * i + 12] for i in range(4)}
    found: dict[str, list[str]] = {}
    for name, core in wanted.items():
        forms = {core.encode(), json.dumps(core)[1:-1].encode()}
        where = [blob for blob, data in blobs.items() if any(f in data for f in forms)]
        if where:
            found[name] = where
    return found


def test_a_key_echoed_in_any_form_reaches_no_file_and_is_not_printed(
    tmp_path, monkeypatch, capsys, figures
):
    found = _echoes_found(_echo_and_export(tmp_path, monkeypatch, capsys, "redacted"))
    figures["echoed_forms"] = len(_disguises(ECHOED)) + 4
    figures["echoed_forms_found"] = len(found)
    assert found == {}
    # The control, and the defence off: without redaction every form reaches the disk.
    monkeypatch.setattr(KeyFinder, "spans", lambda self, text: [])
    unredacted = _echoes_found(_echo_and_export(tmp_path, monkeypatch, capsys, "plain"))
    assert set(unredacted) == set(_disguises(ECHOED)) | {f"piece {i}" for i in range(4)}
    assert any(name.endswith("arena.sqlite") for name in unredacted["hex"])
    assert "stdout" in unredacted["hex"]  # the 401's body, printed by collect --json
