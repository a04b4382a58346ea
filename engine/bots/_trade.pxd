# Cython declarations for engine/bots/_trade.py (see engine/state.pxd).
from engine.state cimport State

cpdef own_offer(State s, seat)
