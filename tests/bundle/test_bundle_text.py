"""Any text survives import → vote → close → export → verify → refit.

JSON writes U+2028, U+2029, U+0085, \\v, \\f and \\x1c–\\x1e raw inside strings;
a reader that splits lines with ``str.splitlines()`` breaks on them. Every
text field a person or a file can fill goes through the whole path here.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.bundle.export import export_round
from arena.bundle.verify import verify_bundle
from arena.intake.outputs import import_file
from arena.ledger import Ledger, catalog, events, voting
from arena.records import Presentation, PresentationId, Vote, VoteId, name_problem
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings

# Characters that some line splitter or other treats as a line end.
BREAKERS = ["\u2028", "\u2029", "\x85", "\v", "\f", "\x1c", "\x1d", "\x1e", "\r", "\r\n"]


def _text(min_size: int = 0, max_size: int = 40) -> st.SearchStrategy[str]:
    plain = st.text(
        st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
        min_size=min_size,
        max_size=max_size,
    )
    return (
        st.lists(st.one_of(plain, st.sampled_from(BREAKERS)), min_size=1, max_size=6)
        .map("".join)
        .filter(lambda t: len(t) >= min_size)
    )


def _line(case: str, label: str, model: str, text: str, prompt: str, system_prompt: str) -> str:
    return json.dumps(
        {
            "family": {"name": "u", "min_chars": 0},
            "case": {"id": case, "prompt": prompt},
            "system": {"label": label, "model": model, "system_prompt": system_prompt},
            "output": text,
        },
        ensure_ascii=False,
    )


def _vote(ledger: Ledger, case: str, comment: str) -> None:
    left, right = [o for o in catalog.outputs(ledger, "u") if o.case_id == case][:2]
    session = voting.start_session(ledger, "u", seed=1)
    shown = Presentation(
        PresentationId(voting.new_id()),
        session.session_id,
        "u",
        left.case_id,
        left.output_id,
        right.output_id,
        "2026-11-30T10:00:00.000+00:00",
    )
    voting.record_presentation(ledger, shown)
    voting.record_vote(
        ledger,
        Vote(
            VoteId(voting.new_id()),
            shown.presentation_id,
            session.session_id,
            "u",
            left.case_id,
            left.output_id,
            right.output_id,
            "left",
            shown.shown_at,
            "2026-11-30T10:00:05.000+00:00",
            5000,
            comment=comment,
        ),
    )
    events.add_event(ledger, "u", "flag", presentation_id=shown.presentation_id, note=comment)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    prompt=_text(),
    outputs=st.lists(_text(1), min_size=4, max_size=4),
    # A label is one line (``name_problem``); any such label goes through.
    labels=st.lists(
        st.text(
            st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=30
        )
        .filter(lambda t: name_problem(t) is None)
        .map(str.strip),
        min_size=2,
        max_size=2,
        unique=True,
    ),
    model=_text(1),
    comment=_text(),
    reason=_text(),
)
def test_any_text_exports_and_verifies(
    tmp_path_factory, prompt, outputs, labels, model, comment, reason
):
    folder: Path = tmp_path_factory.mktemp("u")
    source = folder / "u.jsonl"
    source.write_text(
        "\n".join(
            _line(case, label, f"{model}/{n}", outputs[2 * c + n], prompt + case, model)
            for c, case in enumerate(("c1", "c2"))
            for n, label in enumerate(labels)
        )
        + "\n",
        encoding="utf-8",
    )
    with Ledger.open(":memory:") as ledger:
        import_file(ledger, source, family="u", fmt="native")
        _vote(ledger, "c1", comment)
        events.add_event(ledger, "u", "retire_case", case_id="c2", note=reason or "x")
        close_round(ledger, "u", RoundSettings())
        for out in (folder / "bundle", folder / "bundle.zip"):
            export_round(ledger, out, family="u")
            report = verify_bundle(out)
            assert report.ok, report.problems
