# Cython declarations for engine/rules/jail.py (see engine/state.pxd).
from engine.state cimport State
from engine.rules.money cimport transfer

cpdef send_to_jail(State s, list ev, seat, why)
