# Cython declarations for engine/rules/rent.py (see engine/state.pxd).
cimport cython
from engine.state cimport State
from engine.board cimport Tables
from engine.rules.money cimport charge

@cython.locals(tb=Tables, owner=list, o=Py_ssize_t, lv=Py_ssize_t, m=Py_ssize_t,
               cnt=Py_ssize_t)
cpdef rent_of(State s, Py_ssize_t sq, dice_total)
cpdef owe_rent(State s, list ev, creditor, debtor, sq, amount)
@cython.locals(keep=list)
cpdef lapse_claims(State s, list ev)
