"""The Gates page: failing verdicts by gate and system, their evidence, and the corrections."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox

from arena.gates import screening
from arena.ui import dialogs
from arena.ui.gates.gates_detail import UNCLEAR
from arena.ui.keys import default_key_map, problems
from tests.ui.gates_ledger import FRENCH, GERMAN, PROMPTS

CTRL = Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def reasons(monkeypatch):
    """Scripted answers to the correction dialogs; ``asked`` keeps what each dialog said."""
    queue: list = []
    asked: list[dict] = []

    def ask_reason(_parent, title, what, *, default="", placeholder=""):
        asked.append({"title": title, "what": what, "default": default})
        answer = queue.pop(0)
        return default if answer is ... else answer

    def ask_language(_parent, title, what, suggestion):
        asked.append({"title": title, "what": what, "default": suggestion})
        return queue.pop(0)

    monkeypatch.setattr(dialogs, "ask_reason", ask_reason)
    monkeypatch.setattr(dialogs, "ask_language", ask_language)
    return queue, asked


@pytest.fixture
def gates(qtbot, open_window, gates_ledger):
    """A window on the Gates page of ``mixed``, opened with G from the family list."""
    window = open_window(gates_ledger)
    window.families.select("mixed")
    qtbot.keyClick(window.families.table, Qt.Key.Key_G)
    assert window.pages.currentWidget() is window.gates
    return window


def events(window, kind: str | None = None) -> list[dict]:
    rows = window.ledger.db["events"].rows_where(order_by="seq")
    return [r for r in rows if kind is None or r["kind"] == kind]


def select(window, case: str, system: str, gate: str) -> None:
    """Select a verdict with the arrow keys, as the rater would: Home, then Down."""
    page = window.gates
    QTest.keyClick(page.tree, Qt.Key.Key_Home)
    for _ in range(3 * len(page.model.keys) + 3):
        failure = page.selected()
        if failure is not None and (failure.case_id, failure.system, failure.gate) == (
            case,
            system,
            gate,
        ):
            return
        QTest.keyClick(page.tree, Qt.Key.Key_Down)
    raise AssertionError(f"no verdict {case}/{system}/{gate} in the list")


def test_every_failing_verdict_is_listed_by_gate_then_system_with_counts(gates):
    page = gates.gates
    assert page.model.group_counts() == {
        "Empty": "1 failing",
        "Empty ▸ beta": "1 failing",
        "Length": "1 failing",
        "Length ▸ beta": "1 failing",
        # Case t is in doubt: two of its three answers are in French.
        "Language": "1 failing, 2 in doubt",
        "Language ▸ alpha": "0 failing, 1 in doubt",
        "Language ▸ beta": "0 failing, 1 in doubt",
        "Language ▸ gamma": "1 failing",
    }
    page.group_box.setCurrentIndex(1)  # System ▸ gate
    assert page.model.group_counts() == {
        "alpha": "0 failing, 1 in doubt",
        "alpha ▸ Language": "0 failing, 1 in doubt",
        "beta": "2 failing, 1 in doubt",
        "beta ▸ Empty": "1 failing",
        "beta ▸ Length": "1 failing",
        "beta ▸ Language": "0 failing, 1 in doubt",
        "gamma": "1 failing",
        "gamma ▸ Language": "1 failing",
    }
    assert page.subtitle.text().startswith(
        "3 failing verdicts, 2 in doubt on 1 case · 2 of 9 outputs fail a gate · "
    )
    assert "3 failing verdicts, 1 case in doubt" in gates.status.text()


def test_a_language_verdict_shows_the_output_the_prompt_and_what_was_read(gates):
    page = gates.gates
    assert page.selected().gate == "empty"  # the first verdict, selected on opening
    assert not page.detail.evidence_box.isVisibleTo(page)
    select(gates, "t", "alpha", "language")
    detail = page.detail
    assert detail.output.toPlainText() == FRENCH
    assert detail.prompt.toPlainText() == PROMPTS["t"]
    header = detail.header.text()
    assert "is fr" in header and "Expected language: en (the family's)" in header
    assert detail.evidence_box.isVisibleTo(page)
    cells = [
        [detail.evidence.item(r, c).text() for c in range(3)]
        for r in range(detail.evidence.rowCount())
    ]
    assert cells and all(row[0] in ("fr", UNCLEAR) for row in cells)
    assert " ".join(row[2] for row in cells).startswith("La réponse reprend")
    assert detail.read_as.text().startswith("Read as: fr ")
    assert "In doubt: 2 of 3 answers with a Language verdict are in fr" in header
    assert "K keeps en" in header
    select(gates, "v", "gamma", "language")
    assert detail.output.toPlainText() == GERMAN and "Read as: de" in detail.read_as.text()


def test_a_case_in_doubt_is_on_top_and_one_click_sets_its_language(qtbot, gates, reasons):
    queue, asked = reasons
    page = gates.gates
    assert list(page.doubt_buttons) == ["t"]
    button, keep = page.doubt_buttons["t"]
    assert button.text() == "Case expects fr…" and page.doubts.isVisibleTo(page)
    assert keep.text() == "Keep en…"
    queue.append(("fr", "the prompt asks for French"))
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert asked[-1]["default"] == "fr"
    (event,) = events(gates, "set_language")
    assert (event["case_id"], event["language"], event["note"]) == (
        "t",
        "fr",
        "the prompt asks for French",
    )
    # Case t now expects French only: its English answer fails, the French ones pass.
    failing = {(f.case_id, f.system) for f in page.data.failures if f.gate == "language"}
    assert failing == {("t", "gamma"), ("v", "gamma")}
    assert not page.doubts.isVisibleTo(page)
    assert "Case t now expects fr" in page.message.text()


def test_a_language_set_and_undone_is_gated_again_off_the_window_s_thread(
    qtbot, gates, reasons, monkeypatch
):
    queue, _ = reasons
    on_window: list[bool] = []
    real = screening.rerun

    def rerun(*args, **kwargs):
        on_window.append(threading.current_thread() is threading.main_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(screening, "rerun", rerun)
    page = gates.gates
    queue.append(("fr", "the prompt asks for French"))
    assert page.correct.set_language("t", "fr")
    page.corrections.setFocus()
    qtbot.keyClick(page.corrections, Qt.Key.Key_Down)
    queue.append("it does not")
    qtbot.keyClick(page.corrections, Qt.Key.Key_U)
    assert events(gates)[-1]["kind"] == "retract"
    assert on_window == [False, False]  # each on the operation's own thread
    assert list(page.doubt_buttons) == ["t"]  # in doubt again, as before


def test_k_keeps_the_language_of_the_case_in_doubt_and_u_undoes_it(qtbot, gates, reasons):
    queue, asked = reasons
    page = gates.gates
    before = page.data.status
    queue.append(...)  # accept the prefilled reason
    qtbot.keyClick(page.tree, Qt.Key.Key_K)
    assert asked[-1]["default"] == "the prompt does not ask for fr"
    (event,) = events(gates)
    assert (event["kind"], event["case_id"], event["language"]) == ("confirm_language", "t", "en")
    # The French answers fail again and lose to gamma's English one.
    assert page.model.group_counts()["Language"] == "3 failing"
    assert not page.doubts.isVisibleTo(page)
    assert page.data.status["gate_failures"] == before["gate_failures"] + 2
    assert "case t keeps en" in page.corrections.item(0).text()
    page.corrections.setFocus()
    qtbot.keyClick(page.corrections, Qt.Key.Key_Down)
    queue.append("it does ask for French")
    qtbot.keyClick(page.corrections, Qt.Key.Key_U)
    assert events(gates)[-1]["target_event"] == event["event_id"]
    assert page.data.status == before and page.doubts.isVisibleTo(page)


def test_l_prefills_the_language_the_failing_answers_were_read_as(qtbot, gates, reasons):
    queue, asked = reasons
    select(gates, "t", "beta", "language")
    queue.append(None)  # cancelled: nothing is written
    qtbot.keyClick(gates.gates.tree, Qt.Key.Key_L)
    assert asked[-1]["default"] == "fr" and events(gates) == []


def test_overrule_writes_one_event_and_undo_retracts_it(qtbot, gates, reasons):
    queue, asked = reasons
    page = gates.gates
    before = page.data.status
    select(gates, "v", "gamma", "language")
    queue.append("German is fine here")
    qtbot.keyClick(page.tree, Qt.Key.Key_O)
    (event,) = events(gates)
    assert (event["kind"], event["gate"], event["note"]) == (
        "overrule",
        "language",
        "German is fine here",
    )
    assert event["output_id"] == page.selected().output_id  # the same verdict stays selected
    assert page.selected().overruled_by == event["event_id"]
    assert page.model.group_counts()["Language"] == "0 failing, 2 in doubt, 1 overruled"
    assert "2 failing verdicts" in gates.status.text()
    assert page.subtitle.text().startswith("2 failing verdicts, 2 in doubt on 1 case, 1 overruled")
    assert page.data.status["gate_failures"] == before["gate_failures"] - 1
    assert page.data.status["pending_pairs"] > before["pending_pairs"]
    assert (
        page.corrections.count() == 1 and "German is fine here" in page.corrections.item(0).text()
    )

    queue.append(...)  # accept the prefilled reason
    qtbot.keyClick(page.tree, Qt.Key.Key_U)
    assert asked[-1]["default"] == "undo overrule"
    retraction = events(gates)[-1]
    assert (retraction["kind"], retraction["target_event"], retraction["note"]) == (
        "retract",
        event["event_id"],
        "undo overrule",
    )
    assert len(events(gates)) == 2
    assert page.model.group_counts()["Language"] == "1 failing, 2 in doubt"
    assert page.data.status == before and page.corrections.count() == 0
    qtbot.keyClick(gates, Qt.Key.Key_Escape)
    row = next(r for r in gates.families.model.rows if r["name"] == "mixed")
    assert row["gate_failures"] == before["gate_failures"]


def test_the_family_list_shows_a_correction_made_on_the_page(qtbot, gates, reasons):
    queue, _ = reasons
    page = gates.gates
    before = page.data.status["gate_failures"]
    select(gates, "v", "gamma", "language")
    queue.append("German is fine here")
    qtbot.keyClick(page.tree, Qt.Key.Key_O)
    qtbot.keyClick(gates, Qt.Key.Key_Escape)
    assert gates.pages.currentWidget() is gates.families
    row = next(r for r in gates.families.model.rows if r["name"] == "mixed")
    assert row["gate_failures"] == before - 1


def test_remove_and_retire_write_one_event_each_and_ctrl_z_undoes_the_last(qtbot, gates, reasons):
    queue, _ = reasons
    page = gates.gates
    select(gates, "u", "beta", "empty")
    queue.append("blank: the run crashed")
    qtbot.keyClick(page.tree, Qt.Key.Key_Delete)
    (removed,) = events(gates)
    assert (removed["kind"], removed["case_id"], removed["note"]) == (
        "remove_output",
        "u",
        "blank: the run crashed",
    )
    assert set(page.model.group_counts()) == {
        "Language",
        "Language ▸ alpha",
        "Language ▸ beta",
        "Language ▸ gamma",
    }
    select(gates, "v", "gamma", "language")
    queue.append("the prompt is ambiguous")
    qtbot.keyClick(page.tree, Qt.Key.Key_R)
    retired = events(gates)[-1]
    assert (retired["kind"], retired["case_id"], retired["note"]) == (
        "retire_case",
        "v",
        "the prompt is ambiguous",
    )
    assert page.model.group_counts()["Language"] == "0 failing, 2 in doubt"
    assert page.corrections.count() == 2
    # Ctrl+Z is the page's here, not the rating page's vote undo.
    queue.append(...)
    qtbot.keyClick(page.tree, Qt.Key.Key_Z, CTRL)
    assert events(gates)[-1]["target_event"] == retired["event_id"]
    assert gates.ledger.db["retractions"].count == 0
    assert page.model.group_counts()["Language"] == "1 failing, 2 in doubt"


def test_u_undoes_the_correction_selected_in_the_list(qtbot, gates, reasons):
    queue, _ = reasons
    page = gates.gates
    select(gates, "u", "beta", "empty")
    queue.append("blank")
    qtbot.keyClick(page.tree, Qt.Key.Key_Delete)
    page.corrections.setFocus()
    qtbot.keyClick(page.corrections, Qt.Key.Key_Down)
    queue.append("removed by mistake")
    qtbot.keyClick(page.corrections, Qt.Key.Key_U)
    assert events(gates)[-1]["note"] == "removed by mistake"
    assert "Empty" in page.model.group_counts()


def test_a_refused_correction_is_shown_and_writes_nothing(qtbot, gates, reasons):
    queue, _ = reasons
    page = gates.gates
    select(gates, "t", "alpha", "language")
    queue.append(("french!", ""))
    qtbot.keyClick(page.tree, Qt.Key.Key_L)
    queue.append("   ")  # no reason: the core refuses
    qtbot.keyClick(page.tree, Qt.Key.Key_O)
    assert events(gates) == []
    boxes = [b.text() for b in gates.findChildren(QMessageBox) if b.objectName() == "arena-error"]
    assert any("not a language tag" in text for text in boxes)
    assert any("say why you overrule" in text for text in boxes)
    assert gates.pages.currentWidget() is gates.gates


def test_u_on_a_verdict_that_is_not_overruled_says_how(qtbot, gates, reasons):
    qtbot.keyClick(gates.gates.tree, Qt.Key.Key_U)
    assert "Select an overruled verdict" in gates.gates.message.text()
    assert events(gates) == []


def test_g_opens_the_page_from_rating_and_esc_goes_back_there(qtbot, open_window, gates_ledger):
    window = open_window(gates_ledger, "mixed")
    qtbot.keyClick(window, Qt.Key.Key_G)
    assert window.pages.currentWidget() is window.gates and window.gates.family == "mixed"
    assert window.rating.session is None  # leaving rating ends the session
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert window.pages.currentWidget() is window.rating and window.rating.session is not None
    window.escape()
    assert window.pages.currentWidget() is window.families
    window.show_gates()
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert window.pages.currentWidget() is window.families
    assert window.families.selected_name() == "mixed"
    assert not window.grab().isNull()


def test_a_family_without_failures_says_so(open_window, ui_ledger):
    window = open_window(ui_ledger)
    assert window.show_gates("prose")
    page = window.gates
    assert page.model.rowCount() == 0 and not page.doubts.isVisibleTo(page)
    assert page.detail.header.text() == "No output of prose fails a gate."
    assert "No corrections in force" in page.corrections_title.text()


def test_no_rater_key_may_take_g():
    key_map = default_key_map()
    key_map["skip"] = ["G"]
    assert any("Gates page key" in problem for problem in problems(key_map))


def test_the_page_and_gate_list_count_failing_verdicts_alike(
    qtbot, open_window, gates_ledger, capsys
):
    """With verdicts in doubt and one overruled, `arena gate --list` counted every verdict
    it listed (6) where the page counted those that settle pairs (2): both now say one
    count (``screening.FailureCounts``)."""
    import json

    from arena.cli.main import main

    at = ["--ledger", str(gates_ledger)]
    assert main([*at, "gate", "--list", "--family", "mixed", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)["failures"]
    [german] = [f for f in found if f["system"] == "gamma"]
    overrule = ["overrule", german["output_id"], "--gate", "language", "--reason", "fine"]
    assert main([*at, *overrule]) == 0
    assert main([*at, "gate", "--list", "--family", "mixed"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert sum(line.startswith("mixed  case ") for line in listed) == 5 + 1  # and the doubt
    counts = "2 failing verdicts, 2 in doubt on 1 case, 1 overruled"
    assert listed[-1].startswith(counts + "; overrule one with")

    window = open_window(gates_ledger)
    window.families.select("mixed")
    qtbot.keyClick(window.families.table, Qt.Key.Key_G)
    assert window.gates.subtitle.text().startswith(counts + " · ")
    assert "gates: 2 failing verdicts, 1 case in doubt" in window.status.text()
