"""The Judges page: each judge's figures, its disagreements most confident first, and a
disagreement opened side by side, read-only (tests/judges/disagreement_ledger.py)."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from arena.judges import figures
from arena.judges.comparison import judges_report
from arena.ledger import voting
from tests.judges.disagreement_ledger import EXPECTED, build


@pytest.fixture(scope="module")
def judges_template(tmp_path_factory):
    folder = tmp_path_factory.mktemp("judges")
    return build(folder / "judges.sqlite", folder)


@pytest.fixture
def on_page(qtbot, open_window, judges_template, tmp_path):
    """A window on the Judges page of family ``f``, its figures worked out."""
    from tests.conftest import copy_ledger

    window = open_window(copy_ledger(judges_template, tmp_path / "judges.sqlite"))
    window.families.select("f")
    qtbot.keyClick(window.families.table, Qt.Key.Key_J)
    page = window.judges
    assert window.pages.currentWidget() is page
    assert page.background.busy and not page.busy.isHidden()  # worked out on a thread
    qtbot.waitUntil(lambda: not page.background.busy, timeout=20_000)
    assert page.busy.isHidden()
    return window, page


def test_the_table_shows_each_judge_with_the_reports_figures(on_page):
    window, page = on_page
    report = judges_report(window.ledger, "f")
    assert [row["judge"] for row in page.judges.rows] == ["gpt"]
    columns = page.judges.columns
    assert {"judge", "overlap", "agreement_with_ties", "kappa"} <= set(columns)
    assert "sources" not in columns  # a list: not a cell
    cells = [page.judges.cell(page.judges.rows[0], c) for c in range(len(columns))]
    expected = report["judges"][0]
    for column, cell in zip(columns, cells, strict=True):
        value = expected[column]
        if column == "board_tau":
            assert cell == figures.tau_stacked(value) and "over 3 systems" in cell
        else:
            assert cell == (figures.stacked(value) if figures.is_figure(value) else str(value))
    kappa = figures.stacked(expected["kappa"])
    assert "\n[" in kappa and kappa in cells  # a value above its interval
    assert figures.stacked(report["alpha"], between=" ") in page.alpha.text()
    headers, rows = figures.boards(report)  # the boards side by side, under their tab
    assert page.tabs.tabText(1) == "Boa&rds" and len(rows) == 3
    assert page.boards.rows == rows and [r[0] for r in rows] == ["a", "b", "c"]
    assert [page.boards.headerData(c, Qt.Orientation.Horizontal) for c in range(3)] == [
        "System", "Rater", "gpt",
    ]  # fmt: skip
    assert "[" in rows[0][1]  # points with their interval
    assert window.status.text() == "f · 1 judge"


def test_the_table_shows_whatever_figures_a_row_holds():
    from arena.ui.judges.judge_tables import JudgeTable

    figure = {"value": 0.25, "low": 0.125, "high": 0.5, "count": 8}
    model = JudgeTable()
    model.load([{"judge": "gpt", "length_bias": figure, "board": [{"system": "a"}], "tau": None}])
    assert model.columns == ["judge", "length_bias", "tau"]  # a list is not a cell
    assert [model.cell(model.rows[0], c) for c in range(3)] == ["gpt", "0.250\n[0.125, 0.500]", "—"]
    assert model.headerData(1, Qt.Orientation.Horizontal) == "Length bias\n(points/SD)"


def test_a_judges_disagreements_most_confident_first(on_page):
    _, page = on_page
    assert page.selected_judge() == "gpt"
    assert [d.case_id for d in page.found.rows] == EXPECTED
    assert page.found.headerData(5, Qt.Orientation.Horizontal) == "gpt"
    assert [page.found.cell(0, c) for c in range(7)] == [
        "1", "q3", "a", "b", "left, left", "right", "right | right",
    ]  # fmt: skip


def test_enter_opens_the_pair_read_only_and_esc_goes_back(qtbot, on_page):
    window, page = on_page
    votes = len(voting.votes_in_force(window.ledger, "f"))
    page.found_table.setFocus()
    page.found_table.selectRow(EXPECTED.index("q2"))
    qtbot.keyClick(page.found_table, Qt.Key.Key_Return)
    assert page.stack.currentWidget() is page.pair
    view = page.pair.view
    # Both outputs as the rating page renders them: Markdown, the bold gone.
    assert view.left.browser.toPlainText().strip() == "a answers q2."
    assert view.right.browser.toPlainText().strip() == "b answers q2."
    assert "Question q2?" in view.prompt.toPlainText()
    assert (view.left.title.text(), view.right.title.text()) == ("Left: a", "Right: b")
    said = page.pair.answers.text()
    assert "left (a), left (a) → left (a)" in said  # the rater's vote and its repeat
    assert "gpt</b>: right (b) as shown → right (b)" in said
    for key in (Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3):
        qtbot.keyClick(window, key)
    assert len(voting.votes_in_force(window.ledger, "f")) == votes  # nothing recorded
    size = view.left.browser.font().pointSizeF()
    window.change_font(2)  # View ▸ Bigger text, as on the rating page
    assert view.left.browser.font().pointSizeF() == size + 2
    assert view.left.browser.toPlainText().strip() == "a answers q2."
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert window.pages.currentWidget() is page and page.stack.currentWidget() is page.lists
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert window.pages.currentWidget() is window.families


def test_double_click_opens_a_pair_too(qtbot, on_page):
    _, page = on_page
    rect = page.found_table.visualRect(page.found.index(EXPECTED.index("q5"), 1))
    viewport, left = page.found_table.viewport(), Qt.MouseButton.LeftButton
    qtbot.mouseClick(viewport, left, pos=rect.center())  # a double click follows a press
    qtbot.mouseDClick(viewport, left, pos=rect.center())
    assert page.stack.currentWidget() is page.pair
    assert page.pair.shown is not None and page.pair.shown.case_id == "q5"
    assert "left (b) as shown; right (c) sides swapped → tie" in page.pair.answers.text()


def _import_choice(path, judge="claude"):
    from arena.judges.verdict_files import Options
    from arena.ui.judges.judge_import import JudgeImport

    return JudgeImport(path, judge, "model", "native", Options(), None)


def test_i_imports_a_judge_and_the_page_follows(qtbot, on_page, tmp_path, monkeypatch):
    from arena.ui.judges import judge_import

    window, page = on_page
    path = tmp_path / "claude.jsonl"
    verdict = {"case_id": "q1", "left_system": "a", "right_system": "b", "winner": "tie"}
    path.write_text(json.dumps(verdict) + "\n", encoding="utf-8")
    monkeypatch.setattr(judge_import, "ask_judge_import", lambda *a: _import_choice(path))
    qtbot.keyClick(page.judge_table, Qt.Key.Key_I)
    qtbot.waitUntil(lambda: len(page.judges.rows) == 2, timeout=20_000)
    assert [row["judge"] for row in page.judges.rows] == ["gpt", "claude"]
    assert page.message.text() == "claude: 1 verdict added from 1 record."
    assert page.selected_judge() == "gpt"  # the judge selected stays selected
    page.judge_table.selectRow(1)
    assert [d.case_id for d in page.found.rows] == ["q1"]


def test_a_refused_import_changes_nothing(qtbot, on_page, tmp_path, monkeypatch):
    from arena.ui.judges import judge_import

    window, page = on_page
    path = tmp_path / "bad.jsonl"
    path.write_text(
        '{"case_id": "q1", "left_system": "a", "right_system": "zz", "winner": "tie"}\n'
    )
    monkeypatch.setattr(judge_import, "ask_judge_import", lambda *a: _import_choice(path))
    assert not page.import_verdicts()
    assert f"{path}:1: right_system: no system 'zz'" in window.ops.last_error
    assert [j["judge"] for j in judges_report(window.ledger, "f")["judges"]] == ["gpt"]


def test_the_import_dialog_asks_what_the_format_reads(qtbot, tmp_path):
    from arena.ui.judges.judge_import import JudgeImportDialog

    dialog = JudgeImportDialog(None, "f")
    qtbot.addWidget(dialog)
    dialog.path.setText(str(tmp_path / "testset-v1.json"))
    dialog.judge.setText("annotator2")
    dialog.kind.setCurrentText("human")
    dialog.fmt.setCurrentText("pandalm")
    dialog.column.setText("annotator2")
    assert not dialog.signer.isEnabled() and not dialog.baseline.isEnabled()
    chosen = dialog.choice()
    assert (chosen.judge, chosen.kind, chosen.fmt, chosen.signer) == (
        "annotator2", "human", "pandalm", None,
    )  # fmt: skip
    assert chosen.options.column == "annotator2" and chosen.path.name == "testset-v1.json"
    dialog.fmt.setCurrentText("bundle")
    assert dialog.signer.isEnabled() and not dialog.column.isEnabled()
    assert dialog.choice().options.column is None  # a field the format does not read


def test_j_opens_it_from_the_board_not_from_rating(qtbot, on_page):
    window, _ = on_page
    window.escape()
    assert window.open_family("f")
    assert not window.round_actions.actions["judges"].isEnabled()
    window.escape()
    window.families.select("f")
    window.show_board("f")
    assert window.round_actions.actions["judges"].isEnabled()
    qtbot.keyClick(window, Qt.Key.Key_J)
    assert window.pages.currentWidget() is window.judges
    window.escape()
    assert window.pages.currentWidget() is window.board


def test_the_help_overlay_lists_the_judges_page(on_page):
    window, _ = on_page
    text = window.overlay.label.text()
    assert "Judges page" in text and "Other judges beside you" in text


@pytest.fixture(scope="module")
def few_judges_template(tmp_path_factory):
    from tests.ui.judges_data import build_judges_ledger

    return build_judges_ledger(tmp_path_factory.mktemp("few-judges"))


@pytest.fixture
def few_judges(qtbot, open_window, few_judges_template, tmp_path):
    """The window at 1280×800 on the Judges page of ``chat`` (three judges), worked out."""
    from tests.conftest import copy_ledger

    window = open_window(copy_ledger(few_judges_template, tmp_path / "judges.sqlite"))
    window.resize(1280, 800)
    window.families.select("chat")
    qtbot.keyClick(window.families.table, Qt.Key.Key_J)
    page = window.judges
    qtbot.waitUntil(lambda: page.shown is not None and not page.background.busy, timeout=60_000)
    return window, page


def test_the_figures_fit_1280_pixels_to_three_significant_digits(qtbot, few_judges):
    window, page = few_judges
    assert window.width() == 1280
    for tab in (0, 1):
        page.tabs.setCurrentIndex(tab)
        qtbot.wait(50)
        for table in (page.judge_table, page.found_table, page.board_table):
            if table.isVisible():
                assert table.horizontalScrollBar().maximum() == 0, table.model()
    gpt = page.judges.rows[0]
    column = page.judges.columns.index("length_bias")
    bias = gpt["length_bias"]  # points per SD: whole from 100, else three digits
    cell = page.judges.cell(gpt, column)
    assert cell.split("\n")[0] == figures.number(bias["value"])
    assert len(cell.split("\n")[0].lstrip("-").replace(".", "").lstrip("0")) <= 3
    tau = page.judges.cell(gpt, page.judges.columns.index("board_tau"))
    assert tau.startswith(f"{figures.number(gpt['board_tau']['value'])} over 6 systems")


def test_the_boards_are_on_one_anchor_and_the_page_says_which(few_judges):
    window, page = few_judges
    report = judges_report(window.ledger, "chat")
    anchor = report["anchor"]
    # small-llm never compared vicuna-13b, the system with most of the rater's votes.
    assert anchor["passed_over"]["label"] == "vicuna-13b"
    assert anchor["passed_over"]["boards"] == ["small-llm"]
    assert anchor["elsewhere"] == []
    assert figures.anchor_text(report, "you") in page.board_note.text()
    assert f"anchored on {anchor['label']} (1000 points)" in page.board_note.text()
    at = [r[0] for r in page.boards.rows].index(anchor["label"])
    assert all(cell.startswith("1000 [1000, 1000]") for cell in page.boards.rows[at][1:])


def test_tabs_and_rows_work_from_the_keyboard(qtbot, few_judges):
    window, page = few_judges
    alt = Qt.KeyboardModifier.AltModifier
    assert page.judge_table.hasFocus()
    qtbot.keyClick(page.judge_table, Qt.Key.Key_Down)
    assert page.selected_judge() == "colleague"
    qtbot.keyClick(page.judge_table, Qt.Key.Key_Return)  # Enter: the judge's disagreements
    assert page.tabs.currentIndex() == 0 and page.found_table.hasFocus()
    assert page.found.judge == "colleague" and page.found_table.currentIndex().row() == 0
    qtbot.keyClick(page.found_table, Qt.Key.Key_Return)  # and one of them, side by side
    assert page.stack.currentWidget() is page.pair
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert page.stack.currentWidget() is page.lists and page.found_table.hasFocus()
    qtbot.keyClick(window, Qt.Key.Key_R, alt)  # Alt+R: the boards
    assert page.tabs.currentIndex() == 1
    qtbot.keyClick(window, Qt.Key.Key_J, alt)  # Alt+J: the judges' table
    assert page.judge_table.hasFocus()
    qtbot.keyClick(page.judge_table, Qt.Key.Key_Tab)
    assert page.tabs.tabBar().hasFocus()
    qtbot.keyClick(page.tabs.tabBar(), Qt.Key.Key_Tab)
    assert page.board_table.hasFocus()
    qtbot.keyClick(window, Qt.Key.Key_D, alt)  # Alt+D: the disagreements
    assert page.tabs.currentIndex() == 0
    assert window.pages.currentWidget() is page


def test_other_raters_are_listed_beside_the_judges_against_the_one_at_the_keyboard(
    qtbot, open_window, tmp_path, monkeypatch
):
    from arena.ledger import Ledger
    from arena.rating import raters
    from tests.rating.colleague import rated_by_two

    path = tmp_path / "team.sqlite"
    with Ledger.open(path) as ledger:
        rated_by_two(ledger, tmp_path)
    raters.remember(path, "lee")
    window = open_window(path)
    window.families.select("team")
    qtbot.keyClick(window.families.table, Qt.Key.Key_J)
    page = window.judges
    qtbot.waitUntil(lambda: not page.background.busy, timeout=20_000)
    (dana,) = page.judges.rows
    assert dana["judge"] == "dana"
    kind = page.judges.columns.index("kind")
    assert page.judges.cell(dana, kind) == "rater:\nvotes on the board"
    assert page.subtitle.text().startswith("You (lee): 30 votes")
    assert "between raters, on the items both voted" in page.alpha.text()
    assert "dana – lee" in page.alpha.text()
