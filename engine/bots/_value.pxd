# Cython declarations for engine/bots/_value.py (see engine/state.pxd): Static becomes an
# extension type with the fields of its __slots__; the bots' hot helpers take a State.
cimport cython
from engine.state cimport State
from engine.board cimport Tables

cdef class Static:
    cdef public list groups, set_price, is_property, units, unit_bonus, group_get
    cdef public list sq_group_get, unit_of, street_rent
    cdef public tuple build_order, properties, stations, utilities, streets, street_rows
    cdef public object min_house_cost, max_rent, rent_units, last_mortgaged, last_board
    cdef public tuple worst_memo

cpdef Static static(State s)
@cython.locals(tb=Tables, owner=list, m=Py_ssize_t)
cpdef completes_set(State s, Py_ssize_t sq, Py_ssize_t seat)
@cython.locals(tb=Tables, owner=list, m=Py_ssize_t, o=Py_ssize_t, rival=Py_ssize_t)
cpdef blocks_set(State s, Py_ssize_t sq, Py_ssize_t seat)
@cython.locals(owner=list, mort=list, level=list, memo=tuple, tops=list, worst=Py_ssize_t,
               r=Py_ssize_t, o=Py_ssize_t)
cpdef worst_rent(State s, Static st, Py_ssize_t seat)
@cython.locals(tops=list, r=Py_ssize_t, m=Py_ssize_t, o=Py_ssize_t, i=Py_ssize_t,
               top=Py_ssize_t, row=tuple, lv=Py_ssize_t, t=Py_ssize_t)
cpdef list _owner_tops(State s, Static st, list owner, list level, list mort)
@cython.locals(mort=list, owner=list, seats=list, last=tuple, is_prop=list, i=Py_ssize_t)
cpdef owns_mortgaged(State s, Static st, seat)
@cython.locals(last=tuple, owner=list, key=list)
cpdef board(State s, Static st)
@cython.locals(full=dict, split=dict, groups=list, group_get=list, owners=list, h=tuple,
               gi=Py_ssize_t, na=Py_ssize_t, ours_a=list, ours_b=list, a=Py_ssize_t,
               b=Py_ssize_t)
cpdef _board_of(Static st, list key)
cpdef split_sets(State s, Static st, seat)
cpdef reserve_bounds(Static st, prof)
cpdef reserve_for(State s, Static st, prof, seat)
