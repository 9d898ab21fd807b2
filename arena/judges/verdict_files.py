"""Judges' verdict files, each read as verdicts on pairs shown left and right.

- ``native``: Arena's JSON Lines (docs/judges.md).
- ``fastchat-pair``: FastChat MT-bench ``model_judgment/*_pair.jsonl``, two games a line,
  the second with the sides swapped.
- ``fastchat-single``: FastChat MT-bench ``model_judgment/*_single.jsonl``, one score per
  answer and turn (``question_id``, ``model``, ``judge``, ``score``, ``turn``, as FastChat's
  ``japanese_mt_bench/model_judgment/gpt-4_single.jsonl`` has them); a score of -1 is
  FastChat's "no rating found". Every two systems scored on the same question and turn make
  one verdict, the higher score winning, equal scores a tie; the one whose name sorts first
  is called left.
- ``arena-hard``: arena-hard-auto ``model_judgment/<judge>/<model>.jsonl``. As its
  ``gen_judgment.py`` writes them (lm-sys/arena-hard-auto) a line is one model on one
  question (``question_id``, or ``uid`` with the ``baseline`` named, from v2.0) and two
  ``games``: game 1 shows the baseline as A and the model as B, game 2 the model as A. Each
  game's ``score`` is ``A>>B``, ``A>B``, ``A=B``, ``B>A`` or ``B>>A``; ``show_result.py``
  (``get_battles_from_judgment``) counts the strong labels three times and gives anything
  else, a null score included, no weight: here both strengths are one win, and anything
  else is a game without a verdict.
- ``pandalm``: PandaLM's ``testset-v1.json``, one annotator column.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from arena.errors import BadInput, unknown_field
from arena.intake.jsonstream import iter_json_array, iter_json_lines

BASELINE = "gpt-4-0314"  # arena-hard-auto v0.1's baseline, named in none of its lines
_NATIVE = frozenset({"case_id", "left_system", "right_system", "winner", "game"})
_PANDALM_WINNER = {0: "tie", 1: "left", 2: "right"}
# arena-hard labels, A shown left: the strength (>> or >) is not kept.
_ARENA_HARD = {"A>>B": "left", "A>B": "left", "A=B": "tie", "B>A": "right", "B>>A": "right"}
NO_SCORE = -1  # FastChat's score when the judge's answer holds no rating


class Read(NamedTuple):
    """One verdict as read, or (``right`` None) one line naming a system on a case.

    ``game`` numbers the games of one line; 0 or below marks a verdict on scores given
    apart (fastchat-single), which has no position: its ``line`` is the left system's
    score and ``-game`` the right's. ``winner`` None: the source gave no verdict.
    ``place`` is where the record sits when its line cannot say (an element of a JSON
    array, which may share its line with others: its place from 1); 0, its line does.
    """

    line: int
    game: int
    case: Any
    left: Any
    right: Any
    winner: str | None
    fields: tuple[str, str, str] = ("case_id", "left_system", "right_system")
    place: int = 0


@dataclass(frozen=True)
class Options:
    column: str | None = None  # pandalm: the annotator column
    baseline: str = BASELINE  # arena-hard: the baseline of lines that do not name it
    first_turn: bool = False  # fastchat: read turn 1's judgments only


def _bad(path: Path, line: int, field: str, message: str) -> BadInput:
    return BadInput(message, path=str(path), line=line, field=field)


def _object(path: Path, line: int, record: Any, required: tuple[str, ...] = ()) -> dict:
    if not isinstance(record, dict):
        raise _bad(path, line, "record", "expected a JSON object")
    for field in required:
        if field not in record:
            raise _bad(path, line, field, "missing")
    return record


def _native(path: Path, _options: Options) -> Iterator[Read]:
    for line, raw in iter_json_lines(path):
        record = _object(path, line, raw)
        unknown = sorted(set(record) - _NATIVE)
        if unknown:
            raise _bad(path, line, unknown[0], unknown_field(unknown[0], _NATIVE))
        winner = record.get("winner")
        if winner not in ("left", "right", "tie"):
            raise _bad(path, line, "winner", "expected left, right or tie")
        game = record.get("game", 1)
        if isinstance(game, bool) or not isinstance(game, int) or game < 1:
            raise _bad(path, line, "game", "expected a game number ≥ 1")
        yield Read(
            line,
            game,
            record.get("case_id"),
            record.get("left_system"),
            record.get("right_system"),
            winner,
        )


def _turn(path: Path, line: int, record: dict) -> int:
    turn = record.get("turn", 1)
    if isinstance(turn, bool) or not isinstance(turn, int) or turn < 1:
        raise _bad(path, line, "turn", "expected a turn number ≥ 1")
    return turn


def _fastchat_winner(path: Path, line: int, field: str, value: Any, first: str) -> str | None:
    if value == "error":  # the judge's answer held no verdict: FastChat's own reading
        return None
    if value in ("tie", "tie (inconsistent)"):
        return "tie"
    if value not in ("model_1", "model_2"):
        raise _bad(path, line, field, "expected model_1, model_2, tie or error")
    return "left" if value == first else "right"


def _fastchat_pair(path: Path, options: Options) -> Iterator[Read]:
    required = ("question_id", "model_1", "model_2", "g1_winner", "g2_winner")
    for line, raw in iter_json_lines(path):
        record = _object(path, line, raw, required)
        turn = _turn(path, line, record)
        if options.first_turn and turn != 1:
            continue
        case, one, two = record["question_id"], record["model_1"], record["model_2"]
        fields = ("question_id", "model_1", "model_2")
        # Game 1 shows model_1 as A (left); game 2 swaps them. Both winners name models.
        g1 = _fastchat_winner(path, line, "g1_winner", record["g1_winner"], "model_1")
        g2 = _fastchat_winner(path, line, "g2_winner", record["g2_winner"], "model_2")
        # A question's turns are judged on its one case: turn 2's games are 3 and 4.
        first = 2 * turn - 1
        yield Read(line, first, case, one, two, g1, fields)
        yield Read(line, first + 1, case, two, one, g2, fields[:1] + fields[:0:-1])


def _score(path: Path, line: int, value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _bad(path, line, "score", "expected a number (-1: no rating)")
    return None if value == NO_SCORE else float(value)


def _fastchat_single(path: Path, options: Options) -> Iterator[Read]:
    fields = ("question_id", "model", "model")
    # (question, turn) -> its scores: (line, question as written, model, score)
    scored: dict[tuple[str, int], list[tuple[int, Any, Any, float | None]]] = {}
    seen: dict[tuple[str, str, int], int] = {}
    for line, raw in iter_json_lines(path):
        record = _object(path, line, raw, ("question_id", "model", "score"))
        turn = _turn(path, line, record)
        if options.first_turn and turn != 1:
            continue
        case, model = record["question_id"], record["model"]
        key = (str(case), repr(model), turn)
        if key in seen:
            raise _bad(
                path, line, "model", f"scored twice on this question and turn (line {seen[key]})"
            )
        seen[key] = line
        score = _score(path, line, record["score"])
        yield Read(line, 0, case, model, None, None, fields)  # checked even when alone
        scored.setdefault((str(case), turn), []).append((line, case, model, score))
    for answers in scored.values():
        # Left: the model whose name sorts first, so every file and turn shows a pair alike.
        answers.sort(key=lambda answer: str(answer[2]))
        for i, (line, case, left, left_score) in enumerate(answers):
            for right_line, _, right, right_score in answers[i + 1 :]:
                winner = _by_score(left_score, right_score)
                yield Read(line, -right_line, case, left, right, winner, fields)


def _by_score(left: float | None, right: float | None) -> str | None:
    if left is None or right is None:
        return None
    return "tie" if left == right else "left" if left > right else "right"


def _arena_hard(path: Path, options: Options) -> Iterator[Read]:
    for line, raw in iter_json_lines(path):
        record = _object(path, line, raw, ("model", "games"))
        case_field = next((f for f in ("question_id", "uid") if f in record), None)
        if case_field is None:
            raise _bad(path, line, "question_id", "missing (nor is there a uid)")
        games = record["games"]
        if not isinstance(games, list) or len(games) not in (1, 2):
            raise _bad(path, line, "games", "expected a list of two games")
        baseline = record.get("baseline", options.baseline)
        base_field = "baseline" if "baseline" in record else "--baseline"
        case, model = record[case_field], record["model"]
        for game, shown in enumerate(games, start=1):
            if shown is not None and not isinstance(shown, dict):
                raise _bad(path, line, f"games[{game - 1}]", "expected an object with a score")
            label = None if shown is None else shown.get("score")
            if label is not None and not isinstance(label, str):
                raise _bad(path, line, f"games[{game - 1}].score", "expected a label like A>B")
            # Game 1: the baseline is A (left); game 2: the model is.
            left, right = (baseline, model) if game == 1 else (model, baseline)
            fields = (
                (case_field, base_field, "model")
                if game == 1
                else (case_field, "model", base_field)
            )
            yield Read(line, game, case, left, right, _ARENA_HARD.get(label or ""), fields)


def _pandalm(path: Path, options: Options) -> Iterator[Read]:
    column = options.column
    if column is None:
        raise BadInput("give the annotator column to read (e.g. annotator2)", field="--column")
    for place, (line, raw) in enumerate(iter_json_array(path), start=1):
        record = _object(path, line, raw, ("idx", "cmp_key", column))
        models = record["cmp_key"].split("_") if isinstance(record["cmp_key"], str) else []
        if len(models) != 2:
            raise _bad(path, line, "cmp_key", "expected two model names joined by _")
        winner = _PANDALM_WINNER.get(record[column])
        if winner is None or isinstance(record[column], bool):
            raise _bad(path, line, column, "expected 0 (tie), 1 or 2")
        fields = ("idx", "cmp_key", "cmp_key")
        yield Read(line, 1, record["idx"], models[0], models[1], winner, fields, place)


READERS: dict[str, Callable[[Path, Options], Iterator[Read]]] = {
    "native": _native,
    "fastchat-pair": _fastchat_pair,
    "fastchat-single": _fastchat_single,
    "arena-hard": _arena_hard,
    "pandalm": _pandalm,
}
