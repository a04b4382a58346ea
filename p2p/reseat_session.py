"""The session's side of re-seating a returning player (protocol.md §C8.9): ``SessionReseat``.

The requests, the carrying and the decision are ``reseat.Reseat``'s (the session's ``reseat``);
this part is the glue between it and the session's current step:

* ``request``: our player asks to play our dropped seat again (only as a spectator of a running
  game whose bot plays our seat, with re-seating offered);
* ``receive``: a RESEAT request of another seat, carried only for the seats we may carry
  (``carried_drops``: dropped by the bot rule, never one we hold a proven cheater);
* ``after_step``: which seats return from the next step, decided by the applied step's bodies
  alone, so that every peer that applied it decides the same;
* ``readmit``: a returning seat is active again in a new epoch (``SeatLoss.readmit``); if it is
  ours, the new hash chain we play it with (the session seats us again and sends our escrow).

It owns no state of its own. It reads the session through ``session_port.SessionView`` and acts
through ``session_port.Effects``. Moved out of ``lockstep.py`` (issue 13).
"""

from __future__ import annotations

from typing import Any, Sequence

from .identity import Identity
from .reseat import OffsetChain
from .session_port import Effects, SessionView
from .wire import Envelope

__all__ = ["SessionReseat"]


class SessionReseat:
    """Re-seating glue of one session (module docstring). ``identity``: ours (signs our
    request); ``session``: read only; ``effects``: what we do to it."""

    def __init__(self, identity: Identity, session: SessionView, effects: Effects) -> None:
        self._identity = identity
        self._s = session
        self._fx = effects

    def carried_drops(self) -> dict[int, int]:
        """The dropped seats whose RESEAT requests we carry (§C8.9 'Carrying'): seats dropped
        by the bot rule -> the step of their drop record (``SeatLoss.returnable``), but the seats
        we hold proven cheaters (``Complaints.cheaters``). A COMPLAINT proof is not in every
        peer's records, so it cannot be a rule of ``readmissions``; an honest quorum that
        refuses to carry keeps the cheater out all the same."""
        s = self._s
        drops = s.seats.returnable()
        cheaters = s.complaints.cheaters()
        return {d: k for d, k in drops.items() if d not in cheaters} if cheaters else drops

    def request(self, secret: bytes) -> bool:
        """Sign and send our request to play our dropped seat again with a new hash chain of
        ``secret`` (re-sent by ``Reseat.due`` until the seat is back). False (nothing sent)
        unless we are a spectator of a running game whose bot plays our seat, re-seating is
        offered and our seat has budget left (``Reseat.may_return``, §C8.9 'Budget')."""
        s = self._s
        at = s.seats.returnable().get(s.my_seat)
        if not s.running or not s.spectator or at is None or not s.reseat.may_return(s.my_seat):
            return False
        self._fx.send(s.reseat.ask(self._identity, secret, at, s.now))
        return True

    def receive(self, env: Envelope, r: Any, now: float) -> None:
        """A RESEAT request (``reseat.Reseat.receive``): a bad signature is counted."""
        s = self._s
        if s.reseat.receive(env.raw, now, self.carried_drops()) == "bad":
            s.stats["bad_signature"] += 1

    def after_step(self, slots: Sequence, sealed_commit: bool, terminal: bool) -> dict:
        """The seats whose players return from the step after the one just applied, from that
        step's held messages ``slots`` alone (``Reseat.after_step``): seat -> request."""
        s = self._s
        fields = [None if h is None else h.body.reseat for h in slots]
        return s.reseat.after_step(s.active, s.seats.returnable(), fields, sealed_commit, terminal, s.epoch)

    def readmit(self, seat: int, chain_head: bytes) -> OffsetChain | None:
        """``seat`` is played by its player again from the current step (§C8.9): active in a new
        epoch, its previous reveal ``chain_head``. Returns our new chain (offset by the chance
        steps applied so far) if the seat is ours and we hold the secret of the request it was
        re-seated on, else None."""
        s = self._s
        base = s.chance_count
        chain = s.reseat.our_chain(base) if seat == s.my_seat else None
        if chain is not None and chain.head != chain_head:
            chain = None  # re-seated on a request whose secret we no longer hold: we cannot play it
        s.seats.readmit(seat, chain_head, None if chain is None else chain.value(0))
        s.reseat.readmitted(seat, base)
        return chain
