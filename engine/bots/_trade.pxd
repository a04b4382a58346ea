# Cython declarations for engine/bots/_trade.py (see engine/state.pxd).
from engine.state cimport State
from engine.bots._value cimport Static, split_sets

cpdef own_offer(State s, seat)
# propose and _candidates: C calls from _decide.on_roll (most calls find no split set and
# return at once, so the call itself was the cost).
cpdef propose(State s, Static st, prof, seat)
cpdef _candidates(State s, Static st, prof, seat)
