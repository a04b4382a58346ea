# Cython declarations for engine/rules/money.py (see engine/state.pxd): typed entry points,
cimport cython
# called as C functions by the compiled modules that cimport them.
from engine.state cimport State

cdef class Euro:
    cpdef transfer(self, State s, list ev, Py_ssize_t payer, Py_ssize_t payee, amount, reason)

@cython.locals(m=Euro)
cpdef transfer(State s, list ev, Py_ssize_t payer, Py_ssize_t payee, amount, reason)
cpdef charge(State s, list ev, Py_ssize_t debtor, creditor, amount, reason, square=*)
cpdef _give(State s, list ev, seat, square, price)
@cython.locals(debts=list)
cpdef settle(State s, list ev)
