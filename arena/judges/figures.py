"""How `judges_report` figures read: a value with its 95% interval, τ with the systems it
is over, which fields of a judge's row a table shows (a report may hold more figures: a
table lists whatever it has), and the boards side by side on their one anchor."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.texts import counted


def is_figure(value: Any) -> bool:
    return isinstance(value, dict) and {"value", "low", "high"} <= value.keys()


def shown(figure: dict[str, Any] | None, places: int = 3) -> str:
    """``0.913 [0.895, 0.929]`` (``places`` decimals); the value alone without an interval, a
    dash without a value."""
    if figure is None or figure["value"] is None:
        return "—"
    value, low, high = figure["value"], figure["low"], figure["high"]
    if low is None:
        return f"{value:.{places}f}"
    return f"{value:.{places}f} [{low:.{places}f}, {high:.{places}f}]"


def worth_text(judge: dict[str, Any]) -> str | None:
    """A model judge's worth in a line (``judges_report``'s ``worth``): "worth +140 rater
    votes [+60, +230] beside the rater's 120 (λ 0.62)"; None for a person."""
    worth = judge.get("worth")
    if "worth_lam" not in judge:
        return None
    if worth is None:
        return "worth: nothing to tell (no votes, or no verdicts, to fit)"
    return (
        f"worth {worth['value']:+,.0f} rater votes [{worth['low']:+,.0f}, {worth['high']:+,.0f}]"
        f" beside the rater's {worth['count']:,} (λ {judge['worth_lam']:.2g})"
    )


def number(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` significant digits (``0.913``, ``0.0770``, ``1.00``, ``-0.700``),
    whole from ``10 ** (digits - 1)`` on (``144``, ``1185``): the window's figures."""
    if abs(x) >= 10 ** (digits - 1):
        return f"{x:.0f}"
    return f"{x:#.{digits}g}".rstrip(".")


def stacked(figure: dict[str, Any] | None, digits: int = 3, between: str = "\n") -> str:
    """A figure as the window shows it, to ``digits`` significant digits: the value, and
    its 95% interval on a line below (``0.913`` / ``[0.895, 0.929]``; ``between`` " " keeps
    them on one line); a dash without a value."""
    if figure is None or figure["value"] is None:
        return "—"
    value = number(figure["value"], digits)
    if figure["low"] is None:
        return value
    return f"{value}{between}[{number(figure['low'], digits)}, {number(figure['high'], digits)}]"


def tau_stacked(figure: dict[str, Any] | None) -> str:
    """τ as the window's tables show it: ``stacked`` with the systems it is over beside the
    value (over two, one pair's order)."""
    if figure is None or figure["value"] is None or (figure["count"] or 0) < 2:
        return tau_shown(figure)
    n, lines = figure["count"], stacked(figure).split("\n")
    if n == 2:
        same = "same" if figure["value"] > 0 else "opposite"
        return f"{lines[0]} over 2 systems\none pair: {same} order"
    return "\n".join([f"{lines[0]} over {n} systems", *lines[1:]])


def tau_shown(figure: dict[str, Any] | None) -> str:
    """Kendall's τ with the systems it is over: ``0.905 [0.874, 0.968] over 20 systems``.
    Over two systems τ is one pair's order, and reads so; below two there is none."""
    if figure is None:
        return "—"
    n = figure["count"]
    if n is None or n < 2 or figure["value"] is None:
        return f"— ({counted(n or 0, 'system')} ranked on both)"
    if n == 2:
        same = "the same" if figure["value"] > 0 else "the opposite"
        return f"{shown(figure)} over 2 systems: one pair, in {same} order"
    return f"{shown(figure)} over {n} systems"


def columns(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The fields of ``rows`` that are a figure, a number or a word in each row (or null,
    or absent: a run judge's ``unparsed``), in the order rows first name them: a table's
    columns."""

    def cell(value: Any) -> bool:
        return value is None or is_figure(value) or isinstance(value, (str, int, float))

    named = dict.fromkeys(key for row in rows for key in row)
    return [key for key in named if all(cell(row.get(key)) for row in rows)]


def boards(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The rater's board and each judge's side by side, as headers and rows: points [95%
    interval] by system, in the rater's order (a system the rater never saw last). A board
    that could not be fitted on the anchor is headed with the system it is on."""
    boards = [report["rater_board"], *(j["board"] for j in report["judges"])]
    rows = {row["system"]: row for board in reversed(boards) for row in board}
    by_system = [{row["system"]: row["points"] for row in board} for board in boards]
    anchor = report.get("anchor") or {}
    elsewhere = {e["board"]: e["label"] for e in anchor.get("elsewhere", ())}
    names = ["rater", *(j["judge"] for j in report["judges"])]
    return ["system", *(f"{b} (on {elsewhere[b]})" if b in elsewhere else b for b in names)], [
        [rows[s]["label"], *(shown(board.get(s), 0) for board in by_system)]
        for s in dict.fromkeys(r["system"] for board in boards for r in board)
    ]


def anchor_text(report: dict[str, Any], rater: str = "the rater") -> str:
    """Which system every board is anchored on (1000 points) and why, and any board that
    could not be and why. ``rater`` names the rater (``you`` on the window's page)."""
    anchor = report.get("anchor")
    if anchor is None:
        return "No board: no votes or verdicts."
    whose = "your" if rater == "you" else f"{rater}'s"

    def board(name: str) -> str:
        return f"{whose} board" if name == "rater" else f"{name}'s board"

    most = f"the most of {whose} votes" if anchor["by"] == "rater" else "the most verdicts"
    passed = anchor["passed_over"]
    lacking = ""
    if passed is not None:
        boards_ = " or ".join(board(b) for b in passed["boards"])
        lacking = f"{passed['label']} has no comparison on {boards_}"
    label, how = anchor["label"], anchor["chosen"]
    if how == "not_shared":
        text = (
            f"No system is compared on every board: {lacking}. The boards are anchored on "
            f"{label} (1000 points) where they compare it"
        )
    else:
        text = (
            f"Every board is anchored on {label} (1000 points): "
            + {
                "reference": "the family's reference",
                "most_compared": f"the system with {most}",
                "most_compared_shared": f"of the systems every board compares, the one with "
                f"{most} ({lacking})",
            }[how]
        )
    moved = [
        f"{board(e['board'])} is on {e['label']}, the system it compares most"
        for e in anchor["elsewhere"]
    ]
    if moved:
        text += "; " + "; ".join(moved) + ": its points do not read across"
    return text + "."


def between_text(block: dict[str, Any]) -> str:
    """The agreement between raters (``between_raters``) as lines of text: each pair of
    raters on the items both voted, then α over all."""
    lines = ["between raters, on the items both voted (95% intervals, bootstrap over items):"]
    for pair in block["pairs"]:
        first, second = pair["raters"]
        lines.append(
            f"  {first} – {second}: {counted(pair['overlap'], 'item')}, agreement "
            f"{shown(pair['agreement_with_ties'])}, without ties "
            f"{shown(pair['agreement_without_ties'])}, κ {shown(pair['kappa'])}"
        )
    lines.append(
        f"  Krippendorff's α (ordinal) over {counted(len(block['raters']), 'rater')}: "
        f"{shown(block['alpha'])}"
    )
    return "\n".join(lines)
