# Cython declarations for engine/rules/movement.py (see engine/state.pxd).
cimport cython
from engine.state cimport State
from engine.board cimport Tables
from engine.rules.house_rules cimport collect_pot, go_salary
from engine.rules.jail cimport send_to_jail
from engine.rules.money cimport charge, transfer
from engine.rules.rent cimport lapse_claims, owe_rent, rent_of

cpdef start_turn(State s, list ev, seat)
@cython.locals(out=list)
cpdef next_turn(State s, list ev)
cpdef end_move(State s, list ev)
cpdef roll_dice(State s, list ev, seat)
cpdef apply_dice(State s, list ev, d1, d2)
cpdef jail_move(State s, list ev)
cpdef advance_by(State s, list ev, seat, steps)
cpdef move_to(State s, list ev, seat, target, salary)
cpdef move_back(State s, list ev, seat, steps)
@cython.locals(tb=Tables)
cpdef land(State s, list ev, seat)
