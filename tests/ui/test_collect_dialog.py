"""File ▸ Collect outputs…: collecting while the window is open, cancelling, resuming."""

from __future__ import annotations

import pytest

from arena.ledger import catalog
from arena.ui.operations import Changes
from tests.collecting.helpers import KEY, make_family
from tests.graded.fake_endpoint import Echo, FakeEndpoint


@pytest.fixture
def served(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_COLLECT_TEST_KEY", KEY)
    with FakeEndpoint(default=Echo(delay=0.05)) as server:
        path = tmp_path / "ledger.sqlite"
        make_family(path, tmp_path, server.url, cases=8)
        yield path, server


def _collect(window):
    action = next(
        a
        for a in window.findChildren(type(window.key_actions["help"]))
        if a.text() == "&Collect outputs…"
    )
    action.trigger()
    return window.collecting


def test_collected_answers_become_pairs_while_the_rater_votes(qtbot, open_window, served):
    path, server = served
    window = open_window(path, "fam")
    assert window.rating.current_pair() is None  # no output yet
    dialog = _collect(window)
    announced = []
    window.ops.changed.connect(announced.append)
    assert dialog.start()
    # The first pair comes up while the run goes on.
    qtbot.waitUntil(lambda: window.rating.current_pair() is not None, timeout=10_000)
    qtbot.waitUntil(lambda: not dialog.running, timeout=20_000)
    assert catalog.count_outputs(window.ledger, "fam") == 16
    assert [b.value() for b in dialog.bars.values()] == [8, 8]
    assert "16 answers stored, 0 failed" in dialog.status.text()
    assert Changes(family="fam", outputs=True) in announced
    assert len(server.requests) == 32


def test_cancel_stops_sending_and_start_again_resumes(qtbot, open_window, served):
    path, server = served
    window = open_window(path, None)
    window.families.select("fam")
    dialog = _collect(window)
    dialog.workers.setValue(1)
    assert dialog.start()
    qtbot.waitUntil(lambda: dialog.stored >= 2, timeout=10_000)
    dialog.cancel()
    qtbot.waitUntil(lambda: not dialog.running, timeout=10_000)
    first = catalog.count_outputs(window.ledger, "fam")
    assert 2 <= first < 16 and "Start again" in dialog.status.text()
    assert dialog.start()
    qtbot.waitUntil(lambda: not dialog.running, timeout=20_000)
    assert catalog.count_outputs(window.ledger, "fam") == 16
    assert dialog.stored == 16 - first
    # Nothing was asked twice: two turns an answer, both runs together.
    assert len(server.requests) == 32


def test_only_the_checked_systems_are_asked(qtbot, open_window, served):
    path, _ = served
    window = open_window(path, "fam")
    dialog = _collect(window)
    dialog.boxes["thorough"].setChecked(False)
    assert dialog.start()
    qtbot.waitUntil(lambda: not dialog.running, timeout=20_000)
    labels = {s.system_id: s.label for s in catalog.systems(window.ledger, "fam")}
    assert {labels[o.system_id] for o in catalog.outputs(window.ledger, "fam")} == {"brief"}
