"""The drop and skip lines of a watched game (protocol.md §N10, §C8.4, §C8.10).

A spectator sees what the players see when a seat is dropped (the others vote it out: a bot or a
bankrupt seat, as the setup's ``p2p.on_drop`` rule says) or a turn is skipped by a majority: a log
line, and for a drop a mark on the players panel. Its only source is the DROP and SKIP records of
its private copy of the log (§C6) once they verified. ``DropLines`` keeps how far the copy was
read and which changes were shown, so that each is shown once, whichever seat served it (a
spectator that moves to another seat gets the same records again from that seat's log).
``ui.watch.WatchDriver`` owns one and applies what it returns.
"""

from __future__ import annotations

from typing import Any

from ui.driver import SeatChanged


class DropLines:
    """How far a spectator's copy was read for DROP and SKIP records (``seen``: records looked at;
    the header is record 0) and the changes shown, as (step, seat, change) with ``change`` one of
    "bot", "bankrupt", "skipped" (the ``ui.driver.SeatChanged`` values)."""

    def __init__(self) -> None:
        self.seen = 1
        self._shown: set[tuple[int, int, str]] = set()  # once, whoever serves

    def cut(self, records: int) -> None:
        """The copy was cut back to ``records`` records (a switch to another seat): read again
        from there; what was shown stays shown."""
        self.seen = min(self.seen, records)

    def new(self, records: list[tuple[int, bytes]], written: int, report: Any) -> list[SeatChanged]:
        """The ``ui.driver.SeatChanged`` events not shown yet for the DROP and SKIP records among
        ``records[seen:written]`` (``records``: the copy's (kind, payload) records, header first;
        ``report``: ``p2p.verify.verify_log``'s report of the copy), in log order. A record at or
        after the first step that did not verify, or one that does not parse, is neither shown nor
        passed over: reading stops there (the check named it, or will). Each is decoded with the
        log's tables (§C6), as verify reads them; a drop's change is the setup's ``p2p.on_drop``
        rule (§C8.4: "bot" unless "bankrupt"), a skip's is "skipped" (§C8.10)."""
        from p2p.errors import WireError
        from p2p.gamelog import DROP_RECORD, KIND_DROP, KIND_SKIP, SKIP_RECORD
        from p2p.log_checks import BadLog, parse_header

        out: list[SeatChanged] = []
        for i in range(self.seen, written):
            kind, payload = records[i]
            if kind not in (KIND_DROP, KIND_SKIP):
                continue
            try:
                step, seat = (DROP_RECORD if kind == KIND_DROP else SKIP_RECORD).decode(payload)[:2]
            except WireError:
                return out  # malformed: the check found it bad (or will), so neither shown nor skipped
            if not report.ok and (report.first_bad_step is None or step >= report.first_bad_step):
                return out  # not verified: neither shown nor skipped
            if kind == KIND_SKIP:
                change = "skipped"
            else:
                try:
                    rule = parse_header(records[0][1])[0].options_dict().get("p2p.on_drop", "bot")
                except BadLog:
                    rule = "bot"
                change = "bankrupt" if rule == "bankrupt" else "bot"
            if (step, seat, change) not in self._shown:  # the next server logged it too
                self._shown.add((step, seat, change))
                out.append(SeatChanged(seat, step, change))
            self.seen = i + 1
        self.seen = written
        return out


__all__ = ["DropLines"]
