"""Judges ▸ Run a judge…: a judge declared in a systems file (or held by the ledger) run
from the window against the scripted server, off the window's thread, with its progress,
Cancel, and its refusals said in the dialog."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from PySide6.QtCore import Qt

from arena.ledger import Ledger, integrity, judge_runs, judge_store
from arena.ui.operations import Changes
from tests.collecting.helpers import KEY
from tests.graded.fake_endpoint import FakeEndpoint, Judging
from tests.judges.judge_run_helpers import KEY_ENV, answered_family, judge_file

ITEMS = 6  # two systems: one item a case, asked in both orders


@pytest.fixture(scope="module")
def answered(tmp_path_factory):
    folder = tmp_path_factory.mktemp("answered")
    path = folder / "ledger.sqlite"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(KEY_ENV, KEY)
        answered_family(path, folder, cases=ITEMS)
    return path


@pytest.fixture
def family(answered, tmp_path, monkeypatch):
    from tests.conftest import copy_ledger

    monkeypatch.setenv(KEY_ENV, KEY)
    return copy_ledger(answered, tmp_path / "ledger.sqlite")


def open_dialog(window):
    action = next(
        a
        for a in window.findChildren(type(window.key_actions["help"]))
        if a.text() == "&Run a judge…"
    )
    action.trigger()
    dialog = window.running_judge
    assert dialog is not None and dialog.isVisible()
    return dialog


def choose_file(dialog, path):
    dialog.file.setText(str(path))
    return dialog.read_file()


def stored_state(path):
    """The run judge's replies and the verdicts they gave, read from the ledger file."""
    with Ledger.open(path, readonly=True) as ledger:
        replies = judge_runs.replies(ledger, "fam", "gpt-judge")
        verdicts = judge_store.verdicts(ledger, "fam")
        assert integrity.check(ledger) == []
    return replies, verdicts


def test_a_declared_judge_runs_in_both_orders_and_the_judges_page_hears(
    qtbot, open_window, family, tmp_path
):
    window = open_window(family)
    window.families.select("fam")
    announced = []
    window.ops.changed.connect(announced.append)
    with FakeEndpoint(default=Judging(unparsed_every=3)) as server:
        dialog = open_dialog(window)
        assert dialog.family.currentText() == "fam"
        assert choose_file(dialog, judge_file(tmp_path, server.url))
        assert dialog.judge.currentData() == ("file", "gpt-judge")
        assert "1 judge: gpt-judge" in dialog.status.text()
        assert dialog.both.isChecked()  # both orders by default
        qtbot.keyClick(dialog.judge, Qt.Key.Key_Return)  # Enter starts
        assert dialog.running
        qtbot.waitUntil(lambda: not dialog.running, timeout=20_000)
    replies, verdicts = stored_state(family)
    unparsed = sum(r.verdict == "unparsed" for r in replies)
    assert len(replies) == 2 * ITEMS and len(verdicts) == 2 * ITEMS - unparsed
    assert Counter(r.game for r in replies) == {1: ITEMS, 2: ITEMS}
    assert dialog.stored == 2 * ITEMS and dialog.unparsed == unparsed > 0
    assert f"{2 * ITEMS} replies stored ({unparsed} unparsed" in dialog.status.text()
    assert Changes(family="fam", judges=True) in announced
    assert not window.ops.busy and dialog.start_button.isEnabled()
    # Now held by the ledger: listed to resume, and the figures name its unparsed replies.
    assert "run before: resumes" in dialog.judge.currentText()


def test_progress_cancel_keeps_what_is_stored_and_start_again_finishes(
    qtbot, open_window, family, tmp_path
):
    window = open_window(family)
    window.families.select("fam")
    with FakeEndpoint(default=Judging(delay=0.1, unparsed_every=3)) as server:
        dialog = open_dialog(window)
        choose_file(dialog, judge_file(tmp_path, server.url))
        dialog.workers.setValue(1)
        assert dialog.start()
        assert window.ops.busy  # the window's other writes wait
        qtbot.waitUntil(lambda: dialog.stored >= 2, timeout=10_000)
        qtbot.waitUntil(lambda: "judged" in dialog.status.text(), timeout=5_000)
        line = dialog.status.text()
        assert re.fullmatch(
            rf"\d+ of {2 * ITEMS} judged · \d+ unparsed · 0 failed · cost \d+\.\d{{4}}", line
        ), line
        qtbot.keyClick(dialog, Qt.Key.Key_Escape)  # Esc cancels the run, not the dialog
        assert dialog.isVisible() and "Cancelling" in dialog.status.text()
        qtbot.waitUntil(lambda: not dialog.running, timeout=10_000)
        replies, verdicts = stored_state(family)
        # Every reply stored whole: each parsed one with its verdict, nothing else.
        assert 2 <= len(replies) < 2 * ITEMS and len(replies) == dialog.stored
        assert len(verdicts) == sum(r.verdict != "unparsed" for r in replies)
        shown = {(r.case_id, r.left_system, r.right_system, r.verdict) for r in replies}
        assert {(v.case_id, v.left_system, v.right_system, v.winner) for v in verdicts} <= shown
        assert "not asked (cancelled): Start again" in dialog.status.text()
        assert dialog.start()  # Start again asks only what is left
        qtbot.waitUntil(lambda: not dialog.running, timeout=20_000)
        asked = len(server.requests)
    replies, _ = stored_state(family)
    assert len(replies) == 2 * ITEMS and asked == 2 * ITEMS  # each (item, order) once
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)  # no run: Esc closes
    assert not dialog.isVisible()


def test_a_bad_file_is_said_in_the_dialog_and_nothing_starts(qtbot, open_window, family, tmp_path):
    window = open_window(family)
    window.families.select("fam")
    dialog = open_dialog(window)
    bad = tmp_path / "bad.toml"
    bad.write_text('[[judge]]\nname = "j"\nbase_url = "http://x/v1"\nmodel = "m"\ntemplat = "x"\n')
    assert not choose_file(dialog, bad)
    text = dialog.status.text()
    assert str(bad) in text and "judge[0].templat" in text and "Traceback" not in text
    assert dialog.status.objectName() == "judge-run-error"
    assert dialog.judge.count() == 0
    assert not dialog.start() and "Choose a systems file" in dialog.status.text()
    missing = tmp_path / "missing.toml"
    assert not choose_file(dialog, missing) and str(missing) in dialog.status.text()


def test_a_missing_key_and_a_changed_judge_are_refused_in_the_dialog(
    qtbot, open_window, family, tmp_path, monkeypatch, capsys
):
    window = open_window(family)
    window.families.select("fam")
    with FakeEndpoint(default=Judging()) as server:
        dialog = open_dialog(window)
        choose_file(dialog, judge_file(tmp_path, server.url))
        monkeypatch.delenv(KEY_ENV)
        assert dialog.start()
        qtbot.waitUntil(lambda: not dialog.running, timeout=10_000)
        assert f"the environment variable {KEY_ENV} is not set" in dialog.status.text()
        assert dialog.status.objectName() == "judge-run-error"
        assert server.requests == [] and "Traceback" not in capsys.readouterr().err
        monkeypatch.setenv(KEY_ENV, KEY)
        dialog.sample.setValue(1)
        dialog.one.setChecked(True)
        assert dialog.start()
        qtbot.waitUntil(lambda: not dialog.running, timeout=10_000)
        assert len(server.requests) == 1  # one item, one order
        # The same name with another temperature is another judge: refused by name.
        choose_file(dialog, judge_file(tmp_path, server.url, temperature=0.5))
        assert dialog.start()
        qtbot.waitUntil(lambda: not dialog.running, timeout=10_000)
    assert "was run with another descriptor" in dialog.status.text()
    assert "give it a new name" in dialog.status.text()
    assert "Traceback" not in capsys.readouterr().err


def test_a_judge_the_ledger_holds_resumes_without_its_file(qtbot, open_window, family, tmp_path):
    window = open_window(family)
    window.families.select("fam")
    with FakeEndpoint(default=Judging()) as server:
        dialog = open_dialog(window)
        choose_file(dialog, judge_file(tmp_path, server.url))
        dialog.sample.setValue(2)
        assert dialog.start()
        qtbot.waitUntil(lambda: not dialog.running, timeout=10_000)
        dialog.close()
        again = open_dialog(window)
        assert again.judge.currentData() == ("ledger", "gpt-judge")
        assert again.judge.currentText() == "gpt-judge — run before (resumes)"
        assert again.start()
        qtbot.waitUntil(lambda: not again.running, timeout=20_000)
        asked = len(server.requests)
    assert asked == 2 * ITEMS and "4 asked by earlier runs" in again.status.text()


def test_every_control_is_reached_by_keys(qtbot, open_window, family):
    window = open_window(family)
    window.families.select("fam")
    dialog = open_dialog(window)
    labelled = {label.buddy() for label in dialog.findChildren(type(dialog.status))}
    for widget in (dialog.family, dialog.file, dialog.judge, dialog.sample, dialog.max_cost):
        assert widget in labelled
    assert dialog.workers in labelled
    texts = [b.text() for b in (dialog.both, dialog.one, dialog.start_button, dialog.browse)]
    assert all("&" in t for t in texts) and dialog.start_button.isDefault()
    marks = [t[t.index("&") + 1].lower() for t in texts] + [
        label.text()[label.text().index("&") + 1].lower()
        for label in dialog.findChildren(type(dialog.status))
        if "&" in label.text()
    ]
    assert len(marks) == len(set(marks)), marks  # no two controls share an Alt key
