# Cython declarations for engine/board.py (setup.py; docs/ARCHITECTURE.md §1,
# "Compiled engine"): Tables becomes an extension type, so compiled code that knows a value is
# Tables (State.tb) reads its lists straight from the object. Same fields as its __slots__.
cdef class Tables:
    cdef public list kind, price, group, rent, house_cost, sell_back, mortgage, lift, fee
    cdef public list amount, deck, group_members, group_of, properties, stations, utilities
    cdef public object nsq, flow_rules
