# Cython declarations for engine/rules/house_rules.py (see engine/state.pxd).
from engine.state cimport State
from engine.rules.money cimport transfer

cpdef collect_pot(State s, list ev, seat)
cpdef go_salary(State s, landed_exactly)
