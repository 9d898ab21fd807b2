"""How outputs look: Markdown, code, tables, right-to-left text, themes, sizes, scroll sync."""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QImage, QPalette, QTextDocument, QTextTable

from arena.intake.outputs import import_file
from arena.ledger import Ledger
from arena.ui.rating.markdown_render import render_markdown
from arena.ui.rating.output_pane import Browser
from arena.ui.rating.render_cache import RenderCache
from arena.ui.theme import DARK, LIGHT, document_css
from tests.conftest import native_line


def test_fenced_code_is_highlighted_by_its_language_with_inline_colours():
    html = render_markdown("```python\ndef f():\n    return 1\n```\n", LIGHT)
    assert html.startswith("<pre>") and '<span style="color:' in html
    plain = render_markdown("```\ndef f():\n```\n", LIGHT)
    assert "<span" not in plain  # no language named: no guessing


def test_raw_html_in_an_output_is_shown_as_text():
    html = render_markdown("<script>alert(1)</script> and <b>bold</b>", LIGHT)
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_tables_and_right_to_left_paragraphs_lay_out_as_such(qtbot):
    browser = Browser()
    qtbot.addWidget(browser)
    browser.document().setDefaultStyleSheet(document_css(LIGHT))
    browser.setHtml(
        render_markdown(
            "English first.\n\nשלום עולם, and then English.\n\nمرحبا بالعالم\n\n"
            "| a | b |\n|---|---|\n| 1 | 2 |\n",
            LIGHT,
        )
    )
    directions = {}
    block = browser.document().begin()
    while block.isValid():
        directions[block.text()] = block.textDirection()
        block = block.next()
    assert directions["English first."] == Qt.LayoutDirection.LeftToRight
    assert directions["שלום עולם, and then English."] == Qt.LayoutDirection.RightToLeft
    assert directions["مرحبا بالعالم"] == Qt.LayoutDirection.RightToLeft
    frames = browser.document().rootFrame().childFrames()
    assert any(isinstance(f, QTextTable) for f in frames)


def test_outputs_never_load_images_or_follow_links(qtbot):
    browser = Browser()
    qtbot.addWidget(browser)
    assert browser.loadResource(2, "file:///etc/passwd") is None
    assert not browser.openLinks() and not browser.openExternalLinks()


def test_the_dark_theme_colours_widgets_and_html_and_survives_restart(
    qtbot, open_window, ui_ledger
):
    window = open_window(ui_ledger, "prose")
    window.toggle_theme()
    assert window.palette().color(QPalette.ColorRole.Window).name() == DARK.window
    css = window.rating.pair_view.left.browser.document().defaultStyleSheet()
    assert DARK.text in css
    assert window.settings.theme == "dark"
    window.close()
    again = open_window(ui_ledger, "prose")
    assert again.theme is DARK
    window.toggle_theme()  # leave the application palette light for the next tests
    assert again.settings.theme == "light"


def test_ctrl_plus_and_minus_change_the_text_size(qtbot, open_window, ui_ledger):
    window = open_window(ui_ledger, "prose")
    before = window.settings.font_size
    browser = window.rating.pair_view.left.browser
    qtbot.keyClick(window, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(window, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert window.settings.font_size == before + 2
    assert browser.document().defaultFont().pointSizeF() == before + 2
    qtbot.keyClick(window, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert window.settings.font_size == before + 1


def _long(window) -> None:
    view = window.rating.pair_view
    view.left.browser.setHtml("<p>line</p>" * 400)
    view.right.browser.setHtml("<p>line</p>" * 100)
    view.resize(900, 500)


def test_scroll_sync_moves_the_other_side_proportionally(qtbot, open_window, ui_ledger):
    window = open_window(ui_ledger, "prose")
    _long(window)
    view = window.rating.pair_view
    left = view.left.browser.verticalScrollBar()
    right = view.right.browser.verticalScrollBar()
    left.setValue(left.maximum() // 2)
    assert right.value() == 0  # off by default
    qtbot.keyClick(window, Qt.Key.Key_Y)
    assert window.settings.scroll_sync
    left.setValue(left.maximum() // 2)
    assert abs(right.value() - right.maximum() // 2) <= 1
    left.setValue(left.maximum())
    assert right.value() == right.maximum()


def test_scroll_keys_move_the_active_pane_and_tab_moves_to_the_next(qtbot, open_window, ui_ledger):
    window = open_window(ui_ledger, "prose")
    _long(window)
    view = window.rating.pair_view
    left = view.left.browser.verticalScrollBar()
    right = view.right.browser.verticalScrollBar()
    qtbot.keyClick(view, Qt.Key.Key_PageDown)
    assert left.value() > 0 and right.value() == 0
    qtbot.keyClick(view, Qt.Key.Key_Tab)
    qtbot.keyClick(view, Qt.Key.Key_Space)
    assert right.value() > 0
    assert view.right.property("active") and not view.left.property("active")
    qtbot.keyClick(view, Qt.Key.Key_Home)
    assert right.value() == 0


def test_a_document_rendered_ahead_loads_no_file_an_output_names(qtbot, tmp_path):
    picture = QImage(4, 4, QImage.Format.Format_RGB32)
    picture.fill(0xFF0000)
    path = tmp_path / "secret.png"
    assert picture.save(str(path))
    url = QUrl.fromLocalFile(str(path))
    image = QTextDocument.ResourceType.ImageResource
    # A document of its own would read the file: the rendered one must not.
    assert not QTextDocument().resource(image, url).isNull()
    cache = RenderCache(LIGHT, 11.0)
    rendered = cache.prompt(f"Look: ![x]({url.toString()})")
    assert rendered.document is not None and "secret.png" in rendered.document.toHtml()
    assert rendered.document.resource(image, url) is None


def test_documents_made_ahead_are_laid_out_as_their_browsers_show_them(
    qtbot, open_window, tmp_path
):
    """The cache lays a document out in the space of the browser that will show it, beside
    a scroll bar when it is too tall: showing it lays nothing out again (half the time of
    showing a long output)."""
    lines = []
    for case in range(4):
        for system, paragraphs in (("alpha", 1), ("beta", 300)):
            text = "\n\n".join(f"Paragraph {p} of case {case}." for p in range(paragraphs))
            lines.append(native_line(f"c{case}", system, text))
    source = tmp_path / "mixed.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path = tmp_path / "mixed.sqlite"
    with Ledger.open(path) as ledger:
        import_file(ledger, source, family="mixed", fmt="native")
    window = open_window(path, "mixed")
    view = window.rating.pair_view
    for _ in range(3):
        # The next pair's documents are made once the pair on screen has painted.
        qtbot.waitUntil(lambda: not window.rating.after_paint.pending())
        qtbot.waitUntil(lambda: not window.cache.busy())
        upcoming = window.rating.session.peek_next()
        made = {
            (output.output_id, side): window.cache.output(output).document
            for u in upcoming
            for output, side in ((u.left, "left"), (u.right, "right"))
        }
        widths = {key: document.textWidth() for key, document in made.items()}
        qtbot.keyClick(window, Qt.Key.Key_1)
        pair = view.pair
        assert pair is not None
        bars = set()
        for output, pane in ((pair.left, view.left), (pair.right, view.right)):
            browser = pane.browser
            key = (output.output_id, "left" if pane is view.left else "right")
            assert browser.document() is made[key]
            assert widths[key] == browser.viewport().width()
            bars.add(browser.verticalScrollBar().isVisible())
        assert bars == {True, False}  # one side beside a scroll bar, the other not
