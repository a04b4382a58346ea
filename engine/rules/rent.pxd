# Cython declarations for engine/rules/rent.py (see engine/state.pxd).
cimport cython
from engine.state cimport State
from engine.board cimport Tables
from engine.rules.money cimport charge

@cython.locals(tb=Tables, owner=list)
cpdef rent_of(State s, sq, dice_total)
cpdef owe_rent(State s, list ev, creditor, debtor, sq, amount)
@cython.locals(keep=list)
cpdef lapse_claims(State s, list ev)
