"""Protocol constants for the lanopoli p2p core: version, signature domains, sizes, timeouts.

Every number here is part of the wire contract (protocol.md part C) or of a peer's local
policy (timeouts); changing a wire number means bumping ``PROTOCOL_VERSION``.
Times are seconds (float, monotonic clock passed in by the caller); sizes are bytes.
"""

from __future__ import annotations

#: Wire protocol version, carried in Join and in the signed setup.
PROTOCOL_VERSION = 6

#: Every Ed25519 signature covers ``SIG_PREFIX + domain + b"\x00" + body`` (protocol.md §C2).
SIG_PREFIX = b"lanopoli/1/"

# Signature / hash domains (protocol.md §C2). One per message type, so a signature made for one
# kind of message can never be replayed as another.
DOMAIN_JOIN = b"join"
DOMAIN_STATUS = b"status"
DOMAIN_REJECT = b"reject"
DOMAIN_LEAVE = b"leave"
DOMAIN_PROPOSAL = b"proposal"
DOMAIN_SETUP_SIG = b"setup-sig"
DOMAIN_SEED = b"seed"
DOMAIN_STEP = b"step"
DOMAIN_ESCROW = b"escrow"
DOMAIN_DROP = b"seat-drop"
DOMAIN_CATCHUP_REQ = b"catchup-req"
DOMAIN_CATCHUP_RESP = b"catchup-resp"
DOMAIN_HINT = b"hint"
DOMAIN_ALIVE = b"alive"
DOMAIN_ABANDON = b"abandon"
DOMAIN_COMPLAINT = b"complaint"
DOMAIN_RESEAT = b"reseat"  # type 25 (protocol.md §C8.9, p2p/reseat.py)
DOMAIN_SKIP = b"turn-skip"  # type 26 (protocol.md §C8.10, p2p/turn_skip.py)
#: A seat whose turn a quorum skipped counts as this one-byte body in the step digest (§C3.2,
#: §C8.10): 0xC1 is the one byte msgpack never uses, so it is no STEP body (nor a dropped seat's b"").
SKIPPED_BODY = b"\xc1"
DOMAIN_CHAT = b"chat"  # type 36 (protocol.md §N9)
DOMAIN_WATCH = b"watch"  # type 37 (protocol.md §N10)
DOMAIN_RECORDS = b"records"  # type 38 (protocol.md §N10)
#: Hash domains (not signatures): setup hash and per-step digest.
HASH_SETUP = b"lanopoli/1/setup\x00"
HASH_DIGEST = b"lanopoli/1/digest\x00"
#: REJECT's ``answers`` (version 6, protocol.md §C2.1): SHA-256 of this + the JOIN envelope it answers.
HASH_REJECT_ANSWERS = b"lanopoli/1/reject-answers\x00"
#: Beacon prefix, as fixed by DESIGN.md §3 / protocol.md §C4.
BEACON_PREFIX = b"beacon"

# Sizes.
GAME_ID_LEN = 16
KEY_LEN = 32  # Ed25519 and X25519 raw public keys
SIG_LEN = 64
HASH_LEN = 32
#: Bytes of one escrow share (Shamir over GF(2^521 - 1), p2p/threshold.py; protocol.md §C8.2).
SHARE_LEN = 66
#: A step message must fit one Ethernet frame with UDP/IP and transport headers to spare.
MAX_STEP_MSG = 1200
#: Lobby messages travel over the reliable transport, which fragments them.
MAX_LOBBY_MSG = 16384
MAX_NAME_LEN = 32  # characters of a player name
MAX_EDITION_LEN = 32
MAX_OPTIONS = 32  # number of (key, value) pairs in the setup options
MAX_OPTION_STR = 64
MAX_HOST_LEN = 64  # textual IP address in an endpoint
MIN_SEATS = 2
MAX_SEATS = 8
#: Largest escrow epoch on the wire (ESCROW, DROP, SKIP; protocol.md §C8.2). Every drop and every
#: re-seat starts a new epoch, so re-seats are admitted only while a drop of every active seat but
#: one still fits (reseat.readmissions): a seat cycling leave/return cannot push it past this.
MAX_EPOCH = 255
#: Largest step number accepted on the wire (2**40 steps is far beyond any game).
MAX_STEP = 2**40
#: Nesting and element limits for an encoded engine action inside a step message.
MAX_ACTION_DEPTH = 6
MAX_ACTION_ITEMS = 64
#: Hidden information (protocol.md §C12.1/§C12.4): one opening is a share (4 bytes BE) and a
#: salt (12 bytes); a private delivery ends with a ChaCha20-Poly1305 tag.
HIDDEN_SHARE_LEN = 4
HIDDEN_SALT_LEN = 12
HIDDEN_OPEN_LEN = HIDDEN_SHARE_LEN + HIDDEN_SALT_LEN
HIDDEN_TAG_LEN = 16

# Hash chain (DESIGN.md §3).
#: Number of reveals a chain supports: one per chance step. A game that needs more halts with
#: ``BeaconExhausted`` (protocol.md §C4).
CHAIN_LENGTH = 65536
#: Checkpoint spacing of the stored chain: memory ~ (n/256 + 256) * 32 bytes.
CHAIN_CHECKPOINT = 256

# Lockstep window (protocol.md §C5). A peer can be at most one step ahead of or behind any other
# (it needs everyone's message to advance), so small windows suffice.
#: Future steps buffered beyond the current one.
STEP_WINDOW = 4
#: How many past steps of all seats' messages we keep, to answer stragglers and to catch
#: equivocation on a message that arrives late.
KEEP_STEPS = 4

# Timeouts (seconds).
#: First re-send of our current step message when the step has not completed.
RESEND_INTERVAL = 0.2
#: Exponential back-off cap for re-sends.
RESEND_MAX_INTERVAL = 2.0
#: Forwards one voter's DROP/SKIP votes may trigger at once (then one per RESEND_INTERVAL):
#: a replayed vote cannot make a peer multiply its sends (§C8.3 "Forwarding").
FORWARD_BURST = 2
#: Minimum gap between two answers to the same seat's old-step message.
ANSWER_MIN_INTERVAL = 0.05
#: A step that has not completed for this long produces a ``PeerStalled`` event (repeated
#: every STALL_TIMEOUT); the node decides whether the seat has left (protocol.md §C7).
STALL_TIMEOUT = 15.0
#: Lobby: the whole setup phase (proposal -> all signatures -> all reveals) must finish in this.
SETUP_TIMEOUT = 30.0
#: Lobby: a joiner that got no Status reply within this aborts.
JOIN_TIMEOUT = 10.0
#: A host answers at most this many PROBEs (JOIN with a zero game id, protocol.md §N3.1) per
#: second, burst included: a probe is one small datagram, its answer a signed STATUS.
PROBE_RATE = 8
#: ...and answers one joiner key at most once per this many seconds (a replayed PROBE takes
#: one answer a second, not the whole budget), remembering at most PROBE_MEMORY keys.
PROBE_REPEAT_S = 1.0
PROBE_MEMORY = 256
#: The game id of a PROBE: a JOIN with this id asks the host for its STATUS (join by code).
PROBE_GAME_ID = bytes(16)
#: REJECT codes (protocol.md §C2.1): the joiner shows its own text for the code, never text
#: the sender chose.
REJECT_FULL = 1
REJECT_VERSION = 2
REJECT_OTHER_KEYS = 3
REJECT_CODES = (REJECT_FULL, REJECT_VERSION, REJECT_OTHER_KEYS)
#: Lobby: SETUP_SIG/SEED messages kept before our PROPOSAL arrives (one per source, type, seat;
#: the oldest is dropped beyond it).
EARLY_BUFFER = 64
#: Lobby: seconds between two re-sends of our SETUP_SIG (and SEED once revealing) to every
#: other seat until the game starts: a copy lost (e.g. pushed out of a peer's early buffer by
#: junk, protocol.md §C2.2) comes again instead of aborting everyone at SETUP_TIMEOUT.
SETUP_RESEND_S = 2.0

# Resilience (protocol.md §C7-§9).
#: Setup option keys read by the p2p layer (never passed to the engine: every key that starts
#: with ``P2P_OPTION_PREFIX`` is stripped before ``engine.new_game``).
P2P_OPTION_PREFIX = "p2p."
OPT_ON_DROP = "p2p.on_drop"  # "bot" | "bankrupt"; its presence turns seat loss on
OPT_DROP_TIMEOUT = "p2p.drop_timeout"  # int seconds
OPT_TIMED_MS = "p2p.timed_ms"  # int ms: exact duration of a timed game of a fraction of a minute
#: Defaults the lobby offers (``setup_options.RESILIENCE_DEFAULTS``).
DEFAULT_ON_DROP = "bot"
DEFAULT_DROP_TIMEOUT = 30
MIN_DROP_TIMEOUT = 2
MAX_DROP_TIMEOUT = 3600
OPT_TURN_TIME = "p2p.turn_time"  # int seconds an alive seat may think at one step; 0 = unlimited
#: Turn time when the setup does not say (protocol.md §C8.3): an alive but idle seat is voted out
#: after it; MAX_TURN_TIME bounds the option.
DEFAULT_TURN_TIME = 300
MAX_TURN_TIME = 86400
#: A seat that has not sent its message of the current step (its player is thinking) sends an
#: ALIVE keep-alive this often, or every third of the drop timeout if that is shorter
#: (protocol.md §C8.3): the others then do not take it for a lost peer.
KEEPALIVE_INTERVAL = 5.0
#: A step stuck this long while some peer already sent a later step makes us ask that peer
#: for a catch-up (the step completed elsewhere; we lack a message of it).
CATCHUP_AFTER = 1.0
#: Minimum gap between two catch-up requests we send, and between two answers (catch-up
#: responses or hints) we give one seat.
CATCHUP_INTERVAL = 0.25
#: A peer whose step message carries our state hash but another step digest is asked for its
#: record of the previous step; without an answer naming an equivocating seat within this
#: time, the session halts with Desync (protocol.md §C3.4).
DISPUTE_TIMEOUT = 2.0
#: Caps of one catch-up response: log records and bytes of records (the transport fragments).
CATCHUP_MAX_RECORDS = 200
CATCHUP_MAX_BYTES = 40 * 1024
#: Pipelined catch-up (protocol.md §C9.1, issue 14): page requests a peer that is behind keeps
#: in flight, each for a range of steps sized to fill one page (CATCHUP_PAGE_STEPS steps until
#: a first page shows how big a step is); later pages that arrive first are held (at most
#: CATCHUP_HELD) until the peer reaches them.
CATCHUP_PIPELINE = 4
CATCHUP_PAGE_STEPS = 16
CATCHUP_HELD = 8
#: A responder answers one requester's page requests from a token bucket (§C9.2): a burst of
#: CATCHUP_BURST answers, then CATCHUP_RATE answers per second (~2.5 MiB/s of 40 KiB pages).
CATCHUP_BURST = 8
CATCHUP_RATE = 64.0
#: The same CATCHUP_REQ bytes are answered at most once per this many seconds (a replay by
#: another seat must not spend the requester's bucket, protocol.md §C9.2); < CATCHUP_AFTER.
CATCHUP_SAME_REQ = CATCHUP_AFTER / 2
#: Largest catch-up response envelope accepted.
MAX_CATCHUP_MSG = 64 * 1024
#: Largest COMPLAINT envelope: two step-sized evidence envelopes, a key and headers (protocol.md §C8.8).
MAX_COMPLAINT_MSG = 2 * MAX_STEP_MSG + 200
#: Steps one request may ask for.
CATCHUP_MAX_STEPS = 1 << 20

# Log file.
LOG_MAGIC = b"LNPLOG1\n"
#: Largest record accepted by the reader (a step record holds MAX_SEATS step messages).
MAX_LOG_RECORD = 1 << 20


# --- chat (protocol.md §N9, p2p/chat.py) ---------------------------------------------------------
#: Characters of one chat line.
MAX_CHAT_TEXT = 200
#: Largest chat ``seq`` (milliseconds of the author's wall clock fit until the year 10889).
MAX_CHAT_SEQ = 2**48 - 1
#: Lines an author may send at once, and seconds per line after that (token bucket, per author).
CHAT_BURST = 5
CHAT_REFILL_S = 2.0
#: Chat signatures a peer checks per second, all authors together (forged lines cost bounded CPU).
CHAT_VERIFY_RATE = 64
#: ...and at most this many for the lines of one source (address): one source's forgeries
#: cannot use up the checks the others' lines need (protocol.md §N9).
CHAT_SOURCE_VERIFY_RATE = 16
#: Largest RECORDS envelope (protocol.md §N10): a batch of log records, or a big log header.
MAX_WATCH_MSG = 70 * 1024


# --- re-seating a returning player (protocol.md §C8.9, p2p/reseat.py) ----------------------------
#: Largest RESEAT envelope (its body is [gid, seat, dropped_at, chain_head]: about 130 bytes).
MAX_RESEAT_MSG = 200
#: RESEAT requests one STEP body carries (its 8th field), at most: 2 x 200 bytes keep a STEP
#: with a hidden field under MAX_STEP_MSG.
RESEAT_CARRY = 2
#: Seconds a carrier keeps carrying a request after it last received it (the returning peer
#: re-sends it every RESEAT_RESEND s while it waits): a player who left again is not re-seated.
RESEAT_FRESH = 5.0
RESEAT_RESEND = 1.0
