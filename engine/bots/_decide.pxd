# Cython declarations for engine/bots/_decide.py (see engine/state.pxd): a bot's per-phase
# decisions take a State and the edition's Static lists.
cimport cython
from engine.state cimport State
from engine.board cimport Tables
from engine.bots._value cimport (Static, blocks_set, board, completes_set, owns_mortgaged,
                                 reserve_bounds, reserve_for, worst_rent)
from engine.bots._trade cimport own_offer, propose

cpdef shared_action(cls, a, b=*)
@cython.locals(cash=Py_ssize_t)
cpdef on_roll(State s, Static st, prof, Py_ssize_t seat)
@cython.locals(mort=list, owner=list, is_prop=list, lift=list)
cpdef _lift(State s, Static st, prof, seat, reserve)
@cython.locals(tb=Tables, level=list, mort=list, groups=list, low=Py_ssize_t, m=Py_ssize_t,
               cash=Py_ssize_t, left=Py_ssize_t, keep=Py_ssize_t)
cpdef _build(State s, Static st, prof, Py_ssize_t seat, reserve, sets)
cpdef _jail(State s, Static st, prof, seat)
@cython.locals(sq=Py_ssize_t)
cpdef on_buy(State s, Static st, prof, Py_ssize_t seat)
@cython.locals(tb=Tables)
cpdef _auction_ceiling(State s, Static st, prof, seat, sq, low)
cpdef auction_top(State s, Static st, prof, seat)
@cython.locals(auc_in=list)
cpdef on_auction(State s, Static st, prof, seat, tops=*)
cpdef _top(State s, Static st, prof, seat, dict tops)
cpdef on_raise(State s, Static st, prof, seat)
@cython.locals(tb=Tables, owner=list, level=list, mort=list, kind=list, is_prop=list,
               group_levels=list)
cpdef _raise(State s, Static st, prof, seat)
cpdef bint _any_built(tuple levels)
# _raise's helpers and on_raise's check: C calls (one a raise-money step each, or more), the
# board tables read as struct fields.
cpdef _legal_for_debtor(State s, seat, a)
cpdef _group_built(State s, sq)
@cython.locals(a=Py_ssize_t, b=Py_ssize_t)
cpdef _better_mortgage(Tables tb, Py_ssize_t sq, Py_ssize_t best, Py_ssize_t need)
