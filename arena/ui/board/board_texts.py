"""The text around a board's table: title, subtitle, banner, notes and status line, of
the round shown or of the preview (``BoardTexts`` is mixed into ``BoardPage``)."""

from __future__ import annotations

from arena.graded.board_rows import RANK_RULE, shared_rank_lines
from arena.rounds.anchor_words import anchor_why, unranked_entry, why_unranked
from arena.rounds.board_vocabulary import FAR_BEHIND, WIDE_MARK, preliminary_rule
from arena.rounds.closing import TESTED
from arena.rounds.model import Round
from arena.rounds.preview import NOT_A_ROUND, Preview
from arena.ui.board.board_export import BoardText
from arena.ui.board.board_model import BoardModel


def when(closed_at: str) -> str:
    """``2026-11-01T10:00:00.000+00:00`` as ``2026-11-01 10:00 UTC`` (rounds close in UTC)."""
    return closed_at[:16].replace("T", " ") + " UTC"


def when_fitted(preview: Preview) -> str:
    """``fitted 10:00:05 UTC in 0.2 s``."""
    return f"fitted {preview.fitted_at[11:19]} UTC in {preview.seconds:.1f} s"


class BoardTexts:
    """What the page shows, in words; the page holds the state read here."""

    family: str
    kind: str
    model: BoardModel
    found: Round | None
    preview: Preview | None
    previewing: bool
    preview_problem: str

    @property
    def shown(self) -> Round | Preview | None:
        """What the board shows: the preview, or the round chosen."""
        return self.preview if self.previewing else self.found

    def _banner_text(self) -> str:
        if not self.previewing:
            return ""
        text = f"{NOT_A_ROUND[0].upper()}{NOT_A_ROUND[1:]}: "
        if self.preview is None:
            text += "the votes so far are being fitted. "
        else:
            text += (
                f"the fit of the {self.preview.votes:,} votes so far "
                f"({when_fitted(self.preview)}), refitted as you vote. "
            )
        text += "It is never stored or exported: Close round… fits and stores a round."
        if self.preview_problem:
            text += f" The last refit failed: {self.preview_problem}"
        return text

    def _unranked_text(self) -> str:
        lines = [f"{r.label} — {why_unranked(r.status)}" for r in self.model.unranked]
        where = "in this preview" if self.previewing else "this round"
        return f"Not ranked {where}:\n" + "\n".join(lines)

    def _notes(self) -> list[str]:
        rows = self.model.rows
        notes = []
        anchor, shown = self.model.anchor, self.shown
        if anchor is not None and anchor.label and shown is not None:
            why = anchor_why(anchor.reason, anchor.fallback)
            notes.append(
                f"Points are relative to {anchor.label} = "
                f"{shown.settings.base:g} ({why}); 400 points apart ≈ "
                "10 : 1 odds of winning."
            )
        if any(self.model.preliminary(r) for r in rows):
            notes.append(f"Preliminary: {preliminary_rule(self.model.threshold)}.")
        if (sure := self.model.uncertainty) is not None and self.model.kind != "graded":
            if not sure.available:
                notes.append(f"Uncertainty unavailable: {sure.reason}.")
            elif self.previewing:
                notes.append(
                    "Intervals at close: the preview skips the bootstrap of the cases; a "
                    "round closed on these votes shows 95% whiskers (boards like this one "
                    "were checked in simulation)."
                )
            else:
                notes.append(
                    "Whiskers: 95% intervals (a bootstrap of the cases, checked in "
                    "simulation for boards like this one)."
                )
        if any(r.far_behind for r in rows):
            notes.append(f"Far behind: {FAR_BEHIND}, left of the axis.")
        if self.model.category is not None:
            notes.append(
                f"{WIDE_MARK}: a family-wide value, the same in every category view (not refitted)."
            )
            if self.model.kind != "tests":
                notes.append(
                    "Votes and Both bad without the mark: this category's own votes, which "
                    "its points and preliminary marks rest on (a dash: not recorded in "
                    "rounds closed before they were)."
                )
        if self.model.kind == "graded" and any(r.ci_method for r in rows):
            notes.append(RANK_RULE[0].upper() + RANK_RULE[1:] + ".")
            notes += shared_rank_lines([r.to_json() for r in rows])
        return notes + self._tested_notes()

    def _tested_notes(self) -> list[str]:
        """A tested board: which time is which, and systems that do not share one agent."""
        if self.shown is None or self.kind not in TESTED:
            return []
        notes = [
            "Agent p50 and Cost / solution: the agent's whole run on a task, as imported "
            "with each solution; Test run p50: Arena's run of the hidden tests."
        ]
        if self.found is None or self.previewing:
            return notes
        record = self.found.settings_record
        if record is not None and record.agents is not None and record.agents.reported:
            notes.append(record.agents.warning(self.family) + ".")
        return notes

    def board_text(self, *, for_image: bool = False) -> BoardText:
        """Title, subtitle and notes of the board shown (an image adds the unranked list)."""
        title = f"{self.family} — leaderboard"
        if self.previewing:
            title = f"{self.family} — {NOT_A_ROUND}"
        shown = self.shown
        if shown is None:
            return BoardText(
                title, "Fitting the votes so far…" if self.previewing else "No round closed yet", []
            )
        settings = shown.settings
        weighting: str = settings.weighting
        if settings.cap is not None and weighting == "ledger":
            weighting += f" (cap {settings.cap:g})"
        if isinstance(shown, Preview):
            subtitle = (
                f"The fit of {shown.votes:,} votes so far, {when_fitted(shown)} · stored "
                "nowhere · gates as last read"
            )
        else:
            subtitle = f"Round {shown.round_id[:12]}, closed {when(shown.closed_at)}"
        if self.model.kind == "graded":
            subtitle += f" · graded · bootstrap seed {settings.seed}"
        else:
            subtitle += (
                f" · {weighting} weighting, penalty λ {settings.penalty:g}, "
                f"threshold {settings.threshold:g}"
            )
        if self.model.category is not None:
            title += f" · category {self.model.category}"
            subtitle += " · refitted on this category's comparisons"
        if isinstance(shown, Round) and shown.pooled:
            title += " · pooled with judges " + ", ".join(shown.pooled)
            subtitle += " · the rater's votes fitted with these judges' verdicts"
        notes = self._notes()
        if for_image and self.model.unranked:
            notes.append(
                "Not ranked: "
                + "; ".join(unranked_entry(r.label, r.status) for r in self.model.unranked)
            )
        return BoardText(title, subtitle, notes)

    def status_text(self) -> str:
        if self.previewing:
            votes = f"{self.preview.votes:,} votes · " if self.preview is not None else ""
            return (
                f"{self.family} · {NOT_A_ROUND} · {votes}"
                f"{len(self.model.rows)} ranked, {len(self.model.unranked)} not ranked"
            )
        if self.found is None:
            return f"{self.family}: no round yet"
        return (
            f"{self.family} · round {self.found.round_id[:12]} · "
            f"{len(self.model.rows)} ranked, {len(self.model.unranked)} not ranked"
        )
