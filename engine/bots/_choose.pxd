# Cython declarations for engine/bots/_choose.py (see engine/state.pxd): the bots' entry
# points take a State and call the typed decisions as C functions.
cimport cython
from engine.state cimport State
from engine.bots._decide cimport on_auction, on_buy, on_roll, shared_action
from engine.bots._trade cimport own_offer
from engine.bots._value cimport Static, static

cpdef _choose(State s, seat, bot, prof)
@cython.locals(inputs=list, out=list, st=Static, tops=dict, ask=list)
cpdef _choose_all(State s, bots, profs=*)
cpdef _bids(State s, seat)
