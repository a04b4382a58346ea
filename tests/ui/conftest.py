"""Fixtures shared by the tests of the UI. Plain helpers for the Pilot tests live in
pilot_support.py (and the end-to-end tests' in tests/e2e/e2e_support.py): a test module cannot
import from conftest.py, since tests/e2e/conftest.py is also imported as ``conftest`` and the one
loaded last would win."""

from __future__ import annotations

import pytest

from ui.i18n import set_language


@pytest.fixture
def english():
    """UI texts in English for the test, and back to English after it (the Pilot modules use it
    for every test through ``pytestmark``)."""
    set_language("en")
    yield
    set_language("en")


@pytest.fixture
def italian():
    """UI texts (and the board's words, ui.i18n.term) in Italian for the test, English after."""
    set_language("it")
    yield
    set_language("en")


@pytest.fixture(params=["it", "en"])
def each_language(request):
    """The test once in Italian and once in English (English after it); the value is the language."""
    set_language(request.param)
    yield request.param
    set_language("en")
