"""Probabilità and Imprevisti (rulebook: "Imprevisti e Probabilità"; DESIGN.md §1 decks).

The deck is face down: the chance step "card" draws a uniformly random card among the first
``undrawn[d]`` of ``decks[d]`` (those not yet drawn in this pass); after it is resolved it goes
to the bottom ("rimettete la carta in fondo al mazzo"). When every card of the pass has been
drawn a new pass starts with the whole deck. "Uscite gratis di prigione" is kept by the player
("Potete conservare questa carta fino al momento di servirvene"), may be traded, and goes back
under its deck when used (engine.rules.jail) or when its holder goes bankrupt to the bank.

The edition's *card strategy* (``Edition.cards``, issue 13) is how the flow reaches these rules:
:class:`Deck` (:data:`DECK`) for the face-down decks above; niente-e-come-sembra's face-up
Imprevisti and kept cards are ``engine.rules.faceup_cards.FaceUp``. The flow (engine.game,
engine.rules.movement, trade, bankruptcy) calls the strategy and never asks which edition runs.
"""
from __future__ import annotations

from ..errors import IllegalAction
from ..events import CardChoiceOffered, CardDrawn
from ..state import P_CARD, P_CHOICE, P_END_MOVE
from .jail import send_to_jail, use_card
from .money import R_CARD, charge, transfer
from .movement import move_back, move_to


def draw(s, ev, rng) -> None:
    """Chance "card": draw from ``s.draw_deck`` for the current player and apply the effect.
    (:meth:`Deck.draw`; niente-e-come-sembra's ``FaceUp.draw`` keeps cards and refills the
    face-up Imprevisti instead.)"""
    d = s.draw_deck
    deck = s.decks[d]
    if s.undrawn[d] <= 0:
        s.undrawn[d] = len(deck)
    i = rng.below(s.undrawn[d])
    card = deck.pop(i)
    s.undrawn[d] -= 1
    seat = s.current
    ev.append(CardDrawn(seat, d, card))
    c = s.ed.decks[d][card]
    if c.kind == "get_out_of_jail_free":
        s.held[seat].append(d * 256 + card)
        s.held[seat].sort()
        s.phase = P_END_MOVE
        return
    deck.append(card)
    if c.kind == "pay_or_draw":
        # "Pagate una multa di € 25, oppure prendete un cartoncino dagli «Imprevisti»": the
        # player chooses (phase card_choice); draw_deck remembers the card as deck*256+card.
        s.draw_deck = d * 256 + card
        s.phase = P_CHOICE
        ev.append(CardChoiceOffered(seat, c.amount, c.alt_deck))
        return
    apply_card(s, ev, seat, c)


def choose(s, ev, seat: int, draw: bool) -> None:
    """PayCardFine (``draw`` False) or DrawCardInstead (True) for the pending pay_or_draw
    card. Raises IllegalAction ``not_offered`` unless ``seat`` is choosing now. Silence in the
    step counts as paying (engine.game: a vanished player cannot block the game)."""
    if s.phase != P_CHOICE or s.current != seat:
        raise IllegalAction("no card choice is offered to you", "not_offered")
    key = s.draw_deck
    c = s.ed.decks[key >> 8][key & 255]
    if draw:
        s.draw_deck = c.alt_deck
        s.phase = P_CARD
    else:
        s.draw_deck = -1
        s.phase = P_END_MOVE
        charge(s, ev, seat, -1, c.amount, R_CARD)


def apply_card(s, ev, seat: int, c) -> None:
    """Apply the effect of card ``c`` (engine.editions.Card) to ``seat``; sets the next phase."""
    k = c.kind
    s.phase = P_END_MOVE
    if k == "move_to":
        move_to(s, ev, seat, c.target, c.go_salary)
    elif k == "move_to_nearest":
        tb = s.tb
        p = s.pos[seat]
        nsq = tb.nsq
        for step in range(1, nsq + 1):
            if tb.kind[(p + step) % nsq] == c.target_kind:
                break
        s.mult = c.dice_multiplier if c.dice_multiplier else c.rent_multiplier
        move_to(s, ev, seat, (p + step) % nsq, c.go_salary)
    elif k == "move_relative":
        if c.steps < 0:
            move_back(s, ev, seat, -c.steps)
        else:
            move_to(s, ev, seat, (s.pos[seat] + c.steps) % s.tb.nsq, True)
    elif k == "collect":
        transfer(s, ev, -1, seat, c.amount, R_CARD)
    elif k == "pay":
        charge(s, ev, seat, -1, c.amount, R_CARD)
    elif k == "collect_from_each_player":
        for other in _others(s, seat):
            charge(s, ev, other, seat, c.amount, R_CARD)
    elif k == "pay_each_player":
        for other in _others(s, seat):
            charge(s, ev, seat, other, c.amount, R_CARD)
    elif k == "repairs":
        houses = hotels = 0
        for sq, o in enumerate(s.owner):
            if o == seat:
                lv = s.level[sq]
                if lv == 5:
                    hotels += 1
                else:
                    houses += lv
        charge(s, ev, seat, -1, houses * c.per_house + hotels * c.per_hotel, R_CARD)
    elif k == "go_to_jail":
        send_to_jail(s, ev, seat, "card")
    else:  # pragma: no cover - editions are validated on load
        raise ValueError(f"unknown card kind {k}")


def _others(s, seat: int) -> list[int]:
    """Other seats still in the game, in turn order after ``seat``."""
    n = s.n
    return [(seat + i) % n for i in range(1, n) if not s.out[(seat + i) % n]]


class Deck:
    """Card strategy of the editions with face-down decks (``Edition.cards``; every edition but
    niente-e-come-sembra, whose ``engine.rules.faceup_cards.FaceUp`` subclasses this one).
    Jail cards are named by their deck in UseJailCard and in trades. Stateless; one shared
    instance :data:`DECK`."""

    __slots__ = ()
    name = "deck"
    """Short name, for messages and tests."""

    def deal(self, s, ev, rng) -> None:
        """"first_player" chance step, after the rolls: nothing lies face up here."""

    def land(self, s, ev, seat: int, deck: int) -> None:
        """``seat`` ended its move on a card square of ``deck``: the "card" chance step draws."""
        s.draw_deck = deck
        s.phase = P_CARD

    def draw(self, s, ev, rng) -> None:
        """Chance "card": :func:`draw`."""
        draw(s, ev, rng)

    def use_jail_card(self, s, ev, seat: int, deck: int) -> None:
        """UseJailCard: engine.rules.jail.use_card."""
        use_card(s, ev, seat, deck)

    def check_trade(self, s, proposer: int, partner: int, give, get) -> None:
        """Raise IllegalAction unless each side holds the jail cards it gives (``give``,
        ``get``: sorted deck numbers, ``engine.actions.ProposeTrade``); "no_jail_card"."""
        for holder, decks in ((proposer, give), (partner, get)):
            held = [k >> 8 for k in s.held[holder]]
            for d in decks:
                if d not in held:
                    raise IllegalAction("jail card not held by the giving side", "no_jail_card")

    def give(self, s, ev, deck: int, frm: int, to: int) -> None:
        """An accepted trade hands ``frm``'s jail card of ``deck`` to ``to`` (checked)."""
        for k in s.held[frm]:
            if k >> 8 == deck:
                s.held[frm].remove(k)
                s.held[to].append(k)
                s.held[to].sort()
                return

    def give_up(self, s, ev, seat: int, creditor: int) -> None:
        """``seat`` goes bankrupt: its held jail cards follow the estate
        (engine.rules.bankruptcy), nothing else to hand over here."""


DECK = Deck()
"""The face-down decks card strategy (``Edition.cards``'s default)."""
