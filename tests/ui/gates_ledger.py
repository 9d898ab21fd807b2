"""A small ledger whose gates fail, for the Gates page tests and its screenshot.

``mixed`` is an English family of three systems on three cases: case ``t`` asks for a
French translation and alpha and beta answer in French (a case in doubt: most
answers are in French); beta's answer to ``u`` is blank (Empty and Length fail); gamma
answers ``v`` in German. Nothing else fails.
"""

from __future__ import annotations

from pathlib import Path

from arena.intake.outputs import import_file
from arena.ledger import Ledger
from tests.conftest import native_line

ENGLISH = (
    "The answer walks through the question step by step, naming each part plainly "
    "so that a reader new to the subject can follow it without trouble."
)
FRENCH = (
    "La réponse reprend la question pas à pas, en nommant chaque partie simplement "
    "afin qu'un lecteur novice puisse la suivre sans aucune difficulté."
)
GERMAN = (
    "Die Antwort geht die Frage Schritt für Schritt durch und benennt jeden Teil so "
    "deutlich, dass auch ein Neuling ihr ohne Mühe folgen kann."
)
PROMPTS = {
    "t": "Translate this paragraph into French for our Paris office.",
    "u": "Explain in plain English how a reader should approach the question.",
    "v": "Describe, in English, how to walk through a question step by step.",
}
ANSWERS = {
    ("t", "alpha"): FRENCH,
    ("t", "beta"): "Voici la traduction. " + FRENCH,
    ("u", "beta"): "",
    ("v", "gamma"): GERMAN,
}


def build_gates_ledger(path: Path, folder: Path) -> Path:
    lines = []
    for case, prompt in PROMPTS.items():
        for label in ("alpha", "beta", "gamma"):
            text = ANSWERS.get((case, label), f"{label.capitalize()} on {case}: {ENGLISH}")
            lines.append(native_line(case, label, text, prompt=prompt))
    source = folder / "mixed.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with Ledger.open(path) as ledger:
        import_file(ledger, source, family="mixed", fmt="native")
    return path
