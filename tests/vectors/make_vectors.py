"""Generate the published test vectors of protocol.md "Test vectors" (tests/vectors/*.json,
tests/vectors/game.lnplog).

Every value here is computed by the reference code (engine/, p2p/) from fixed inputs; nothing
is typed in by hand. tests/test_vectors.py recomputes every vector with the ``compute_*`` this
module imports and compares it with the checked-in files, so a change in behaviour fails the
suite. When the change is deliberate (and the protocol version was bumped, protocol.md part E
"Versioning"), regenerate and commit the new files:

    /work/venv/bin/python tests/vectors/make_vectors.py

Files (all JSON: bytes as lowercase hex strings, keys sorted):

* ``rng.json``    — §E3 PRNG: stream bytes, dice, card draws, ``below(n)`` sequences per beacon.
* ``chain.json``  — §C4: demo secrets, hash-chain head and reveals, seed commitments, game seed,
  beacons.
* ``sig.json``    — §C2/§C3: a demo identity, a STEP body, its domain-separated signed bytes,
  the Ed25519 signature and envelope; a step digest.
* ``game.json``   — a complete 2-seat classico game from fixed demo seeds: setup bytes, setup
  hash, game seed, the encoding of the initial state (§E4), the state hash after each of the
  first ``FIRST_HASHES`` steps (``first_state_hashes[k]`` = after step k) and the final one.
* ``game.lnplog`` — the game log of that game (§C6, byte-identical on every peer).
* ``verify.json`` — ``lanopoli verify --json game.lnplog`` without the two run-dependent keys
  ``log`` (the path) and ``seconds`` (the time taken).
* ``channel.json`` — §N2.2: pairwise channel keys of two demo identities, an introduction, an
  authenticated datagram and a pure ack byte for byte; §C12.2 a leaves digest.
* ``sealed.json`` — §C13: commitments of sealed decisions (nil, bids, a pass, a build request),
  their openings, a commit-step and an open-step STEP body, the reference salt derivation.
* ``lan.json``    — §N3, §N3.1, §N9, §C2.4: join-code tags and codes, a TXT record with names and
  standings, a signed CHAT message, two table codes.
* ``reseat.json`` — §C8.9: a RESEAT request byte for byte, a STEP body carrying it, the new
  chain's reveals after the re-seat.
* ``forced.json`` — §C3.8 (version 4): forced bodies of a plain chance step (with a valid and a
  zero signature, both accepted) and bodies over the same history that are not forced.
* ``hidden.json`` — §C12: three demo seats' hidden secrets, openings, shares and leaves of a few
  items, statuses from the summed shares, an inspection's openings field, and one private
  delivery written out (X25519 secret, key, AAD, plaintext, ciphertext).

The derivations live in one module per part, imported here: vec_chain.py (rng, chain, sig),
vec_hidden.py (hidden, niente), vec_lan.py (channel, lan), vec_decisions.py (sealed, reseat),
vec_game.py (the sample game, verify), vec_forced.py (forced), vec_labels.py (``label_hash``). Each puts the
repository's engine/ and p2p/ first on ``sys.path`` (tests/vectors/repo_first.py).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from vec_chain import compute_chain, compute_rng, compute_sig
from vec_decisions import compute_reseat, compute_sealed
from vec_forced import compute_forced
from vec_game import play_game, verify_json
from vec_hidden import compute_hidden, compute_niente
from vec_lan import compute_channel, compute_lan


HERE = Path(__file__).resolve().parent

#: Demo seed strings of the two seats of the sample game, as given to ``lanopoli host/join
#: --seed`` (identity = Identity.from_seed(seed), secrets derived from the same bytes).
#: The first is the host's. Chosen among GAME_CANDIDATES for the shortest game (small log).
GAME_CANDIDATES = [(f"vector-host-{i}", f"vector-join-{i}") for i in range(12)]


def _dump(path: Path, obj: dict) -> None:
    path.write_text(json.dumps(obj, indent=1, sort_keys=True) + "\n")


def main() -> None:
    _dump(HERE / "rng.json", compute_rng())
    _dump(HERE / "chain.json", compute_chain())
    _dump(HERE / "sig.json", compute_sig())
    _dump(HERE / "channel.json", compute_channel())
    _dump(HERE / "hidden.json", compute_hidden())
    _dump(HERE / "sealed.json", compute_sealed())
    _dump(HERE / "niente.json", compute_niente())
    _dump(HERE / "lan.json", compute_lan())
    _dump(HERE / "reseat.json", compute_reseat())
    _dump(HERE / "forced.json", compute_forced())
    best = None
    with tempfile.TemporaryDirectory() as tmp:
        for i, seeds in enumerate(GAME_CANDIDATES):
            p = Path(tmp) / f"{i}.lnplog"
            facts = play_game(seeds, p)
            if best is None or p.stat().st_size < best[1].stat().st_size:
                best = (facts, p)
        facts, p = best
        (HERE / "game.lnplog").write_bytes(p.read_bytes())
    _dump(HERE / "game.json", facts)
    _dump(HERE / "verify.json", verify_json(HERE / "game.lnplog"))
    print(f"game {facts['seeds']}: {facts['steps']} steps, "
          f"{(HERE / 'game.lnplog').stat().st_size} bytes")


if __name__ == "__main__":
    main()
