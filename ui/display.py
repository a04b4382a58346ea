"""What the command line shows: the demo's live line and result (verify's summary: ui/verify_text.py).

The live line goes to stderr (rich redraws it in a terminal, prints nothing when stderr is not
one); results go to stdout so that scripts can read them. Player-facing text is translated with
``ui.i18n._``; the line ``final state hash: <hex>`` is a fixed machine-readable contract and is
never translated.
"""

from __future__ import annotations


import sys
import time
from typing import TYPE_CHECKING, Any

from ui.errors import EXIT_FAILED, EXIT_OK
from ui.i18n import _, format_money, format_seconds, ngettext

if TYPE_CHECKING:  # annotations only: a headless peer (ui.peer) imports this module, never ui.demo
    from rich.console import Console

    from ui.demo import DemoOptions, DemoOutcome, PeerStatus



def final_hash_line(hex_hash: str, out: Any = None) -> str:
    """The result line with the final state hash. Written to a pipe or a file (``out`` not a
    terminal, or None) it is the machine-readable ``final state hash: <hex>``, identical in
    every language (scripts and tests parse it, protocol.md part L); shown to a person in a
    terminal it is in the current language."""
    if out is not None and getattr(out, "isatty", lambda: False)():
        return _("final state hash: {hex}").format(hex=hex_hash)
    return f"final state hash: {hex_hash}"


def table_code_line(code: str) -> str:
    """The line that shows a game's table code (``p2p.table_code``, protocol.md §C2.4) with what
    to do with it, in the current language: players compare it out loud, as a host's name can
    be worn by anyone (a host may seat each player at its own table under one game id)."""
    return _("Table code: {code} — read it out loud: whoever sees another code is at another table.").format(
        code=code)


def seat_number(seat: Any) -> Any:
    """A seat as people count it: from 1, as on the game screen (the engine, the logs and the
    JSON outputs count from 0). Anything but an int is returned as it is ("?")."""
    return seat + 1 if isinstance(seat, int) and not isinstance(seat, bool) else seat


def fault_sentence(code: str) -> str:
    """Why a game stopped, in plain words of the current language, for a NodeError code
    (ui.play.Fault codes; protocol.md part L error codes)."""
    return {
        "desync": _("A player's program computed a different game state: the game cannot go on."),
        "equivocation": _("A player sent two different signed moves for the same step: that is cheating."),
        "cheat": _("A player broke the rules of the protocol (a dice reveal that does not check out): that is cheating."),
        "stalled": _("A player stopped answering: the game cannot go on."),
        "lobby": _("The game could not start."),
        "not_found": _("The game was not found on the network."),
        "timeout": _("The game took too long."),
        "beacon": _("The dice supply ran out."),
        "log": _("The game log cannot be written."),
        "start": _("The game could not start."),
        "local_input": _("The player's input failed."),
    }.get(code, _("The game stopped because of an error."))


def fault_hint(code: str, message: str) -> str | None:
    """What the player can do about a fault, in the current language, when there is something:
    the host runs with our own player key (``p2p.admission.SAME_KEY``: a host and a joiner on one
    computer, both with the default key directory) -> give this player a ``--config-dir`` of its
    own; the host's side of it (``code`` "same_key", ``message`` the joiner's "address:port") -> the same
    advice for that player; no answer from the host (``p2p.lobby.NO_ANSWER``: wrong address or port, a
    mistyped code, a host gone) -> check the join code and that the game still waits. None otherwise.
    ``code``, ``message``: the NodeError's (``ui.driver.Fault``'s)."""
    from p2p.admission import SAME_KEY  # here: a headless peer imports this module early
    from p2p.lobby import NO_ANSWER

    if code == "lobby" and message == SAME_KEY:
        return _("The host uses your own player key: on one computer every player needs a directory "
                 "of keys of its own. Start this player with --config-dir (for example --config-dir ./player2).")
    if code == "same_key":  # host side (progress line ``same_key``): the joiner's own hint, from our end
        return _("A player at {address} tried to join with your own player key: on one computer every player "
                 "needs a directory of keys of its own. Start that player with --config-dir (for example "
                 "--config-dir ./player2).").format(address=message)
    if code == "lobby" and message == NO_ANSWER:  # a mistyped join code ends here too (after JOIN_TIMEOUT)
        return _("The host did not answer: check the join code if you used one (address, port and the ten "
                 "characters) and that the game is still waiting for players on the same network.")
    return None


def event_name(kind: str) -> str:
    """An engine event type (engine/events.py, engine/rules/niente_events.py) in plain words
    of the current language, for ``verify``'s counts; an unknown type is kept as it is."""
    return {
        "ActionRefused": _("refused moves"), "AuctionEnded": _("auctions closed"),
        "AuctionStarted": _("auctions opened"), "BidPassed": _("auction exits"), "BidPlaced": _("bids"),
        "BidOffered": _("bids beaten or tied"), "AuctionTied": _("auction ties"),
        "AuctionTieRolled": _("tie-break rolls"),
        "BuildingBought": _("buildings bought"), "BuildingSold": _("buildings sold"),
        "CardChoiceOffered": _("card choices"), "CardDrawn": _("cards drawn"), "ContractDealt": _("deeds dealt"),
        "DebtOpened": _("debts"), "DiceRolled": _("dice rolls"), "FirstPlayerRolled": _("first-player rolls"),
        "GameWon": _("wins"), "JailCardUsed": _("jail cards used"), "LeftJail": _("jail exits"),
        "MoneyPaid": _("payments"), "MortgageLifted": _("mortgages lifted"), "Moved": _("moves"),
        "PropertyBought": _("properties bought"), "PropertyMortgaged": _("mortgages"),
        "PropertyTransferred": _("properties passed on"), "RentDue": _("rents due"), "RentLapsed": _("rents lapsed"),
        "SentToJail": _("sent to jail"), "TimeExpired": _("time up"), "TimeVoted": _("time-up votes"),
        "TradeClosed": _("trades closed"), "TradeProposed": _("trades proposed"), "TurnStarted": _("turns"),
        "WentBankrupt": _("bankruptcies"), "BillInspected": _("bills inspected"), "BillsMoved": _("bills moved"),
        "CardInspected": _("cards inspected"), "CardKept": _("cards kept"), "CardPlayed": _("cards used"),
        "CardReturned": _("cards returned"), "FaceUpDealt": _("face-up cards dealt"),
        "FaceUpTaken": _("face-up cards taken"), "FinalRentPaid": _("final rents"),
        "InspectionOpened": _("inspection windows"), "LensesRestored": _("magnifiers restored"),
        "PropertySoldToBank": _("properties sold to the bank"),
    }.get(kind, kind)


def progress_text(peers: list[PeerStatus], total: int) -> str:
    """One line describing the demo's progress, from the children's latest reports.

    Before the game: how many peers have found all the others. During it: the most advanced
    peer's step, turn, seat to move and leader. After: how many peers have finished.
    """
    done = sum(p.done is not None for p in peers)
    if done:
        return _("{done}/{total} peers finished").format(done=done, total=total)
    reports = [p.progress for p in peers if p.progress is not None]
    if not reports:
        found = sum(p.found is not None for p in peers)
        return _("looking for the other peers: {found}/{total} ready").format(found=found, total=total)
    line = progress_line(max(reports, key=lambda r: r.get("step", 0)))
    waiting = [p.waiting for p in peers if p.waiting is not None]
    if waiting:
        line += " · " + resilience_line(waiting[-1])
    return line


def progress_line(msg: dict[str, Any]) -> str:
    """One translated line from a ``progress`` dict (step, turn, seat to move, leader, and the
    leader's cash when the line carries ``cash``, a list of euro per seat)."""
    line = _("step {step} · turn {turn} · to move: seat {current} · leader: seat {leader}").format(
        step=msg.get("step", "?"), turn=msg.get("turn", "?"), current=seat_number(msg.get("current", "?")),
        leader=seat_number(msg.get("leader", "?")))
    cash, leader = msg.get("cash"), msg.get("leader")
    if isinstance(cash, list) and isinstance(leader, int) and 0 <= leader < len(cash) and isinstance(cash[leader], int):
        line += " " + _("(cash {money})").format(money=format_money(cash[leader]))
    return line


def seats_text(msg: dict[str, Any]) -> str:
    """The seats of a progress line (``msg``'s ``seats``, with its ``names`` when there is one
    per seat), as people count them: "Anna (seat 2), Bruno (seat 3)"."""
    seats = msg.get("seats") or []
    names = msg.get("names") or []
    if len(names) == len(seats):
        return ", ".join(_("{name} (seat {seat})").format(name=n, seat=seat_number(s)) for n, s in zip(names, seats))
    return ", ".join(_("seat {seat}").format(seat=seat_number(s)) for s in seats)


def _secs(value: Any) -> str:
    """Seconds of a progress line in the user's language ("1,3" in Italian: a dot would read as
    the thousands separator of the money, "€1.500"); "?" when the line has none."""
    return "?" if value is None else format_seconds(value)


def resilience_line(msg: dict[str, Any]) -> str:
    """One translated line for a ``waiting``, ``resumed``, ``drop_vote``, ``seat_dropped``,
    ``caught_up``, ``seat_lost``, ``step_overturned`` or ``cheater`` progress dict (protocol.md
    part L)."""
    kind = msg.get("type")
    if kind == "waiting" and msg.get("paused"):
        # No majority can drop them (protocol.md §C8.3): the game waits for them to come back.
        line = _("step {step}: waiting for {seats} to reconnect ({waited} s)").format(
            step=msg.get("step"), seats=seats_text(msg), waited=_secs(msg.get("waited_s")))
        if msg.get("abandon_s") is not None:
            line += " " + _("· the game ends as abandoned in {seconds} s").format(seconds=_secs(msg["abandon_s"]))
        return line
    if kind == "cheater":
        return _("step {step}: {seats} cheated ({reason}) and is voted out").format(
            step=msg.get("step"), seats=seats_text({"seats": [msg.get("seat")]}), reason=msg.get("reason"))
    if kind == "waiting":
        line = _("step {step}: waiting for {seats} ({waited} s)").format(
            step=msg.get("step"), seats=seats_text(msg), waited=_secs(msg.get("waited_s")))
        if msg.get("deadline_s") is not None:
            line += " " + _("· dropped in {seconds} s if still silent").format(seconds=_secs(msg["deadline_s"]))
        return line
    if kind == "resumed":
        dmg = msg.get("damage")
        line = _("Resumed from the log at step {step}.").format(step=msg.get("step"))
        if dmg:
            line += " " + _("The log was damaged at step {step} (byte {offset}): {reason}; "
                            "the rest comes from the other peers.").format(
                step=dmg.get("step"), offset=dmg.get("offset"), reason=dmg.get("reason"))
        if msg.get("table_code"):
            line += "\n" + table_code_line(msg["table_code"])
        return line
    if kind == "drop_vote":
        return _("step {step}: voted to drop seat {seat}, silent too long").format(
            step=msg.get("step"), seat=seat_number(msg.get("seat")))
    if kind == "seat_dropped":
        rule = _("a bot plays it") if msg.get("rule") == "bot" else _("it goes bankrupt")
        return _("step {step}: seat {seat} left the game; {rule}").format(
            step=msg.get("step"), seat=seat_number(msg.get("seat")), rule=rule)
    if kind == "caught_up":
        return _("caught up from step {start} to step {end} (from seat {seat})").format(
            start=msg.get("from_step"), end=msg.get("to_step"), seat=seat_number(msg.get("source")))
    if kind == "seat_lost":
        return _("step {step}: the others dropped our seat; following the game as a spectator").format(step=msg.get("step"))
    if kind == "step_overturned":
        # protocol.md §C8.3: a quorum dropped a seat whose message we had applied: roll back.
        return _("step {step}: the others dropped {seats} there; replaying from that step").format(
            step=msg.get("step"), seats=seats_text({"seats": [msg.get("seat")]}))
    return str(msg)


def winner_text(seat: int | None, name: str | None) -> str:
    """"bot-1 (seat 1)", "seat 1" without a name, "nobody" without a winner (translated); ``seat``
    counts from 0 and is shown from 1 (``seat_number``)."""
    if seat is None:
        return _("nobody")
    if name:
        return _("{name} (seat {seat})").format(name=name, seat=seat_number(seat))
    return _("seat {seat}").format(seat=seat_number(seat))


#: Seconds between two plain progress lines when stderr is not a terminal (CI, a piped log).
PLAIN_PROGRESS_INTERVAL_S = 5.0


class DemoDisplay:
    """Context manager showing the demo's progress on stderr; ``update(peers)`` refreshes it.

    In a terminal, one live line redrawn in place (rich). Otherwise (CI, ``2> file``) rich
    would print nothing, so a plain line (``progress_text``) is written at the first update
    and then at most every ``interval`` seconds when it changed (``clock``: a monotonic clock
    in seconds, replaceable in tests).
    """

    def __init__(self, total: int, console: Console | None = None, *,
                 interval: float = PLAIN_PROGRESS_INTERVAL_S, clock=None) -> None:
        # rich is imported here, not at module level: a headless peer (host/join, which use this
        # module's text helpers) never draws a live line and saves rich's ~1.8 MB (issue 14 RSS row).
        from rich.console import Console
        from rich.live import Live
        from rich.spinner import Spinner

        self.total = total
        self.console = console or Console(stderr=True)
        self.plain = not self.console.is_terminal
        self.interval = interval
        self._clock = clock or time.monotonic
        self._next_plain: float | None = None
        self._last_plain = ""
        self._spinner = Spinner("dots", text=_("starting the peers"))
        self._live = None if self.plain else Live(self._spinner, console=self.console, refresh_per_second=8,
                                                  transient=True)

    def __enter__(self) -> "DemoDisplay":
        if self._live is not None:
            self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.__exit__(*exc)

    def update(self, peers: list[PeerStatus]) -> None:
        """Refresh from the children's latest reports (called by ``ui.demo.run_demo``)."""
        text = progress_text(peers, self.total)
        if not self.plain:
            self._spinner.update(text=text)
            return
        now = self._clock()
        due = self._next_plain is None or now >= self._next_plain
        if due and text != self._last_plain:
            self._next_plain = now + self.interval
            self._last_plain = text
            print(text, file=self.console.file, flush=True)


def abandoned_text(abandoned: dict, names: tuple, me: int = -1) -> str:
    """The line of a game that ended as abandoned (``PeerResult.abandoned``: {"seat": who signed
    ABANDON, "step"}, protocol.md §C8.7): "The game was abandoned at step N by X (seat S): no
    winner", the sentence ``lanopoli host``/``join`` print (ui.peer.print_result) and the end screen
    shows. When the signer is our own seat ``me``, our program did it (the node abandons after its
    stall limit while no quorum can vote the silent seats out, §N5): the line says so instead of
    naming us as if the player had left (session 11's walk: "abandoned ... by Bruno" on Bruno's
    screen after the host and its bots quit). A held turn's ``reason`` (§C8.3: a seat held its
    turn past ``ABANDON_STEPS_PER_TURN`` where nobody could be voted out) names that seat."""
    seat = abandoned["seat"]
    from p2p.session_turn_clock import held_seat_of  # here: a headless peer imports this module early

    held = held_seat_of(abandoned.get("reason", ""))
    if held is not None:  # our program (or another's) ended it: a seat held its turn (§C8.3)
        s, bound = held
        return _("The game was abandoned at step {step}: {who} held its turn over {bound} steps where nobody "
                 "could vote it out. No winner.").format(
            step=abandoned["step"], who=winner_text(s, names[s] if 0 <= s < len(names) else None), bound=bound)
    if seat == me:
        return _("The game was abandoned at step {step}: the other players stopped answering and too few "
                 "were left to go on without them, so your program stopped waiting. No winner.").format(
            step=abandoned["step"])
    who = winner_text(seat, names[seat] if 0 <= seat < len(names) else None)
    return _("The game was abandoned at step {step} by {who}: no winner.").format(step=abandoned["step"], who=who)


def seats_error(edition: str, ed, seats: int) -> str | None:
    """The message for ``seats`` players outside edition ``ed``'s range (``ed.min_players`` ..
    ``ed.max_players``), translated (the engine's own is English), or None when it fits: the
    CLI's and the create dialog's check (rulebook of each edition, ``engine.editions``)."""
    if ed.min_players <= seats <= ed.max_players:
        return None
    return _("the edition {edition} is for {low} to {high} players, not {seats}").format(
        edition=edition, low=ed.min_players, high=ed.max_players, seats=seats)


def print_demo_outcome(outcome: DemoOutcome, opts: DemoOptions, out=None, err=None) -> int:
    """Print the demo's result; return 0 if every peer agreed on the final state, else 1.

    Success: winner, steps, ``final state hash: <hex>``, each peer's log and the verify command
    (stdout). Failure: who timed out, crashed or disagrees, with the end of a crashed peer's
    stderr (stderr).
    """
    out = out or sys.stdout
    err = err or sys.stderr
    if outcome.ok:
        first = outcome.peers[0].done or {}
        print(_("Winner: {who}").format(who=winner_text(first.get("winner"), first.get("winner_name"))), file=out)
        print(_("Steps: {steps}").format(steps=first.get("steps")), file=out)
        print(final_hash_line(str(outcome.agreed_hash), out), file=out)
        print(ngettext("All {n} peer finished with the same final state.",
                       "All {n} peers finished with the same final state.", len(outcome.peers)).format(n=len(outcome.peers)),
              file=out)
        print(_("Game logs:"), file=out)
        for p in outcome.peers:
            seat = _("seat {seat}").format(seat=seat_number(p.done.get("seat")))
            print(f"  peer-{p.index} ({seat}): {p.done.get('log')}", file=out)
        print(_("To check a log: lanopoli verify {path}").format(path=first.get("log")), file=out)
        return EXIT_OK
    if outcome.timed_out:
        print(_("Time is up after {seconds:.0f} s; the peers were stopped.").format(seconds=outcome.elapsed_s), file=err)
    for p in outcome.peers:
        if p.pid is None:
            print(_("peer-{i} was not started").format(i=p.index), file=err)
        elif p.done is None:
            if p.error is not None:
                print(_("peer-{i} stopped: {message}").format(i=p.index, message=p.error.get("message")), file=err)
            where = p.progress.get("step") if p.progress else None
            if where is None:
                print(_("peer-{i} did not finish (exit code {code}) before the game started").format(
                    i=p.index, code=p.returncode), file=err)
            else:
                print(_("peer-{i} did not finish (exit code {code}); last step seen: {step}").format(
                    i=p.index, code=p.returncode, step=where), file=err)
            from ui.demo import stderr_tail  # the demo's own output: ui.demo is loaded already

            for line in stderr_tail(p):
                print(f"    {line}", file=err)
        elif p.returncode not in (0, None):
            print(_("peer-{i} reported the end of the game but exited with code {code}").format(
                i=p.index, code=p.returncode), file=err)
    if len(outcome.groups) > 1:
        print(_("The peers DISAGREE on the final state:"), file=err)
        for hex_hash, members in sorted(outcome.groups.items(), key=lambda kv: kv[1]):
            names = ", ".join(f"peer-{i}" for i in members)
            print(f"  {names}: {hex_hash}", file=err)
    print(_("Logs and each peer's stderr are in {path}").format(path=opts.log_dir), file=err)
    return EXIT_FAILED
