"""The decoded body of every message type (protocol.md part C, §N9, §N10), as NamedTuples.

Each class's fields are its wire table's in ``p2p/wire.py`` (``SCHEMAS``), in order, plus any
derived field (``Proposal.setup``); the table says each field's type, width and range. A
decoder returns one of these; production builds one and hands it to ``wire.seal_message``.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class StepBody(NamedTuple):
    """Body of a STEP message (protocol.md §C3). ``input`` is None, a 32-byte reveal (chance step)
    or an encoded engine action (a list) (decision step). ``hidden``: in a game with hidden
    information, the checked 7th field ``(deliveries, openings, complaint)`` (protocol.md §C12.4);
    None when the body has 6 fields (or its 7th is nil). ``reseat``: the 8th field, RESEAT
    request envelopes the seat carries (protocol.md §C8.9; structure checked here, contents by
    p2p.reseat), () when absent. ``acks``: the 9th field, ``EscrowAck`` entries (protocol.md
    §C8.2, p2p.escrow_acks), () when absent."""

    game_id: bytes
    step: int
    seat: int
    prev_hash: bytes
    prev_digest: bytes
    input: Any
    hidden: Any = None
    reseat: tuple = ()
    acks: tuple = ()


class EscrowAck(NamedTuple):
    """One entry of a STEP's 9th field (protocol.md §C8.2): the sender holds ``dealer``'s ESCROW
    of ``epoch`` whose envelope hashes (SHA-256) to ``hash`` (32 bytes)."""

    dealer: int
    epoch: int
    hash: bytes


class Join(NamedTuple):
    """JOIN body: a player asks the host for a seat (protocol.md §C2.1)."""

    game_id: bytes
    version: int
    player: Any  # wire.Player (the setup types live with their table in wire.py)


class Status(NamedTuple):
    """STATUS body: the host tells a joiner the lobby's state, signed by the host's key
    ``host_pk`` (its X25519 key: ``host_xk``)."""

    game_id: bytes
    edition: str
    seats: int
    taken: int
    names: tuple
    host_pk: bytes
    host_xk: bytes


class Reject(NamedTuple):
    """REJECT body ``[game_id, joiner_pk, code, host_pk, host_xk, answers]``: the host (keys
    ``host_pk``, ``host_xk``, which signed it) refuses the JOIN of ``joiner_pk``; ``code`` is one
    of ``const.REJECT_CODES`` (no free text: the joiner shows its own); ``answers`` (32 bytes,
    version 6): ``reject.answers_hash`` of the JOIN (or PROBE) envelope it answers (§C2.1)."""

    game_id: bytes
    joiner_pk: bytes
    code: int
    host_pk: bytes
    host_xk: bytes
    answers: bytes


class Leave(NamedTuple):
    """LEAVE body ``[game_id]``: a joiner withdraws before the setup is proposed."""

    game_id: bytes


class Proposal(NamedTuple):
    """PROPOSAL body ``[game_id, setup_bytes]`` (version 6): the host's proposed setup; each
    seat's UDP endpoint is in its own player entry, which it signed (§C2.1). ``setup`` is
    derived: ``setup_bytes`` decoded (not on the wire twice)."""

    game_id: bytes
    setup_bytes: bytes
    setup: Any  # wire.Setup, decoded from setup_bytes


class SetupSig(NamedTuple):
    """SETUP_SIG body ``[game_id, seat, setup_hash]`` or, in an edition with hidden
    information, ``[game_id, seat, setup_hash, leaves]``: the seat's signature (the
    envelope's) on the setup hash, and its hidden-information commitment (32-byte leaves
    concatenated, protocol.md §C12.2; None without)."""

    game_id: bytes
    seat: int
    setup_hash: bytes
    leaves: bytes | None = None


class SeedReveal(NamedTuple):
    """SEED body ``[game_id, seat, setup_hash, secret]`` or, in an edition with hidden
    information, ``[game_id, seat, setup_hash, secret, [leaves digest per seat]]``: the seat's
    seed secret, revealed once it holds every seat's setup signature, and what it holds of
    every seat's hidden-information commitment (protocol.md §C12.2; None without)."""

    game_id: bytes
    seat: int
    setup_hash: bytes
    secret: bytes
    commits: tuple | None = None


class Chat(NamedTuple):
    """CHAT body ``[gid, pk, seq, name, text]`` (protocol.md §N9), signed by ``pk``."""

    game_id: bytes
    pk: bytes
    seq: int
    name: str
    text: str


class Watch(NamedTuple):
    """WATCH body ``[gid, pk, xk, name, have]`` (protocol.md §N10), signed by ``pk``."""

    game_id: bytes
    pk: bytes
    xk: bytes
    name: str
    have: int


class Records(NamedTuple):
    """RECORDS body ``[gid, index, [[kind, payload], ...]]`` (protocol.md §N10), signed by the
    serving seat: its log records from number ``index`` on (the header is record 0)."""

    game_id: bytes
    index: int
    records: tuple


class EscrowEntry(NamedTuple):
    """One recipient's part of an ESCROW: ``to`` seat, ``commit`` (32 bytes) and the
    ChaCha20-Poly1305 ciphertext ``ct`` (82 bytes) of the 66-byte share."""

    to: int
    commit: bytes
    ct: bytes


class Escrow(NamedTuple):
    """ESCROW body ``[gid, seat, epoch, [[to, commit, ct], ...]]`` (protocol.md §C8.2)."""

    game_id: bytes
    seat: int
    epoch: int
    entries: tuple


class DropVote(NamedTuple):
    """DROP body ``[gid, voter, step, seat, epoch, share]``: ``voter`` has not received
    ``seat``'s message of ``step`` within the drop timeout; ``share`` (version 5): nil = open
    (not released), the voter's escrow share of ``seat`` (``SHARE_LEN`` = 66 bytes, a Shamir
    share) or its 32-byte pairwise key of its entry (released without a share: the entry does
    not open) (protocol.md §C8.3 rule (a))."""

    game_id: bytes
    voter: int
    step: int
    seat: int
    epoch: int
    share: bytes | None


class SkipVote(NamedTuple):
    """SKIP body ``[gid, voter, step, seat, epoch]``: ``voter``'s player asks that ``seat``'s
    input at ``step`` count as nil, the seat kept (protocol.md §C8.10, p2p/turn_skip.py)."""

    game_id: bytes
    voter: int
    step: int
    seat: int
    epoch: int


class CatchupRequest(NamedTuple):
    """CATCHUP_REQ body ``[gid, seat, from_step, to_step]``: ``seat`` asks for the log
    records of steps ``from_step <= s < to_step`` (protocol.md §C9.1)."""

    game_id: bytes
    seat: int
    from_step: int
    to_step: int


class CatchupResponse(NamedTuple):
    """CATCHUP_RESP body ``[gid, seat, from_step, head_step, [[kind, payload], ...],
    [STEP envelope, ...], [ESCROW envelope, ...]]`` (protocol.md §C9.2): log records from
    ``from_step`` on, the responder's current step, the step messages it holds for that step
    and the escrows of the current epoch it holds."""

    game_id: bytes
    seat: int
    from_step: int
    head_step: int
    records: tuple
    pending: tuple
    escrows: tuple


class Hint(NamedTuple):
    """HINT body ``[gid, seat, step]``: ``seat`` is collecting ``step`` (protocol.md §C9.3)."""

    game_id: bytes
    seat: int
    step: int


class Alive(NamedTuple):
    """ALIVE body ``[gid, seat, step, n]``: ``seat`` is alive and has not sent its message of
    ``step`` yet (protocol.md §C8.3). ``n`` (uint32) strictly increases over the ALIVEs the
    seat sends at ``step`` (its count of them); a receiver restarts the seat's silence clock
    only for an ``n`` above the largest it accepted for (seat, step), so a replay is ignored."""

    game_id: bytes
    seat: int
    step: int
    n: int


class Abandon(NamedTuple):
    """ABANDON body ``[gid, seat, step, prev_hash, prev_digest]``: ``seat`` ends the game at
    ``step`` as abandoned (no winner), having applied every step before it (state hash
    ``prev_hash``, digest ``prev_digest``; protocol.md §C8.7)."""

    game_id: bytes
    seat: int
    step: int
    prev_hash: bytes
    prev_digest: bytes


class ReseatRequest(NamedTuple):
    """RESEAT body ``[gid, seat, dropped_at, chain_head]``: the player of dropped ``seat`` (its
    drop record is at step ``dropped_at``) asks to play it again with a fresh hash chain whose
    head is ``chain_head`` (protocol.md §C8.9)."""

    game_id: bytes
    seat: int
    dropped_at: int
    chain_head: bytes


class ComplaintMsg(NamedTuple):
    """COMPLAINT body ``[gid, seat, step, culprit, kind, [evidence envelope, ...], key]``:
    ``seat`` (the complainer, at ``step``) shows every seat signed evidence that ``culprit``
    broke the protocol; ``kind`` 1 equivocation (two envelopes), 2 bad step message (one
    STEP), 3 bad escrow (one ESCROW; ``key``: the 32-byte pairwise share key, or nil when the
    entries alone are wrong), 4 bad hidden field (one STEP), 5 false share in a drop vote (the
    DROP and the dealer's ESCROW). Protocol.md §C8.8; ``p2p/complaints.py`` judges them."""

    game_id: bytes
    seat: int
    step: int
    culprit: int
    kind: int
    evidence: tuple
    key: bytes | None
