"""The rater sees what the system wrote: every line break, the exact characters one key
away, and every turn's question beside the answers to it."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt

from arena.intake.readers.fastchat import join_turns
from arena.ui.rating.markdown_render import render_markdown, render_raw
from arena.ui.rating.render_cache import OutputDocument, RenderCache
from arena.ui.rating.turns import split_turns
from arena.ui.theme import LIGHT
from tests.ui.written_data import (
    CSV,
    CSV_QUESTION,
    RAW,
    WORDS,
    WORDS_QUESTION,
    YAML,
    build_written_ledger,
)


def shown_lines(html: str) -> list[str]:
    """The lines a document made of ``html`` shows, as Qt lays them out in text."""
    document = OutputDocument()
    document.setHtml(html)
    return document.toPlainText().replace("\u2028", "\n").replace("\xa0", " ").split("\n")


def test_single_line_breaks_are_kept_one_word_and_one_record_a_line(qtbot):
    assert shown_lines(render_markdown(WORDS, LIGHT)) == WORDS.split("\n")
    assert shown_lines(render_markdown(CSV, LIGHT)) == CSV.split("\n")


def test_a_broken_line_keeps_its_indentation():
    lines = shown_lines(render_markdown("key: v\n  sub: 1\n\tdeep: 2", LIGHT))
    assert lines == ["key: v", "  sub: 1", "    deep: 2"]


def test_tables_lists_and_code_render_as_before():
    html = render_markdown("- a\n- b\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\n```\nk\n  v\n```", LIGHT)
    assert html.count("<li>") == 2 and "<table>" in html and "<td>1</td>" in html
    assert "<pre>k\n  v\n</pre>" in html and "<br" not in html.split("<pre>")[1]


def test_the_raw_view_shows_trailing_spaces_tabs_and_invisible_characters():
    html = render_raw("end \nname\tprice\nzero\u200bwidth\r\n<b>", LIGHT)
    lines = shown_lines(html)
    assert lines == ["end·", "name→\tprice", "zero⟨U+200B⟩width␍", "<b>"]
    # Only the trailing space is marked: the text between stays as written.
    assert shown_lines(render_raw("a b  ", LIGHT)) == ["a b··"]
    assert f"color: {LIGHT.muted}" in html


def test_turns_split_back_as_an_import_joined_them():
    turns = ["First question?", "Second, with\n\n**bold** and a blank line."]
    assert split_turns(join_turns(turns)) == turns
    assert split_turns("one turn") is None
    assert split_turns(join_turns(["only one"])) is None


@pytest.fixture
def written(open_window, tmp_path: Path):
    window = open_window(build_written_ledger(tmp_path / "w.sqlite", tmp_path), "written")
    window.resize(1280, 800)
    return window


def show_case(qtbot, window, case_id: str):
    """Vote ties until the pair of ``case_id`` is on screen."""
    for _ in range(10):
        pair = window.rating.current_pair()
        assert pair is not None, f"case {case_id} never came"
        if pair.case.case_id == case_id:
            qtbot.wait(50)
            return pair
        window.rating.vote("tie")
    raise AssertionError(f"case {case_id} never came")


def lines_of(browser) -> list[str]:
    text = browser.document().toPlainText()
    return text.replace("\u2028", "\n").replace("\xa0", " ").split("\n")


def top_in(widget, root) -> int:
    return widget.mapTo(root, QPoint(0, 0)).y()


def side_of(pair, text: str) -> str:
    return "left" if text in pair.left.text else "right"


def test_a_two_turn_case_shows_both_questions_beside_their_answers(qtbot, written):
    pair = show_case(qtbot, written, "turns")
    view = written.rating.pair_view
    assert view.stack.currentWidget() is view.turns_page
    rows = view.turn_rows[:2]
    assert [r.question.document().toPlainText() for r in rows] == [WORDS_QUESTION, CSV_QUESTION]
    page = written.rating
    for row in rows:  # the whole question is on screen: nothing to scroll
        assert row.question.isVisible()
        assert row.question.verticalScrollBar().maximum() == 0
        top = top_in(row.question_box, page)
        assert 0 <= top and top + row.question_box.height() <= page.pair_view.height()
    # Each question sits above the answers to it, one word and one record a line.
    side = side_of(pair, WORDS)
    first, second = rows
    assert lines_of(getattr(first, side).browser) == WORDS.split("\n")
    assert lines_of(getattr(second, side).browser) == CSV.split("\n")
    tops = [
        top_in(w, page)
        for w in (first.question_box, getattr(first, side), second.question_box, second.left)
    ]
    assert tops == sorted(tops)
    # Tab goes turn by turn: left, right, question of turn 1, then turn 2.
    qtbot.keyClick(view, Qt.Key.Key_Tab)
    qtbot.keyClick(view, Qt.Key.Key_Tab)
    assert view.active_area() is first.question
    qtbot.keyClick(view, Qt.Key.Key_Tab)
    assert view.active_area() is second.left.scroll_area()


def test_the_raw_key_shows_the_exact_characters_and_the_family_keeps_it(
    qtbot, written, make_settings
):
    pair = show_case(qtbot, written, "raw")
    view = written.rating.pair_view
    pane = view.left if side_of(pair, "tea") == "left" else view.right
    assert lines_of(pane.browser)[0] == "first line ends with a space"
    qtbot.keyClick(written, Qt.Key.Key_M)
    assert view.raw and lines_of(pane.browser) == [
        "first line ends with a space·",
        "name→\tprice",
        "tea→\t3",
    ]
    assert RAW.split("\n")[0].endswith(" ")
    assert "Raw text" in view.category.text()
    # The next pair of the family is raw too, and so is the family when opened again.
    written.rating.vote("tie")
    assert view.raw
    assert make_settings().raw_view("written")
    written.show_families()
    assert written.open_family("written") and written.rating.pair_view.raw
    qtbot.keyClick(written, Qt.Key.Key_M)
    assert not view.raw and not make_settings().raw_view("written")


def test_the_raw_view_of_a_two_turn_case_is_turn_by_turn(qtbot, written):
    pair = show_case(qtbot, written, "turns")
    view = written.rating.pair_view
    qtbot.keyClick(written, Qt.Key.Key_M)
    side = side_of(pair, WORDS)
    assert lines_of(getattr(view.turn_rows[1], side).browser) == CSV.split("\n")
    qtbot.keyClick(written, Qt.Key.Key_M)
    assert lines_of(getattr(view.turn_rows[0], side).browser) == WORDS.split("\n")


def test_a_yaml_answer_keeps_its_lines_and_the_next_pair_is_single_turn_again(qtbot, written):
    pair = show_case(qtbot, written, "yaml")
    view = written.rating.pair_view
    assert view.stack.currentWidget() is view.splitter
    pane = view.left if side_of(pair, "tea") == "left" else view.right
    assert [line.strip() for line in lines_of(pane.browser)] == [
        line.strip(" -") for line in YAML.split("\n")
    ]


def test_the_turns_of_a_pair_are_rendered_ahead_as_they_are_shown(qtbot, written):
    pair = show_case(qtbot, written, "turns")
    cache = RenderCache(LIGHT, 11.0)
    cache.prefetch([(pair.left, "left")], [pair.case.prompt])
    qtbot.waitUntil(lambda: not cache.busy())
    turns = split_turns(pair.left.text)
    assert turns is not None
    made = [cache.turn(pair.left, i, t) for i, t in enumerate(turns)]
    assert all(r.document is not None for r in made)
    # Served from the cache, not rendered again; the questions too.
    assert cache.turn(pair.left, 1, turns[1]) is made[1]
    assert len(cache._cache) == 4
    assert cache.prompt(CSV_QUESTION) is cache.prompt(CSV_QUESTION) and len(cache._cache) == 4


def test_each_family_keeps_its_own_view_whatever_its_name(make_settings):
    settings = make_settings()
    settings.set_raw_view("mt/bench", True)
    settings.set_raw_view("prose", True)
    settings.set_raw_view("prose", False)
    settings.sync()
    again = make_settings()
    assert again.raw_view("mt/bench") and not again.raw_view("mt") and not again.raw_view("prose")


def test_the_key_list_names_the_raw_view_key(written):
    written.overlay.toggle()
    assert "<b>M</b>" in written.overlay.label.text()
    assert "Raw text (the exact characters)" in written.overlay.label.text()


def test_a_case_of_fewer_turns_after_more_starts_at_its_first_answer(qtbot, written):
    found = {}
    while (pair := written.rating.current_pair()) is not None:
        found[pair.case.case_id] = pair
        written.rating.vote("tie")
    view = written.rating.pair_view
    view.show_pair(found["three"])
    assert [r.label.text() for r in view.turn_rows] == [f"Turn {n} of 3" for n in (1, 2, 3)]
    for _ in range(8):  # to the third turn's question, the last stop
        qtbot.keyClick(view, Qt.Key.Key_Tab)
    assert view.active_area() is view.turn_rows[2].question
    view.show_pair(found["turns"])
    assert not view.turn_rows[2].isVisibleTo(view)
    assert view.active_area() is view.turn_rows[0].left.scroll_area()
    view.show_pair(found["prose"])
    assert view.active_area() is view.left.scroll_area()
