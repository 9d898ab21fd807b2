"""A ledger of answers whose line breaks matter: words one a line, CSV, YAML, code, and
two-turn cases whose turns are joined as a FastChat import joins them."""

from __future__ import annotations

from pathlib import Path

from arena.intake.outputs import import_file
from arena.intake.readers.fastchat import join_turns
from arena.ledger import Ledger
from tests.conftest import native_line

WORDS = "river\nstone\nlantern\norchard"
CSV = "city,country,population\nLyon,France,522250\nPorto,Portugal,231962"
YAML = "inventory:\n  - item: tea\n    price: 3\n  - item: bread\n    price: 2"
# A trailing space after "end", a tab between the columns.
RAW = "first line ends with a space \nname\tprice\ntea\t3"
CODE = """Here is a function that adds the prices:

```python
def total(items):
    # every item has a price
    return sum(item.price for item in items)
```

It runs in linear time.
"""
PROSE = """The **river** in this story stands for time: it keeps moving while the
characters stay where they are.

- It opens the first chapter.
- It floods in the last one.

| chapter | river |
|---------|-------|
| 1       | calm  |
| 12      | flood |
"""
WORDS_QUESTION = (
    "Write four nouns about a quiet village. Put each word on a separate line, with nothing else."
)
CSV_QUESTION = "Now give two European cities as CSV with the header city,country,population."
TWO_TURNS = {
    "alpha": [WORDS, CSV],
    "beta": ["river stone\nlantern\norchard", "city,country\nLyon,France\nPorto,Portugal"],
}
SINGLE = {
    "prose": (
        "Explain what the river stands for in the story.",
        PROSE,
        PROSE.replace("time", "fate"),
    ),
    "code": (
        "Write a Python function that adds up the prices of items.",
        CODE,
        CODE.replace("linear", "O(n)"),
    ),
    "yaml": ("Give the inventory as YAML.", YAML, YAML.replace("tea", "coffee")),
    "raw": ("Give the price list as tab-separated text.", RAW, RAW.replace("tea", "jam")),
}


THREE_TURNS = ["Name a colour.", "Now a fruit of that colour.", "And a song about it."]


def written_lines() -> list[str]:
    lines = []
    prompt = join_turns([WORDS_QUESTION, CSV_QUESTION])
    for label, turns in TWO_TURNS.items():
        lines.append(native_line("turns", label, join_turns(turns), prompt=prompt))
    for label, answers in (("alpha", ["Red.", "A cherry.", "Cherry Red"]), ("beta", "ABC")):
        three = join_turns(THREE_TURNS)
        lines.append(native_line("three", label, join_turns(list(answers)), prompt=three))
    for case, (question, alpha, beta) in SINGLE.items():
        for label, text in (("alpha", alpha), ("beta", beta)):
            lines.append(native_line(case, label, text, prompt=question))
    return lines


def build_written_ledger(path: Path, folder: Path) -> Path:
    """One family, ``written``, of two systems answering the cases above."""
    source = folder / "written.jsonl"
    source.write_text("\n".join(written_lines()) + "\n", encoding="utf-8")
    with Ledger.open(path) as ledger:
        import_file(ledger, source, family="written", fmt="native")
    return path
