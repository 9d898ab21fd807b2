"""Judge prompt templates: Arena's own (``resources/judge_templates``) or the user's file.

A template is a TOML file: ``scale`` (``plain``: [[A]], [[B]], [[C]] a tie; ``graded``:
[[A>>B]], [[A>B]], [[A=B]], [[B>A]], [[B>>A]]), an optional ``system`` prompt, and one
prompt per kind of item: ``single`` (required), ``single_reference``, ``multi`` and
``multi_reference``. An item takes the most specific prompt the template has: a case of
several turns ``multi`` (else ``single``, the turns and answers joined whole), a case with
a reference answer the ``_reference`` form (else the form without). A text file that is
not TOML (``.txt``, ``.md``) is one ``single`` prompt with the plain scale.

Prompts name the fields they are filled with in braces (``str.format``; ``{{`` is a
literal brace): {question}, {answer_a}, {answer_b}, {turns} (every request, numbered),
{turns_a} and {turns_b} (the whole conversation with each assistant), {question_N},
{answer_a_N}, {answer_b_N} (turn N; empty past the case's last turn), and in the
``_reference`` prompts {reference} or {ref_answer_1} (MT-bench's name). Fields are
checked when the template is read: a field Arena does not fill, or a prompt that does not
show both answers, is refused with the file, the line and the field named.

A reply's verdict is the one verdict mark it holds; a reply with none, or with marks
that disagree, is ``unparsed``: counted and shown, never guessed.
"""

from __future__ import annotations

import hashlib
import re
import string
import tomllib
from dataclasses import dataclass
from pathlib import Path

from arena.errors import BadInput
from arena.paths import resource_path

SHIPPED = ("pairwise", "pairwise-graded")
SCALES = ("plain", "graded")
PROMPTS = ("single", "single_reference", "multi", "multi_reference")
_KEYS = ("scale", "system", *PROMPTS)
MAX_TURN = 20
_TURN_FIELD = re.compile(r"^(question|answer_a|answer_b)_([1-9][0-9]?)$")
_PLAIN_FIELDS = ("question", "answer_a", "answer_b", "turns", "turns_a", "turns_b")
_REFERENCE_FIELDS = ("reference", "ref_answer_1")
# The verdict marks: plain [[A]], [[B]], [[C]]; graded [[A>>B]] ... [[B>>A]].
_PLAIN_MARK = re.compile(r"\[\[\s*([ABC])\s*\]\]")
_GRADED_MARK = re.compile(r"\[\[\s*(A\s*>>\s*B|A\s*>\s*B|A\s*=\s*B|B\s*>\s*A|B\s*>>\s*A)\s*\]\]")
_PLAIN_VERDICT = {"A": ("left", 1), "B": ("right", 1), "C": ("tie", 0)}
_GRADED_VERDICT = {
    "A>>B": ("left", 2),
    "A>B": ("left", 1),
    "A=B": ("tie", 0),
    "B>A": ("right", 1),
    "B>>A": ("right", 2),
}


@dataclass(frozen=True)
class Verdict:
    winner: str  # left, right, tie, or unparsed
    strength: int  # 2: much better (graded >>), 1: better, 0: tie or unparsed
    mark: str  # the mark read, as the reply wrote it ("" when unparsed)


def parse_verdict(reply: str, scale: str) -> Verdict:
    """The verdict ``reply`` names, read with ``scale``; ``unparsed`` when it names none or
    names several that differ."""
    pattern = _GRADED_MARK if scale == "graded" else _PLAIN_MARK
    found = {re.sub(r"\s+", "", m) for m in pattern.findall(reply)}
    if len(found) != 1:
        return Verdict("unparsed", 0, "")
    mark = found.pop()
    winner, strength = (_GRADED_VERDICT if scale == "graded" else _PLAIN_VERDICT)[mark]
    return Verdict(winner, strength, f"[[{mark}]]")


@dataclass(frozen=True)
class Item:
    """What a prompt is filled with: the case's turns, each assistant's answer per turn,
    and the reference answer (if the case has one)."""

    turns: tuple[str, ...]
    answers_a: tuple[str, ...]
    answers_b: tuple[str, ...]
    reference: str | None = None


@dataclass(frozen=True)
class Template:
    name: str  # a shipped template's name, or the file's name
    sha256: str  # of the template's bytes: part of the judge's descriptor
    text: str  # the template file as read (kept in the ledger's file store)
    scale: str
    system: str | None
    prompts: dict[str, str]

    def prompt_for(self, item: Item) -> str:
        multi = len(item.turns) > 1
        reference = item.reference is not None
        order = [
            ("multi_reference", multi and reference),
            ("multi", multi),
            ("single_reference", reference),
            ("single", True),
        ]
        kind = next(k for k, usable in order if usable and k in self.prompts)
        return self.prompts[kind].format_map(_fields(item, whole=not kind.startswith("multi")))


def _fields(item: Item, *, whole: bool) -> dict[str, str]:
    turns, a, b = item.turns, item.answers_a, item.answers_b
    fields = {
        "question": "\n\n".join(turns) if whole else turns[-1],
        "answer_a": "\n\n".join(a) if whole else a[-1],
        "answer_b": "\n\n".join(b) if whole else b[-1],
        "turns": "\n\n".join(f"Request {i}:\n{t}" for i, t in enumerate(turns, 1)),
        "turns_a": _conversation(turns, a),
        "turns_b": _conversation(turns, b),
        "reference": item.reference or "",
        "ref_answer_1": item.reference or "",
    }
    for n in range(1, MAX_TURN + 1):
        fields[f"question_{n}"] = turns[n - 1] if n <= len(turns) else ""
        fields[f"answer_a_{n}"] = a[n - 1] if n <= len(a) else ""
        fields[f"answer_b_{n}"] = b[n - 1] if n <= len(b) else ""
    return fields


def _conversation(turns: tuple[str, ...], answers: tuple[str, ...]) -> str:
    if len(answers) != len(turns):  # an answer not split by turn: shown whole, after them
        asked = "\n\n".join(f"### User\n{t}" for t in turns)
        return f"{asked}\n\n### Assistant\n" + "\n\n".join(answers)
    return "\n\n".join(
        f"### User\n{t}\n\n### Assistant\n{a}" for t, a in zip(turns, answers, strict=True)
    )


def template_named(name: str, base: Path | None = None) -> Template:
    """A shipped template by its name, or the user's template file (relative to ``base``)."""
    if name in SHIPPED:
        path = resource_path("judge_templates", f"{name}.toml")
        return read_template(path, name=name)
    path = Path(name).expanduser()
    if base is not None and not path.is_absolute():
        path = base / path
    if not path.is_file():
        raise BadInput(
            f"no template {name!r}: name one Arena ships ({', '.join(SHIPPED)}) or a template file",
            field="template",
        )
    return read_template(path)


def read_template(path: Path, *, name: str | None = None) -> Template:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise BadInput(f"cannot read the template ({error.strerror})", path=str(path)) from None
    return template_of(data, path=str(path), name=name or path.name, toml=path.suffix == ".toml")


def template_of(data: bytes, *, path: str, name: str, toml: bool = True) -> Template:
    """A template from its bytes, checked; errors name ``path``, the line and the field."""
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        raise BadInput(f"not UTF-8 text ({error.reason})", path=path) from None
    sha256 = hashlib.sha256(data).hexdigest()
    if not toml:
        table: dict[str, object] = {"scale": "plain", "single": text}
    else:
        try:
            table = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            at = re.search(r"\(at line (\d+)", str(error))
            raise BadInput(
                f"not a TOML template ({error})", path=path, line=int(at[1]) if at else None
            ) from None
    for key in table:
        if key not in _KEYS:
            raise BadInput(
                f"unknown key (a template has {', '.join(_KEYS)})",
                path=path,
                line=_line(text, key + " ", key),
                field=key,
            )
    scale = table.get("scale", "plain")
    if scale not in SCALES:
        raise BadInput(
            f"expected one of {', '.join(SCALES)}",
            path=path,
            line=_line(text, "scale"),
            field="scale",
        )
    system = table.get("system")
    if system is not None and not isinstance(system, str):
        raise BadInput("expected text", path=path, line=_line(text, "system"), field="system")
    prompts: dict[str, str] = {}
    for kind in PROMPTS:
        prompt = table.get(kind)
        if prompt is None:
            continue
        if not isinstance(prompt, str) or not prompt.strip():
            raise BadInput(
                "expected a prompt (text)", path=path, line=_line(text, kind), field=kind
            )
        _check_fields(prompt, kind, text=text, path=path)
        prompts[kind] = prompt
    if "single" not in prompts:
        raise BadInput(
            "missing: every template has a single prompt (used for any item the others do "
            "not cover)",
            path=path,
            field="single",
        )
    if system:
        _check_fields(system, "system", text=text, path=path, answers=False)
    return Template(name, sha256, text, str(scale), system or None, prompts)


def _check_fields(prompt: str, kind: str, *, text: str, path: str, answers: bool = True) -> None:
    try:
        names = [f for _, f, spec, conv in string.Formatter().parse(prompt) if f is not None]
        specs = [
            (f, spec, conv)
            for _, f, spec, conv in string.Formatter().parse(prompt)
            if f is not None and (spec or conv)
        ]
    except ValueError as error:  # a lone { or }
        raise BadInput(
            f"{error} (write a literal brace as {{{{ or }}}})",
            path=path,
            line=_line(text, kind),
            field=kind,
        ) from None
    if specs:
        field = specs[0][0]
        raise BadInput(
            "a field is written {name}, with no format or conversion",
            path=path,
            line=_line(text, "{" + field, kind),
            field=f"{kind}.{field}",
        )
    reference = kind.endswith("_reference")
    allowed = set(_PLAIN_FIELDS) | (set(_REFERENCE_FIELDS) if reference else set())
    for name in names:
        turn = _TURN_FIELD.match(name)
        if name in allowed or (turn and int(turn[2]) <= MAX_TURN):
            continue
        if name in _REFERENCE_FIELDS:
            why = f"{{{name}}} only in a _reference prompt ({kind} is used without one)"
        else:
            why = (
                "unknown field (Arena fills "
                + ", ".join(
                    "{" + f + "}"
                    for f in (*_PLAIN_FIELDS, "question_N", "answer_a_N", "answer_b_N")
                )
                + ", and {reference} in a _reference prompt)"
            )
        if kind == "system":
            why = f"the system prompt takes no fields ({{{name}}})"
        raise BadInput(why, path=path, line=_line(text, "{" + name, kind), field=f"{kind}.{name}")
    if kind == "system" and names:
        raise BadInput(
            f"the system prompt takes no fields ({{{names[0]}}})",
            path=path,
            line=_line(text, "{" + names[0], kind),
            field=f"system.{names[0]}",
        )
    if not answers:
        return
    for side in ("a", "b"):
        if not any(
            n in (f"answer_{side}", f"turns_{side}") or n.startswith(f"answer_{side}_")
            for n in names
        ):
            raise BadInput(
                f"missing: the prompt never shows answer {side.upper()} "
                f"({{answer_{side}}}, {{turns_{side}}} or {{answer_{side}_N}})",
                path=path,
                line=_line(text, kind),
                field=f"{kind}.answer_{side}",
            )
    if reference and not set(names) & set(_REFERENCE_FIELDS):
        raise BadInput(
            "missing: a _reference prompt shows the reference ({reference})",
            path=path,
            line=_line(text, kind),
            field=f"{kind}.reference",
        )


def _line(text: str, needle: str, after: str | None = None) -> int | None:
    """The line of ``needle`` (first at or after the line that starts ``after``), if found."""
    rows = text.splitlines()
    start = 0
    if after is not None:
        key = re.compile(rf"^\s*{re.escape(after)}\s*=")
        start = next((i for i, row in enumerate(rows) if key.match(row)), 0)
    elif not needle.startswith("{"):
        key = re.compile(rf"^\s*{re.escape(needle.strip())}\s*=")
        return next((i + 1 for i, row in enumerate(rows) if key.match(row)), None)
    return next((i + 1 for i in range(start, len(rows)) if needle in rows[i]), None)
