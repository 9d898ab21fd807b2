"""File ▸ Import: which family a file goes to (an existing one, or a new one with its kind,
language and bounds), and what the import will do, shown before it is done.

The file is read once when the dialog opens (and again when its format or questions file
changes), as the import would read it: its records, systems and cases, the language its
prompts are written in (proposed for a new family), and any record it would refuse.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from arena.errors import ArenaError
from arena.intake.families import families_by_name
from arena.intake.family_settings import FamilySettings, check_settings
from arena.intake.preview import FilePreview, new_family, plan, preview_file, proposed_format
from arena.intake.readers import DEFAULT_KINDS, READERS, ReadOptions
from arena.intake.readers.fastchat import default_questions
from arena.ledger import Ledger
from arena.records import Family

KINDS = ("votes", "tests", "tests_then_votes")
MAX_BOUND = 10**9


@dataclass(frozen=True)
class ImportChoice:
    """What the rater chose: the family (``create``: a new one, with ``settings``), the
    format, and a FastChat file's questions."""

    family: str
    fmt: str
    create: bool
    settings: FamilySettings | None = None
    questions: Path | None = None


def suggested_name(path: Path, taken: set[str]) -> str:
    """A new family's name from the file: the benchmark's folder for FastChat answers."""
    stem = path.parent.parent.name if path.parent.name == "model_answer" else path.stem
    name = stem.strip() or "family"
    return name if name not in taken else f"{name}-2"


class ImportDialog(QDialog):
    def __init__(self, parent: QWidget | None, path: Path, ledger: Ledger) -> None:
        super().__init__(parent)
        self.setObjectName("import-dialog")
        self.setWindowTitle("Import outputs")
        self.setMinimumWidth(560)
        self.path = path
        self.existing: dict[str, Family] = families_by_name(ledger)
        self.preview: FilePreview | None = None
        self.problem = ""
        self._language_given = False

        self.family = QComboBox()
        self.family.setEditable(True)
        self.family.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.family.addItems(sorted(self.existing))
        self.family.setEditText(suggested_name(path, set(self.existing)))
        self.kind = QComboBox()
        self.kind.addItems(KINDS)
        self.language = QLineEdit("en")
        self.language.setPlaceholderText("a language tag: en, ja, zh-Hans, pt-BR…")
        self.min_chars = QSpinBox()
        self.min_chars.setRange(0, MAX_BOUND)
        self.min_chars.setValue(Family.min_chars)
        self.max_chars = QSpinBox()
        self.max_chars.setRange(1, MAX_BOUND)
        self.max_chars.setValue(Family.max_chars)
        self.aspect = QLineEdit()
        self.aspect.setPlaceholderText("the skill this family measures (optional)")
        self.format = QComboBox()
        self.format.addItems(list(READERS))
        self.format.setCurrentText(proposed_format(path))
        questions = default_questions(path)
        self.questions = QLineEdit(str(questions) if questions.is_file() else "")
        self.questions.setPlaceholderText("FastChat's question.jsonl")
        self.language_note = QLabel()
        self.language_note.setWordWrap(True)
        self.plan = QLabel()
        self.plan.setObjectName("import-plan")
        self.plan.setWordWrap(True)

        form = QFormLayout()
        form.addRow("File:", QLabel(path.name))
        form.addRow("&Family:", self.family)
        form.addRow("&Kind:", self.kind)
        form.addRow("&Language:", self.language)
        form.addRow("", self.language_note)
        form.addRow("&Fewest characters:", self.min_chars)
        form.addRow("&Most characters:", self.max_chars)
        form.addRow("&Aspect:", self.aspect)
        form.addRow("F&ormat:", self.format)
        form.addRow("&Questions:", self.questions)
        self.form = form
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.import_button = QPushButton("&Import")
        buttons.addButton(self.import_button, QDialogButtonBox.ButtonRole.AcceptRole)
        cancel = buttons.button(QDialogButtonBox.StandardButton.Cancel)
        if cancel is not None:
            cancel.setAutoDefault(False)
        self.import_button.setDefault(True)  # Enter imports, from any field
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.plan)
        layout.addWidget(buttons)

        self.family.editTextChanged.connect(lambda _text: self._update())
        for widget in (self.kind, self.format):
            widget.currentTextChanged.connect(lambda _text: self._update())
        self.format.currentTextChanged.connect(lambda _text: self._read())
        self.questions.editingFinished.connect(self._read)
        self.language.textEdited.connect(self._language_edited)
        for edit in (self.aspect,):
            edit.textChanged.connect(lambda _text: self._update())
        self.language.textChanged.connect(lambda _text: self._update())
        for spin in (self.min_chars, self.max_chars):
            spin.valueChanged.connect(lambda _value: self._update())
        order = (self.family, self.kind, self.language, self.min_chars, self.max_chars)
        for first, second in zip(order, (*order[1:], self.aspect), strict=True):
            QWidget.setTabOrder(first, second)
        self._read()
        self.family.setFocus()
        line = self.family.lineEdit()
        if line is not None:
            line.selectAll()
            # An editable combo box keeps Return to itself: Enter imports from here too.
            line.returnPressed.connect(self._enter)

    def _enter(self) -> None:
        if self.import_button.isEnabled():
            self.accept()

    # -- reading the file -------------------------------------------------------------

    def _language_edited(self, _text: str) -> None:
        self._language_given = True

    def _options(self) -> ReadOptions:
        text = self.questions.text().strip()
        return ReadOptions(questions=Path(text) if text else None)

    def _read(self) -> None:
        """Read the file as the chosen format; propose its language for a new family."""
        fastchat = self.format.currentText() == "fastchat"
        self.form.setRowVisible(self.questions, fastchat)
        try:
            self.preview, self.problem = (
                preview_file(self.path, self.format.currentText(), self._options()),
                "",
            )
        except (ArenaError, OSError) as exc:
            self.preview, self.problem = None, str(exc)
        preview = self.preview
        if preview is not None:
            carried = preview.family
            kind = carried.get("kind") or DEFAULT_KINDS.get(preview.fmt)
            if kind:
                self.kind.setCurrentText(kind)
            for key, spin in (("min_chars", self.min_chars), ("max_chars", self.max_chars)):
                if key in carried:
                    spin.setValue(carried[key])
            if "aspect" in carried:
                self.aspect.setText(carried["aspect"])
            language = carried.get("language") or preview.language
            if language and not self._language_given:
                self.language.setText(language)
            self.language_note.setText(
                "from the file's family settings"
                if "language" in carried
                else f"detected: {preview.language_evidence}"
                if preview.language
                else "the prompts do not say which language: check it"
            )
        self._update()

    # -- what it will do ----------------------------------------------------------------

    def chosen_name(self) -> str:
        return self.family.currentText().strip()

    def settings(self) -> FamilySettings:
        return FamilySettings(
            kind=self.kind.currentText(),
            language=self.language.text().strip() or None,
            min_chars=self.min_chars.value(),
            max_chars=self.max_chars.value(),
            aspect=self.aspect.text().strip(),
        )

    def _update(self) -> None:
        name = self.chosen_name()
        existing = self.existing.get(name)
        for widget in (self.kind, self.language, self.min_chars, self.max_chars, self.aspect):
            widget.setEnabled(existing is None)
        text, ok = self._plan(name, existing)
        self.plan.setText(text)
        self.plan.setProperty("problem", not ok)
        self.import_button.setEnabled(ok)

    def _plan(self, name: str, existing: Family | None) -> tuple[str, bool]:
        if self.preview is None:
            return f"Cannot import this file: {self.problem}", False
        if not name:
            return "Name the family to import into.", False
        if existing is not None:
            return plan(self.preview, existing, new=False), True
        settings = self.settings()
        try:
            check_settings(settings.given(), prefix="")
        except ArenaError as exc:
            return f"Cannot create the family: {exc}", False
        carried = self.preview.family.get("name")
        if carried and carried != name:
            return f"The file's records are for family {carried!r}, not {name!r}.", False
        return plan(self.preview, new_family(self.preview, name, settings), new=True), True

    def choice(self) -> ImportChoice:
        name = self.chosen_name()
        new = name not in self.existing
        questions = self._options().questions
        return ImportChoice(
            family=name,
            fmt=self.format.currentText(),
            create=new,
            settings=self.settings() if new else None,
            questions=questions if self.format.currentText() == "fastchat" else None,
        )


def ask_import(parent: QWidget | None, path: Path, ledger: Ledger) -> ImportChoice | None:
    """Ask where ``path`` goes and show what importing it will do; None when cancelled.
    Tests replace this function."""
    dialog = ImportDialog(parent, path, ledger)
    return dialog.choice() if dialog.exec() else None
