"""Opening the window: the first pair (or the family names) before the family counts."""

from __future__ import annotations

import pytest

from arena.ui import app, family_list


@pytest.fixture
def counted(monkeypatch) -> list[str]:
    """Each time the family list counts the families."""
    calls: list[str] = []
    real = family_list.family_status

    def counting(ledger, *args, **kwargs):
        calls.append("counted")
        return real(ledger, *args, **kwargs)

    monkeypatch.setattr(family_list, "family_status", counting)
    return calls


def _opened(qtbot, path, family, make_settings):
    window = app.open_window(path, family, make_settings())
    qtbot.addWidget(window)
    window.resize(1100, 700)
    return window


def test_a_window_opened_on_a_family_shows_its_pair_without_counting_the_families(
    qtbot, ui_ledger, make_settings, counted
):
    window = _opened(qtbot, ui_ledger, "prose", make_settings)
    assert window.pages.currentWidget() is window.rating
    assert window.rating.current_pair() is not None
    window.show()
    qtbot.wait(50)
    assert counted == []
    assert [r["name"] for r in window.families.model.rows] == ["code", "prose"]
    systems = [key for key, _ in family_list.COLUMNS].index("systems")
    assert window.families.model.data(window.families.model.index(0, systems)) == "…"
    window.escape()  # back to the list: counted now
    assert window.pages.currentWidget() is window.families and counted == ["counted"]
    assert all("votes" in row for row in window.families.model.rows)
    assert window.families.selected_name() == "prose"
    window.close()


def test_a_window_opened_on_the_list_paints_the_names_then_counts(
    qtbot, ui_ledger, make_settings, counted
):
    window = _opened(qtbot, ui_ledger, None, make_settings)
    assert [r["name"] for r in window.families.model.rows] == ["code", "prose"]
    assert counted == []
    window.show()
    qtbot.waitUntil(lambda: counted == ["counted"])
    prose = next(r for r in window.families.model.rows if r["name"] == "prose")
    assert prose["systems"] == 3 and prose["votes"] == 0
    window.close()
