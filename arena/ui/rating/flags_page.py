"""One family's flags: the pairs the rater flagged while voting, and what to do about each.

The page reads the flags through the core (``arena.rating.flags``) and writes only
through the window's ``LedgerOps``: retiring the flagged case, removing one of its
outputs, resolving the flag, or undoing any of these is each one event, made by the
core, so a refused action is shown the one way and every view hears of it.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QAction, QColor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTextBrowser,
    QWidget,
)

from arena.ledger import Ledger
from arena.rating import flags
from arena.rating.flags import Flag
from arena.texts import counted
from arena.ui import dialogs
from arena.ui.keys import FLAGS_ACTIONS, page_actions
from arena.ui.operations import Changes, LedgerOps
from arena.ui.pages import lay_out_page, page_titles
from arena.ui.rating.flag_table import FlagTable, when
from arena.ui.rating.markdown_render import render_markdown
from arena.ui.tables import pick_rows
from arena.ui.theme import Theme, document_css

BUTTONS = (
    ("retire", "Retire case…"),
    ("remove", "Remove output…"),
    ("resolve", "Resolve…"),
    ("undo_selected", "Undo…"),
)
# How much of each output the detail shows: enough to recall the pair.
EXCERPT = 1500


def _h(text: str) -> str:
    return html.escape(text, quote=False).replace("\n", "<br>")


class FlagsPage(QWidget):
    def __init__(self, ops: LedgerOps, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ops = ops
        self.ledger: Ledger | None = None
        self.family = ""
        # The flag acted on last from this page: Ctrl+Z undoes what was done to it.
        self.last_acted: str | None = None

        self.title, self.subtitle = page_titles()
        self.model = FlagTable()
        self.table = QTableView()
        self.table.setModel(self.model)
        pick_rows(self.table)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.detail = QTextBrowser()
        self.detail.setOpenLinks(False)
        self.detail.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        split = QSplitter()
        split.addWidget(self.table)
        split.addWidget(self.detail)
        split.setSizes([700, 500])
        self.buttons: dict[str, QPushButton] = {}
        controls = QHBoxLayout()
        self.message = QLabel()
        self.message.setObjectName("muted")
        self.message.setWordWrap(True)

        lay_out_page(self, (self.title, self.subtitle), controls, split, self.message)
        self.setFocusProxy(self.table)
        self.flag_actions = self._make_actions(controls)
        controls.addStretch(1)
        self.set_theme(theme)
        self.table.selectionModel().currentRowChanged.connect(self._selected)
        ops.changed.connect(self._ledger_changed)

    def _make_actions(self, controls: QHBoxLayout) -> dict[str, QAction]:
        slots: dict[str, Callable[[], object]] = {
            "retire": self.retire,
            "remove": self.remove,
            "resolve": self.resolve,
            "undo_selected": self.undo_selected,
            "undo_last": self.undo_last,
        }
        return page_actions(
            self, FLAGS_ACTIONS, slots, dict(BUTTONS), controls, self.buttons, owner=self
        )

    # -- what is shown ------------------------------------------------------------

    def load(self, ledger: Ledger, family: str) -> None:
        if (ledger, family) != (self.ledger, self.family):
            self.message.clear()
            self.last_acted = None
        self.ledger, self.family = ledger, family
        self.reload(keep=None)

    def clear(self) -> None:
        self.ledger, self.family, self.last_acted = None, "", None
        self.model.load([])

    def reload(self, keep: str | None = None) -> None:
        """Read the flags again, selecting ``keep`` (else the row where the selection was)."""
        if self.ledger is None:
            return
        row = max(self.table.currentIndex().row(), 0)
        self.model.load(flags.family_flags(self.ledger, self.family))
        found = self.model.rows
        opened = sum(f.is_open for f in found)
        self.title.setText(f"{self.family} — flags")
        self.subtitle.setText(
            f"{counted(len(found), 'flagged pair')}: {opened} open, {len(found) - opened} "
            "dealt with "
            "(resolved, case retired or output removed)"
            if found
            else "No pair of this family is flagged: F flags the pair on screen while rating."
        )
        at = self.model.find(keep)
        if found:
            self.table.selectRow(at if at is not None else min(row, len(found) - 1))
            self.table.resizeColumnsToContents()
        else:
            self.detail.setHtml("")

    def selected(self) -> Flag | None:
        row = self.table.currentIndex().row()
        return self.model.rows[row] if 0 <= row < len(self.model.rows) else None

    def _selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        flag = self.selected() if current.isValid() else None
        self.detail.setHtml(self._detail(flag) if flag is not None else "")

    def _detail(self, flag: Flag) -> str:
        assert self.ledger is not None  # rows exist only for a loaded ledger
        case, texts = flags.flagged_pair(self.ledger, flag)
        parts = [
            f"<h3>{_h(flag.status.capitalize())}</h3>",
            f"<p><b>Note:</b> {_h(flag.note)}<br>",
            f"<b>Flagged</b> {when(flag.at)} by {_h(flag.actor)} · flag {flag.event_id[:12]}</p>",
        ]
        for event in flag.answers:
            parts.append(f"<p><i>{_h(event.kind.replace('_', ' '))}: “{_h(event.note)}”</i></p>")
        if case is not None:
            parts.append(
                f"<p><b>Case {_h(case.case_id)}</b> ({_h(case.category)}):</p>"
                f"{render_markdown(case.prompt[:EXCERPT], self.theme)}"
            )
        for name in ("left", "right"):
            side = flag.side(name)
            if side is None:
                continue
            text = texts[name]
            text = text[:EXCERPT] + ("…" if len(text) > EXCERPT else "")
            removed = " — removed" if flag.removed(name) else ""
            parts.append(
                f"<p><b>{name.capitalize()}: {_h(side.system)}</b> "
                f"(output {side.output_id[:12]}){removed}</p>{render_markdown(text, self.theme)}"
            )
        return "".join(parts)

    def _ledger_changed(self, _changes: Changes) -> None:
        if self.ledger is not None and self.isVisible():
            selected = self.selected()
            self.reload(keep=selected.event_id if selected else None)

    def status_text(self) -> str:
        opened = sum(f.is_open for f in self.model.rows)
        return f"{self.family} · flags: {opened} open of {len(self.model.rows)}"

    def say(self, text: str) -> None:
        self.message.setText(text)

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.detail.document().setDefaultStyleSheet(document_css(theme))
        self.model.muted = QColor(theme.muted)
        self.table.viewport().update()

    # -- what the keys do -----------------------------------------------------------

    def _chosen(self) -> Flag | None:
        flag = self.selected()
        if flag is None:
            self.say("Select a flag first (arrow keys in the list).")
        return flag

    def _write(self, flag: Flag, op: Callable[[], str], said: str) -> bool:
        def done(event: str) -> None:
            self.last_acted = flag.event_id
            self.say(f"{said} (event {event[:12]}; U or Ctrl+Z undoes it).")

        return self.ops.run(Changes(family=self.family, corrections=True), op, done)

    def retire(self) -> bool:
        flag = self._chosen()
        if flag is None or self.ledger is None:
            return False
        ledger = self.ledger
        reason = dialogs.ask_reason(
            self.window(),
            "Retire the case",
            f"Retire case {flag.case_id}: all its pairs and votes leave the fit (the ledger "
            "keeps them). Why?",
            default=flag.note,
        )
        if reason is None:
            return False
        return self._write(
            flag,
            lambda: flags.retire_case(ledger, flag.event_id, reason=reason),
            f"Case {flag.case_id} is retired",
        )

    def remove(self) -> bool:
        flag = self._chosen()
        if flag is None or self.ledger is None:
            return False
        sides = [(n, s) for n in ("left", "right") if (s := flag.side(n)) is not None]
        if not sides:
            self.say("This flag names no pair: there is no output to remove.")
            return False
        ledger = self.ledger
        answer = dialogs.ask_removal(
            self.window(),
            "Remove an output",
            f"Remove one output of the pair flagged on case {flag.case_id}: its pairs and "
            "votes leave the fit (the ledger keeps them). Which, and why?",
            [f"{n}: {s.system} (output {s.output_id[:12]})" for n, s in sides],
        )
        if answer is None:
            return False
        chosen, reason = answer
        name, side = sides[chosen]
        return self._write(
            flag,
            lambda: flags.remove_output(ledger, flag.event_id, name, reason=reason),
            f"The {name} output ({side.system}) is removed",
        )

    def resolve(self) -> bool:
        flag = self._chosen()
        if flag is None or self.ledger is None:
            return False
        if flag.resolved_by is not None:
            self.say("This flag is already resolved; U reopens it.")
            return False
        ledger = self.ledger
        reason = dialogs.ask_reason(
            self.window(),
            "Resolve the flag",
            f"Resolve the flag on case {flag.case_id} (“{flag.note}”): nothing in the "
            "family changes; the flag is marked dealt with. Why?",
            default="looked at: nothing to change",
        )
        if reason is None:
            return False
        return self._write(
            flag,
            lambda: flags.resolve(ledger, flag.event_id, reason=reason),
            "The flag is resolved",
        )

    def undo_selected(self) -> bool:
        flag = self._chosen()
        return flag is not None and self._undo(flag)

    def undo_last(self) -> bool:
        flag = next((f for f in self.model.rows if f.event_id == self.last_acted), None)
        if flag is None:
            self.say("Nothing to undo: nothing was done from this page yet.")
            return False
        return self._undo(flag)

    def _undo(self, flag: Flag) -> bool:
        if self.ledger is None:
            return False
        if flag.is_open:
            self.say("This flag is open: nothing was done about it to undo.")
            return False
        ledger = self.ledger
        what = "reopen the flag" if flag.resolved_by else f"undo “{flag.status}”"
        reason = dialogs.ask_reason(
            self.window(),
            "Undo",
            f"Flag on case {flag.case_id}: {what}? A new event records it; nothing is deleted.",
            default=what,
        )
        if reason is None:
            return False

        def done(_event: str) -> None:
            self.last_acted = None
            self.say(f"Done: {what}.")

        return self.ops.run(
            Changes(family=self.family, corrections=True),
            lambda: flags.undo_answer(ledger, flag.event_id, reason=reason),
            done,
        )
