"""Diffs read like a pull request: per file, per hunk, numbered, unified or side by side."""

from __future__ import annotations

from PySide6.QtCore import Qt

from arena.ui.rating.diff_model import parse_diff
from arena.ui.rating.render_cache import render_output
from arena.ui.theme import LIGHT
from tests.ui.conftest import diff_text

RENAME = """diff --git a/old.py b/new.py
similarity index 90%
rename from old.py
rename to new.py
--- a/old.py
+++ b/new.py
@@ -1,4 +1,3 @@ def f():
 keep
-gone one
-gone two
+added one
 tail
"""


def test_rows_are_files_then_hunks_then_numbered_lines():
    model = parse_diff(RENAME)
    assert model is not None and (model.files, model.added, model.removed) == (1, 1, 2)
    kinds = [r.kind for r in model.unified]
    assert kinds == ["file", "hunk", "context", "removed", "removed", "added", "context"]
    assert model.unified[0].text.startswith("old.py → new.py")
    assert model.unified[1].text == "@@ -1,4 +1,3 @@ def f():"
    numbers = [(r.old_no, r.new_no) for r in model.unified[2:]]
    assert numbers == [(1, 1), (2, None), (3, None), (None, 2), (4, 3)]


def test_side_by_side_pairs_removed_lines_with_the_added_lines_after_them():
    model = parse_diff(RENAME)
    pairs = [
        (r.left.kind, r.left.number, r.right.kind, r.right.number)
        for r in model.split
        if r.kind == "pair"
    ]
    assert pairs == [
        ("context", 1, "context", 1),
        ("removed", 2, "added", 2),
        ("removed", 3, "empty", None),
        ("context", 4, "context", 3),
    ]


def test_commit_messages_and_test_logs_are_left_out():
    model = parse_diff(diff_text("mod", 3, 0))
    text = " ".join(r.text for r in model.unified)
    assert "commit message" not in text and "passed" not in text and "From " not in text
    assert model.added == 3 and model.removed == 1


def test_text_without_a_diff_or_a_broken_diff_is_shown_as_plain_text():
    rendered = render_output("I could not produce a patch <sorry>", True, LIGHT)
    assert rendered.diff is None and "&lt;sorry&gt;" in rendered.html
    broken = RENAME.replace("+1,3", "+1,9")  # a hunk shorter than its header says
    assert render_output(broken, True, LIGHT).html.startswith("<pre>diff --git")


def test_diff_pairs_show_in_the_diff_view_and_d_switches_to_side_by_side(
    qtbot, open_window, ui_ledger
):
    window = open_window(ui_ledger, "code")
    pane = window.rating.pair_view.left
    assert pane.showing_diff()
    assert [r.kind for r in pane.diff.rows()][:2] == ["file", "hunk"]
    qtbot.keyClick(window, Qt.Key.Key_D)
    assert window.settings.diff_split
    assert any(r.kind == "pair" for r in pane.diff.rows())
    pane.diff.grab()  # paints without error in both layouts
    qtbot.keyClick(window, Qt.Key.Key_D)
    assert not window.settings.diff_split and pane.diff.rows()[2].kind == "context"
    qtbot.keyClick(window, Qt.Key.Key_1)
    assert window.rating.pair_view.left.showing_diff()
