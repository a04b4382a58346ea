"""Imprevisti face up, kept cards and their effects (niente-e-come-sembra).

Rulebook: "Mischiate con cura le carte Imprevisti, poi pescatene tre e mettetele ... una su ogni
casella" (laid face up: reference notes, fandom/geekyhobbies/zigjogos); "Quando vi fermate sulla
casella Imprevisti, prendete una qualsiasi delle carte Imprevisti al centro del tabellone. Poi
pescatene un'altra dal mazzo ... al posto di quella che avete preso"; "Potete conservare la carta
... Una volta utilizzata, rimettetela in fondo al mazzo Imprevisti. Potete avere una sola carta
Imprevisti alla volta. Se ... avete già una carta Imprevisti, potete scartarla e sostituirla";
Probabilità: "Se la carta vi impone di fare qualcosa immediatamente, leggete le indicazioni a voce
alta e seguitele. Altrimenti, potete tenere la carta fino al momento in cui sarete pronti ad
usarla. Una volta utilizzata la carta, rimettetela in fondo al mazzo."

Lockstep form:

* The three face-up cards are drawn in the "first_player" chance step, after the rolls.
* Landing on Imprevisti: decision phase "take_card" for the current player: ``TakeCard(slot)``
  (a card already held goes under the deck: the swap) or ``DeclineCard``; silence declines (a
  vanished peer cannot block the game). Taking is followed by a "card" chance step that refills
  the slot (uniform among the undrawn cards, DESIGN §1).
* Kept cards (``nx[NX_HAND]``; "Uscite gratis di prigione" cards in ``held`` as in classico,
  so trades and UseJailCard work unchanged) are used with ``UseCard(deck, card, target)``; an
  Imprevisti first goes through an inspection window (engine.rules.counterfeit).
* When each effect may be used (``use_error``) and what it does (``apply_effect``): docs/RULES.md.

The edition's card strategy (``Edition.cards``, issue 13) for these rules is :class:`FaceUp`
(:data:`FACE_UP`): engine.game, engine.rules.movement, trade and bankruptcy call it, and the
face-down :class:`engine.rules.cards.Deck` it subclasses, without asking which edition runs.
"""
from __future__ import annotations

from ..errors import IllegalAction, refuse
from ..events import BuildingBought, CardDrawn, JailCardUsed, LeftJail, PropertyBought, RentLapsed
from ..state import HOTEL, P_BUY, P_CARD, P_END_MOVE, P_ROLL, P_TAKE
from .banknotes import NX_FACEUP, NX_HAND, NX_LENS, restore_lenses
from .cards import Deck, apply_card
from .counterfeit import open_card_window
from .estate import hotel_room_error, street_error
from .money import R_CARD, R_PURCHASE, charge, round10, transfer
from .movement import move_to, next_free_property
from .niente_events import CardKept, CardPlayed, CardReturned, FaceUpDealt, FaceUpTaken

__all__ = ["FaceUp", "FACE_UP", "PROBABILITA", "IMPREVISTI", "IMMEDIATE_KINDS", "KEPT_KINDS",
           "EFFECT_KINDS", "deal", "land_on_imprevisti", "take", "decline", "draw", "use",
           "use_jail_card", "use_error", "apply_used", "apply_effect", "imprevisti_held",
           "round10", "next_free_property", "use_targets"]

PROBABILITA, IMPREVISTI = 0, 1
"""Deck indices (the order in which the board names the decks; engine.editions.niente checks
its data file against them and re-exports them)."""

IMMEDIATE_KINDS = ("collect", "pay", "move_to", "go_to_jail", "collect_from_each_player")
"""Probabilità kinds applied at once ("Se la carta vi impone di fare qualcosa immediatamente")."""
KEPT_KINDS = ("get_out_of_jail_free", "skip_rent", "half_rent", "double_rent", "free_hotel",
              "half_price", "next_free", "green_lenses")
"""Kinds that only make sense kept and used later (both decks)."""
EFFECT_KINDS = IMMEDIATE_KINDS + KEPT_KINDS


def _pop_undrawn(s, d: int, rng) -> int:
    """Draw uniformly among the undrawn cards of deck ``d`` (DESIGN §1); -1 if it is empty."""
    deck = s.decks[d]
    if not deck:
        return -1
    if s.undrawn[d] <= 0:
        s.undrawn[d] = len(deck)
    i = rng.below(s.undrawn[d])
    s.undrawn[d] -= 1
    return deck.pop(i)


def deal(s, ev, rng) -> None:
    """"first_player" chance step: lay the face-up Imprevisti (after the first-player rolls)."""
    row = s.nx[NX_FACEUP]
    for slot in range(len(row)):
        card = _pop_undrawn(s, IMPREVISTI, rng)
        row[slot] = card
        if card >= 0:
            ev.append(FaceUpDealt(slot, card))


def land_on_imprevisti(s, ev, seat: int) -> None:
    """Landing on Imprevisti: choose a face-up card (phase "take_card", :func:`take`), if any
    lies there; else the move ends."""
    if any(c >= 0 for c in s.nx[NX_FACEUP]):
        s.phase = P_TAKE
    else:
        s.phase = P_END_MOVE


def imprevisti_held(s, seat: int) -> list[int]:
    """Keys (deck*256+card) of the Imprevisti ``seat`` holds (hand and jail cards)."""
    return [k for k in s.nx[NX_HAND][seat] + s.held[seat] if k >> 8 == IMPREVISTI]


def _return(s, ev, seat: int, key: int) -> None:
    s.decks[key >> 8].append(key & 255)
    ev.append(CardReturned(seat, key >> 8, key & 255))


def _keep(s, seat: int, key: int) -> None:
    c = s.ed.decks[key >> 8][key & 255]
    lst = s.held[seat] if c.kind == "get_out_of_jail_free" else s.nx[NX_HAND][seat]
    lst.append(key)
    lst.sort()


def _drop(s, seat: int, key: int) -> None:
    if key in s.held[seat]:
        s.held[seat].remove(key)
    else:
        s.nx[NX_HAND][seat].remove(key)


def take(s, ev, seat: int, slot: int) -> None:
    """TakeCard: take the face-up card of ``slot`` (swapping a held Imprevisti), then refill."""
    if s.phase != P_TAKE or s.current != seat:
        raise IllegalAction("no face-up card is offered to you", "not_offered")
    row = s.nx[NX_FACEUP]
    if not 0 <= slot < len(row) or row[slot] < 0:
        raise IllegalAction("no card in that slot", "no_such_card")
    limit = s.ed.decoder.imprevisti_limit
    mine = imprevisti_held(s, seat)
    for key in mine[:max(0, len(mine) - limit + 1)]:
        _drop(s, seat, key)
        _return(s, ev, seat, key)
    card = row[slot]
    row[slot] = -1
    _keep(s, seat, IMPREVISTI * 256 + card)
    ev.append(FaceUpTaken(seat, slot, card))
    s.draw_deck = IMPREVISTI
    s.phase = P_CARD if s.decks[IMPREVISTI] else P_END_MOVE


def decline(s, ev, seat: int) -> None:
    """DeclineCard (or silence in "take_card"): take nothing."""
    if s.phase != P_TAKE or s.current != seat:
        raise IllegalAction("no face-up card is offered to you", "not_offered")
    s.phase = P_END_MOVE


def draw(s, ev, rng) -> None:
    """Chance "card": refill the empty face-up slot (Imprevisti), or draw a Probabilità for the
    current player: immediate effects apply, the others are kept."""
    d = s.draw_deck
    seat = s.current
    card = _pop_undrawn(s, d, rng)
    s.phase = P_END_MOVE
    if card < 0:
        return
    if d == IMPREVISTI:
        row = s.nx[NX_FACEUP]
        slot = row.index(-1)
        row[slot] = card
        ev.append(FaceUpDealt(slot, card))
        return
    ev.append(CardDrawn(seat, d, card))
    c = s.ed.decks[d][card]
    if c.kind in KEPT_KINDS:
        _keep(s, seat, d * 256 + card)
        ev.append(CardKept(seat, d, card))
        return
    s.decks[d].append(card)
    apply_card(s, ev, seat, c)


# ------------------------------------------------------------------------------- using cards

def _own_turn(s, seat: int) -> bool:
    return s.phase == P_ROLL and s.current == seat


def use_error(s, seat: int, kind: str, target: int) -> tuple[str, str] | None:
    """(code, reason) why ``seat`` may not use a card of ``kind`` on ``target`` now, or None."""
    if kind in ("skip_rent", "half_rent", "double_rent"):
        col = 0 if kind == "double_rent" else 1
        for c in s.claims:
            if c[col] == seat and c[2] == target:
                return None
        return ("no_such_claim", "no open rent claim on that square")
    if kind == "free_hotel":  # any street we own, complete set or not (estate.hotel_room_error)
        return street_error(s.tb, s, seat, target) or hotel_room_error(s, target)
    if kind == "half_price":
        if s.phase != P_BUY or s.current != seat:
            return ("not_offered", "only when you may buy the property you landed on")
        if s.cash[seat] < round10((s.tb.price[s.pos[seat]] + 1) // 2):
            return ("insufficient_cash", "not enough cash")
        return None
    if kind in ("next_free", "move_to"):
        if not _own_turn(s, seat) or s.jail[seat]:
            return ("not_your_roll", "only instead of your roll, out of jail")
        if kind == "next_free" and next_free_property(s, seat) < 0:
            return ("no_such_property", "no unowned property left")
        return None
    if kind == "get_out_of_jail_free":
        if not _own_turn(s, seat):
            return ("not_your_roll", "only before your own roll")
        if not s.jail[seat]:
            return ("not_in_jail", "you are not in jail")
        return None
    if kind == "green_lenses":
        if s.nx[NX_LENS][seat] >= s.ed.decoder.magnifiers:
            return ("lenses_green", "your tokens are green already")
        return None
    if kind in ("collect", "collect_from_each_player"):
        return None
    return ("not_usable", "this card is not used this way")


def _held_key(s, seat: int, deck: int, card: int) -> int:
    key = deck * 256 + card
    if key in s.nx[NX_HAND][seat] or key in s.held[seat]:
        return key
    raise IllegalAction("you do not hold that card", "no_such_card")


def use(s, ev, seat: int, deck: int, card: int, target: int) -> None:
    """UseCard: play a kept card; an Imprevisti may be inspected first (counterfeit)."""
    if type(deck) is not int or not 0 <= deck < len(s.decks) or not 0 <= card < 256:
        raise IllegalAction("you do not hold that card", "no_such_card")
    key = _held_key(s, seat, deck, card)
    c = s.ed.decks[deck][card]
    refuse(use_error(s, seat, c.kind, target))
    _drop(s, seat, key)
    ev.append(CardPlayed(seat, deck, card, target))
    if deck == IMPREVISTI:
        if open_card_window(s, ev, seat, deck, card, target):
            return
    apply_used(s, ev, seat, deck, card, target)


def use_jail_card(s, ev, seat: int, deck: int) -> None:
    """UseJailCard in this edition: play the held "Uscite gratis di prigione" of ``deck``."""
    if s.phase != P_ROLL or s.current != seat:
        raise IllegalAction("only before your own roll", "not_your_roll")
    if not s.jail[seat]:
        raise IllegalAction("you are not in jail", "not_in_jail")
    for key in s.held[seat]:
        if key >> 8 == deck:
            break
    else:
        raise IllegalAction("you hold no jail card of that deck", "no_jail_card")
    ev.append(JailCardUsed(seat, deck))
    use(s, ev, seat, deck, key & 255, -1)


def apply_used(s, ev, seat: int, deck: int, card: int, target: int) -> None:
    """The card was not found fake: it goes under its deck and takes effect; if the effect is
    no longer possible (nothing can change during the window, so only defensively) the card goes
    back to the hand."""
    c = s.ed.decks[deck][card]
    if s.out[seat] or use_error(s, seat, c.kind, target):
        _keep(s, seat, deck * 256 + card)
        return
    s.decks[deck].append(card)
    ev.append(CardReturned(seat, deck, card))
    apply_effect(s, ev, seat, c, target)


def apply_effect(s, ev, seat: int, c, target: int) -> None:
    """Carry out a used card's effect (checked by ``use_error``)."""
    k = c.kind
    if k in ("skip_rent", "half_rent", "double_rent"):
        col = 0 if k == "double_rent" else 1
        for i, cl in enumerate(s.claims):
            if cl[col] == seat and cl[2] == target:
                break
        if k == "skip_rent":
            del s.claims[i]
            ev.append(RentLapsed(cl[0], cl[1], cl[2]))
        elif k == "half_rent":
            cl[3] = round10((cl[3] + 1) // 2)
        else:
            cl[3] *= 2
    elif k == "free_hotel":
        s.level[target] = HOTEL
        s.hotels -= 1
        ev.append(BuildingBought(seat, target, HOTEL))
    elif k == "half_price":
        sq = s.pos[seat]
        price = round10((s.tb.price[sq] + 1) // 2)
        transfer(s, ev, seat, -1, price, R_PURCHASE)
        s.owner[sq] = seat
        ev.append(PropertyBought(seat, sq, price))
        s.phase = P_END_MOVE
    elif k == "next_free":
        move_to(s, ev, seat, next_free_property(s, seat), True)
    elif k == "move_to":
        move_to(s, ev, seat, c.target, c.go_salary)
    elif k == "get_out_of_jail_free":
        s.jail[seat] = 0
        ev.append(LeftJail(seat, "card"))
    elif k == "green_lenses":
        restore_lenses(s, ev, seat)
    elif k == "collect":
        transfer(s, ev, -1, seat, c.amount, R_CARD)
    elif k == "collect_from_each_player":
        n = s.n
        for i in range(1, n):
            other = (seat + i) % n
            if not s.out[other]:
                charge(s, ev, other, seat, c.amount, R_CARD)


def use_targets(s, seat: int, kind: str) -> list[int]:
    """Targets ``seat`` may name for a card of ``kind`` now (sorted; [-1] if none is needed)."""
    if kind in ("skip_rent", "half_rent", "double_rent"):
        col = 0 if kind == "double_rent" else 1
        return sorted({c[2] for c in s.claims if c[col] == seat})
    if kind == "free_hotel":
        return [sq for sq in s.tb.properties if s.owner[sq] == seat
                and use_error(s, seat, kind, sq) is None]
    return [-1] if use_error(s, seat, kind, -1) is None else []



# ------------------------------------------------------------------------- the card strategy

def _check_limit(s, seat: int, gives, gets) -> None:
    """"Potete avere una sola carta Imprevisti alla volta" holds after a trade too."""
    after = len(imprevisti_held(s, seat)) - sum(1 for k in gives if k >> 8 == IMPREVISTI) \
        + sum(1 for k in gets if k >> 8 == IMPREVISTI)
    if after > s.ed.decoder.imprevisti_limit:
        raise IllegalAction("a player may hold one Imprevisti at a time", "imprevisti_limit")


class FaceUp(Deck):
    """Card strategy of niente-e-come-sembra (``Edition.cards``): face-up Imprevisti, kept
    cards (named by their key ``deck*256+card`` in trades), jail cards that may be inspected.
    Stateless; one shared instance :data:`FACE_UP`."""

    __slots__ = ()
    name = "face_up"

    def deal(self, s, ev, rng) -> None:
        """:func:`deal`: lay the face-up Imprevisti."""
        deal(s, ev, rng)

    def land(self, s, ev, seat: int, deck: int) -> None:
        """Probabilità is drawn; Imprevisti offers the face-up cards
        (:func:`land_on_imprevisti`)."""
        s.draw_deck = deck
        s.phase = P_CARD
        if deck == IMPREVISTI:
            land_on_imprevisti(s, ev, seat)

    def draw(self, s, ev, rng) -> None:
        """Chance "card": :func:`draw` (refill a face-up slot, or keep / apply a Probabilità)."""
        draw(s, ev, rng)

    def use_jail_card(self, s, ev, seat: int, deck: int) -> None:
        """:func:`use_jail_card` (an Imprevisti may be inspected before it frees ``seat``)."""
        use_jail_card(s, ev, seat, deck)

    def check_trade(self, s, proposer: int, partner: int, give, get) -> None:
        """Any kept card may change hands, named by its key (``give``, ``get``): each side must
        hold what it gives ("no_such_card"), and neither may end with more Imprevisti than the
        limit ("imprevisti_limit")."""
        for holder, keys in ((proposer, give), (partner, get)):
            mine = s.held[holder] + s.nx[NX_HAND][holder]
            for k in keys:
                if k not in mine:
                    raise IllegalAction("card not held by the giving side", "no_such_card")
        _check_limit(s, proposer, give, get)
        _check_limit(s, partner, get, give)

    def give(self, s, ev, key: int, frm: int, to: int) -> None:
        """An accepted trade hands the card ``key`` to ``to``; it keeps its place (held jail
        cards or the hand of kept cards)."""
        lst = s.held if key in s.held[frm] else s.nx[NX_HAND]
        lst[frm].remove(key)
        lst[to].append(key)
        lst[to].sort()

    def give_up(self, s, ev, seat: int, creditor: int) -> None:
        """``seat`` goes bankrupt (after ``HotelsOnly.before_bankruptcy``): kept cards go to a
        player creditor (an Imprevisti only if it has room, else under the deck) or under their
        decks (rulebook passage: engine.rules.niente_estate)."""
        if creditor >= 0 and s.out[creditor]:
            creditor = -1
        hand = s.nx[NX_HAND][seat]
        s.nx[NX_HAND][seat] = []
        room = s.ed.decoder.imprevisti_limit - (len(imprevisti_held(s, creditor))
                                                if creditor >= 0 else 0)
        for key in hand:
            if creditor >= 0 and (key >> 8 != IMPREVISTI or room > 0):
                if key >> 8 == IMPREVISTI:
                    room -= 1
                s.nx[NX_HAND][creditor].append(key)
                s.nx[NX_HAND][creditor].sort()
            else:
                s.decks[key >> 8].append(key & 255)
                ev.append(CardReturned(seat, key >> 8, key & 255))
        for key in [k for k in s.held[seat] if k >> 8 == IMPREVISTI]:
            if creditor >= 0 and room > 0:
                room -= 1
            else:
                s.held[seat].remove(key)
                s.decks[IMPREVISTI].append(key & 255)
                ev.append(CardReturned(seat, IMPREVISTI, key & 255))


FACE_UP = FaceUp()
"""niente-e-come-sembra's card strategy (``Edition.cards``)."""
