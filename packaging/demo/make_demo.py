#!/usr/bin/env python3
"""Generate Arena's bundled demo data.

Running ``python packaging/demo/make_demo.py`` (re)writes four JSON Lines files in
``resources/demo/`` (or in the folder given with ``--out``), in Arena's native import
format (``resources/schema/native-output.schema.json``):

* ``prose-en.jsonl``  -- family ``prose-en`` (kind ``votes``, English): five fictional
  systems answer 40 prompts in four categories (explain, advise, summarise, write);
  ``ember-large`` has two samples per case.
* ``zh-hans.jsonl``   -- family ``zh-hans`` (kind ``votes``, Simplified Chinese): four
  systems answer 12 prompts.
* ``coding.jsonl``    -- family ``coding`` (kind ``tests_then_votes``): four systems
  answer 12 issues about small made-up Python projects with ``git diff`` patches and a
  test result.
* ``fixes.jsonl``     -- family ``fixes`` (kind ``tests_then_votes``): three systems'
  patches for six issues of ``resources/demo/fixes/pocketbook``, a small repository
  written by hand for the demo, with the result its hidden tests give; ``arena demo``
  runs those tests for real.

Each file plants outputs that must fail a gate (Empty, Truncated, Length, Language,
Script), identical outputs that settle as ties, and identity leaks;
``resources/demo/README.md`` lists every one of them.

The words are data and the composing is code: ``data/<family>/*.toml`` beside this
script hold the prompts, passages, answer material, code, planted outputs and system
tables; ``demogen/`` composes every system's answer from them. The generator lives here,
outside ``resources/``, so it is not installed with Arena; only its outputs are. The
``fixes`` family is the exception: its repository, task file and hidden tests are
hand-written files in ``resources/demo/fixes/`` that ship with Arena (``arena demo`` runs
the tests); the generator reads them and composes only the patches and records.

All prompts, answers, passages, code and system names are original writing made for
this project (nothing is copied from a benchmark, data set or other publication) and
are released with the project under its licence. The systems, companies, people and
products they mention are fictional.

The generator uses only the standard library and seeded ``random.Random`` instances,
so its output is byte-for-byte reproducible (tests/intake/test_demo_generator.py checks it
against the committed files when run with ``--runslow``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from demogen import coding, fixes, prose, zh
from demogen.common import write_jsonl

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = ROOT / "resources" / "demo"

FILES = (
    ("prose-en.jsonl", prose.build),
    ("zh-hans.jsonl", zh.build),
    ("coding.jsonl", coding.build),
    ("fixes.jsonl", fixes.build),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate Arena's bundled demo data.")
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help="folder to write the .jsonl files to (default: resources/demo)",
    )
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, build in FILES:
        records = build()
        path = write_jsonl(args.out / name, records)
        print(f"wrote {len(records):4d} outputs to {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
