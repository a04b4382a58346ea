# Cython declarations for engine/state.py (setup.py; docs/ARCHITECTURE.md §1, "Compiled
# engine"). State becomes an extension type with the fields of its __slots__: compiled
# functions declared with a ``State s`` argument (the other engine .pxd files) read and write
# its fields as C struct members instead of through attribute lookups. Scalars stay Python
# objects (Python int semantics, any value a test may store); list fields must be lists.
cimport cython
from engine.board cimport Tables

cdef class State:
    cdef public object edition, ed
    cdef public Tables tb
    cdef public object n, phase, current, turn, doubles, d1, d2, dice_for, draw_deck, mult
    cdef public object houses, hotels, bank, winner, auc_sq, auc_high, auc_bidder, auc_lot
    cdef public object pot, time_up
    cdef public list cash, pos, jail, out, owner, level, mort, undrawn, resume, auc_in
    cdef public list auc_queue, auc_target, opts
    cdef public list decks, held, claims, debts, offers, inherit, step_bids, nx

    @cython.locals(c=State)
    cpdef State copy(self)
