"""A real lanopoli peer process (``p2p.node.run_peer``) that can cheat or hold, for the attack tests.

``python tests/e2e/hostile_peer.py --role host --seats N | --role join --host ADDRESS:PORT --game
GAMEID`` plus ``--seed SEED --log-dir DIR`` plays one seat with ``engine.bots.choose`` like
``lanopoli host/join --progress-json`` (same progress lines, protocol.md part L; exit 0 when the
game ended, 1 when the node stopped, after an ``error`` line). On top of that:

* ``--hold-at K --release FILE``: hold our input at the first decision step >= K until FILE
  exists and print ``{"type": "holding", "step": k}`` (as tests/e2e/held_peer.py): in lockstep
  (protocol.md §C3) nobody can finish meanwhile, so a test acts on a provably running game.
* ``--attack KIND``: alter what we send to ONE victim seat (``--victim SEAT``, default the lowest
  seat other than ours), re-signed with our own key, so every altered message is a valid signed
  message of ours; everyone else gets the honest bytes. Kinds:

  - ``nil-reveal``: at the first chance step >= ``--attack-at``, the victim's copy of our STEP
    carries input nil instead of our hash-chain reveal (protocol.md §C3.3: CheatDetected at the
    victim; issue 9 item 4). Every copy of that step to the victim (re-sends, answers) is the
    same altered message.
  - ``equivocate``: at the first decision step >= ``--attack-at`` where we act (our input is
    an encoded action), the victim's copy of our STEP carries input nil (silence) instead: two
    valid signed messages of ours for one step over one history, one to the victim, the other
    to everyone else (protocol.md §C3.4, §C8.8 kind 1; issue 10 "equivocation";
    tests/e2e/test_issue10_checks.py). Every copy of that step to the victim is the same
    altered message.
  - ``junk-leaves``: our SETUP_SIG to the victim carries other hidden-information leaves (random
    bytes of the right size, protocol.md §C12.2; issue 9 item 6). Needs ``--role host`` (the
    host sees the seats' endpoints in its own PROPOSAL before it signs).

* ``--attack wrong-opening | wrong-delivery | false-complaint | foreign-key``: the niente lies of issue 10,
  in the hidden field of our signed STEP (protocol.md §C12.4, §C12.5), the same to every
  seat: at every inspection one opening with a bit flipped; every delivery to ``--victim``
  (default: every receiver) from step ``--attack-at`` on sealed over zero openings under the
  right key; from step ``--attack-at`` on, a complaint with the true key against a correct
  delivery we got in the previous step (from ``--victim`` if it delivered, else the lowest
  sender); ``foreign-key``: our first delivery from step ``--attack-at`` on (to ``--victim``
  if we owe it one) sealed under another key, then the public re-opening it makes us owe
  (§C12.4) withheld. The first lie prints the ``attack`` line (``victim_addr`` null). The
  others prove it (§C8.8 kind 4) and drop our seat; we go on as a spectator.

* ``--attack bad-escrow``: the veto of issue 10 (protocol.md §C8.5 "What a withholder can still
  choose"): every ESCROW we deal carries honest Shamir shares of another secret (each share
  matches its commitment; together they do not open our chain head). At each chance step
  >= ``--attack-at`` we hold our reveal back until we hold every other seat's reveal, compute
  the beacon with our reveal and with our public stand-in, and keep the one we prefer (the
  larger: one bit, protocol.md §C8.5); to get the stand-in we withhold and go silent for good
  (nothing more leaves this peer; printed as the ``attack`` line, ``victim`` null, with
  ``held``: the others' reveals held when choosing, and ``chose``). The others vote us out;
  the quorum's shares prove the escrow bad; they play on with our stand-in reveal.
  bench/escrow_bit.py prices that choice.

* ``--patient``: the lookahead cheat of issue 10 (protocol.md §C13). At every decision step in
  which two or more seats bid (an auction round), wait until we hold every other seat's STEP
  message of the step (at most ``PATIENT_WAIT_S``), then print ``{"type": "patient", "step": k,
  "others": n, "bids": [amounts held in clear], "commitments": m}`` and bid the best bid held
  + €1 when the bot would bid and that stays within its ceiling, else what the bot chooses. The
  messages are seen where the node hands them to the session
  (``LockstepSession.receive_message``).

  When an alteration is first sent we print ``{"type": "attack", "kind": KIND, "victim": seat,
  "victim_addr": [host, port], "step": k or null}``.

The hook sits at one seam: ``p2p.link.Link.send(addr, payload)``, through which the node
sends every lobby and session payload (protocol.md §N4); the victim's address comes from the
host's own PROPOSAL (lobby) or the lobby's ``GameStarted.endpoints`` (session).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import msgpack

from engine import bots
from p2p import link, wire
from p2p.identity import Identity
from p2p.node import NodeError, PeerConfig, run_peer
from ui.progress import progress_json, progress_printer

#: Seconds between two looks for the release file.
POLL_S = 0.02
#: How long a patient peer waits for the others' messages of a step before it chooses anyway.
PATIENT_WAIT_S = 10.0
#: Niente lies of issue 10, in the hidden field every seat gets (``install_hidden_lie``).
HIDDEN_LIES = ("wrong-opening", "wrong-delivery", "false-complaint", "foreign-key")
ATTACKS = ("none", "nil-reveal", "equivocate", "junk-leaves", "bad-escrow") + HIDDEN_LIES


class Tamper:
    """The per-destination rewrite of our outgoing payloads (see the module docstring).
    ``endpoints``: every seat's (host, port), once known; ``my_seat``."""

    def __init__(self, kind: str, identity: Identity, victim: int | None, attack_at: int, emit: Any) -> None:
        self.kind = kind
        self.identity = identity
        self.victim = victim
        self.attack_at = attack_at
        self.emit = emit
        self.endpoints: list[tuple[str, int]] | None = None
        self.my_seat: int | None = None
        self._altered: dict[int, bytes] = {}  # step -> the victim's copy of our STEP of that step
        self._done_step: int | None = None  # the step we lied at (one lie is enough)
        self._announced = False

    def learn(self, endpoints: Any, my_seat: int) -> None:
        """Seat order of the endpoints (from a PROPOSAL or ``GameStarted``)."""
        self.endpoints = [(str(a[0]), int(a[1])) for a in endpoints]
        self.my_seat = my_seat
        if self.victim is None:
            self.victim = min(i for i in range(len(self.endpoints)) if i != my_seat)

    def _victim_addr(self) -> tuple[str, int] | None:
        if self.endpoints is None or self.victim is None:
            return None
        return self.endpoints[self.victim]

    def _announce(self, step: int | None) -> None:
        if not self._announced:
            self._announced = True
            self.emit({"type": "attack", "kind": self.kind, "victim": self.victim,
                       "victim_addr": list(self._victim_addr()), "step": step})

    def rewrite(self, addr: tuple[str, int], payload: bytes) -> bytes:
        """The bytes to send to ``addr`` instead of ``payload``."""
        if self.kind == "none" or len(payload) < 2 or payload[0] != 0x93:
            return payload
        mtype = payload[1]
        if mtype == wire.MSG_PROPOSAL and self.kind == "junk-leaves":
            env = wire.open_envelope(payload)
            prop = wire.decode_proposal(env.body)
            me = next(i for i, p in enumerate(prop.setup.players) if p.public_key == self.identity.public_key)
            self.learn([p.endpoint for p in prop.setup.players], me)  # each seat's own (§C2.1, version 6)
            return payload
        if (addr[0], int(addr[1])) != self._victim_addr():
            return payload
        if mtype == wire.MSG_SETUP_SIG and self.kind == "junk-leaves":
            env = wire.open_envelope(payload)
            fields = msgpack.unpackb(env.body, raw=False)
            if len(fields) < 4 or not isinstance(fields[3], bytes):
                return payload  # no hidden information in this edition
            fields[3] = os.urandom(len(fields[3]))
            self._announce(None)
            return wire.seal(self.identity, wire.MSG_SETUP_SIG, fields)
        if mtype == wire.MSG_STEP and self.kind in ("nil-reveal", "equivocate"):
            env = wire.open_envelope(payload, 1200)
            fields = msgpack.unpackb(env.body, raw=False)
            step = fields[1]
            if step in self._altered:
                return self._altered[step]
            is_reveal = isinstance(fields[5], bytes) and len(fields[5]) == 32
            # equivocate: a decision step where we act (an encoded action is a list)
            target = is_reveal if self.kind == "nil-reveal" else isinstance(fields[5], list)
            if self._done_step is None and target and step >= self.attack_at:
                fields[5] = None
                self._altered[step] = wire.seal(self.identity, wire.MSG_STEP, fields)
                self._done_step = step
                self._announce(step)
                return self._altered[step]
        return payload


class Patience:
    """What a ``--patient`` peer holds of the other seats' STEP messages: (step, seat) -> input."""

    def __init__(self) -> None:
        self.held: dict[tuple[int, int], Any] = {}

    def install(self) -> None:
        """Record every STEP message the node hands to the session (wraps ``receive_message``)."""
        from p2p import lockstep

        original = lockstep.LockstepSession.receive_message
        held = self.held

        def receive_message(session: Any, data: bytes, now: float, *via: Any) -> None:
            if len(data) > 1 and data[0] == 0x93 and data[1] == wire.MSG_STEP:
                try:
                    b = wire.decode_step_body(wire.open_envelope(data, 1200).body)
                    held.setdefault((b.step, b.seat), b.input)
                except wire.WireError:
                    pass
            original(session, data, now, *via)

        lockstep.LockstepSession.receive_message = receive_message

    async def choose(self, state: Any, seat: int, step: int, emit: Any) -> Any:
        """Wait for the others' messages of ``step``, then bid on what we hold (module docstring)."""
        from engine import decode_action, pending
        from engine.actions import Bid
        from engine.bots._decide import auction_top
        from engine.bots._profile import scaled
        from engine.bots._value import static

        others = [i for i in range(state.n) if i != seat]
        waited = 0.0
        while any((step, i) not in self.held for i in others) and waited < PATIENT_WAIT_S:
            await asyncio.sleep(POLL_S)
            waited += POLL_S
        held = [self.held.get((step, i)) for i in others]
        bids = []
        for x in held:
            if type(x) is list:
                try:
                    a = decode_action(x)
                except ValueError:
                    continue
                if type(a) is Bid:
                    bids.append(a.amount)
        emit({"type": "patient", "step": step, "kind": pending(state).kind,
              "others": sum(x is not None for x in held), "bids": bids,
              "commitments": sum(type(x) is bytes and len(x) == 32 for x in held)})
        mine = bots.choose(state, seat, "default")
        if bids and type(mine) is Bid:
            top, _ = auction_top(state, static(state), scaled("default", state.ed.go_salary), seat)
            if max(bids) + 1 <= top:
                return Bid(max(bids) + 1)
        return mine


def install_hidden_lie(kind: str, victim: int | None, attack_at: int, emit: Any) -> None:
    """Lie in our hidden field (module docstring) by wrapping ``p2p.private_view.PrivateView.my_field``,
    which the session calls once per STEP it signs."""
    from p2p import hidden
    from p2p.private_view import PrivateView

    original = PrivateView.my_field
    told = []

    def my_field(view: Any, step: int, inspection: Any) -> list:
        field = original(view, step, inspection)
        me, last = view.seat, view.ledger.last
        lied = False
        if kind == "wrong-opening" and inspection:
            field[1] = bytes([field[1][0] ^ 1]) + field[1][1:]
            lied = True
        elif kind == "wrong-delivery" and step >= attack_at:
            for d in field[0]:
                if victim in (None, d[0]):
                    n = (len(d[1]) - hidden.TAG_LEN) // hidden.OPEN_LEN
                    key = view.message_key(me, d[0], step)
                    d[1] = hidden.seal_delivery(key, view.ledger.gid, me, d[0], step, bytes(hidden.OPEN_LEN * n))
                    lied = True
        elif kind == "foreign-key" and step >= attack_at:
            owed = sum(len(items) for _, items in view.ledger.reopen.get(me, ()))
            if owed:
                field[1] = field[1][:len(field[1]) - hidden.OPEN_LEN * owed]
            elif not told:
                for d in field[0]:
                    if victim in (None, d[0]):
                        d[1] = hidden.seal_delivery(bytes(32), view.ledger.gid, me, d[0], step,
                                                    bytes(len(d[1]) - hidden.TAG_LEN))
                        lied = True
                        break
        elif kind == "false-complaint" and step >= attack_at and field[2] is None:
            senders = sorted(s for s, to in last if to == me)
            if senders:
                s = victim if victim in senders else senders[0]
                field[2] = [s, view.message_key(s, me, step - 1)]
                lied = True
        if lied and not told:
            told.append(step)
            emit({"type": "attack", "kind": kind, "victim": victim, "victim_addr": None, "step": step})
        return field

    PrivateView.my_field = my_field


class BadDealer:
    """``--attack bad-escrow`` (module docstring): deals bad escrows; at each chance step >=
    ``attack_at`` holds its reveal back until it holds every other active seat's reveal of the
    step, computes the beacon with its reveal (A) and with its public stand-in (B, protocol.md
    §C8.4), and sends its reveal if it prefers A, else goes silent for good. Its preference,
    arbitrary but fixed: the larger beacon (any preference over outcomes is one bit)."""

    def __init__(self, attack_at: int, emit: Any) -> None:
        self.attack_at, self.emit = attack_at, emit
        self.silent_from: int | None = None
        self.session: Any = None
        self.waiting: int | None = None  # the chance step whose reveal we hold back
        self.own: bytes | None = None
        self.held: list = []  # (send, link, addr, payload) held back while we choose
        self.reveals: dict[tuple[int, int], bytes] = {}  # (step, seat) -> the others' reveals
        self.decided: set[int] = set()

    def install(self) -> None:
        """Wrap ``seat_loss.make_escrow`` (the session deals through it), ``Link.send`` and
        ``LockstepSession.receive_message`` (to see the others' reveals and our session)."""
        import hashlib

        from p2p import lockstep, seat_loss

        honest_escrow = seat_loss.make_escrow

        def make_escrow(identity: Identity, secret: bytes, *rest: Any) -> bytes:
            return honest_escrow(identity, hashlib.sha256(b"not my chain" + secret).digest(), *rest)

        seat_loss.make_escrow = make_escrow
        inner = link.Link.send
        original = lockstep.LockstepSession.receive_message
        me = self

        def send(self: link.Link, addr: tuple[str, int], payload: bytes) -> None:
            if me.silent_from is None and not me.hold_back(inner, self, addr, payload):
                inner(self, addr, payload)

        def receive_message(session: Any, data: bytes, now: float, *via: Any) -> None:
            me.session = session
            step = me._reveal_of(data, mine=False)
            if step is not None:
                me.reveals[step] = wire.decode_step_body(wire.open_envelope(data, 1200).body).input
                me.choose()
            original(session, data, now, *via)

        link.Link.send = send
        lockstep.LockstepSession.receive_message = receive_message

    def _reveal_of(self, payload: bytes, mine: bool) -> Any:
        """(step, seat) of a STEP carrying a 32-byte reveal, ours (``mine``) or another seat's."""
        if self.session is None or len(payload) < 2 or payload[0] != 0x93 or payload[1] != wire.MSG_STEP:
            return None
        try:
            b = wire.decode_step_body(wire.open_envelope(payload, 1200).body)
        except wire.WireError:
            return None
        if type(b.input) is not bytes or len(b.input) != 32 or (b.seat == self.session.my_seat) != mine:
            return None
        return b.step, b.seat

    def hold_back(self, send: Any, lnk: Any, addr: tuple[str, int], payload: bytes) -> bool:
        """True if ``payload`` waits: our reveal of a chance step we have not chosen at yet."""
        got = self._reveal_of(payload, mine=True)
        if got is None or got[0] < self.attack_at or got[0] in self.decided:
            return False
        if self.waiting is None:
            self.waiting = got[0]
            self.own = wire.decode_step_body(wire.open_envelope(payload, 1200).body).input
        self.held.append((send, lnk, addr, payload))
        self.choose()
        return True

    def choose(self) -> None:
        """Once we hold every other active seat's reveal of the step we wait at: A or B."""
        from p2p.beacon import beacon
        from p2p.escrow import dropped_reveal

        s, k = self.session, self.waiting
        if s is None or k is None or s.step != k:
            return
        n, me = s.setup.seats, s.my_seat
        if any((k, i) not in self.reveals for i in range(n) if i != me and s.active[i]):
            return
        b = a = b""
        if all(s.active):  # (this attack acts before any drop: no other stand-in to fill in)
            reveals = [self.own if i == me else self.reveals[(k, i)] for i in range(n)]
            a = beacon(s.game_seed, k, reveals)
            reveals[me] = dropped_reveal(s.game_id, me, s.chance_count + 1)
            b = beacon(s.game_seed, k, reveals)
        self.decided.add(k)
        self.waiting = None
        held, self.held = self.held, []
        if b > a:
            self.silent_from = k
            self.emit({"type": "attack", "kind": "bad-escrow", "victim": None, "victim_addr": None, "step": k,
                       "held": n - 1, "chose": "stand-in"})
            return
        for send, lnk, addr, payload in held:
            send(lnk, addr, payload)


def install(tamper: Tamper) -> None:
    """Route every payload the node sends through ``tamper.rewrite`` (wraps ``Link.send``)."""
    original = link.Link.send

    def send(self: link.Link, addr: tuple[str, int], payload: bytes) -> None:
        original(self, addr, tamper.rewrite(addr, payload))

    link.Link.send = send


def main(argv: list[str] | None = None) -> int:
    """Run the hostile (or merely held) peer of the module docstring; returns the exit code."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--role", choices=("host", "join"), required=True)
    p.add_argument("--seats", type=int, default=2, help="host: number of seats")
    p.add_argument("--edition", default="classico", help="host: edition")
    p.add_argument("--drop-timeout", type=int, default=30, help="host: p2p.drop_timeout (s)")
    p.add_argument("--host", help="join: the host's ADDRESS:PORT")
    p.add_argument("--game", help="join: the game id, 32 hex digits")
    p.add_argument("--bind", default="127.0.0.1")
    p.add_argument("--seed", required=True, help="demo seed of this peer's secrets")
    p.add_argument("--log-dir", type=Path, required=True)
    p.add_argument("--hold-at", type=int, default=None, help="hold the first decision step >= this")
    p.add_argument("--release", type=Path, help="answer the held step once this file exists")
    p.add_argument("--attack", choices=ATTACKS, default="none")
    p.add_argument("--attack-at", type=int, default=1, help="nil-reveal: first step that may be altered")
    p.add_argument("--victim", type=int, default=None, help="the victim's seat (default: lowest other)")
    p.add_argument("--patient", action="store_true", help="wait for the others' bids, then outbid them")
    p.add_argument("--timeout", type=float, default=120.0)
    args = p.parse_args(argv)
    emit = progress_printer()
    seed = args.seed.encode("utf-8")
    identity = Identity.from_seed(seed)
    tamper = Tamper(args.attack, identity, args.victim, args.attack_at, emit)
    install(tamper)
    if args.attack in HIDDEN_LIES:
        install_hidden_lie(args.attack, args.victim, args.attack_at, emit)
    if args.attack == "bad-escrow":
        BadDealer(args.attack_at, emit).install()
    patience = Patience() if args.patient else None
    if patience is not None:
        patience.install()
    step = 0  # the session's current step: one past the last StepApplied
    held = False

    def observe(ev: Any) -> None:
        nonlocal step
        name = type(ev).__name__
        if name == "StepApplied":
            step = ev.step + 1
        elif name == "GameStarted":
            tamper.learn(ev.endpoints, ev.my_seat)

    async def hold(state: Any, seat: int) -> Any:
        emit({"type": "holding", "step": step})
        while not args.release.exists():
            await asyncio.sleep(POLL_S)
        return bots.choose(state, seat, "default")

    def local_input(state: Any, seat: int) -> Any:
        nonlocal held
        if patience is not None:
            from engine import pending

            if len(pending(state).actors) >= 2:
                return patience.choose(state, seat, step, emit)
        if args.hold_at is not None and not held and step >= args.hold_at:
            held = True
            return hold(state, seat)
        return bots.choose(state, seat, "default")

    common = dict(bind=args.bind, demo_seed=seed, identity=identity, log_dir=args.log_dir, progress=emit,
                  timeout=args.timeout, observer=observe,
                  local_input=local_input if args.hold_at is not None or args.patient else None)
    if args.role == "host":
        cfg = PeerConfig(role="host", seats=args.seats, edition=args.edition, drop_timeout=args.drop_timeout,
                         **common)
    else:
        addr, port = args.host.rsplit(":", 1)
        cfg = PeerConfig(role="join", game_id=bytes.fromhex(args.game), host_addr=(addr, int(port)), **common)
    try:
        asyncio.run(run_peer(cfg))
    except NodeError as exc:
        line = progress_json(exc)
        line["seat"] = exc.seat
        emit(line)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
