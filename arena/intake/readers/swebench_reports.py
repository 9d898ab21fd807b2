"""What a SWE-bench harness said of each instance of a run (docs/formats.md, "SWE-bench runs").

Three shapes are read, told apart by their keys:

- the per-run summary of the current harness: ``resolved_ids``, ``unresolved_ids``,
  ``error_ids``, ``empty_patch_ids``, ``incomplete_ids``, ``completed_ids``, ...;
- per-instance ``report.json`` files: ``{instance_id: {"resolved": bool,
  "patch_successfully_applied": bool, "patch_exists": bool, ...}}``;
- the older lists of ids (``resolved``, ``applied``, ``no_apply``, ``test_errored``,
  ``test_timeout``, ``install_fail``, ``generated``, ``with_logs``, ``no_generation``,
  ``no_logs``, ...), including reports that list only ``resolved``.

Some published reports end lists with a comma (``["a", "b",]``), which JSON forbids;
those commas are dropped before the report is read again, and the import says so.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import BadInput
from arena.records import TrialResult

# (result, reason) of one instance.
Outcome = tuple[TrialResult, str]

RESOLVED: Outcome = ("passed", "resolved")
UNRESOLVED: Outcome = ("failed", "unresolved")
EMPTY_PATCH: Outcome = ("failed", "empty_patch")
NO_APPLY: Outcome = ("failed", "patch_did_not_apply")

# The current harness's per-run summary; an id in ``incomplete_ids`` has no result.
_SUMMARY: tuple[tuple[str, Outcome], ...] = (
    ("resolved_ids", RESOLVED),
    ("unresolved_ids", UNRESOLVED),
    ("error_ids", ("errored", "error")),
    ("empty_patch_ids", EMPTY_PATCH),
)
# The older lists, strongest first: the harness put an instance in several (an applied
# patch whose tests timed out is in ``applied`` and ``test_timeout``; a resolved one in
# ``generated``, ``with_logs``, ``applied`` and ``resolved``); the first list holding it
# decides. ``with_logs`` alone: the log said neither that the patch applied nor that it
# did not. ``generated`` alone (when the report has ``with_logs``): no log was written.
_LISTS: tuple[tuple[str, Outcome], ...] = (
    ("resolved", RESOLVED),
    ("test_timeout", ("timed_out", "test_timeout")),
    ("test_errored", ("errored", "test_errored")),
    ("install_fail", ("errored", "install_fail")),
    ("reset_failed", ("errored", "reset_failed")),
    ("no_apply", NO_APPLY),
    ("applied", UNRESOLVED),
    ("with_logs", ("errored", "no_test_status")),
    ("no_logs", ("errored", "no_logs")),
    ("no_generation", EMPTY_PATCH),
)
# Lists that say which predictions were evaluated. A report with none of them (SWE-agent's
# ``final_report.json``: ``resolved`` and counts) speaks of every prediction: those it does
# not list were evaluated and not resolved.
_EVALUATED = ("generated", "with_logs", "applied", "no_apply")

# Report files looked for beside the predictions, in this order.
REPORT_NAMES = ("report.json", "final_report.json", "results.json", "results/results.json")

# A JSON string (left as it is) or a comma followed only by blanks and a closing bracket.
_STRING_OR_TRAILING_COMMA = re.compile(r'"(?:[^"\\]|\\.)*"|,(?=\s*[\]}])', re.DOTALL)


@dataclass(frozen=True)
class Report:
    """The outcomes a report gives, by instance id."""

    paths: tuple[Path, ...]
    shape: str
    outcomes: dict[str, Outcome]
    # What a prediction the report does not list gets: None = no result.
    unlisted: Outcome | None = None
    # Trailing commas were dropped from these files before they could be read.
    repaired: tuple[Path, ...] = ()

    def outcome(self, instance_id: str, empty_patch: bool) -> Outcome | None:
        """The instance's outcome; an empty patch the report does not list failed (the
        harness does not evaluate one)."""
        found = self.outcomes.get(instance_id)
        if found is not None:
            return found
        return EMPTY_PATCH if empty_patch else self.unlisted

    def describe(self) -> str:
        where = str(self.paths[0]) if len(self.paths) == 1 else f"{len(self.paths)} files"
        text = f"report: {where} ({self.shape}, {len(self.outcomes)} instances)"
        if self.unlisted is not None:
            text += "; predictions it does not list are read as unresolved"
        if self.repaired:
            names = ", ".join(str(p) for p in self.repaired)
            text += f"; trailing commas (not valid JSON) were dropped from {names} to read it"
        return text


def without_trailing_commas(text: str) -> str:
    """``text`` without the commas that directly precede a ``]`` or ``}`` (blanks aside).

    Strings are matched whole first, so a comma inside one is never touched; blanks and
    newlines stay, so line numbers in a later error are still the file's.
    """
    return _STRING_OR_TRAILING_COMMA.sub(
        lambda m: m.group(0) if m.group(0).startswith('"') else "", text
    )


def load_json(path: Path) -> tuple[Any, bool]:
    """The JSON value in ``path``, and whether trailing commas had to be dropped first."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BadInput(f"not UTF-8 text (byte {exc.start})", path=str(path)) from None
    try:
        return json.loads(text), False
    except json.JSONDecodeError as exc:
        first = exc
    repaired = without_trailing_commas(text)
    if repaired != text:
        try:
            return json.loads(repaired), True
        except json.JSONDecodeError as exc:
            first = exc
    raise BadInput(f"not valid JSON ({first.msg})", path=str(path), line=first.lineno) from None


def find_reports(predictions: Path) -> tuple[list[Path], list[Path]]:
    """The report files beside ``predictions`` to read, and others found and passed over.

    First a named report (REPORT_NAMES); else a per-run summary (a ``*.json`` holding
    ``resolved_ids``); else every per-instance ``report.json`` under ``logs/``.
    """
    folder = predictions.parent
    named = [folder / name for name in REPORT_NAMES if (folder / name).is_file()]
    if named:
        return named[:1], named[1:]
    summaries = [
        p
        for p in sorted(folder.glob("*.json"))
        if p.resolve() != predictions.resolve() and _is_summary(p)
    ]
    if summaries:
        return summaries[:1], summaries[1:]
    logs = folder / "logs"
    return (sorted(logs.rglob("report.json")) if logs.is_dir() else []), []


def _is_summary(path: Path) -> bool:
    if path.stat().st_size > 64 << 20:
        return False
    try:
        value, _ = load_json(path)
    except BadInput:
        return False
    return isinstance(value, dict) and "resolved_ids" in value


def reports_in(path: Path) -> list[Path]:
    """The report files ``--report`` names: the file, or every ``report.json`` in a folder."""
    if path.is_dir():
        found = sorted(path.rglob("report.json"))
        if not found:
            raise BadInput("no report.json in this folder", path=str(path), field="--report")
        return found
    if not path.is_file():
        raise BadInput("no such file", path=str(path), field="--report")
    return [path]


def read_reports(paths: list[Path]) -> Report:
    """One report from ``paths``: one file of any shape, or per-instance files to merge."""
    outcomes: dict[str, Outcome] = {}
    seen: dict[str, Path] = {}
    repaired: list[Path] = []
    report: Report | None = None
    for path in paths:
        value, fixed = load_json(path)
        if fixed:
            repaired.append(path)
        report = _read_one(value, path)
        if len(paths) > 1 and report.shape != "per-instance":
            raise BadInput(
                "expected a per-instance report ({instance_id: {resolved: ...}}) like the "
                f"other {len(paths) - 1} files",
                path=str(path),
                line=1,
                field="(report)",
            )
        for instance_id, outcome in report.outcomes.items():
            if instance_id in outcomes and outcomes[instance_id] != outcome:
                raise BadInput(
                    f"instance {instance_id!r} has another result in {seen[instance_id]}",
                    path=str(path),
                    line=_line_of(path, instance_id),
                    field=instance_id,
                )
            outcomes[instance_id] = outcome
            seen[instance_id] = path
    if report is None:
        raise BadInput("no report to read", field="--report")
    return Report(tuple(paths), report.shape, outcomes, report.unlisted, tuple(repaired))


def _read_one(value: Any, path: Path) -> Report:
    if not isinstance(value, dict):
        raise BadInput("expected a JSON object", path=str(path), line=1, field="(report)")
    if any(key in value for key, _ in _SUMMARY) or "completed_ids" in value:
        return Report((path,), "per-run summary", _from_lists(value, _SUMMARY, path))
    if value and all(isinstance(v, dict) and "resolved" in v for v in value.values()):
        return Report((path,), "per-instance", _per_instance(value, path))
    if any(key in value for key, _ in _LISTS) or "generated" in value:
        outcomes = _from_lists(value, _LISTS, path)
        if "with_logs" in value:
            no_log: Outcome = ("errored", "no_logs")
            for instance_id in _ids(value, "generated", path):
                outcomes.setdefault(instance_id, no_log)
        evaluated = any(key in value for key in _EVALUATED)
        return Report((path,), "lists of ids", outcomes, None if evaluated else UNRESOLVED)
    raise BadInput(
        "not a SWE-bench report Arena knows: expected resolved_ids (per-run summary), "
        "{instance_id: {resolved: ...}} (per-instance) or lists such as resolved, applied, "
        "no_apply",
        path=str(path),
        line=1,
        field="(report)",
    )


def _from_lists(
    value: dict[str, Any], lists: tuple[tuple[str, Outcome], ...], path: Path
) -> dict[str, Outcome]:
    outcomes: dict[str, Outcome] = {}
    for key, outcome in lists:
        for instance_id in _ids(value, key, path):
            outcomes.setdefault(instance_id, outcome)
    return outcomes


def _ids(value: dict[str, Any], key: str, path: Path) -> list[str]:
    ids = value.get(key, [])
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise BadInput(
            "expected a list of instance ids",
            path=str(path),
            line=_line_of(path, key),
            field=key,
        )
    return ids


def _per_instance(value: dict[str, Any], path: Path) -> dict[str, Outcome]:
    outcomes: dict[str, Outcome] = {}
    for instance_id, fields in value.items():
        for name in ("resolved", "patch_successfully_applied", "patch_exists", "patch_is_None"):
            if name in fields and not isinstance(fields[name], bool):
                raise BadInput(
                    "expected true or false",
                    path=str(path),
                    line=_line_of(path, instance_id),
                    field=f"{instance_id}.{name}",
                )
        if fields["resolved"]:
            outcomes[instance_id] = RESOLVED
        elif fields.get("patch_is_None") or fields.get("patch_exists") is False:
            outcomes[instance_id] = EMPTY_PATCH
        elif fields.get("patch_successfully_applied") is False:
            outcomes[instance_id] = NO_APPLY
        else:
            outcomes[instance_id] = UNRESOLVED
    return outcomes


def _line_of(path: Path, key: str) -> int:
    """The line where ``"key"`` first appears in ``path`` (1 if it cannot be found)."""
    text = path.read_text("utf-8", errors="replace")
    at = text.find(json.dumps(key))
    return text.count("\n", 0, at) + 1 if at >= 0 else 1
