"""Whole sessions driven by keys, checked against the ledger's rows."""

from __future__ import annotations

import sqlite3
from collections import Counter

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from arena.ledger import Ledger, voting
from arena.ui.operations import Changes


def press(qtbot, window, key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    qtbot.keyClick(window, key, modifier)


def shown(window):
    pair = window.rating.current_pair()
    return None if pair is None else pair.presentation.presentation_id


def test_each_vote_key_records_its_choice(qtbot, open_window, ui_ledger):
    window = open_window(ui_ledger, "prose")
    keys = (
        Qt.Key.Key_1,
        Qt.Key.Key_2,
        Qt.Key.Key_3,
        Qt.Key.Key_4,
        Qt.Key.Key_Left,
        Qt.Key.Key_Right,
    )
    for key in keys:
        press(qtbot, window, key)
    votes = voting.votes_in_force(window.ledger, "prose")
    assert [v.choice for v in votes] == ["left", "right", "tie", "both_bad", "left", "right"]
    assert all(v.session_id == window.rating.session.session.session_id for v in votes)


def test_the_vote_is_on_disk_before_the_next_pair_appears(qtbot, open_window, ui_ledger):
    window = open_window(ui_ledger, "prose")
    first = window.rating.current_pair()
    seen_on_disk = []

    def check(_pair) -> None:
        # Another connection sees the vote as soon as the next pair is handed over.
        with Ledger.open(ui_ledger, readonly=True) as reader:
            seen_on_disk.append(len(voting.votes_in_force(reader, "prose")))

    original = window.rating.pair_view.show_pair
    window.rating.pair_view.show_pair = lambda pair: (check(pair), original(pair))
    press(qtbot, window, Qt.Key.Key_2)
    assert seen_on_disk == [1]
    vote = voting.votes_in_force(window.ledger, "prose")[0]
    assert vote.presentation_id == first.presentation.presentation_id
    assert shown(window) != first.presentation.presentation_id


def test_buttons_vote_like_their_keys(qtbot, open_window, ui_ledger):
    window = open_window(ui_ledger, "prose")
    qtbot.mouseClick(window.rating.buttons["tie"], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(window.rating.buttons["right"], Qt.MouseButton.LeftButton)
    assert [v.choice for v in voting.votes_in_force(window.ledger, "prose")] == ["tie", "right"]
    assert "Tie" in window.rating.buttons["tie"].text()
    assert "[3]" in window.rating.buttons["tie"].text()


def test_skip_records_the_comment_and_is_not_a_vote(qtbot, open_window, ui_ledger, answers):
    window = open_window(ui_ledger, "prose")
    first = shown(window)
    answers.append("the prompt is cut off")
    press(qtbot, window, Qt.Key.Key_S)
    rows = voting.votes_in_force(window.ledger, "prose", include_skips=True)
    assert [(r.choice, r.comment) for r in rows] == [("skip", "the prompt is cut off")]
    assert rows[0].presentation_id == first
    assert voting.votes_in_force(window.ledger, "prose") == []
    assert window.rating.session_votes == 0
    assert shown(window) != first


def test_a_cancelled_skip_records_nothing(qtbot, open_window, ui_ledger, answers):
    window = open_window(ui_ledger, "prose")
    first = shown(window)
    answers.append(None)
    press(qtbot, window, Qt.Key.Key_S)
    assert voting.votes_in_force(window.ledger, "prose", include_skips=True) == []
    assert shown(window) == first


def test_undo_walks_back_vote_by_vote_and_shows_each_pair_again(qtbot, open_window, ui_ledger):
    window = open_window(ui_ledger, "prose")
    pairs = []
    for key in (Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3):
        pairs.append(shown(window))
        press(qtbot, window, key)
    assert window.rating.session_votes == 3
    for expected in reversed(pairs):
        press(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        assert shown(window) == expected
    assert window.ledger.db["retractions"].count == 3
    assert voting.votes_in_force(window.ledger, "prose") == []
    assert window.rating.session_votes == 0
    press(qtbot, window, Qt.Key.Key_4)
    votes = voting.votes_in_force(window.ledger, "prose")
    assert [(v.presentation_id, v.choice) for v in votes] == [(pairs[0], "both_bad")]


def test_undo_with_nothing_to_undo_says_so(qtbot, open_window, ui_ledger):
    window = open_window(ui_ledger, "prose")
    first = shown(window)
    press(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.ledger.db["retractions"].count == 0
    assert "Nothing to undo" in window.rating.notice.text()
    assert shown(window) == first


def test_flag_records_a_note_and_keeps_the_pair(qtbot, open_window, ui_ledger, answers):
    window = open_window(ui_ledger, "prose")
    first = shown(window)
    answers.append("left answer is truncated")
    press(qtbot, window, Qt.Key.Key_F)
    flags = list(window.ledger.db["events"].rows_where("kind = 'flag'"))
    assert [(f["presentation_id"], f["note"]) for f in flags] == [
        (first, "left answer is truncated")
    ]
    assert shown(window) == first
    answers.append(None)  # a cancelled flag writes nothing
    press(qtbot, window, Qt.Key.Key_F)
    assert window.ledger.db["events"].count_where("kind = 'flag'") == 1


def test_a_whole_family_by_keys_balances_sides_and_repeats_swap_them(
    qtbot, open_window, big_ledger
):
    from arena.intake.families import set_family
    from arena.intake.family_settings import FamilySettings

    # Half the votes repeated, 20 to 27 pairs later and no minutes apart: some come among
    # the 80 first showings, many after the last of them, where only other repeats can
    # even the sides out.
    settings = FamilySettings(repeat_share=0.5, repeat_gap=20, repeat_minutes=0)
    with Ledger.open(big_ledger) as ledger:
        set_family(ledger, "big", settings)
    window = open_window(big_ledger, "big")
    keys = (Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3, Qt.Key.Key_4)
    seen = []
    while window.rating.current_pair() is not None and len(seen) < 200:
        seen.append(window.rating.current_pair())
        press(qtbot, window, keys[len(seen) % 4])
    assert window.rating.current_pair() is None
    assert window.rating.pair_view.stack.currentWidget() is window.rating.pair_view.done
    firsts = {p.presentation.presentation_id: p for p in seen if p.presentation.repeat_of is None}
    repeats = [p for p in seen if p.presentation.repeat_of is not None]
    assert len(firsts) == 80 and repeats
    for repeat in repeats:
        first = firsts[repeat.presentation.repeat_of]
        assert (repeat.left.output_id, repeat.right.output_id) == (
            first.right.output_id,
            first.left.output_id,
        )
    # Sides balance within each system pair after every presentation, repeats included
    # (docs/window.md): a repeat that would tip them waits, and is not shown if nothing
    # evens them first.
    shown_left: Counter = Counter()
    for at, p in enumerate(seen):
        systems = frozenset((p.left.system_id, p.right.system_id))
        shown_left[systems, p.left.system_id] += 1
        a, b = sorted(systems)
        assert abs(shown_left[systems, a] - shown_left[systems, b]) <= 1, (at, a, b)
    assert len(voting.votes_in_force(window.ledger, "big")) == len(seen)
    qtbot.waitUntil(lambda: "80/80 pairs voted" in window.status.text())


def test_closing_the_window_and_opening_again_resumes_the_open_pair(qtbot, open_window, ui_ledger):
    window = open_window(ui_ledger, "prose")
    press(qtbot, window, Qt.Key.Key_1)
    press(qtbot, window, Qt.Key.Key_2)
    open_pair = shown(window)
    window.close()
    again = open_window(ui_ledger, "prose")
    assert shown(again) == open_pair
    assert again.rating.session.session.number == 2
    press(qtbot, again, Qt.Key.Key_3)
    votes = voting.votes_in_force(again.ledger, "prose")
    assert [v.choice for v in votes] == ["left", "right", "tie"]
    assert votes[2].presentation_id == open_pair


def test_a_failed_write_is_shown_and_the_pair_stays(qtbot, open_window, ui_ledger, monkeypatch):
    window = open_window(ui_ledger, "prose")
    first = shown(window)
    real = voting.record_vote

    def broken(*args, **kwargs):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(voting, "record_vote", broken)
    press(qtbot, window, Qt.Key.Key_1)
    boxes = [b for b in window.findChildren(QMessageBox) if b.isVisible()]
    assert len(boxes) == 1 and "disk I/O error" in boxes[0].text()
    assert "Nothing was recorded" in boxes[0].text()
    assert shown(window) == first
    assert voting.votes_in_force(window.ledger, "prose") == []
    assert window.rating.session_votes == 0
    boxes[0].accept()
    monkeypatch.setattr(voting, "record_vote", real)
    with qtbot.waitActive(window):
        window.activateWindow()
    press(qtbot, window, Qt.Key.Key_1)
    votes = voting.votes_in_force(window.ledger, "prose")
    assert [(v.presentation_id, v.choice) for v in votes] == [(first, "left")]


def test_an_identity_leak_shows_a_banner_and_marks_the_vote(qtbot, open_window, tmp_path):
    from arena.intake.outputs import import_file
    from tests.ui.conftest import SYSTEMS, write_family

    path = tmp_path / "leak.sqlite"
    with Ledger.open(path) as ledger:
        import_file(
            ledger,
            write_family(tmp_path / "l.jsonl", "leak", systems=SYSTEMS[:2], cases=1, leak_case=0),
            family="leak",
            fmt="native",
        )
    window = open_window(path, "leak")
    banner = window.rating.pair_view.banner
    assert banner.isVisible() and "beta" in banner.text()
    press(qtbot, window, Qt.Key.Key_2)
    assert voting.votes_in_force(window.ledger, "leak")[0].identity_leak


def test_fifteen_idle_minutes_end_the_session_and_the_next_key_starts_one(
    qtbot, open_window, ui_ledger, clock
):
    window = open_window(ui_ledger, "prose")
    press(qtbot, window, Qt.Key.Key_1)
    on_screen = shown(window)
    clock.advance(16 * 60)
    window.rating.tick()
    assert window.rating.session is None
    assert "idle" in window.rating.notice.text() and window.rating.notice.isVisible()
    assert shown(window) == on_screen
    press(qtbot, window, Qt.Key.Key_2)
    first, second = voting.votes_in_force(window.ledger, "prose")
    assert second.presentation_id == on_screen and second.choice == "right"
    assert first.session_id != second.session_id
    assert [s.number for s in voting.sessions(window.ledger, "prose")] == [1, 2]
    assert window.rating.session_votes == 1


def test_the_break_reminder_appears_after_the_set_time(qtbot, open_window, ui_ledger, clock):
    window = open_window(ui_ledger, "prose")
    window.rating.break_minutes = 50
    window.rating.start(window.ledger, "prose")
    clock.advance(49 * 60)
    window.rating.touch()
    window.rating.tick()
    assert not window.rating.notice.isVisible()
    clock.advance(2 * 60)
    window.rating.touch()
    window.rating.tick()
    assert window.rating.notice.isVisible() and "break" in window.rating.notice.text()
    assert "0:51:00" in window.status.text()


def test_status_bar_counts_progress_and_session_votes(qtbot, open_window, ui_ledger, clock):
    window = open_window(ui_ledger, "prose")
    press(qtbot, window, Qt.Key.Key_1)
    press(qtbot, window, Qt.Key.Key_3)
    clock.advance(75)
    qtbot.waitUntil(lambda: "2/12" in window.status.text())
    window.rating.tick()
    text = window.status.text()
    assert "session 1: 2 votes" in text and "0:01:15" in text


def test_enter_starts_rating_and_esc_returns_to_the_families(qtbot, open_window, ui_ledger):
    window = open_window(ui_ledger)
    assert window.pages.currentWidget() is window.families
    assert [r["name"] for r in window.families.model.rows] == ["code", "prose"]
    window.families.select("prose")
    qtbot.keyClick(window.families.table, Qt.Key.Key_Return)
    assert window.pages.currentWidget() is window.rating
    assert window.rating.family == "prose"
    press(qtbot, window, Qt.Key.Key_1)
    press(qtbot, window, Qt.Key.Key_Escape)
    assert window.pages.currentWidget() is window.families
    press(qtbot, window, Qt.Key.Key_1)  # vote keys do nothing on the family list
    assert len(voting.votes_in_force(window.ledger, "prose")) == 1
    row = next(r for r in window.families.model.rows if r["name"] == "prose")
    assert row["votes"] == 1


def test_question_mark_shows_every_key_and_esc_hides_them(qtbot, open_window, ui_ledger):
    window = open_window(ui_ledger, "prose")
    press(qtbot, window, Qt.Key.Key_Question)
    assert window.overlay.isVisible()
    text = window.overlay.label.text()
    assert "Left is better" in text and "Undo the last vote" in text and "Tab" in text
    press(qtbot, window, Qt.Key.Key_Escape)
    assert not window.overlay.isVisible()
    assert window.pages.currentWidget() is window.rating


def test_the_session_rereads_the_ledger_only_after_changes_made_elsewhere(
    qtbot, open_window, ui_ledger, monkeypatch
):
    window = open_window(ui_ledger, "prose")
    refreshed = []
    monkeypatch.setattr(window.rating.session, "refresh", lambda: refreshed.append(True))
    press(qtbot, window, Qt.Key.Key_1)
    press(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    press(qtbot, window, Qt.Key.Key_4)
    assert refreshed == []
    window.ops.changed.emit(Changes(family="prose", outputs=True, families=True))
    window.ops.changed.emit(Changes(family="prose", corrections=True))
    window.ops.changed.emit(Changes(family="prose", judges=True))  # no pair changes
    assert refreshed == [True, True]
