# Cython declarations for engine/rules/movement.py (see engine/state.pxd).
cimport cython
from engine.state cimport State
from engine.board cimport Tables
from engine.rules.house_rules cimport collect_pot, go_salary
from engine.rules.jail cimport send_to_jail
from engine.rules.money cimport charge, transfer
from engine.rules.rent cimport lapse_claims, owe_rent, rent_of

cpdef start_turn(State s, list ev, Py_ssize_t seat)
@cython.locals(out=list, n=Py_ssize_t, seat=Py_ssize_t)
cpdef next_turn(State s, list ev)
@cython.locals(c=Py_ssize_t)
cpdef end_move(State s, list ev)
cpdef roll_dice(State s, list ev, Py_ssize_t seat)
@cython.locals(c=Py_ssize_t, i=Py_ssize_t)
cpdef apply_dice(State s, list ev, d1, d2)
@cython.locals(c=Py_ssize_t)
cpdef jail_move(State s, list ev)
@cython.locals(frm=Py_ssize_t, to=Py_ssize_t, nsq=Py_ssize_t)
cpdef advance_by(State s, list ev, Py_ssize_t seat, Py_ssize_t steps)
cpdef move_to(State s, list ev, Py_ssize_t seat, target, salary)
cpdef move_back(State s, list ev, Py_ssize_t seat, steps)
@cython.locals(tb=Tables, sq=Py_ssize_t, o=Py_ssize_t)
cpdef land(State s, list ev, Py_ssize_t seat)
