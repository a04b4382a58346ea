# Cython declarations for engine/rules/estate.py (see engine/state.pxd): the Houses
# strategy's liquidation value as a typed function (its lists' count/index as C calls).
cimport cython
from engine.state cimport State
from engine.board cimport Tables

@cython.locals(tb=Tables, owner=list, level=list, mort=list, sell_back=list, mortgage=list,
               sq=Py_ssize_t)
cpdef _houses_liquidation(State s, seat)
