"""Hidden information over the sans-I/O network (protocol.md §C12; DESIGN.md §4; issue
"Counterfeit banknotes and fake Imprevisti cards that nobody can rig or lie about").

Four peers play niente-e-come-sembra on the in-memory network with the niente bot, each with its
own private view. Checked: agreement and an offline-verifiable log with inspections; every view
right and limited to the seat's own items; no opening or salt on the wire or in the log except
publicly at an inspection; delivery within the next step; and each hostile peer of the issue
(wrong public opening, wrong private delivery, false complaint, withheld openings, silence at an
inspection) detected by every honest peer, naming the culprit, with the evidence in the log.
"""

from __future__ import annotations

import hashlib

import pytest

import engine as E
from engine import actions as A
from engine import observation as obs
from engine.rules.niente_events import BillInspected, BillsChosen, BillsMoved, CardInspected
from p2p.gamelog import LogWriter
from p2p.hidden import MAX_DELIVERY_ITEMS, OPEN_LEN, hidden_secret, opening, seal_delivery, share_of
from p2p.lockstep import CheatDetected, GameOver, SeatDropped, StepApplied
from p2p.verify import verify_log

from p2p_harness import Net, make_lobbies, pump_lobbies

ED = "niente-e-come-sembra"


def bot(s):
    return E.choose(s.state, s.my_seat, "default", s.private_view())


def start(tmp_path, n=4, options=None, seed=b"demo"):
    lobbies = make_lobbies(n, edition=ED, options=options, demo_seed=seed)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda l: l.my_seat)
    writers = [LogWriter(tmp_path / f"{i}.log", l.log_header()) for i, l in enumerate(ordered)]
    sessions = [l.start_session(E, log=w) for l, w in zip(ordered, writers)]
    secrets = [hidden_secret(l.chain_secret) for l in ordered]
    return sessions, writers, secrets


def truth(sessions, secrets, kind, ident):
    """The real status of an item, from every seat's secret (only a test can do this)."""
    lay = sessions[0].hidden.layout
    t = lay.item_of(kind, ident)
    return lay.is_fake(kind, ident, sum(share_of(opening(h, t)) for h in secrets))


def _unknown_held(state, seat):
    """Items ``seat`` holds in ``state`` with no public status, as view keys: bills that are
    items (ids < B) and Imprevisti kept in hand or held as the jail card (pair not public):
    what §C12.3 makes due to it if it was never given them."""
    out = {("bill", b) for b in obs.held_unknown(state, seat)[0]}
    return out | {("card", c) for c in obs.held_imprevisti(state, seat) if obs.card_status(state, c) is None}


@pytest.fixture(scope="module")
def honest(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("honest")
    sessions, writers, secrets = start(tmp)
    snaps = [[] for _ in sessions]  # snaps[i][j]: seat i's view after j steps
    held = [[] for _ in sessions]  # held[i][j]: _unknown_held of seat i after j steps
    for i, s in enumerate(sessions):
        snaps[i].append(set(s.private_view()))
        held[i].append(_unknown_held(s.state, i))
        orig = s.view.refresh

        def rec(state, _orig=orig, _i=i, _s=s):
            _orig(state)
            snaps[_i].append(set(_s.view.status()))
            held[_i].append(_unknown_held(state, _i))
        s.view.refresh = rec
    # backlog[k]: the most items one seat owed (all receivers together) when step k was applied,
    # before that step's deliveries left the queues (the ledger is the same on every peer).
    backlog = []
    led = sessions[0].hidden
    after = led.after_step

    def rec_after(step, fields, state):
        backlog.append(max(sum(len(q) for r, q in enumerate(row) if led.active[r])
                           for s, row in enumerate(led.queues) if led.active[s]))
        after(step, fields, state)
    led.after_step = rec_after
    net = Net(sessions, bot)
    net.run(max_time=1e6, max_rounds=5_000_000)
    for w in writers:
        w.close()
    return sessions, secrets, net, snaps, tmp, (held, backlog)


def test_whole_game_agrees_inspects_and_verifies(honest):
    """"A whole niente-e-come-sembra game ... in which bots inspect ..., fake bills change
    hands, fake cards are caught"; verify checks every inspection against the commitments."""
    sessions, secrets, net, _, tmp, _ = honest
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert all(len(o) == 1 for o in overs)
    assert len({o[0].final_hash for o in overs}) == 1
    events = [e for ev in net.events[0] if isinstance(ev, StepApplied) for e in ev.engine_events]
    bills = [e for e in events if isinstance(e, BillInspected)]
    assert bills and any(e.fake for e in bills) and any(not e.fake for e in bills)
    # Every public outcome is the sum of the committed shares (nobody chose it).
    for e in bills:
        assert e.fake == truth(sessions, secrets, "bill", e.bill)
    for e in (e for e in events if isinstance(e, CardInspected)):
        assert e.fake == truth(sessions, secrets, "card", e.card)
    rep = verify_log(tmp / "1.log", engine=E)
    assert rep.ok and rep.complete, rep.error
    h = rep.hidden
    assert h["inspections"] == len(bills) + sum(isinstance(e, CardInspected) for e in events)
    assert h["fakes_found"] == sum(e.fake for e in bills) and h["reveals"] > 0
    assert h["deliveries"] > 0 and h["items_delivered"] >= 3 * 4 * 12  # at least the start wallets
    # Network bots choose their bills (their views carry a secret, §C12.7), as local ones do.
    assert any(isinstance(e, BillsChosen) for e in events)


def test_each_view_is_right_and_only_about_its_own_items(honest):
    """"Each peer's local view shows its own bills' status and no one else's": a view holds
    exactly statuses of items ever given to that seat, and each is the true status."""
    sessions, secrets, _, _, _, _ = honest
    for i, s in enumerate(sessions):
        view = s.private_view()
        assert view
        lay = s.hidden.layout
        given = s.hidden.given[i]
        for (kind, ident), fake in view.items():
            assert lay.item_of(kind, ident) in given
            assert fake == truth(sessions, secrets, kind, ident)
        # The bot's view carries the seat's bill-order secret (§C12.7), from its hidden secret.
        assert view.secret == hashlib.sha256(b"lanopoli/1/bill-order\x00" + secrets[i]).digest()
        # Memory side: only shares delivered to us are stored, never another seat's items.
        received = s.view.shares_received()
        assert set(received) <= given
        for t, senders in received.items():
            assert i not in senders


def test_no_opening_leaves_its_owner_except_encrypted_or_at_an_inspection(honest):
    """"no share, salt or status of a bill leaves its owner except encrypted to the new holder,
    or publicly at an inspection": scan every byte sent and every log for every opening and
    every salt of every seat."""
    sessions, secrets, net, _, tmp, _ = honest
    lay = sessions[0].hidden.layout
    events = [e for ev in net.events[0] if isinstance(ev, StepApplied) for e in ev.engine_events]
    public = {lay.item_of("bill", e.bill) for e in events if isinstance(e, BillInspected)}
    public |= {lay.item_of("card", e.card) for e in events if isinstance(e, CardInspected)}
    wire = b"\x00".join(raw for _, raw in net.sent_log)
    logs = b"".join((tmp / f"{i}.log").read_bytes() for i in range(4))
    seen_public = 0
    for h in secrets:
        for t in range(lay.items):
            op = opening(h, t)
            if t in public:
                seen_public += op in wire
                continue
            assert op not in wire and op[4:] not in wire, t
            assert op not in logs and op[4:] not in logs, t
    assert seen_public == len(public) * 4  # the inspections really were public


def test_new_holder_learns_within_the_next_step(honest):
    """"When a bill changes hands, its new holder learns its status within the next step": a
    bill or Imprevisti seat r *holds* at the end of step k (status not public) is in r's view
    after step k+1, or, when the queues spilled over MAX_DELIVERY_ITEMS (§C12.3), after the
    first step whose whole backlog fits one message. Cards count in hand and as the jail card
    (the engine keeps "Uscite gratis di prigione" in ``held``).

    "Holds at the end of the step" is the property §C12.3 states, not "was moved to r during
    the step": a bill can reach a seat and leave it again within one step (the bank pays a seat
    that sells a building to raise money, and the same step's payment of its debt hands those
    bills on), and then r never holds it at any step boundary, is never given it, and cannot
    use it; it is given when r really holds it."""
    sessions, _, net, snaps, _, (held, backlog) = honest
    learned = {"bill": 0, "card": 0}
    passing = 0
    for r in range(len(sessions)):
        for j, items in enumerate(held[r]):
            # held[r][j]: r holds these after step j-1; they are delivered from step j on.
            done = next((k for k in range(j, len(backlog)) if backlog[k] <= MAX_DELIVERY_ITEMS), None)
            if done is None or done + 1 >= len(snaps[r]):
                continue  # the game ended first
            missing = items - snaps[r][done + 1]
            assert not missing, (r, j, done, sorted(missing))
            for kind, _ in items - snaps[r][j]:  # learned then, not known before
                learned[kind] += 1
    for ev in net.events[0]:
        if not isinstance(ev, StepApplied):
            continue
        for e in ev.engine_events:
            if isinstance(e, BillsMoved) and e.to >= 0 and ev.step + 1 < len(held[e.to]):
                passing += len({("bill", b) for b in e.bills} - held[e.to][ev.step + 1])
    assert learned["bill"] > 10 and learned["card"] > 0  # besides the start deal
    assert passing > 0  # the game did move bills through a seat within one step
    # The start wallets are known after step 0 (4 seats: 36 openings per sender fit one frame).
    for i, s in enumerate(sessions):
        w = [b for kind, b in obs.held_items(E.new_game(ED, 4), i) if kind == "bill"]
        assert {("bill", b) for b in w} <= snaps[i][1]


# --- hostile peers ------------------------------------------------------------------------------

#: Virtual seconds a hostile game is simulated. The honest peers halt (or finish) long before;
#: the liar alone never stops (nobody is left to agree with it) and would otherwise be simulated,
#: resend timer after resend timer, up to the harness's horizon: ~9 s of CPU per test for events
#: no test reads (only the honest seats' events and logs are checked).
HOSTILE_HORIZON_S = 3600.0


def _hostile_run(tmp_path, patch, options=None, drop=None):
    sessions, writers, secrets = start(tmp_path, options=options)
    patch(sessions, secrets)
    net = Net(sessions, bot, drop=(lambda a, b, r: drop(sessions, a, b, r)) if drop else None)
    net.run(max_time=HOSTILE_HORIZON_S, max_rounds=2_000_000)
    for w in writers:
        w.close()
    _hostile_run.secrets = secrets
    return sessions, net


def _cheats(net, honest_seats):
    out = {}
    for i in honest_seats:
        c = [e for e in net.events[i] if isinstance(e, CheatDetected)]
        assert len(c) == 1, (i, net.events[i][-3:])
        out[i] = c[0]
    return out


def _wrap_field(sess, f):
    orig = sess.view.my_field
    sess.view.my_field = lambda step, insp: f(step, insp, orig(step, insp))


def test_wrong_public_opening_is_caught_with_evidence_in_the_log(tmp_path):
    """A peer that opens a share that does not match its commitment at an inspection: every
    honest peer halts naming it; the signed message is in the log and verify names it too."""
    def patch(sessions, secrets):
        def bad(step, insp, field):
            if insp:
                field[1] = bytes([field[1][0] ^ 1]) + field[1][1:]
            return field
        _wrap_field(sessions[1], bad)
    sessions, net = _hostile_run(tmp_path, patch)
    for c in _cheats(net, (0, 2, 3)).values():
        assert c.seat == 1 and "does not match its commitment" in c.reason
    rep = verify_log(tmp_path / "0.log", engine=E)
    assert not rep.ok and "seat 1: opening" in rep.error and rep.first_bad_step == c.step


def test_withheld_openings_in_a_signed_message_are_caught(tmp_path):
    """A peer that signs its message of an inspection step without its openings."""
    def patch(sessions, secrets):
        def bad(step, insp, field):
            if insp:
                field[1] = b""
            return field
        _wrap_field(sessions[2], bad)
    _, net = _hostile_run(tmp_path, patch)
    for c in _cheats(net, (0, 1, 3)).values():
        assert c.seat == 2 and "withheld" in c.reason


def test_wrong_private_delivery_is_proven_by_the_holder(tmp_path):
    """A peer that delivers a wrong share privately: the holder detects it, publishes the
    message key in its next step (a complaint), and every honest peer checks the proof and
    names the sender; the log holds delivery and complaint, and verify names the sender."""
    def patch(sessions, secrets):
        s1 = sessions[1]

        def bad(step, insp, field):
            for d in field[0]:
                if d[0] == 2 and step >= 3:
                    n = (len(d[1]) - 16) // OPEN_LEN
                    wrong = bytes(OPEN_LEN * n)
                    key = s1.view.message_key(1, 2, step)
                    d[1] = seal_delivery(key, s1.game_id, 1, 2, step, wrong)
            return field
        _wrap_field(s1, bad)
    _, net = _hostile_run(tmp_path, patch)
    cheats = _cheats(net, (0, 2, 3))
    for c in cheats.values():
        assert c.seat == 1 and "private delivery to seat 2" in c.reason
    rep = verify_log(tmp_path / "3.log", engine=E)
    assert not rep.ok and "seat 1: private delivery to seat 2" in rep.error


def test_false_complaint_names_the_complainer(tmp_path):
    """A holder that publishes a complaint against a correct delivery is the culprit."""
    def patch(sessions, secrets):
        s2 = sessions[2]

        def bad(step, insp, field):
            if (0, 2) in s2.hidden.last and step > 3:  # seat 0 delivered to us last step
                key = s2.view.message_key(0, 2, step - 1)
                field[2] = [0, key]
            return field
        _wrap_field(s2, bad)
    _, net = _hostile_run(tmp_path, patch)
    for c in _cheats(net, (0, 1, 3)).values():
        assert c.seat == 2 and "false complaint" in c.reason


def test_silence_at_an_inspection_drops_the_seat_and_the_truth_still_comes_out(tmp_path):
    """A peer that refuses to reveal at an inspection (sends nothing): after the drop timeout
    the others drop it by the players' rule ("bot"), recombine its shares from the escrow, and
    the inspection resolves to the committed truth; the game ends and its log verifies."""
    gone = {"at": None}

    def drop(sessions, src, dst, raw):
        s = sessions[1]
        if gone["at"] is None and s.inspection and s.phase == "running":
            gone["at"] = s.step
        return src == 1 and gone["at"] is not None

    sessions, net = _hostile_run(tmp_path, lambda s, x: None,
                                 options={"p2p.on_drop": "bot", "p2p.drop_timeout": 2}, drop=drop)
    assert gone["at"] is not None
    for i in (0, 2, 3):
        dropped = [e for e in net.events[i] if isinstance(e, SeatDropped)]
        assert [(d.seat, d.step, d.reconstructed) for d in dropped] == [(1, gone["at"], True)]
        assert any(isinstance(e, GameOver) for e in net.events[i])
    step_ev = next(e for e in net.events[0] if isinstance(e, StepApplied) and e.step == gone["at"])
    outs = [e for e in step_ev.engine_events if isinstance(e, (BillInspected, CardInspected))]
    assert outs
    for e in outs:
        kind, ident = ("bill", e.bill) if isinstance(e, BillInspected) else ("card", e.card)
        assert e.fake == truth(sessions, _hostile_run.secrets, kind, ident)
    rep = verify_log(tmp_path / "0.log", engine=E)
    assert rep.ok and rep.complete, rep.error


def test_refused_inspections_are_refused_by_every_engine(tmp_path):
    """A peer that inspects its own bill (or while it may not inspect): every engine refuses it
    the same way ("Non potete controllare il vostro denaro"), the game goes on in agreement."""
    def hostile(s):
        st = s.state
        if s.my_seat == 1 and E.pending(st).kind == "inspect_window":
            own = [b for p in obs.window_payments(st) if p.payer == 1 for b in p.bills]
            if own:
                return A.InspectBill(own[0])
        return bot(s)
    sessions, writers, _ = start(tmp_path)
    net = Net(sessions, hostile)
    net.run(max_time=1e6, max_rounds=2_000_000)
    refused = [e for ev in net.events[0] if isinstance(ev, StepApplied) for e in ev.engine_events
               if type(e).__name__ == "ActionRefused" and e.seat == 1 and e.action_code == 40]
    reasons = {e.reason for e in refused}
    assert "not_inspectable" in reasons  # its own bill
    # (a bill an earlier seat of the same step took is "already_inspected"; no token or jail:
    # "cannot_inspect")
    assert reasons <= {"not_inspectable", "cannot_inspect", "already_inspected", "no_window"}
    overs = [[e for e in evs if isinstance(e, GameOver)] for evs in net.events]
    assert all(len(o) == 1 for o in overs) and len({o[0].final_hash for o in overs}) == 1


def _window(jail=None, lens=None):
    from engine.testing import scenario
    from engine.rules import banknotes as B
    s = scenario(3, edition=ED, owners={1: 0}, current=1, jail=jail or {})
    if lens is not None:
        s.nx[B.NX_LENS][2] = lens
    s.claims.append([0, 1, 1, 10, s.turn])
    s, ev = E.apply_action(s, 0, A.ClaimRent(1, 1))
    bill = next(e for e in ev if isinstance(e, BillsMoved) and e.frm == 1).bills[0]
    return s, bill


@pytest.mark.parametrize("case,seat,code", [("own bill", 1, "not_inspectable"), ("in jail", 2, "cannot_inspect"),
                                            ("no green token", 2, "cannot_inspect")])
def test_engine_refuses_inspection(case, seat, code):
    """"Non potete controllare il vostro denaro"; in jail "Non potete utilizzare la lente";
    a red token cannot be used ("Se il gettone è rosso ... dovete aspettare")."""
    s, bill = _window(jail={2: 1} if case == "in jail" else None, lens=0 if case == "no green token" else None)
    if E.pending(s).kind != "inspect_window":
        # Nobody else could inspect, so no window opened: the engine refuses outside one.
        code = "no_window"
    inputs = [None] * 3
    inputs[seat] = A.InspectBill(bill)
    _, ev = E.apply_step(s, inputs)
    refused = [e for e in ev if type(e).__name__ == "ActionRefused" and e.seat == seat]
    assert refused and refused[0].reason == code


def test_restart_from_the_log_rebuilds_the_private_view(tmp_path):
    """protocol.md §C12.6: a restarted peer replays its log through the same path and decrypts its
    deliveries again: same state and the same private view."""
    from p2p.resume import resume_session
    lobbies = make_lobbies(4, edition=ED)
    pump_lobbies(lobbies)
    ordered = sorted(lobbies.values(), key=lambda l: l.my_seat)
    writers = [LogWriter(tmp_path / f"{i}.log", l.log_header()) for i, l in enumerate(ordered)]
    sessions = [l.start_session(E, log=w) for l, w in zip(ordered, writers)]
    Net(sessions, bot).run(max_time=1e6, max_rounds=5_000_000)
    for w in writers:
        w.close()
    sess, rep = resume_session(tmp_path / "2.log", ordered[2].identity, ordered[2].chain_secret, E)
    assert rep.damage is None and rep.finished
    assert sess.state_hash == sessions[2].state_hash
    assert sess.private_view() == sessions[2].private_view() and sess.private_view()
