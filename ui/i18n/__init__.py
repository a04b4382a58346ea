"""Messages to players, through gettext, and money formatting.

Source strings (msgids) are English; the Italian catalog is
``ui/i18n/locale/it/LC_MESSAGES/lanopoli.po`` compiled to ``lanopoli.mo`` (regenerate with
``python -m ui.i18n.msgfmt``). The English catalog (``locale/en``) holds only the English texts
of the printed Italian cards, under the context "card" (:func:`card_text`). Italian is the
default because the rulebooks and most players are Italian; English is chosen with ``--lang en``
or an English locale in the environment (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``,
first one set wins, as gettext does).

Usage::

    from ui.i18n import _, set_language, format_money
    set_language(choose_language(args.lang))
    print(_("Winner: {name}").format(name=...))

Strings meant for machines (``final state hash: <hex>``, ``--json`` output) are never
translated.
"""

from __future__ import annotations

import gettext
import os
from pathlib import Path
from typing import Any, Mapping

DOMAIN = "lanopoli"
LOCALE_DIR = Path(__file__).with_name("locale")
LANGUAGES = ("it", "en")
DEFAULT_LANGUAGE = "it"

#: English until set_language (the msgids, and the cards' English texts when installed).
_translations: gettext.NullTranslations = gettext.translation(
    DOMAIN, localedir=str(LOCALE_DIR), languages=["en"], fallback=True)
_language: str = "en"


def choose_language(flag: str | None, environ: Mapping[str, str] | None = None) -> str:
    """Return "it" or "en": the ``--lang`` flag if given, else the locale, else Italian.

    ``environ`` defaults to ``os.environ``; the first of LANGUAGE, LC_ALL, LC_MESSAGES, LANG
    that is set and not empty decides (gettext's order). A locale that is neither Italian nor
    English (``C.UTF-8``, ``de_DE``) gives the default, Italian. Raises ``ValueError`` for a flag
    outside ``LANGUAGES`` (argparse normally refuses it first).
    """
    if flag is not None:
        if flag not in LANGUAGES:
            raise ValueError(f"unknown language {flag!r}; choose one of {', '.join(LANGUAGES)}")
        return flag
    env = os.environ if environ is None else environ
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var, "")
        if value:
            # LANGUAGE may be a list ("en_GB:it"); its first entry is the preference.
            code = value.split(":")[0].split("_")[0].split(".")[0].lower()
            return code if code in LANGUAGES else DEFAULT_LANGUAGE
    return DEFAULT_LANGUAGE


def set_language(lang: str) -> None:
    """Make ``_`` translate into ``lang`` ("it" or "en"). Raises ``ValueError`` otherwise.

    The msgids are English, so English's catalog holds only the cards' texts (:func:`card_text`).
    A missing catalog raises ``FileNotFoundError``: a broken install must not silently speak
    another language (or show the cards in Italian to an English player).
    """
    global _translations, _language
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")
    _translations = gettext.translation(DOMAIN, localedir=str(LOCALE_DIR), languages=[lang])
    _language = lang
    _install_for_argparse()


def _install_for_argparse() -> None:
    """Make argparse's own messages ("invalid choice", "the following arguments are required",
    "usage:", ...) speak the current language too. argparse looks its messages up through the
    module globals ``_`` and ``ngettext`` (bound to gettext's default domain, which nobody
    installs); pointing them at our catalog, which also holds argparse's msgids, translates
    them (English: the msgids themselves)."""
    import argparse

    argparse._ = _translations.gettext  # type: ignore[attr-defined]
    argparse.ngettext = _translations.ngettext  # type: ignore[attr-defined]


def current_language() -> str:
    """The language ``_`` translates into now ("it" or "en")."""
    return _language


def _(message: str) -> str:
    """Translate ``message`` (an English msgid) into the current language."""
    return _translations.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """Translate with the plural form for count ``n`` (gettext's plural rules)."""
    return _translations.ngettext(singular, plural, n)


#: The gettext context of the cards' texts in the catalogs (msgid: the printed Italian text).
CARD_CONTEXT = "card"


def card_text(card: Any) -> str:
    """``card`` (an ``engine`` Card) as the player reads it: its printed Italian text in Italian,
    the English catalog's text in English ("Andate avanti fino al VIA! Ritirate 200." ->
    "Advance to GO! Collect €200."; street names stay as printed, amounts as :func:`format_money`
    writes them). A text the catalog lacks is shown as printed (tests/ui/test_card_texts.py checks
    that every card of every edition has one)."""
    if _language == "it":
        return card.text
    return _translations.pgettext(CARD_CONTEXT, card.text)


def to_name(name: str) -> str:
    """``name`` after the preposition "to", for sentences whose Italian form needs it folded in:
    English "to Anna"; Italian "a Bruno", but "ad Anna" before a name starting with "a" (the
    euphonic d, which modern Italian keeps before the same vowel). The bank has its own
    articulated form: use ``_("to the bank")`` ("alla banca") instead. The message templates
    receive it as an extra placeholder (``{to_partner}``, ``{to_name}``) that only the Italian
    catalog uses; ``str.format`` ignores unused keywords, so the English msgids stay as they were."""
    if _language != "it":
        return "to " + name
    return ("ad " if name[:1].lower() in ("a", "à", "á") else "a ") + name


def from_name(name: str) -> str:
    """``name`` after "from": English "from Anna", Italian "da Anna" (the bank: use
    ``_("from the bank")``, "dalla banca"). See ``to_name``."""
    return ("da " if _language == "it" else "from ") + name


def format_money(euro: int) -> str:
    """Format an amount in euro the Italian way: 1500 -> "€1.500", -200 -> "-€200".

    ``euro`` is an int (the engine never uses floats for money); the thousands separator is
    the dot in both languages, because the game's banknotes and rulebooks are Italian.
    Raises ``TypeError`` for a non-int (including bool).
    """
    if not isinstance(euro, int) or isinstance(euro, bool):
        raise TypeError(f"euro must be an int, not {type(euro).__name__}")
    sign = "-" if euro < 0 else ""
    return f"{sign}€{abs(euro):,}".replace(",", ".")


def format_seconds(seconds: float) -> str:
    """A duration for a message, to a tenth of a second: 3.765 -> "3,8" in Italian, "3.8" in English.

    Italian writes the decimal comma; a dot there would read as the thousands separator of
    ``format_money`` ("3.765 s" looks like an hour). ``seconds`` is an int or float (negative
    values are shown as they are); the caller adds the unit ("{seconds} s")."""
    text = f"{float(seconds):.1f}"
    return text.replace(".", ",") if _language == "it" else text


# --- the board's words of the game ------------------------------------------------------
# The editions' data (engine/editions/data/) keep every name as printed on the Italian boards.
# Street, station and utility names are proper names, shown as printed in both languages
# ("Viale Vesuvio", "Stazione Nord", "Società Elettrica"); the squares and decks that are words
# of the game have their English board names in English: VIA! is GO, Imprevisti is Chance,
# Probabilità is Community Chest, and so on (``ENGLISH``). Italian shows every name as printed.

#: Printed Italian name -> the name on the English board, for the squares and decks that are
#: words of the game (classico and editrice-giochi; fabrianopoli's own names stay, except the
#: words of the game in them). Sources: rulebooks/monopoly-classico-hasbro.txt (the board's
#: "VIA!", "PRIGIONE / TRANSITO", "PARCHEGGIO GRATUITO", "IN PRIGIONE!", "TASSA PATRIMONIALE",
#: "TASSA DI LUSSO", "PROBABILITÀ", "IMPREVISTI"); the English names of the same squares on the
#: English board (GO, Jail / Just Visiting, Free Parking, Go to Jail, Income Tax, Luxury Tax,
#: Community Chest, Chance).
ENGLISH = {
    "VIA!": "GO",
    "Prigione / Transito": "Jail / Just Visiting",
    "Parcheggio gratuito": "Free Parking",
    "In prigione!": "Go to Jail",
    "Tassa patrimoniale": "Income Tax",
    "Tassa di lusso": "Luxury Tax",
    "Probabilità": "Community Chest",
    "Imprevisti": "Chance",
    # fabrianopoli (rulebooks/fabrianopoli.txt): the place names stay, the game's words go.
    "Riva (VIA!)": "Riva (GO)",
    "Commissariato / Transito": "Commissariato / Just Visiting",
    "Tassa sugli affitti": "Rent Tax",
}


def term(printed: str) -> str:
    """A square's or a deck's printed Italian name (``Square.name``, ``Edition.deck_names``) in
    the current language: in English the ``ENGLISH`` name when it has one, else (and always in
    Italian) the printed name."""
    if current_language() == "it":
        return printed
    return ENGLISH.get(printed, printed)


def square_name(square: Any) -> str:
    """``square`` (an ``engine`` Square) as the player reads it: :func:`term` of its name."""
    return term(square.name)
