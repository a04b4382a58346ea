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
    cdef public dict full_memo, worst_memo

cpdef Static static(State s)
@cython.locals(tb=Tables, owner=list)
cpdef completes_set(State s, sq, seat)
@cython.locals(tb=Tables, owner=list)
cpdef blocks_set(State s, sq, seat)
@cython.locals(owner=list, mort=list, level=list, memo=dict, worst=Py_ssize_t, r=Py_ssize_t)
cpdef worst_rent(State s, Static st, seat)
@cython.locals(mort=list, owner=list, seats=list, last=tuple, is_prop=list)
cpdef owns_mortgaged(State s, Static st, seat)
@cython.locals(last=tuple)
cpdef board(State s, Static st)
cpdef reserve_bounds(Static st, prof)
cpdef reserve_for(State s, Static st, prof, seat)
