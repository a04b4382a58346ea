"""Red team of forced reveals (protocol version 4, protocol.md §C3.8; issue 14): at a plain chance
step a seat's forced body ``[gid, k, seat, prev_hash, prev_digest, reveal]`` is held, logged,
served and replayed WHATEVER its signature. Each test is one attack and asserts the safe outcome
the spec promises (/work/notes/forced_design.md): nothing the table applies changes, no honest
peer forks, halts or is framed, every honest log verifies (``verify_log``: also what a spectator
runs, ui/watch), a restart and a catch-up pass the griefer's unsigned bodies, and a proof never
rests on an envelope whose signature was not checked (§C8.8).

The attacker is a lying seat (its own setup keys, so it can sign anything and send garbage
signatures under a valid channel MAC: ``KeyedNet`` of test_redteam_auth.py) or a relayer who
learned a reveal. In memory: fake engine (a dice race: a chance step, then a decision step, in
turn), virtual clock. With seat loss on, an escrow round comes before the first chance step;
the chance steps after it are plain."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

import fake_engine as E
from p2p import const as C
from p2p.bodies import CatchupResponse
from p2p.gamelog import KIND_STEP, STEP_RECORD, step_payload
from p2p.lockstep import CheaterProven, Equivocation, SeatDropped
from p2p.verify import verify_log
from p2p.wire import MSG_CATCHUP_RESP, MSG_STEP, open_envelope, seal, seal_message

from p2p_harness import random_legal, restart_overturned
from test_redteam_auth import CATCHUP_RESP_TAG, STEP_TAG, KeyedNet, garbled, step_of
from test_resilience import crash_and_restart, finals, logged_game

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

@pytest.mark.parametrize("options", [DROP, NO_DROP], ids=["seat-loss", "no-seat-loss"])
def test_a_griefer_garbling_every_forced_body_changes_nothing(tmp_path, options):
    """Seat 3 sends every forced body with a garbage signature (its other messages are signed).
    Its forced bodies are the bytes it must send, so every honest peer holds them (counted
    ``forced``), nobody is dropped or proven, the four finish one game, and every honest log —
    holding those unsigned bodies — verifies complete (as a spectator replays it)."""
    sessions, paths, _, _ = logged_game(tmp_path, 4, options)
    g = 3
    net = KeyedNet(list(sessions), random_legal(E, seed=3), lie=garble_forced(g))
    net.run(max_time=300.0)
    assert net.lies
    honest_logs_verify(net, sessions, paths, range(3))
    assert len({finals(net)[i][0].final_hash for i in range(4)}) == 1
    for i in range(3):
        assert sessions[i].stats["forced"] > 0
        assert not [e for e in net.events[i] if isinstance(e, (SeatDropped, CheaterProven))]


def test_a_restart_and_a_catchup_pass_the_griefers_unsigned_forced_bodies(tmp_path):
    """As above; honest seat 1 crashes at step 12, its log lost every record from step 5 on (a
    damaged disk), and the griefer never serves a catch-up page: seat 1 resumes from what is
    left and catches up from the other honest peers' pages, whose records hold the griefer's
    unsigned forced bodies (§C3.8: taken in records as live). Under §C3.7's deferred checks this
    was the hole that sank them; here the body itself is the proof."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, DROP)
    g = 3

    def lose_from_step_5(path):
        cut = next(r.offset for r in _records(path) if r.kind == KIND_STEP
                   and STEP_RECORD.decode(r.payload).step >= 5)
        with open(path, "r+b") as f:
            f.truncate(cut)

    net = KeyedNet(list(sessions), random_legal(E, seed=5), lie=garble_forced(g))
    net.drop = lambda src, dst, raw: src == g and raw[:2] == CATCHUP_RESP_TAG
    hook, st = crash_and_restart(net, sessions, paths, secrets, seat=1, crash_step=12, down_for=1.0,
                                 mutate_log=lose_from_step_5)
    net.run(max_time=300.0, hook=hook)
    assert st["report"] is not None and st["report"].damage is None and st["report"].steps <= 5
    overs = finals(net)
    assert all(len(overs[i]) == 1 for i in range(4)), net.describe()
    assert len({overs[i][0].final_hash for i in range(4)}) == 1
    for i in range(3):
        assert not [e for e in net.events[i] if isinstance(e, (SeatDropped, CheaterProven))]
    net.s[1].log.close()
    rep = verify_log(paths[1], engine=E)
    assert rep.ok and rep.complete, rep.error


def _records(path):
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


@pytest.mark.parametrize("options", [NO_DROP, DROP], ids=["no-seat-loss", "seat-loss"])
@pytest.mark.parametrize("how", ["page", "live"])
def test_a_signed_second_body_beside_an_unchecked_forced_one_proves_nothing(tmp_path, options, how):
    """Seat 3 garbles its forced bodies (held unchecked everywhere). Once victim 0 applied a plain
    chance step k >= 6, seat 3 shows it a SIGNED body of step k over the same history that adds
    an escrow ack: in its own catch-up page (§C3.4 'Second version in a record', ``cross_check``)
    or live, a late second message. Two versions, but the one held is unsigned: no evidence
    (§C8.8). Safe: no COMPLAINT, no CheaterProven, no Equivocation halt (without seat loss a
    proof halts the game: a one-datagram veto), one final hash, every honest log verifies
    naming nobody. Before H72/H73's checks both paths proved seat 3 with the unsigned envelope."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, options)
    net, done = second_body_game(sessions, ForcedSteps(3), page=how == "page")
    assert done, net.describe()
    for i in range(3):
        assert not [e for e in net.events[i] if isinstance(e, (CheaterProven, SeatDropped))], i
        assert not isinstance(sessions[i].halt_reason, Equivocation)
        assert sessions[i].stats["complaints"] == 0
    honest_logs_verify(net, sessions, paths, range(3))


def test_a_signed_second_body_beside_a_signed_forced_one_still_proves_equivocation(tmp_path):
    """Control for the test above: seat 3's forced bodies are validly signed, so the signed
    second body of the same step over the same history is a real equivocation (§C8.8 kind 1):
    proven, seat 3 voted out, the honest peers finish one game naming it."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, DROP)
    g, v = 3, 0
    net, done = second_body_game(sessions, ForcedSteps(g, garble=False), page=False)
    assert done
    assert any(isinstance(e, CheaterProven) and e.seat == g for e in net.events[v])
    honest_logs_verify(net, sessions, paths, range(3), cheaters=[g])


@pytest.mark.parametrize("how", ["page", "live"])
def test_a_signed_non_forced_body_is_refused_at_our_plain_chance_step(tmp_path, how):
    """At a plain chance step k >= 6 seat 3 sends victim 0 not its forced body but ITS signed
    body with an escrow ack: live, or in a page (its own, signed) whose record of step k holds it
    beside the other seats' messages as victim 0 holds them. §C3.8: refused live and in records
    alike (``not_forced``), so the victim
    never applies a body the others did not (a fork: another digest of step k, acks in its
    ledger only). It gets seat 3's forced body from the others' pages and all finish one game."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, DROP)
    g, v = 3, 0
    state: dict = {"k": None, "pushed": False}

    def drop(src, dst, raw):
        # seat 3's forced body of step k (its first plain chance step >= 6) never reaches the
        # victim live (nor its re-sends)
        if src != g or raw[:2] != STEP_TAG:
            return False
        b = step_of(raw)
        if state["k"] is None and b.step >= 6 and forced_looking(raw):
            state["k"], state["raw"] = b.step, raw
        return dst == v and b.step == state["k"]

    net = KeyedNet(list(sessions), random_legal(E, seed=3))
    net.drop = drop

    def hook(net):
        s = net.s[v]
        k = state["k"]
        if state["pushed"] or k is None or s.phase != "running" or s.step != k:
            return None
        if any(s.steps.held(k, i) is None for i in range(3) if i != v):
            return None
        second = with_acks(sessions[g].identity, state["raw"])
        s.receive_message(page_of(sessions[g], s, k, second) if how == "page" else second, net.now)
        state["pushed"] = True
        assert s.steps.held(k, g) is None or s.steps.held(k, g).body.acks == ()
        return None

    net.run(max_time=300.0, hook=hook)
    assert state["pushed"], net.describe()
    for i in range(3):
        assert not [e for e in net.events[i] if isinstance(e, SeatDropped)], i
    honest_logs_verify(net, sessions, paths, range(3))


# -- A4: a forced-looking body where no body is forced -----------------------------------------

def test_a_forced_looking_body_at_an_escrow_round_or_decision_step_needs_its_signature(tmp_path):
    """Up to step 12, every STEP seat 3 sends victim 0 at a step that is NOT a plain chance step
    (the escrow round before the first chance step, §C8.2; the decision steps) is replaced by a
    forced-looking body: 6 fields, its real next reveal (hashes to its last one), a garbage
    signature. Only a plain chance step takes a body unchecked (§C3.8): the victim drops each
    one (``bad_signature``), gets seat 3's signed messages from the others' records, and finishes
    the same game; its log verifies (a held unsigned body there would fail ``verify``, or fork
    the victim: a reveal at an escrow round or a decision step is ignored, but it is in the digest)."""
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, DROP)
    g, v = 3, 0
    liar = sessions[g]

    def lie(src, dst, raw):
        if src != g or dst != v or forced_looking(raw):
            return None
        b = step_of(raw)
        if b.step > 12:
            return None
        reveal = liar.own.chain.reveal_at(liar.chance_count + 1)
        return garbled(seal(liar.identity, MSG_STEP, [b.game_id, b.step, g, b.prev_hash, b.prev_digest, reveal]))

    net = KeyedNet(list(sessions), random_legal(E, seed=3), lie=lie)
    net.run(max_time=300.0)
    assert net.lies
    assert sessions[v].stats["bad_signature"] >= len(net.lies) > 0
    for i in range(3):
        assert not [e for e in net.events[i] if isinstance(e, (SeatDropped, CheaterProven))], i
    honest_logs_verify(net, sessions, paths, range(3))


# -- A5 (R1): a griefer's unsigned forced bodies can never be a voter's certificate ------------

@pytest.mark.xfail(strict=True, reason="accepted limit, protocol.md §C3.8 'not claimed' (H75 R1): only signed "
                   "step-(k+1) messages certify a voter (SessionVotes.certified), so a seat garbling its forced "
                   "bodies leaves it at k; counting an unsigned forced body is unsound (H72's fork counterexample)")
def test_a_griefer_cannot_strand_an_honest_voter_without_a_certificate(tmp_path):
    """3 seats {V=0, t=1, g=2}, seat loss on (Q = 2). g garbles every forced body and serves no
    catch-up page. At a decision step k >= 6, t is cut off from V only (a glitch, t honest)
    until V votes t out at k (§C8.3); then the link heals. g and t applied k, so V must apply k
    with a certificate (``SessionVotes.certified``: active - Q = 1 seat other than V and t that
    signed a step-(k+1) message over digest(k)). That seat is g, and k+1 is a plain chance step:
    its forced body carries a garbage signature, dropped on receipt at V (early, §C3.8: step k+1
    messages stay verified) and also when t relays it in a page (``pending``). Safe outcome:
    V is not stranded — nobody is dropped, the three finish one game. Found by H75 (20:05): V
    stays at step k (its node gives up after ``node_watchdog.stall_limit``) while g and t vote it
    out at k+1; in version 3 t's page relayed g's signed message and certified V. Not closable by
    counting g's unsigned k+1 forced body: a forced body binds its reveal to no history (§C3.8,
    H72's counterexample), so it stays a documented liveness cost: a strict xfail."""
    sessions, paths, _, _ = logged_game(tmp_path, 3, DROP)
    v, t, g = 0, 1, 2
    st: dict = {"k": None, "voted": False}
    net = KeyedNet(list(sessions), random_legal(E, seed=3), lie=garble_forced(g))

    def drop(src, dst, raw):
        s = net.s[v]
        if src == g and raw[:2] == CATCHUP_RESP_TAG:
            return True  # the griefer serves no page
        if st["k"] is None and s.phase == "running" and s.step >= 6 and not s.own.pending.chance:
            st["k"] = s.step
        if st["k"] is None or st["voted"]:
            return False
        if s.seats.has_voted(st["k"], t):
            st["voted"] = True
            return False
        return src == t and dst == v

    net.drop = drop
    net.run(max_time=200.0)
    assert st["voted"], net.describe()
    for i in range(3):
        assert not [e for e in net.events[i] if isinstance(e, SeatDropped)], (i, net.describe())
    honest_logs_verify(net, sessions, paths, range(2))


# -- A6: re-seats (§C8.9) and forced bodies ---------------------------------------------------

def test_a_reseated_griefer_garbling_its_new_chains_forced_bodies_changes_nothing(tmp_path):
    """Seat 3 garbles every forced body, is dropped (crash), returns as a spectator and is
    re-seated with a fresh chain (§C8.9): its previous reveal is now the RESEAT's chain head,
    at every peer and in ``verify`` alike, so its unsigned forced bodies of the new chain are
    taken as before; the re-seat request itself waits out the plain chance steps (never in a
    forced body) and is decided at the same step everywhere. Every peer, the returning one
    included, finishes one game and every log verifies complete."""
    from p2p.lockstep import SeatReturned
    from test_reseat_session import _returning

    opts = {"target": 70, C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 3}
    sessions, paths, secrets, _ = logged_game(tmp_path, 4, opts)
    g = 3
    net = KeyedNet(list(sessions), random_legal(E, seed=11), lie=garble_forced(g))
    hook, st = _returning(sessions, paths, secrets, seat=g, crash_step=6)
    net.run(max_time=1e5, hook=hook)
    assert st["asked"]
    back = [[e for e in evs if isinstance(e, SeatReturned)] for evs in net.events]
    assert all(len(b) == 1 and b[0].seat == g for b in back) and len({b[0].step for b in back}) == 1, back
    garbled_after = [raw for src, dst, raw in net.lies if step_of(raw).step > back[0][0].step]
    assert garbled_after, "the re-seated seat sent no forced body after its return"
    overs = finals(net)
    assert all(len(o) == 1 for o in overs), net.describe()
    assert len({o[0].final_hash for o in overs}) == 1
    for p in paths:
        rep = verify_log(p, engine=E)
        assert rep.ok and rep.complete, (p, rep.error)


# -- A7: a drop at a plain chance step, beside a griefer ---------------------------------------

def test_a_drop_at_a_plain_chance_step_beside_a_griefer(tmp_path):
    """Seat 2 falls silent for good at the first plain chance step k >= 8 (nothing of it reaches
    anyone from then on) while seat 3 garbles every forced body. The others vote seat 2 out AT
    k, a plain chance step decided before the drop (§C8.2: the escrow round is decided when the
    step begins, by every peer and ``verify`` alike): seat 3's unsigned forced body of k stays
    held, seat 2's reveal comes from its recombined escrow, the new epoch's acks ride the next
    step that is not a plain chance step. The three finish one game and their logs verify."""
    sessions, paths, _, _ = logged_game(tmp_path, 4, DROP)
    dead, g = 2, 3
    st: dict = {"k": None}
    net = KeyedNet(list(sessions), random_legal(E, seed=7), lie=garble_forced(g))

    def drop(src, dst, raw):
        s = net.s[0]
        if st["k"] is None and s.step >= 8 and s.own.plain_chance():
            st["k"] = s.step
        return st["k"] is not None and src == dead

    net.drop = drop
    net.run(max_time=300.0)
    assert st["k"] is not None
    drops = [e for e in net.events[0] if isinstance(e, SeatDropped)]
    assert [(e.seat, e.step) for e in drops] == [(dead, st["k"])], (drops, st)
    honest_logs_verify(net, sessions, paths, [0, 1, 3])


# -- A8: a real cheat at a plain chance step, beside a griefer's unsigned bodies ----------------

def test_a_wrong_reveal_is_still_proven_beside_a_griefers_unsigned_forced_bodies(tmp_path):
    """Seat 3 signs a wrong reveal at its first chance step >= 6 (to everyone, §C8.8 kind 2) while
    seat 2 garbles every forced body, so the step's other held messages include an unchecked
    one. The proof rests only on seat 3's signed message: every honest peer proves seat 3 (not
    seat 2), votes it out, and the game goes on; every honest log verifies naming seat 3 only."""
    from p2p_harness import BadReveal

    sessions, paths, _, _ = logged_game(tmp_path, 4, DROP)
    cheat = BadReveal(sessions[3].identity, 3, from_step=6)
    net = KeyedNet(list(sessions), random_legal(E, seed=3), lie=garble_forced(2), drop=cheat)
    cheat.net = net
    net.run(max_time=300.0)
    assert cheat.step is not None and net.lies
    for i in range(3):
        assert {e.seat for e in net.events[i] if isinstance(e, CheaterProven)} == {3}, i
        assert {e.seat for e in net.events[i] if isinstance(e, SeatDropped)} == {3}, i
    honest_logs_verify(net, sessions, paths, range(3), cheaters=[3])


# -- A9: the real engine (classico: plain chance steps; niente: none, §C12) ---------------------

def _real_game(tmp_path, edition, options, make_lie, choose):
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


def test_classico_with_a_griefer_garbling_its_forced_bodies(tmp_path):
    """The real engine (classico: dice, cards, every chance step of the rules), seat loss on
    (escrow rounds), seat 3 garbles every forced body: the four finish one game, nobody dropped
    or proven, every log verifies; the honest peers held the griefer's bodies unchecked."""
    from test_real_engine_game import chooser

    net, sessions = _real_game(tmp_path, "classico", {C.OPT_ON_DROP: "bot", C.OPT_DROP_TIMEOUT: 5},
                               lambda sessions: garble_forced(3), chooser())
    assert net.lies and all(sessions[i].stats["forced"] > 0 for i in range(3))


def test_niente_has_no_plain_chance_step_a_forced_looking_body_needs_its_signature(tmp_path):
    """niente-e-come-sembra (hidden information, §C12): no step is a plain chance step, so
    nothing is taken unchecked. Seat 3 sends victim 0, at every chance step, a 6-field body with
    its real reveal over the right history (a forced body in a classico game) and a garbage
    signature instead of its real message (reveal + hidden field). The victim drops each one
    (``bad_signature``, never ``forced``), gets seat 3's signed message from the others' records,
    and the four finish one game whose logs verify naming nobody."""
    import engine as RE

    def make_lie(sessions):
        def lie(src, dst, raw):
            b = step_of(raw)
            if src != 3 or dst != 0 or type(b.input) is not bytes or b.hidden is None:
                return None
            return garbled(seal(sessions[3].identity, MSG_STEP,
                                [b.game_id, b.step, 3, b.prev_hash, b.prev_digest, b.input]))
        return lie

    net, sessions = _real_game(tmp_path, "niente-e-come-sembra", None, make_lie,
                               lambda s: RE.choose(s.state, s.my_seat, "default", s.private_view()))
    assert net.lies
    assert sessions[0].stats["forced"] == 0 and sessions[0].stats["bad_signature"] >= 1


def test_an_early_signed_non_forced_body_is_refused_when_its_step_begins(tmp_path):
    """Victim 0 lags a step (the first copy of seat 1's messages of steps 5..12 to it is lost),
    so seat 3's messages of the next step reach it EARLY, verified and buffered (§C3.4 'step >
    ours'). For steps 6..12 seat 3 sends victim 0, instead of its forced body, its signed body
    plus an escrow ack. When such a step begins as a plain chance step, the buffered body must
    be judged as on receipt (§C3.8: not the forced body -> not held, ``not_forced``), never
    applied: else the victim's digest differs from everyone's, 'Two versions applied' may keep
    the ack body (the liar picks its hash) and the honest peers roll back onto a body no log can
    verify. Safe: nobody halts, rolls back or is dropped, one game, every honest log verifies.
    (Found by H75, 20:53: the victim applied it; fixed in b1c05b8, re-judged at step begin.)"""
    sessions, paths, _, _ = logged_game(tmp_path, 4, DROP)
    g, v = 3, 0
    first: set = set()

    def lie(src, dst, raw):
        if src == g and dst == v and forced_looking(raw) and 6 <= step_of(raw).step <= 12:
            return with_acks(sessions[g].identity, raw)
        return None

    def drop(src, dst, raw):
        if src != 1 or dst != v or raw[:2] != STEP_TAG or not 5 <= step_of(raw).step <= 12:
            return False
        if raw in first:
            return False
        first.add(raw)
        return True

    net = KeyedNet(list(sessions), random_legal(E, seed=3), lie=lie)
    net.drop = drop
    net.run(max_time=300.0)
    assert net.lies and sessions[v].stats["not_forced"] > 0, (net.describe(), [s.halt_reason.__class__.__name__ for s in sessions])
    for i in range(3):
        assert sessions[i].halt_reason is None, (i, sessions[i].halt_reason, net.describe())
        assert not [e for e in net.events[i] if isinstance(e, SeatDropped)], i
    honest_logs_verify(net, sessions, paths, range(3))


def test_a_colluders_page_never_overturns_a_plain_chance_step_onto_a_non_forced_body(tmp_path):
    """Liar 1 signs, besides its forced body of an applied plain chance step k >= 6, a second body
    with an escrow ack whose bytes it grinds until ``kept_version`` (smaller SHA-256, §C3.4 'Two
    versions applied') would keep it; colluder 2 serves it to victim 0 in ITS page of step k.
    At a plain chance step only the forced body can be the step's body (§C3.8): the victim may
    prove seat 1 (both versions signed) but never rolls back onto the ack body. Safe: no
    StepOverturned at the victim, the honest seats 0 and 3 finish one game with the others, every
    log verifies naming at most seat 1. (H79's review, 20:57; fixed by H72 in 45c8c31.)"""
    from p2p.step_collect import kept_version
    from p2p.lockstep import StepOverturned

    sessions, paths, secrets, _ = logged_game(tmp_path, 4, DROP)
    liar, colluder, v = 1, 2, 0
    lie = ForcedSteps(liar, garble=False)

    def make(s, k):
        forced = open_envelope(lie.sent[k], C.MAX_STEP_MSG).body
        b = step_of(lie.sent[k])
        for n in range(256):  # grind the ack until kept_version would keep it
            evil = seal(sessions[liar].identity, MSG_STEP, [b.game_id, k, liar, b.prev_hash, b.prev_digest, b.input,
                                                            None, None, [[0, 0, bytes([n]) * 32]]])
            if kept_version(forced, open_envelope(evil, C.MAX_STEP_MSG).body) != forced:
                break
        return page_of(sessions[colluder], s, k, evil, seat=liar)

    net, done = second_body_game(sessions, lie, make)
    assert done, net.describe()
    assert not isinstance(sessions[v].halt_reason, StepOverturned), sessions[v].halt_reason
    overs = finals(net)
    assert all(len(overs[i]) == 1 for i in (0, 3)), net.describe()
    assert len({o[0].final_hash for o in overs if o}) == 1
    for i in range(4):
        sessions[i].log.close()
        rep = verify_log(paths[i], engine=E)
        assert rep.ok and (rep.complete or i == liar), (i, rep.error)  # the liar may be voted out
        assert {c["seat"] for c in rep.cheaters} <= {liar}, (i, rep.cheaters)


def test_a_wrong_reveal_to_one_victim_never_wins_over_the_forced_body(tmp_path):
    """Seat 3 sends victim 0 the FIRST copy of its message of chance steps 1 and 2 as a signed
    wrong reveal (6 fields, §C8.8 kind 2), every re-send and every other peer its forced body.
    The victim proves seat 3 (both versions signed: the others too), but must still apply the
    forced body (the only body a plain chance step can apply, §C3.8), reach the next step and
    vote there with the others, so seat 3 is dropped and the game goes on. (Found by H75's
    widened mix test, 21:05: the victim kept the wrong reveal, voted at k while the others voted
    at k+1, and no quorum ever formed: the whole table stalled; the same on v3 code. Fixed by
    H72 in 45c8c31: at a plain chance step the kept version is the forced body.)"""
    sessions, paths, _, _ = logged_game(tmp_path, 4, DROP)
    g, v = 3, 0
    first: set = set()

    def lie(src, dst, raw):
        if src != g or dst != v or not forced_looking(raw) or step_of(raw).step not in (1, 2) or raw in first:
            return None
        first.add(raw)
        b = step_of(raw)
        return seal(sessions[g].identity, MSG_STEP, [b.game_id, b.step, g, b.prev_hash, b.prev_digest, b"\x13" * 32])

    net = KeyedNet(list(sessions), random_legal(E, seed=0), lie=lie)
    net.run(max_time=300.0)
    assert net.lies
    for i in range(3):
        assert {e.seat for e in net.events[i] if isinstance(e, SeatDropped)} <= {g}, i
    honest_logs_verify(net, sessions, paths, range(3), cheaters=[g])


# -- A10: any mix of the griefer's moves -------------------------------------------------------

@settings(max_examples=10, deadline=None, phases=[Phase.explicit, Phase.generate, Phase.shrink],
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(moves=st.lists(st.sampled_from(["send", "garble", "acks", "withhold", "wrong"]), min_size=5, max_size=13),
       victims=st.sets(st.integers(0, 2), min_size=1, max_size=2), seed=st.integers(0, 3),
       n=st.sampled_from([3, 4, 5]))
@example(moves=["send", "acks", "acks", "send", "send", "send", "send", "send"], victims={0}, seed=0, n=4)  # H75 20:53
@example(moves=["send"] * 8 + ["wrong"], victims={0}, seed=0, n=4)  # H75 21:05: the wrong-reveal stall
def test_any_mix_of_a_griefers_chance_step_moves_is_safe(tmp_path_factory, moves, victims, seed, n):
    """In a game of ``n`` seats (seat loss on), the last seat treats each copy of its forced
    bodies toward the ``victims`` by a move drawn per step and copy (cycling through ``moves``):
    send it, garble its signature, replace it by its signed body with an escrow ack (refused,
    §C3.8) or by a signed wrong reveal (proven, §C8.8), or withhold it (the others get it as
    sent); a peer halted by ``StepOverturned`` restarts from its log as the node does. Safety,
    whatever the mix: no honest peer is proven or dropped, every honest peer that finishes has
    the same final hash, and every honest log verifies (possibly incomplete) naming no honest
    seat."""
    tmp_path = tmp_path_factory.mktemp("mix")
    sessions, paths, secrets, _ = logged_game(tmp_path, n, DROP)
    g = n - 1  # the griefer: the last seat; victims among the others
    victims = {x for x in victims if x < g}

    count: dict = {}

    def move(raw):  # per step and per copy (first copy, re-sends...)
        count[raw] = count.get(raw, 0) + 1
        return moves[(step_of(raw).step * 7 + count[raw]) % len(moves)]

    def lie(src, dst, raw):
        if src != g or dst not in victims or not forced_looking(raw):
            return None
        m = move(raw)
        if m == "wrong":
            b = step_of(raw)
            return seal(sessions[g].identity, MSG_STEP, [b.game_id, b.step, g, b.prev_hash, b.prev_digest, b"\x13" * 32])
        return garbled(raw) if m == "garble" else with_acks(sessions[g].identity, raw) if m == "acks" else None

    net = KeyedNet(list(sessions), random_legal(E, seed=seed), lie=lie)
    net.drop = lambda src, dst, raw: src == g and dst in victims and raw[:2] == STEP_TAG \
        and forced_looking(raw) and move(raw) == "withhold"
    net.run(max_time=300.0, hook=restart_overturned(paths, secrets))  # as the node restarts (§C3.4)
    honest = range(g)
    for i in honest:
        proven = {e.seat for e in net.events[i] if isinstance(e, (CheaterProven, SeatDropped))}
        assert proven <= {g}, (i, proven, net.describe())
    overs = [o[0].final_hash for o in finals(net)[:g] if o]
    assert len(set(overs)) <= 1
    for i in honest:
        net.s[i].log.close()
        rep = verify_log(paths[i], engine=E)
        assert rep.ok, (i, rep.error)
        assert {c["seat"] for c in rep.cheaters} <= {g}, (i, rep.cheaters)
