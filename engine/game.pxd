# Cython declarations for engine/game.py (see engine/state.pxd): the step functions take a
# State and an event list, and call the rules' typed functions as C functions.
cimport cython
from engine.state cimport State
from engine.rules cimport movement
from engine.rules.money cimport settle

cpdef advance(State s, list ev)
@cython.locals(out=list, builds=Py_ssize_t, by_type=dict)
cpdef step_inplace(State s, inputs, list ev, strict=*)
cpdef chance_inplace(State s, rng, list ev)
