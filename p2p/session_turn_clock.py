"""A step bound per turn on a seat's own decisions (protocol.md §C8.3 'Own decision across steps',
§C8.10 Own decisions, §C13.6): ``TurnClock``.

At five decisions of the classic rules (``turn_skip.OWN_DEFAULTS``: ``roll``, ``jail``,
``buy_or_auction``, ``mortgage_choice``, ``raise_money``) a seat's nil, or any action that does
not make the decision (an out-of-turn ``ProposeTrade``, ``Mortgage``...), leaves the engine
waiting for that seat again. Measured per step, such a seat is never late (its message is held
at once), so the turn time of §C8.3 never applies and one seat could hold the game for ever (red
team s15, H163 BREAK #4). Wall time is NOT carried across steps (the turn time stays per step:
time the table waits for other seats never counts against a seat, RV15-T #1). Instead this part
counts, per seat d and per turn (``state.turn``: it changes exactly when the turn passes to the
next player), d's **held steps**: the applied steps at which d is among the actors of an own
decision (pending kind in ``OWN_DEFAULTS``, not a chance step) and d's input, applied alone
(every other input nil), leaves d's turn where it was (``holds``: no chance step comes, the game
does not end, the turn does not pass). At a sealed step (§C13) the input judged is the opened
one, checked against the seat's commitment (OPEN; nil without one, RV15-T2 #2); a COMMIT step is
not counted (its input cannot be judged yet). Trade offers (RV15-T2 #1: the default bot, and a
human's autoplay, answers an offer before it rolls): an own-decision actor's answer to an offer
open to it (``answers_offer``) is not counted for it, and an offer made to an
own-decision actor (``ProposeTrade`` naming it) is a held step of the **offerer**, so a seat that
spams offers at a player who must decide is the one voted out. A **same-step answer**
(``answers_early``, red team s16 H174-1/-2): another seat's ``AcceptTrade``/``RejectTrade`` naming
an own-decision actor while no offer of that actor is open to it is a held step of that seat,
and the actor's ``ProposeTrade`` to it at that step is not the actor's (applied after the offer,
seat order, it closes the offer in the step that makes it; the state is then byte-equal to the
state before, so the default bot offers again at every step; an honest seat, choosing at the
state before the step, never sends such an answer). Steps of other kinds or of other seats in
between pause nothing and reset nothing; only the turn passing resets.

* ``count(seat)``: d's held steps so far in the current turn;
* ``gate(k, skipped, vote, may_vote)``: called at the gate just before a complete step k is
  applied (``StepGate.advance`` -> ``SessionVotes.turn_gate``). For a seat d (not ours, active,
  not skipped) whose held step-k message would make its count exceed ``OWN_STEPS_PER_TURN``, we
  treat that message as not held: we cast our DROP(k, d) (§C8.3, open) and the step waits (the
  voter's promise: a certificate or the drop decides, as for a late message). False then.
  Where no drop is possible (nobody may vote), a seat whose count would exceed
  ``ABANDON_STEPS_PER_TURN`` ends the game instead: the caller signs our ABANDON (§C8.7) at k.

A local voting policy: nothing on the wire, in the log or in ``verify`` changes. The count is a
function of the applied history and the held messages alone, the same on every honest peer, so
they all vote at the same step. Steps applied through catch-up or a log replay are counted like
live ones. A roll back to step c keeps the counts of the steps before c and forgets those from c
on (they count again as they are applied again): the node's roll back (§C8.3, §C3.4: the log cut
at c, replayed into a new session, the rest caught up) rebuilds exactly that, and so does this clock
if a session ever judges a lower step (``TurnClock._catch_up``); either way the peer votes at the
step a peer that never rolled back votes at. It reads the session through
``session_port.SessionView``. Cost (RV15R-B, 3,726 bot decision steps): ~4.3 µs a step, mostly
one extra ``apply_step`` per acting seat that sends an action, against ~62 µs per signature
verified each step.
"""

from __future__ import annotations

from array import array
import re
from bisect import bisect_left
from typing import TYPE_CHECKING, Any, Callable, Sequence

from .sealed import COMMIT, OPEN
from .turn_skip import OWN_DEFAULTS

if TYPE_CHECKING:
    from engine.api import Engine

__all__ = ["ABANDON_STEPS_PER_TURN", "OWN_STEPS_PER_TURN", "TurnClock", "answers_early", "answers_offer", "holds",
           "held_reason", "held_seat_of", "held_seats", "own_actors"]

#: Held steps (module docstring) a seat may have in one turn; a message that would make one more
#: is treated as not held (§C8.3 'Own decision across steps'). Measured (bench/turn_clock_steps.py):
#: the engine's default bots' largest count per seat and turn over 96 whole games (classico,
#: editrice-giochi, fabrianopoli, niente-e-come-sembra x 2/3/4/6 seats x 6 seeds) is 37 (building
#: and mortgaging before a roll); H167's full liquidation of 12 hotels, 32 houses and 28 lots takes
#: 112 steps. 160 is over 4x the bots' largest; at LAN speed 160 steps take a few seconds, at one
#: answer just under the turn time per step 160 turn times (the stated limit, §C8.3).
OWN_STEPS_PER_TURN = 160
#: Where no drop is possible (``SeatLoss.drop_possible()`` False: seat loss off, two seats, or
#: fewer than Q + 1 active seats), held steps a seat may have in one turn before every honest peer
#: ends the game as abandoned at the gate of the step that would make one more (§C8.3, §C8.7).
#: Twice the vote bound: an abandon ends the game for every seat with no winner and cannot be
#: undone (a drop hands the seat to a bot and its player may come back), so it takes twice the
#: evidence; the count is the same on every honest peer, so the margin costs no agreement, only
#: 160 more steps of a liar's hold (a few seconds at LAN speed) before the logs stop growing.
ABANDON_STEPS_PER_TURN = 2 * OWN_STEPS_PER_TURN
_HELD_REASON = "seat {seat} held its turn {held} steps, over the bound of {bound} where no drop is possible"
_HELD_RE = re.compile(r"seat (\d+) held its turn (\d+) steps, over the bound of (\d+) ")


def held_reason(seat: int, held: int) -> str:
    """The reason (English, local: never on the wire) of an ABANDON signed because ``seat`` would
    hold its turn ``held`` steps past ``ABANDON_STEPS_PER_TURN`` where no drop is possible
    (§C8.3 'Own decision across steps', §C8.7); ``held_seat_of`` reads it back."""
    return _HELD_REASON.format(seat=seat, held=held, bound=ABANDON_STEPS_PER_TURN)


def held_seat_of(reason: str) -> tuple[int, int] | None:
    """(seat, bound in steps) of a ``held_reason`` text, or None for any other reason (a stall)."""
    m = _HELD_RE.match(reason or "")
    return None if m is None else (int(m.group(1)), int(m.group(3)))
#: Action codes on the wire (protocol.md §E2): an offer names its partner in its first field; an
#: acceptance or refusal answers another seat's offer.
PROPOSE_TRADE, ACCEPT_TRADE, REJECT_TRADE = 12, 13, 14


def own_actors(pending: Any) -> tuple:
    """The actors of ``pending`` (``engine.pending``'s result) if it is an own decision (§C8.10:
    kind in ``OWN_DEFAULTS``, not a chance step, not the end), else ()."""
    if pending is None or pending.chance or pending.terminal or pending.kind not in OWN_DEFAULTS:
        return ()
    return tuple(pending.actors)


def turn_of(state: Any) -> Any:
    """The turn identity of an engine state: ``state.turn`` (raised by one whenever the turn
    passes to the next player; a double keeps it)."""
    return state.turn


def holds(engine: Engine, state: Any, n: int, seat: int, x: Any) -> bool:
    """True if ``seat``'s input ``x`` (an encoded action, or nil; the opened input at an OPEN step)
    applied alone to ``state`` (``n`` seats, every other input nil) leaves its turn where it was:
    no chance step next, the game not over, ``turn_of`` unchanged. An input that does not decode,
    or that the engine refuses with an error, counts as nil (as when applied, §C3.3), which holds
    an own decision (the only decisions this is asked about): True."""
    inputs: list = [None] * n
    if type(x) is list:
        try:
            inputs[seat] = engine.decode_action(x)
        except (ValueError, TypeError, KeyError, IndexError):
            pass
    try:
        new, _ = engine.apply_step(state, inputs)
        p = engine.pending(new)
    except Exception:  # noqa: BLE001 - any engine refusal: the input counts as nil
        return True
    return not p.chance and not p.terminal and turn_of(new) == turn_of(state)


def answers_offer(engine: Engine, state: Any, seat: int, x: Any) -> bool:
    """True if ``x`` (an encoded action or nil) is ``seat``'s ``AcceptTrade`` or ``RejectTrade`` of
    an offer open to it in ``state``: one of ``engine.legal_actions(state, seat)``. A code alone is
    not enough: an answer to no offer, or one that does not decode, is refused by the engine and
    counts as nil (RV15-T3: a liar sending RejectTrade of no offer at every step was never counted)."""
    if type(x) is not list or not x or x[0] not in (ACCEPT_TRADE, REJECT_TRADE):
        return False
    try:
        action = engine.decode_action(x)
    except (ValueError, TypeError, KeyError, IndexError):
        return False
    return action in engine.legal_actions(state, seat)


def answers_early(engine: Engine, state: Any, seat: int, x: Any, actors: Sequence[int]) -> bool:
    """True if ``x`` (an encoded action or nil) is ``seat``'s ``AcceptTrade`` or ``RejectTrade``
    (it decodes) naming an actor in ``actors`` as the proposer while no offer of that actor is open
    to ``seat`` in ``state`` (its ``RejectTrade`` is not among ``engine.legal_actions(state,
    seat)``; that list names every offer open to the seat, whatever the acceptance's lift).

    Such an answer can only close an offer the actor makes in the SAME step (the engine applies a
    step's inputs in seat order, engine/game.step_inplace: applied after the offer it closes it),
    or be refused (nil). An honest seat never sends it: its step-k input is chosen at the state
    before step k (its message is signed over that state's hash, §C3.4), where that offer does not
    exist yet (H174-1: a liar seated after the proposer rejecting at every step made the default
    bot, which proposes while it has no offer open, propose again at every step)."""
    if type(x) is not list or len(x) < 2 or x[0] not in (ACCEPT_TRADE, REJECT_TRADE) or x[1] not in actors:
        return False
    try:
        engine.decode_action(x)
        open_to_seat = engine.decode_action([REJECT_TRADE, x[1]]) in engine.legal_actions(state, seat)
    except (ValueError, TypeError, KeyError, IndexError):
        return False  # does not decode: nil, it closes nothing
    return not open_to_seat


def held_seats(engine: Engine, state: Any, n: int, pending: Any, inputs: dict[int, Any]) -> tuple:
    """The seats whose step input holds the turn at a step (module docstring), ascending.
    ``state``/``pending``: the state the step applies to and ``engine.pending`` of it; ``inputs``:
    seat -> its judged input (an encoded action ``[code, ...]`` or nil) for the seats whose input
    can be judged (a held message; not at a COMMIT step; at an OPEN step what it opens). An
    own-decision actor holds when its input keeps the turn (``holds``), unless it answers an open
    offer of another seat (``answers_offer``) or it is a ``ProposeTrade`` to a seat that answers it
    in the same step (``answers_early``: that step is the answerer's); any other seat holds when
    its input is a ``ProposeTrade`` to such an actor, or such a same-step answer to one."""
    actors = own_actors(pending)
    if not actors:
        return ()
    early: dict[int, Any] = {}  # non-actor seat -> the actor its same-step answer names
    for seat, x in inputs.items():
        if seat not in actors and answers_early(engine, state, seat, x, actors):
            early[seat] = x[1]
    out = []
    for seat in sorted(inputs):
        x = inputs[seat]
        code = x[0] if type(x) is list and x else None
        if seat in actors:
            if early and code == PROPOSE_TRADE and len(x) > 1 and type(x[1]) is int and early.get(x[1]) == seat:
                continue  # its offer is answered in the step that makes it: the answerer's step
            if not answers_offer(engine, state, seat, x) and (x is None or holds(engine, state, n, seat, x)):
                out.append(seat)  # nil leaves an own decision pending (§C8.10): no engine call
        elif code == PROPOSE_TRADE and len(x) > 1 and x[1] in actors:
            out.append(seat)  # it makes the deciding seat answer instead of deciding
        elif seat in early:
            out.append(seat)  # it closes (or tries to) an offer made in this very step
    return tuple(out)


class TurnClock:
    """Per seat, its held steps in the current turn (module docstring). ``session``: read only.

    It keeps, per seat, the steps at which it held (whole game, ascending; 8 bytes each, less than
    the ~30 bytes ``history.History`` keeps per log record) and the first step of each turn, so that a
    roll back to step c forgets exactly the steps from c on and keeps the counts of the steps
    before it: the counts are those of a clock that replayed the kept history (``_catch_up``)."""

    def __init__(self, session: Any) -> None:
        self._s = session
        #: seat -> the steps (ascending) at which it held (counted once applied).
        self._at: dict[int, array] = {}
        #: the first step of every turn judged (ascending), and that turn (``turn_of``) per entry.
        self._starts = array("q")
        self._turns: list = []
        #: the last step judged (-1: none) and the seats it holds (counted once it is applied).
        self._step = -1
        self._held: tuple = ()

    def count(self, seat: int) -> int:
        """``seat``'s held steps in the current turn, step ``_step`` not included."""
        at = self._at.get(seat)
        if not at:
            return 0
        return len(at) - bisect_left(at, self._starts[-1]) if self._starts else len(at)

    def _catch_up(self, k: int) -> None:
        """Step ``k`` is our current step: count the step before it if we judged it; after a roll
        back (``k`` below the last step judged) forget the held steps and turn starts from ``k``
        on (those before it stay counted, as a replay of the kept history counts them); a new
        turn starts at ``k`` if the state's turn is not the last one's."""
        if k == self._step + 1:
            for d in self._held:
                at = self._at.get(d)
                if at is None:
                    self._at[d] = at = array("q")
                at.append(self._step)
        elif k < self._step:
            for at in self._at.values():
                del at[bisect_left(at, k):]
            i = bisect_left(self._starts, k)
            del self._starts[i:], self._turns[i:]
        turn = turn_of(self._s.state)
        if not self._turns or turn != self._turns[-1]:
            self._starts.append(k)
            self._turns.append(turn)
        self._step, self._held = k, ()

    def _input(self, seat: int, k: int) -> tuple[bool, Any]:
        """(judged, input): ``seat``'s held step-``k`` input as the engine would take it (the
        opened input at an OPEN step), or (False, None) if there is nothing to judge (no message,
        a COMMIT step)."""
        s = self._s
        h = s.steps.held(k, seat)
        if h is None:
            return False, None
        x = h.body.input
        phase = s.sealed.phase if getattr(s, "sealed", None) is not None else None
        if phase == COMMIT:
            return False, None
        if phase == OPEN:
            x = s.sealed.opened(k, seat, x)
        return True, x

    def observe(self, k: int, skipped: Sequence[int] = ()) -> tuple:
        """Step ``k`` (our current step) is complete: judge its messages (``held_seats``).
        Returns the seats whose message holds the turn (``held_seats``), counted once k is applied."""
        self._catch_up(k)
        s = self._s
        if not own_actors(s.pending):
            self._held = ()
            return ()
        inputs = {}
        for d in range(s.n):
            if d not in skipped:
                judged, x = self._input(d, k)
                if judged:
                    inputs[d] = x
        self._held = held_seats(s.engine, s.state, s.n, s.pending, inputs)
        return self._held

    def gate(self, k: int, skipped: Sequence[int], vote: Callable[[int], None],
             may_vote: Callable[[], bool], end: Callable[[int, int], None] | None = None) -> bool:
        """Before applying the complete step ``k``: judge it (``observe``), then vote against the
        lowest seat whose held message would make its count exceed ``OWN_STEPS_PER_TURN`` (module
        docstring). False if we voted (the step waits: voter's promise), True otherwise (also when
        ``may_vote()`` says we may not: seat loss off or no drop possible, our vote of this step
        and epoch cast, or promised). Where no drop is possible (``session.seats.drop_possible()``
        False), the lowest active seat (ours included) whose held message would make its count
        exceed ``ABANDON_STEPS_PER_TURN`` is passed to ``end(seat, count)`` (the caller ends the
        game as abandoned, §C8.7) and False is returned; ``end`` None: never."""
        held = self.observe(k, skipped)
        s = self._s
        if not held or s.spectator or s.replaying or not s.running:
            return True
        if end is not None and not s.seats.drop_possible():
            for d in sorted(held):
                if s.active[d] and self.count(d) >= ABANDON_STEPS_PER_TURN:
                    end(d, self.count(d) + 1)
                    return False
            return True
        for d in sorted(held):
            if d == s.my_seat or not s.active[d] or self.count(d) < OWN_STEPS_PER_TURN:
                continue
            if not may_vote():
                return True
            vote(d)
            return False
        return True
