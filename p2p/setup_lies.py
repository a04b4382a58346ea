"""What a seat's signed SETUP_SIG/SEED proves when it contradicts the round, and who acts on it
(protocol.md §C2.2 step 7, "A seat that lies" and "Evidence to the host"; §C12.2): one job,
apart from the round's signing and revealing (``setup_round.SetupRound``), which asks it before
it keeps a message.

A message signed by the seat it names is a *proof* against that seat when only its key can have
made it: over our setup hash, malformed leaves or SEED digests, a SEED secret its own commitment
refuses, a SEED whose digest of the sender's own leaves is not that of the leaves it signed; at
the host also any setup hash that none of its rounds had (the host knows every setup it
proposed) and a forwarded second version of a SETUP_SIG (at a joiner, one of the host's: the
joiners forward the host's SETUP_SIG to each other when their SEEDs disagree on its leaves).
Then the **host** removes and bans the seat and opens a new round (``RoundHost.restart_round``);
a **joiner** blames it, drops it, forwards the signed envelopes to the host and follows the
host's new-round STATUS; only if that seat is the host's does a joiner abort. A second version
of a SETUP_SIG that reached us from its seat is blamed only: we keep the first, and the SEEDs'
digests show whether it matters.

What a joiner cannot tell apart stays *unproven*, counted, never blamed: another setup hash from
a seat that is not the host (the host may have shown that seat another setup), or from the host
over anything but the host's keyed channel (a replay of a round the joiner never saw; the keyed
channel is the freshness proof), and SEEDs whose digests of a third seat's leaves differ from
ours (that seat showed two versions, or the SEED's sender lied about what it holds). A joiner
forwards what it holds to the host, which judges: a forwarded SETUP_SIG of our hash with other
leaves than the one it holds proves two versions; a seat whose SEED claims a third seat's leaves
that no forwarded envelope backs is removed at ``SETUP_TIMEOUT`` with the silent.

*Evidence.* A SETUP_SIG/SEED of seat s that reaches a seat over another seat's keyed channel is
checked like any (signature by s, round): it proves a lie (a forwarded second version too) or is
kept as s's own envelope (``SetupRound``'s late-seat catch-up, §C2.2 step 5). A joiner forwards
each envelope once per round, at most ``RELAY_PER_SEAT`` per seat named. No wire change: the
envelopes are the seats' own.
"""

from __future__ import annotations

from typing import Any

from .beacon import seed_commitment
from .hidden import leaves_digest
from .setup_signing import EQUIVOCATION
from .wire import Envelope

__all__ = ["RELAY_PER_SEAT", "SeatLies", "TWO_VERSIONS"]

#: The blame of a second SETUP_SIG of one seat over our hash with another body (other leaves).
TWO_VERSIONS = "two different setup signatures"

#: Envelopes naming one seat that a joiner forwards to the host per round (§C2.2 step 7): each
#: costs the host one signature check; a liar is removed at its first one.
RELAY_PER_SEAT = 8


class SeatLies:
    """The lie handling of one ``SetupRound`` (its ``lies``). ``unbacked`` (host, public):
    seats whose SEED claimed other leaves of a third seat than ours, unproven; removed with the
    silent seats at ``SETUP_TIMEOUT`` unless a forwarded envelope proves that third seat first."""

    def __init__(self, lobby: Any, rnd: Any) -> None:
        """``lobby``: the round's ``setup_round.RoundHost`` (the lobby); ``rnd``: its ``SetupRound``
        (read: ``setup``, ``my_seat``, ``endpoints``, ``setup_hash``, ``signing``)."""
        self._lobby = lobby
        self._round = rnd
        self._relayed: dict[int, set[bytes]] = {}
        self.unbacked: set[int] = set()
        self._disagreed = False  # ``leaves_disagree`` counted once per round

    def host_seat(self) -> int:
        """The seat of the host's key in the setup (a PROPOSAL always seats it), -1 if none."""
        hpk = self._lobby.admission.host_public_key
        return next((i for i, p in enumerate(self._round.setup.players) if p.public_key == hpk), -1)

    def is_seat_channel(self, peer_key: bytes | None) -> bool:
        """``peer_key`` is the X25519 key of another seat of the setup (a forwarding seat)."""
        rnd = self._round
        return peer_key is not None and any(
            p.x25519_key == peer_key for i, p in enumerate(rnd.setup.players) if i != rnd.my_seat)

    # -- what a checked message proves --

    def other_hash(self, env: Envelope, msg: Any, addr: Any, now: float, peer_key: bytes | None) -> None:
        """A SETUP_SIG/SEED signed by ``msg.seat`` over a setup hash that is neither ours nor one
        of a round we gave up. Host: only that seat can have signed it (``proven``). Joiner: the
        host's seat over the host's keyed channel aborts (the host signed another setup than it
        proposed to us); anything else is ``unproven_hash``, and a non-host seat's is forwarded."""
        lob, rnd, seat = self._lobby, self._round, msg.seat
        if seat == rnd.my_seat:
            lob.drop("unproven_hash")  # our own key: a replay of a round we never recorded
        elif lob.role == "host":
            self.proven(seat, now, "setup hash differs from ours", [env.raw])
        elif seat != self.host_seat():
            lob.drop("unproven_hash")
            self.relay(seat, [env.raw])
        elif peer_key == rnd.setup.players[seat].x25519_key:  # the host's keyed channel: only it sends there
            self.proven(seat, now, "setup hash differs from ours", [env.raw],
                        "the host signed another setup than it proposed to us", forward=False)
        else:
            lob.drop("unproven_hash")

    def sig_blame(self, seat: int, env: Envelope, outcome: str) -> tuple[str, list[bytes]]:
        """What a SETUP_SIG of ``seat`` over our hash, signed by it, that ``SetupSigning.add_sig``
        refused (``outcome``) proves (§C2.2 step 7, §C12.2): (blame, evidence) — another body than
        the one we hold (``EQUIVOCATION``: two versions, both envelopes), or leaves missing,
        unexpected or of the wrong size (``MALFORMED``: this one)."""
        if outcome == EQUIVOCATION:
            return TWO_VERSIONS, [self._held_sig(seat)[0], env.raw]
        return "hidden-information commitment missing or of the wrong size", [env.raw]

    def seed_problem(self, seat: int, env: Envelope, msg: Any) -> tuple[str, list[bytes]] | None:
        """A SEED of ``seat`` over our hash, signed by it: (blame, evidence) if it proves the seat
        lied — a secret its own ``seed_commit`` refuses, digests missing or of the wrong count, a
        digest of its own leaves that is not that of the leaves it signed — else None."""
        rnd = self._round
        if seed_commitment(msg.secret) != rnd.setup.players[seat].seed_commit:
            return "seed reveal does not match commitment", [env.raw]
        if not rnd.signing.seed_fits(msg.commits, self._lobby.seats):
            return "hidden-information digests missing or of the wrong count", [env.raw]
        held = rnd.signing.hidden_commits
        if held and held[seat] and msg.commits[seat] != leaves_digest(held[seat]):
            return "seed digest of its own leaves is not the one it signed", self._held_sig(seat) + [env.raw]
        return None

    def compare(self, seat: int, commits: tuple | None) -> None:
        """Joiner, a kept SEED of ``seat``: for every third seat whose leaves we hold and whose
        digest in it is not ours, forward that seat's SETUP_SIG to the host at once (§C12.2;
        the host may hold another version of it). At once, not when every seat revealed: the
        seat that showed us other leaves may withhold its SEED from us."""
        held = self._round.signing.hidden_commits
        if self._lobby.role == "host" or held is None or commits is None:
            return
        for j, leaves in enumerate(held):
            if j != seat and leaves and commits[j] != leaves_digest(leaves):
                self.relay(j, self._held_sig(j))

    def _held_sig(self, seat: int) -> list[bytes]:
        """[the SETUP_SIG envelope of ``seat`` we hold] or []."""
        raw = self._round.signing.sig(seat)
        return [] if raw is None else [raw]

    def disagree(self, now: float) -> None:
        """Every seat revealed and some SEED holds other leaves digests than ours (§C12.2). A
        SEED whose digest of its sender's own leaves is not ours (those it signed to us) proves
        its sender. Else unproven: counted (``leaves_disagree``); a joiner forwards the
        SETUP_SIGs it holds of the seats in question (``relay``: the host's to the other
        joiners); the host marks the SEEDs' senders ``unbacked`` and sends each of them its own
        SETUP_SIG of those seats (a seat holding another version then forwards it: two
        versions, proven)."""
        lob, rnd = self._lobby, self._round
        sigs, seeds = rnd.signing.header_envelopes(lob.seats)
        mine = rnd.signing.commits_digests()
        claims = rnd.signing.claims(lob.seats)
        for i, claim in enumerate(claims):
            if i != rnd.my_seat and claim[i] != mine[i]:
                self.proven(i, now, "seed digest of its own leaves is not the one it signed", [sigs[i], seeds[i]])
                return
        first, self._disagreed = not self._disagreed, True
        if first:
            lob.count("leaves_disagree")
        if lob.role == "host":
            self.unbacked.update(i for i, c in enumerate(claims) if c != mine)
            for i, claim in enumerate(claims):  # our version of each seat in question, once
                for j in range(lob.seats) if first else ():
                    if claim[j] != mine[j] and j not in (i, rnd.my_seat):
                        lob.send(rnd.endpoints[i], sigs[j])
            return
        for j in sorted({j for c in claims for j in range(lob.seats) if c[j] != mine[j]}):
            self.relay(j, [sigs[j]])

    # -- acting --

    def proven(self, seat: int, now: float, blame: str, evidence: list[bytes], reason: str | None = None,
               relayed: bool = False, forward: bool = True) -> None:
        """Signed envelopes of ``seat`` (``evidence``, the last one blamed) prove that seat lied:
        counted (``dropped``, ``seat_lied``), ``LobbyPeerMisbehaved``. Host: remove and ban the
        seat, new round. Joiner: forward (``relay``; not if ``forward`` is False: the host's
        SETUP_SIG over another setup hash proves nothing at another joiner, RV16-A F2); the
        host's seat -> then abort (``reason``).
        Except ``TWO_VERSIONS`` that reached us from the seat itself (not ``relayed``): we keep
        the first, and every SEED's digests show which one each seat kept (§C12.2), so it
        changes nothing unless they differ (``disagree``): blamed and counted only (a joiner
        still aborts on the host's)."""
        lob, rnd = self._lobby, self._round
        lob.drop("seat_lied")
        lob.emit_misbehaved(rnd.endpoints[seat], blame, evidence[-1])
        if blame == TWO_VERSIONS and not relayed and (lob.role == "host" or seat != self.host_seat()):
            return
        if lob.role == "host":
            lob.restart_round([rnd.setup.players[seat].public_key], now)
        elif seat == self.host_seat():
            # The other joiners may hold one version only (ours reached nobody yet): they get
            # the proof first, or a round the host ends strands them (stop 26's CI).
            if forward:
                self.relay(seat, evidence)
            lob.abort(reason or f"seat {seat} signed a lie in the setup (the host's seat): {blame}")
        else:
            self.relay(seat, evidence)

    def relay(self, seat: int, raws: list[bytes]) -> None:
        """Joiner: forward the signed envelopes naming ``seat`` to the host (its endpoint, over
        its channel) — those naming the host's seat to every other joiner instead (the host may
        have shown them another version) —, each once per round, at most ``RELAY_PER_SEAT`` per
        seat named (counted ``relayed``)."""
        lob, rnd = self._lobby, self._round
        h = self.host_seat()
        if lob.role == "host" or h < 0 or seat == rnd.my_seat:
            return
        to = [h] if seat != h else [i for i in range(lob.seats) if i not in (h, rnd.my_seat)]
        sent = self._relayed.setdefault(seat, set())
        for raw in raws:
            if raw not in sent and len(sent) < RELAY_PER_SEAT:
                sent.add(raw)
                lob.count("relayed")
                for i in to:
                    lob.send(rnd.endpoints[i], raw)
