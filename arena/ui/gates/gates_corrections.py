"""The Gates page's corrections: overrule, set or keep a case's language, retire, remove, undo.

Each asks for a reason in a small dialog (prefilled where the CLI has a default),
then calls the core through the window's ``LedgerOps``, so a refused correction
(``BadInput``) is shown the one way and every view hears of the change. Setting a
case's language, and undoing a correction (which may be one), gate the case's answers
again over the whole family: those run off the window's thread (``run_long``). The
keys act only while the Gates page has the focus.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QHBoxLayout, QListWidget, QPushButton, QWidget

from arena.gates.screening import GateFailure
from arena.ledger import Ledger
from arena.rating import corrections
from arena.records import Event
from arena.ui import dialogs
from arena.ui.gates.gates_data import GatesData, gate_title
from arena.ui.keys import GATES_ACTIONS, default_keys, display, page_actions
from arena.ui.operations import Changes, LedgerOps


class CorrectionHost(Protocol):
    """What the corrections need of the Gates page (which builds them and imports this)."""

    ops: LedgerOps
    ledger: Ledger | None
    family: str
    data: GatesData | None
    buttons: dict[str, QPushButton]
    corrections: QListWidget

    def addAction(self, action: QAction) -> None: ...  # noqa: N802 (Qt's name)
    def selected(self) -> GateFailure | None: ...
    def say(self, text: str) -> None: ...
    def window(self) -> QWidget: ...  # the top-level widget: the parent of dialogs


BUTTONS = (
    ("overrule", "Overrule…"),
    ("set_language", "Case expects language…"),
    ("confirm_language", "Keep case language…"),
    ("retire", "Retire case…"),
    ("remove", "Remove output…"),
    ("undo_selected", "Undo…"),
)


class CorrectionActions:
    def __init__(self, page: CorrectionHost, controls: QHBoxLayout) -> None:
        self.page = page
        self.actions = self._make_actions(controls)

    def _make_actions(self, controls: QHBoxLayout) -> dict[str, QAction]:
        slots: dict[str, Callable[[], object]] = {
            "overrule": self.overrule,
            "set_language": self.set_language,
            "confirm_language": self.confirm_language,
            "retire": self.retire,
            "remove": self.remove,
            "undo_selected": self.undo_selected,
            "undo_last": self.undo_last,
        }
        return page_actions(
            self.page,
            GATES_ACTIONS,
            slots,
            dict(BUTTONS),
            controls,
            self.page.buttons,
            owner=self.page.window(),
        )

    def _chosen(self) -> GateFailure | None:
        failure = self.page.selected()
        if failure is None:
            self.page.say("Select a failing verdict first (arrow keys in the list).")
        return failure

    def _changes(self) -> Changes:
        return Changes(family=self.page.family, corrections=True)

    def _write(self, op: Callable[[], str], said: str) -> bool:
        return self.page.ops.run(self._changes(), op, self._said(said))

    def _said(self, said: str) -> Callable[[str], None]:
        undo = display(default_keys(GATES_ACTIONS[-1]))
        return lambda event: self.page.say(f"{said} (event {event[:12]}; {undo} undoes it).")

    def _long(
        self, label: str, op: Callable[[Ledger], str], done: Callable[[str], object], *, gates: bool
    ) -> bool:
        """A correction that may gate a case's answers again, reading the whole family:
        off the window's thread (``LedgerOps.run_long``)."""
        ledger = self.page.ledger
        assert ledger is not None  # the callers have checked
        changes = Changes(family=self.page.family, corrections=True, gates=gates)
        return self.page.ops.run_long(ledger, label, changes, lambda own, _p: op(own), done)

    def overrule(self) -> bool:
        failure = self._chosen()
        if failure is None or self.page.ledger is None:
            return False
        if failure.overruled_by is not None:
            self.page.say("This verdict is already overruled; U undoes the overrule.")
            return False
        ledger, gate = self.page.ledger, failure.gate
        reason = dialogs.ask_reason(
            self.page.window(),
            "Overrule the verdict",
            f"Set the {gate_title(gate)} verdict on output {failure.output_id[:12]} (case "
            f"{failure.case_id}, {failure.system}) aside: its pairs will come to you for a "
            "vote. Why is the verdict wrong?",
            placeholder="for example: the prompt asks for an answer in French",
        )
        if reason is None:
            return False
        return self._write(
            lambda: corrections.overrule(ledger, failure.output_id, gate, reason=reason),
            f"The {gate_title(gate)} verdict on {failure.output_id[:12]} is overruled",
        )

    def set_language(self, case_id: str | None = None, suggestion: str | None = None) -> bool:
        if case_id is None:
            failure = self._chosen()
            if failure is None:
                return False
            case_id = failure.case_id
        if self.page.ledger is None or self.page.data is None:
            return False
        family = self.page.family
        suggestion = suggestion or self.page.data.suggested_language(case_id)
        answer = dialogs.ask_language(
            self.page.window(),
            f"Case {case_id} expects a language",
            f"Answers to case {case_id} will be judged against this language only, from now "
            f"on (its gates run again). It now expects "
            f"{self.page.data.expected_text(case_id)}.",
            suggestion,
        )
        if answer is None:
            return False
        language, reason = answer
        return self._long(
            f"Case {case_id} expects {language}: gating its answers again…",
            lambda own: corrections.set_case_language(
                own, family, case_id, language, reason=reason
            ),
            self._said(f"Case {case_id} now expects {language}"),
            gates=True,
        )

    def confirm_language(self, case_id: str | None = None) -> bool:
        """Keep the language of a case in doubt: the selected verdict's case when it is
        in doubt, else the first case in doubt."""
        data, ledger, family = self.page.data, self.page.ledger, self.page.family
        if data is None or ledger is None:
            return False
        if case_id is None:
            failure = self.page.selected()
            in_doubt = [d.case_id for d in data.doubts()]
            if failure is not None and data.doubt_of(failure.case_id) is not None:
                case_id = failure.case_id
            elif in_doubt:
                case_id = in_doubt[0]
            else:
                self.page.say("No case is in doubt: K keeps the language of one that is.")
                return False
        doubt = data.doubt_of(case_id)
        if doubt is None:
            self.page.say(f"Case {case_id} is not in doubt.")
            return False
        expected = data.expected_text(case_id)
        reason = dialogs.ask_reason(
            self.page.window(),
            f"Case {case_id} keeps its language",
            f"{doubt.describe()} Keep {expected}: the Language verdicts of case {case_id} "
            f"count again, so its answers in {doubt.language} lose to those in the case's "
            "language. Why?",
            default=f"the prompt does not ask for {doubt.language}",
        )
        if reason is None:
            return False
        return self._write(
            lambda: corrections.confirm_case_language(ledger, family, case_id, reason=reason),
            f"Case {case_id} keeps its language",
        )

    def retire(self) -> bool:
        failure = self._chosen()
        if failure is None or self.page.ledger is None:
            return False
        ledger, family, case_id = self.page.ledger, self.page.family, failure.case_id
        reason = dialogs.ask_reason(
            self.page.window(),
            "Retire the case",
            f"Retire case {case_id}: all its pairs and votes "
            "leave the fit (the ledger keeps them). Why?",
        )
        if reason is None:
            return False
        return self._write(
            lambda: corrections.retire_case(ledger, family, case_id, reason=reason),
            f"Case {case_id} is retired",
        )

    def remove(self) -> bool:
        failure = self._chosen()
        if failure is None or self.page.ledger is None or self.page.data is None:
            return False
        ledger, output_id = self.page.ledger, failure.output_id
        where = self.page.data.where(output_id)
        reason = dialogs.ask_reason(
            self.page.window(),
            "Remove the output",
            f"Remove {where}: its pairs and votes leave the fit (the ledger keeps them). Why?",
        )
        if reason is None:
            return False
        return self._write(
            lambda: corrections.remove_output(ledger, output_id, reason=reason),
            f"Output {output_id[:12]} is removed",
        )

    def undo_selected(self) -> bool:
        """Undo the correction selected in the list (when it has the focus), else the
        overrule of the selected verdict."""
        item = self.page.corrections.currentItem()
        if self.page.corrections.hasFocus() and item is not None:
            return self._undo(item.data(Qt.ItemDataRole.UserRole))
        failure = self.page.selected()
        if failure is not None and failure.overruled_by is not None:
            return self._undo(failure.overruled_by)
        self.page.say(
            "Select an overruled verdict, or a correction in the list below it, to undo it."
        )
        return False

    def undo_last(self) -> bool:
        events = self.page.data.corrections() if self.page.data is not None else ()
        if not events:
            self.page.say("Nothing to undo: no correction of this family is in force.")
            return False
        return self._undo(events[0].event_id)

    def _undo(self, event_id: str) -> bool:
        if self.page.ledger is None or self.page.data is None:
            return False
        event: Event | None = next(
            (e for e in self.page.data.corrections() if e.event_id == event_id), None
        )
        if event is None:
            return False
        what = self.page.data.describe(event)
        reason = dialogs.ask_reason(
            self.page.window(),
            "Undo a correction",
            f"Undo: {what} (“{event.note}”)? A retraction is "
            "recorded; the correction stays in the ledger.",
            default=f"undo {event.kind}",
        )
        if reason is None:
            return False
        # Undoing a case's language gates its answers again (``corrections.retract``).
        return self._long(
            f"Undoing: {what}…",
            lambda own: corrections.retract(own, event_id, reason=reason),
            lambda _id: self.page.say(f"Undone: {what}."),
            gates=event.kind == "set_language",
        )
