"""The shared pieces of the forced-reveal red team (tests/p2p/test_redteam_forced*.py; protocol.md
§C3.8): option sets, the griefer's lies (garbled forced bodies, bodies with acks, second
versions), log and page helpers, and the real-engine game. Not a test module."""

from __future__ import annotations

import fake_engine as E
from p2p import const as C
from p2p.bodies import CatchupResponse
from p2p.gamelog import KIND_STEP, step_payload
from p2p.lockstep import CheaterProven, SeatDropped
from p2p.verify import verify_log
from p2p.wire import MSG_CATCHUP_RESP, MSG_STEP, open_envelope, seal, seal_message

from p2p_harness import random_legal
from redteam_auth_kit import KeyedNet, garbled, step_of
from test_resilience import finals


DROP = {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 5, "target": 30}
NO_DROP = {"target": 30}


def forced_looking(raw: bytes) -> bool:
    """True if the STEP envelope ``raw`` has the forced body's shape: 6 fields, a 32-byte input."""
    env = open_envelope(raw, C.MAX_STEP_MSG)
    b = step_of(raw)
    return env.body[0] == 0x96 and type(b.input) is bytes and len(b.input) == C.HASH_LEN


def garble_forced(g: int):
    """A ``KeyedNet`` lie: every forced-looking STEP of seat ``g`` (every copy, re-sends too)
    goes out with a garbage signature."""
    def lie(src, dst, raw):
        return garbled(raw) if src == g and forced_looking(raw) else None
    return lie


def honest_logs_verify(net, sessions, paths, honest, cheaters=()):
    """Every honest peer ended with one GameOver, all with one final hash, and its log verifies
    complete naming exactly ``cheaters``."""
    overs = finals(net)
    assert all(len(overs[i]) == 1 for i in honest), net.describe()
    assert len({overs[i][0].final_hash for i in honest}) == 1
    for i in honest:
        sessions[i].log.close()
        rep = verify_log(paths[i], engine=E)
        assert rep.ok and rep.complete, (i, rep.error)
        assert {c["seat"] for c in rep.cheaters} == set(cheaters), (i, rep.cheaters)


# -- A1: a griefer garbles every forced body ----------------------------------------------------

def records_of(path):
    from p2p.gamelog import LogReader
    return list(LogReader(path))


# -- A2/A3: a signed body with other fields at a plain chance step, beside an unchecked one -----

def with_acks(identity, raw: bytes) -> bytes:
    """Seat's signed STEP with the same six fields as ``raw`` (its forced body) plus an escrow
    acknowledgement (9th field, §C8.2): the kind of body §C3.8 refuses at a plain chance step."""
    b = step_of(raw)
    return seal(identity, MSG_STEP, [b.game_id, b.step, b.seat, b.prev_hash, b.prev_digest, b.input, None, None,
                                     [[0, 0, b"\x42" * 32]]])


class ForcedSteps:
    """A ``KeyedNet`` lie for seat ``g``: every forced-looking STEP goes out garbled (``garble``)
    or as sent; the forced envelopes it sent are kept per step (``sent``)."""

    def __init__(self, g: int, garble: bool = True) -> None:
        self.g, self.garble = g, garble
        self.sent: dict[int, bytes] = {}

    def __call__(self, src, dst, raw):
        if src != self.g or not forced_looking(raw):
            return None
        self.sent.setdefault(step_of(raw).step, raw)
        return garbled(raw) if self.garble else None


def page_of(signer, victim, k: int, mine: bytes, seat: int | None = None) -> bytes:
    """``signer``'s signed CATCHUP_RESP holding the record of step ``k`` as the ``victim`` holds it,
    with the message of ``seat`` (default: the signer's own) replaced by ``mine``."""
    raws = [None if h is None else h.env.raw for h in victim.steps.slots(k)]
    raws[signer.my_seat if seat is None else seat] = mine
    return seal_message(signer.identity, MSG_CATCHUP_RESP, CatchupResponse(
        victim.game_id, signer.my_seat, k, k + 1, ((KIND_STEP, step_payload(k, raws)),), (), ()))


def second_body_game(sessions, lie: ForcedSteps, make=None, page: bool = False, v: int = 0):
    """Run the game with ``lie`` (seat ``lie.g``'s forced bodies); once victim ``v`` applied a
    plain chance step k >= 6 (still kept), it receives ``make(s, k)`` (default: seat g's signed
    body of step k with an ack, ``with_acks``, in g's own page if ``page``, else live).
    Returns (net, [k] once done)."""
    g = lie.g
    net = KeyedNet(list(sessions), random_legal(E, seed=3), lie=lie)
    done: list = []

    def second(s, k):
        raw = with_acks(sessions[g].identity, lie.sent[k])
        return page_of(sessions[g], s, k, raw) if page else raw

    def hook(net):
        s = net.s[v]
        if done or s is None or s.phase != "running":
            return None
        k = next((k for k in sorted(lie.sent) if 6 <= k < s.step and s.steps.keeps(k)), None)
        if k is not None:
            s.receive_message((make or second)(s, k), net.now)
            done.append(k)
        return None

    net.run(max_time=300.0, hook=hook)
    return net, done


# -- A9: the real engine (classico: plain chance steps; niente: none, §C12) ---------------------

def real_game(tmp_path, edition, options, make_lie, choose):
    """Four peers of the real engine over a ``KeyedNet`` whose lie is ``make_lie(sessions)``;
    asserts one final game and logs that verify complete naming nobody. Returns (net, sessions)."""
    import engine as RE
    from p2p.gamelog import LogWriter
    from p2p_harness import make_lobbies, pump_lobbies

    lobbies = make_lobbies(4, edition=edition, options=options)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda l: l.my_seat)
    paths = [tmp_path / f"{i}.log" for i in range(4)]
    sessions = [l.start_session(RE, log=LogWriter(p, l.log_header())) for l, p in zip(ordered, paths)]
    net = KeyedNet(sessions, choose, lie=make_lie(sessions))
    net.run(max_time=1e6, max_rounds=5_000_000)
    for s in sessions:
        s.log.close()
    overs = finals(net)
    assert all(len(o) == 1 for o in overs), net.describe()
    assert len({(o[0].final_hash, o[0].steps) for o in overs}) == 1
    for p in paths:
        rep = verify_log(p, engine=RE)
        assert rep.ok and rep.complete and rep.cheaters == [], (p, rep.error, rep.cheaters)
    for i in range(4):
        assert not [e for e in net.events[i] if isinstance(e, (SeatDropped, CheaterProven))], i
    return net, sessions
