"""What ``lanopoli verify`` prints: its reasons in the current language, the summary for people and
the dict ``verify --json`` prints (protocol.md part L). Split out of ui/display.py, which keeps the
demo's and the peers' lines; the line ``final state hash: <hex>`` stays a fixed machine-readable
contract (``display.final_hash_line``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from ui.display import event_name, final_hash_line, seat_number, seats_text, winner_text
from ui.i18n import _

__all__ = ["print_verify_summary", "report_summary", "verify_reason"]


def _verify_reasons() -> list[tuple[re.Pattern, str]]:
    """(pattern, translated template) for every reason p2p/verify.py and p2p/gamelog.py give
    (``Report.error`` is English text without a code, so the UI recognises the fixed parts);
    named groups go into the template, a ``detail`` group is itself translated first."""
    table = [
        (r"malformed header: (?P<detail>.*)", _("malformed header: {detail}")),
        (r"the log is of protocol version (?P<version>\d+); this program checks version (?P<ours>\d+)",
         _("the log is of protocol version {version}; this program checks version {ours}")),
        (r"some seats committed hidden information and others did not",
         _("some seats committed hidden information and others did not")),
        (r"header must hold one setup signature and one seed reveal per seat",
         _("the header must hold one setup signature and one seed reveal per seat")),
        (r"malformed setup signature or seed of seat (?P<seat>\d+): (?P<detail>.*)",
         _("malformed setup signature or seed of seat {seat}: {detail}")),
        (r"bad setup signature of seat (?P<seat>\d+)", _("bad setup signature of seat {seat}")),
        (r"bad seed reveal of seat (?P<seat>\d+)", _("bad seed reveal of seat {seat}")),
        (r"log does not start with a header record", _("the log does not start with a header record")),
        (r"hidden-information commitments missing or of the wrong size",
         _("hidden-information commitments missing or of the wrong size")),
        (r"records after the end of the game", _("records after the end of the game")),
        (r"seat dropped in a game without seat loss", _("a seat was dropped in a game without seat loss")),
        (r"drop record: (?P<detail>.*)", _("drop record: {detail}")),
        (r"unexpected record kind (?P<kind>.*)", _("unexpected record kind {kind}")),
        (r"step record (?P<step>.*) out of order or without one message per seat",
         _("step record {step} out of order or without one message per seat")),
        (r"malformed step record: (?P<detail>.*)", _("malformed step record: {detail}")),
        (r"seat (?P<seat>\d+): (?P<detail>.*)", _("seat {seat}: {detail}")),
        (r"no message from an active seat", _("no message from an active seat")),
        (r"message from a dropped seat", _("message from a dropped seat")),
        (r"message of another game, step or seat", _("message of another game, step or seat")),
        (r"prev state hash differs from the replayed state",
         _("the previous state hash differs from the replayed state")),
        (r"prev digest differs from the replayed step digest",
         _("the previous digest differs from the replayed step digest")),
        (r"bad signature", _("bad signature")),
        (r"no reveal at a chance step", _("no reveal at a chance step")),
        (r"reveal does not hash to the previous reveal", _("the reveal does not hash to the previous reveal")),
        (r"(?P<detail>.*) at byte (?P<offset>\d+)", _("{detail} at byte {offset}")),
        (r"not a lanopoli log \(bad magic\)", _("not a lanopoli log (bad magic)")),
        (r"truncated record header", _("truncated record header")),
        (r"record length (?P<length>\d+) over the limit", _("record length {length} over the limit")),
        (r"truncated record", _("truncated record")),
        (r"record checksum mismatch \(corrupted\)", _("record checksum mismatch (corrupted)")),
    ]
    return [(re.compile(pattern + r"\Z", re.S), template) for pattern, template in table]


def verify_reason(text: str | None) -> str | None:
    """``Report.error`` (English) in the current language; a reason this table does not know
    (e.g. from a newer verifier) is kept as it is. ``verify --json`` keeps the English text."""
    if text is None:
        return None
    for pattern, template in _verify_reasons():
        m = pattern.match(text)
        if m is None:
            continue
        fields = m.groupdict()
        if fields.get("seat") is not None:
            fields["seat"] = seat_number(int(fields["seat"]))  # people count seats from 1
        if "detail" in fields:
            fields["detail"] = verify_reason(fields["detail"])
        return template.format(**fields)
    return text


def print_verify_summary(summary: dict[str, Any], out=None) -> None:
    """Print ``report_summary``'s dict for people, in the current language."""
    out = out or sys.stdout
    print(_("Log: {path}").format(path=summary["log"]), file=out)
    if summary.get("edition") is not None:
        print(_("Edition: {edition} · seats: {seats} · steps: {steps} · signed messages: {messages}").format(
            edition=summary["edition"], seats=summary.get("seats"), steps=summary.get("steps"),
            messages=summary.get("messages")), file=out)
    if summary["ok"]:
        ab = summary.get("abandoned")
        if ab:
            print(_("The game was abandoned at step {step} by {who}: no winner.").format(
                step=ab.get("step"), who=seats_text({"seats": [ab.get("seat")]})), file=out)
        for c in summary.get("cheaters") or ():
            print(_("Step {step}: {who} cheated ({reason}).").format(
                step=c.get("step"), who=seats_text({"seats": [c.get("seat")]}), reason=c.get("reason")), file=out)
        if not summary.get("complete") and not ab:
            print(_("The game is not finished: the log holds its first {steps} steps only.").format(
                steps=summary.get("steps")), file=out)
        if summary.get("winner") is not None:
            print(_("Winner: {who}").format(who=winner_text(summary["winner"], summary.get("winner_name"))), file=out)
        else:
            print(_("The game has no winner (yet)."), file=out)
        events = summary.get("events") or {}
        if events:
            named = sorted(events.items(), key=lambda kv: event_name(kv[0]))
            parts = ", ".join(f"{event_name(k)} {v}" for k, v in named)
            print(_("Events: {list}").format(list=parts), file=out)
        print(final_hash_line(str(summary.get("final_state_hash")), out), file=out)
        if summary.get("table_code"):
            print(_("Table code: {code} (the code its players were shown).").format(code=summary["table_code"]),
                  file=out)
        print(_("The log is valid: every signature it needs, every reveal and every state hash checks out "
                "(a forced reveal at a chance step needs no signature)."), file=out)
    else:
        step = summary.get("first_bad_step")
        error = verify_reason(summary.get("error"))
        if step is None:
            print(_("The log is NOT valid: {error}").format(error=error), file=out)
        elif step < 0:
            print(_("The log is NOT valid in its header (before step 0): {error}").format(error=error), file=out)
        else:
            print(_("The log is NOT valid at step {step}: {error}").format(step=step, error=error), file=out)


def report_summary(report: Any, path: Path) -> dict[str, Any]:
    """Turn a ``p2p.verify.Report`` into the JSON-able dict printed by ``verify --json``.

    Keys (protocol.md part L): ok, complete, log, edition, seats (count), players
    ([{seat, name, fingerprint}]), steps, messages, winner, winner_name, final_state_hash (hex),
    events ({type: count}), first_bad_step (-1 = the header; None when ok), error, seconds,
    hidden, abandoned ({seat, step} or None), cheaters ([{seat, step, reason, complainer}]),
    table_code (§C2.4; None when the header is bad).
    """
    players = [{"seat": i, "name": name, "fingerprint": fp} for i, (name, fp) in enumerate(report.seats)]
    winner = report.winner
    return {
        "ok": bool(report.ok),
        "complete": bool(report.complete),
        "log": str(path),
        "edition": report.edition or None,
        "seats": len(players),
        "players": players,
        "steps": report.steps,
        "messages": report.messages,
        "winner": winner,
        "winner_name": players[winner]["name"] if winner is not None and 0 <= winner < len(players) else None,
        "final_state_hash": report.final_state_hash or None,
        "events": dict(report.events_by_type),
        "first_bad_step": report.first_bad_step,
        "error": report.error,
        "seconds": round(report.seconds, 6),
        # Games with hidden information (protocol.md §C12): inspections, fakes_found,
        # fake_cards_caught, reveals, deliveries, items_delivered; None otherwise.
        "hidden": getattr(report, "hidden", None),
        # protocol.md §C8.7: {"seat", "step"} of the signed ABANDON that ended the game, or None.
        "abandoned": getattr(report, "abandoned", None),
        # protocol.md §C8.8: [{"seat": cheater, "step", "reason", "complainer"}] re-judged by verify.
        "cheaters": list(getattr(report, "cheaters", [])),
        # protocol.md §C2.4: the code every seat of the game showed, to compare out loud.
        "table_code": getattr(report, "table_code", "") or None,
    }
