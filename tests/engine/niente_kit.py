"""What the niente-e-come-sembra rule tests (tests/engine/test_niente_*.py) share: the edition's
name, the Imprevisti deck's index and ``scenario_with_bills``, an engine.testing scenario whose
wallets of bills match the cash it sets (rulebooks/monopoly-niente-e-come-sembra.txt).
"""

from engine.rules import banknotes as B
from engine.testing import scenario


ED = "niente-e-come-sembra"
IMP = 1


def scenario_with_bills(seats=2, **kw):
    """A scenario whose wallets match the cash it sets (scenario moves euro, not bills)."""
    s = scenario(seats, edition=ED, **kw)
    nx = s.nx
    den = nx[B.NX_DEN]
    redeal = [i for i in range(seats) if sum(den[b] for b in nx[B.NX_WALLET][i]) != s.cash[i]]
    for seat in redeal:
        nx[B.NX_PILE].extend(nx[B.NX_WALLET][seat])
        nx[B.NX_WALLET][seat] = []
    for seat in redeal:
        nx[B.NX_WALLET][seat] = sorted(B.bank_take(s, s.cash[seat]))
    B.check_bills(s)
    return s
