"""The cards' texts in the player's language (H125): with ``--lang en`` the Probabilità and
Imprevisti texts of the four editions were shown in Italian. The English catalog
(ui/i18n/locale/en/LC_MESSAGES/lanopoli.po, context "card") gives each printed Italian text its
English text; Italian shows the printed text; street and square names stay as printed and the
amounts are written as ``ui.i18n.format_money`` writes them in both languages ("€200")."""

from __future__ import annotations

import re

import pytest

from engine.editions import EDITIONS
from ui.i18n import CARD_CONTEXT, ENGLISH, LOCALE_DIR, card_text, set_language
from ui.i18n import msgfmt
from ui.narrate import Narrator, card_title

CARDS = [(name, card) for name in EDITIONS for deck in EDITIONS[name].decks for card in deck]
PO = LOCALE_DIR / "en" / "LC_MESSAGES" / "lanopoli.po"


def _id(card) -> str:
    return f"deck{card.deck}-card{card.index}"


@pytest.mark.parametrize("edition, card", CARDS, ids=[f"{n}-{_id(c)}" for n, c in CARDS])
def test_every_card_of_every_edition_has_an_english_text(english, edition, card):
    """Each card (edition, deck, index) reads in English: a catalog entry, not the printed text
    shown through; its amounts are those printed, written "€N" (format_money's style); the
    board's words read as on the English board (no "VIA!", "Imprevisti", "prigione" left)."""
    text = card_text(card)
    assert text != card.text
    printed = sorted(int(n) for n in re.findall(r"\d+", card.text))
    assert sorted(int(n) for n in re.findall(r"\d+", text)) == printed, text
    for m in re.finditer(r"\d+", text):
        if not text.startswith((" times", " spaces"), m.end()):  # "10 times the dice", "3 spaces": no money
            assert text[m.start() - 1] == "€", text
    assert not re.search(r"VIA!|«Via!»|Imprevisti|Probabilità|prigione|Banca", text), text


@pytest.mark.parametrize("edition", list(EDITIONS))
def test_street_names_on_the_cards_stay_as_printed(english, edition):
    """A card that names a square names it as printed (the board's own names), except the
    squares that are words of the game (ui.i18n.ENGLISH: VIA! is GO)."""
    ed = EDITIONS[edition]
    for deck in ed.decks:
        for card in deck:
            for square in ed.squares:
                if square.name in card.text and square.name not in ENGLISH and len(square.name) > 4:
                    assert square.name in card_text(card), (card.text, card_text(card))


def test_italian_shows_the_printed_text():
    set_language("it")
    try:
        assert all(card_text(card) == card.text for _, card in CARDS)
    finally:
        set_language("en")


def test_the_english_catalog_holds_only_card_texts_and_is_compiled():
    """Every entry of the English catalog is a card's printed text under the "card" context
    (no stale entry after a card's text changes), and its .mo is up to date."""
    keys = [k.decode("utf-8") for k in msgfmt.parse_po(PO.read_text(encoding="utf-8"), str(PO)) if k]
    printed = {card.text for _, card in CARDS}
    assert all(k.startswith(CARD_CONTEXT + "\x04") for k in keys)
    assert {k.split("\x04", 1)[1] for k in keys} == printed
    assert msgfmt.main(["--check"]) == 0


def test_the_log_and_the_titles_read_in_english(english):
    """The game log's card line and a card's title (the players panel, niente's dialogs) are
    English with --lang en: the title of "Invece di lanciare i dadi, ..." is what follows the
    comma in English too."""
    ed = EDITIONS["niente-e-come-sembra"]
    titles = {card_title(ed, 1, c.index) for c in ed.decks[1]}
    assert {"No rent!", "Free hotel!", "Advance to GO and collect €200", "Get out of Jail free"} <= titles
    from engine.events import CardDrawn

    imp = next(c for c in ed.decks[1] if c.text.startswith("Invece di"))
    line = Narrator(ed, ("Anna", "Bruno")).lines([CardDrawn(seat=0, deck=1, card=imp.index)])
    assert line == ["Anna draws Chance: “Instead of rolling the dice, advance to GO and collect €200.”"]
    set_language("it")
    try:
        assert card_title(ed, 1, imp.index) == "Andate avanti fino al VIA!"
        line = Narrator(ed, ("Anna", "Bruno")).lines([CardDrawn(seat=0, deck=1, card=imp.index)])
        assert imp.text in line[0]
    finally:
        set_language("en")
