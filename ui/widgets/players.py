"""The players: money, properties grouped by colour, jail cards, who is in jail or out.

niente-e-come-sembra adds (protocol.md §E8): the magnifier tokens of every player
(● green, ● red), our own bills by denomination with the ones we know are fake marked ✗ (from
our private view, protocol.md §C12.7; the others' money is shown as a total only), our kept cards
and the others' card count, and the three face-up Imprevisti."""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from engine import observation as obs
from ui.board_layout import GROUP_COLOURS, SEAT_COLOURS, building_mark, short_name
from ui.i18n import _, format_money
from ui.narrate import card_title

#: Width from which each colour group gets its own line with the street names.
WIDE = 30


def holdings(state: Any, seat: int) -> list[tuple[int, list[int]]]:
    """``seat``'s properties grouped: [(group index, squares)] in board order of the groups;
    stations are group -2, utilities -3 (after the colours)."""
    ed = state.ed
    out: list[tuple[int, list[int]]] = []
    for g, members in enumerate(ed.groups):
        mine = [sq for sq in members if state.owner[sq] == seat]
        if mine:
            out.append((g, mine))
    for g, kind in ((-2, 2), (-3, 3)):
        mine = [sq for sq in state.tb.properties if state.tb.kind[sq] == kind and state.owner[sq] == seat]
        if mine:
            out.append((g, mine))
    return out


def bill_groups(state: Any, seat: int, view: dict) -> list[tuple[int, int, bool]]:
    """``seat``'s bills as [(denomination, count, fake)], largest first, the fake ones (known
    from ``view`` or made public by an inspection) in their own entry after the others of the
    same denomination. Empty outside niente-e-come-sembra."""
    if not obs.has_hidden(state):
        return []
    out = []
    for den, bills in obs.private_view(state, seat, view).by_denomination():
        fakes = sum(b.status == "fake" for b in bills)
        out += [(den, k, fake) for k, fake in ((len(bills) - fakes, False), (fakes, True)) if k]
    return out


def card_known_fake(state: Any, card: int, view: dict) -> bool | None:
    """True/False when the Imprevisti ``card``'s status is known to us (public, its twin's
    public status — one card of each pair is fake — or our view), else None."""
    return obs.card_status(state, card, view)


def seat_change_mark(change: str) -> str:
    """The players panel's mark for a seat its person no longer plays (ui.play.SeatChanged)."""
    return {"bot": _("disconnected, a bot plays"), "bankrupt": _("disconnected"),
            "lost": _("dropped: you are watching"), "silent": _("not heard from")}.get(change, change)


class PlayersPanel(Widget):
    """One block per seat: token, name, cash, jail, jail cards, properties by colour.

    ``state``: engine State; ``names``: seat order; ``me``: our seat (marked "you").
    Narrow: one line per player with a coloured block per property; wide: a line per group
    with the street names (× mortgaged, 1-4 houses, H hotel).
    """

    state: reactive[Any] = reactive(None, always_update=True)
    names: reactive[tuple] = reactive(())
    me: reactive[int] = reactive(-1)
    #: Seats no longer played by their person (``driver.seat_changes``): seat -> "bot" |
    #: "bankrupt" | "lost".
    changes: reactive[dict] = reactive(dict, always_update=True)
    #: Our private view ``{("bill", id) | ("card", index): fake}`` (driver.private_view()).
    view: reactive[dict] = reactive(dict, always_update=True)

    def render(self) -> Text:
        """One block per seat: money, holdings and (niente) what our seat knows; compact when the
        height is short."""
        s = self.state
        out = Text()
        if s is None:
            return out
        extra = self._niente_lines(s)
        need = s.n + sum(len(holdings(s, i)) for i in range(s.n) if not s.out[i]) + len(extra) + 5 * obs.has_hidden(s)
        wide = self.size.width >= WIDE and need <= self.size.height
        for seat in range(s.n):
            if seat:
                out.append("\n")
            out.append_text(self._player(s, seat, wide))
            if seat == self.me and not s.out[seat]:
                for line in extra:
                    out.append("\n    ")
                    out.append_text(line)
        if obs.has_hidden(s):
            out.append("\n")
            out.append_text(self._faceup(s))
            legend = Text(_("Magnifiers: "), Style(dim=True))
            legend.append("●", Style(color="green"))
            legend.append(" " + _("can inspect a bill or a card") + " · ", Style(dim=True))
            legend.append("●", Style(color="red"))
            legend.append(" " + _("used (green again on GO)"), Style(dim=True))
            if legend.cell_len > self.size.width:  # 80 columns cut it: the short form
                legend = Text(_("Magnifiers: "), Style(dim=True))
                legend.append("●", Style(color="green"))
                legend.append(" " + _("left") + " · ", Style(dim=True))
                legend.append("●", Style(color="red"))
                legend.append(" " + _("used") + " (?)", Style(dim=True))
            out.append("\n")
            out.append_text(legend)
        return out

    def _niente_lines(self, s: Any) -> list[Text]:
        """Our bills and our kept cards (niente-e-come-sembra), one line each."""
        if not obs.has_hidden(s) or not 0 <= self.me < s.n:
            return []
        view = self.view or {}
        bills = Text(_("bills: "))
        room, used = (self.size.width or 80) - 4, len(bills.plain)  # the caller indents by 4
        for i, (den, count, fake) in enumerate(bill_groups(s, self.me, view)):
            label = format_money(den) + (f"×{count}" if count > 1 else "")
            if i and used + 1 + len(label) + fake > room:  # wrap under the first bill, not at column 0
                bills.append("\n    " + " " * len(_("bills: ")))
                used = len(_("bills: "))
            elif i:
                bills.append(" ")
                used += 1
            used += len(label) + fake
            bills.append(label + "✗" if fake else label, Style(color="red", bold=True) if fake else Style())
        lines = [bills]
        kept = obs.kept_cards(s, self.me)
        if kept:
            t = Text(_("cards: "))
            for i, key in enumerate(kept):
                if i:
                    t.append(", ")
                deck, card = key >> 8, key & 255
                fake = card_known_fake(s, card, view) if deck == 1 else False
                t.append(card_title(s.ed, deck, card, 32) + (" ✗" if fake else ""),
                         Style(color="red") if fake else Style(color="cyan"))
            lines.append(t)
        return lines

    def _faceup(self, s: Any) -> Text:
        """The face-up Imprevisti ("prendete una qualsiasi delle carte"), ✗ when known fake."""
        t = Text(_("Face-up Chance cards: "), Style(bold=True))
        cards = [c for c in obs.faceup_cards(s) if c >= 0]
        view = self.view or {}
        titles = [card_title(s.ed, 1, c) + (" ✗" if card_known_fake(s, c, view) else "") for c in cards]
        # One line when the whole titles fit, else one card per line (a narrow side panel).
        one_line = len(t.plain) + sum(len(x) + 3 for x in titles) <= self.size.width
        for i, (card, title) in enumerate(zip(cards, titles)):
            if one_line and i:
                t.append(" · ")
            elif not one_line:
                t.append("\n    ")
                title = title if len(title) <= self.size.width - 4 else title[:max(self.size.width - 5, 4)] + "…"
            fake = card_known_fake(s, card, view)
            t.append(title, Style(color="red") if fake else Style(color="yellow"))
        if not cards:
            t.append(_("none"))
        return t

    def _player(self, s: Any, seat: int, wide: bool) -> Text:
        t = Text()
        t.append(f" {seat + 1} ", Style(color="black", bgcolor=SEAT_COLOURS[seat], bold=True))
        name = self.names[seat] if seat < len(self.names) else "?"
        if seat == self.me:
            name += " " + _("(you)")
        t.append(" " + name, Style(bold=seat == s.current, strike=bool(s.out[seat])))
        change = (self.changes or {}).get(seat)
        if change is not None:
            t.append("  " + seat_change_mark(change), Style(color="yellow", bold=True))
        if s.out[seat]:
            t.append("  " + _("bankrupt"), Style(color="red"))
            return t
        t.append("  " + format_money(s.cash[seat]), Style(color="green", bold=True))
        if obs.has_hidden(s):
            green = obs.green_lenses(s, seat)
            t.append(" " + "●" * green, Style(color="green"))
            t.append("●" * max(s.ed.decoder.magnifiers - green, 0), Style(color="red"))
            kept = obs.kept_cards(s, seat)
            if seat != self.me and kept:
                t.append("  " + _("cards: {n}").format(n=len(kept)), Style(color="cyan"))
        if s.jail[seat]:
            t.append("  " + _("in jail"), Style(color="red", bold=True))
        cards = len(s.held[seat])
        if cards:
            t.append("  " + _("jail cards: {n}").format(n=cards), Style(color="cyan"))
        groups = holdings(s, seat)
        if not wide:
            t.append("  ")
            for g, squares in groups:
                for sq in squares:
                    t.append_text(self._chip(s, g, sq))
                t.append(" ")
            return t
        for g, squares in groups:
            t.append("\n    ")
            if g >= 0:
                t.append("██ ", Style(color=GROUP_COLOURS[g]))
            else:
                t.append("   ")
            t.append(self._group_line(s, squares))
        return t

    def _group_line(self, s: Any, squares: Any) -> str:
        """One colour group's properties, with their building marks, on one line of the panel:
        names of up to 16 characters, shorter ones (12, 9, 7) when the line would wrap (it wrapped
        without its indent at 160x50: "Via Marco Polo, Corso Magellano, Largo" / "Colombo")."""
        room = (self.size.width or 40) - 7  # after the indent and the colour bar ("    ██ ")

        def label(sq: int, width: int) -> str:
            mark = building_mark(s.level[sq], bool(s.mort[sq]))
            return short_name(s.ed.squares[sq].name, width) + ("" if mark == " " else " " + mark)

        line = ""
        for width in (16, 12, 9, 7):
            line = ", ".join(label(sq, width) for sq in squares)
            if len(line) <= room:
                break
        return line

    @staticmethod
    def _chip(s: Any, g: int, sq: int) -> Text:
        mark = building_mark(s.level[sq], bool(s.mort[sq]))
        if g >= 0:
            style = Style(color=GROUP_COLOURS[g], dim=bool(s.mort[sq]))
            return Text(mark if mark != " " else "■", style + Style(bold=True) if mark != " " else style)
        return Text("S" if g == -2 else "U", Style(dim=bool(s.mort[sq]), bold=True))


__all__ = ["PlayersPanel", "seat_change_mark", "holdings", "bill_groups", "card_known_fake"]
