# Cython declarations for engine/bots/play.py (see engine/state.pxd): the loop of a bot game.
cimport cython
from engine.state cimport State
from engine.game cimport chance_inplace, step_inplace
from engine.bots._choose cimport _choose_all

@cython.locals(ev=list, steps=Py_ssize_t, dice=Py_ssize_t, chances=Py_ssize_t)
cpdef _run(State s, list names, list profs, seed, max_steps, rng)
