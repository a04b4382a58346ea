"""Compile the gettext catalogs (.po -> .mo) without GNU gettext installed.

``python -m ui.i18n.msgfmt`` rewrites every ``locale/*/LC_MESSAGES/lanopoli.mo`` from its
``.po``; ``--check`` exits 1 if a committed .mo is out of date; ``--missing`` prints, as .po
entries to translate and append, every ``_()``/``ngettext()`` literal in ``ui/`` that a catalog
lacks (but English's, which holds only the cards' texts: ``ui.i18n.card_text``). The
output is the GNU .mo format (little-endian, magic 0x950412de, revision 0, no hash table),
which ``gettext.GNUTranslations`` reads. Supported .po syntax: ``msgctxt``, ``msgid``,
``msgid_plural``, ``msgstr``, ``msgstr[n]``, continuation strings, ``#`` comments; entries
flagged ``#, fuzzy`` and untranslated entries are left out, as msgfmt does.
"""

from __future__ import annotations

import argparse
import ast
import struct
import sys
from pathlib import Path

from ui.i18n import DOMAIN, LOCALE_DIR

_MAGIC = 0x950412DE


class PoSyntaxError(ValueError):
    """A .po file that this compiler cannot read; the message names file and line."""


def parse_po(text: str, name: str = "<po>", include_untranslated: bool = False) -> dict[bytes, bytes]:
    """Parse .po text into {msgid-key: msgstr} as .mo stores them (UTF-8 bytes).

    A plural entry's key is ``singular\\0plural`` and its value the forms joined by ``\\0``; a
    context is prefixed as ``ctxt\\x04msgid``. Untranslated and fuzzy entries are left out
    unless ``include_untranslated``. Raises ``PoSyntaxError`` on a line it cannot read.
    """
    messages: dict[bytes, bytes] = {}
    entry: dict[str, str] = {}
    fuzzy = False
    field: str | None = None

    def flush() -> None:
        nonlocal entry, fuzzy
        if "msgid" in entry:
            key = entry["msgid"]
            if "msgid_plural" in entry:
                key += "\0" + entry["msgid_plural"]
                forms = [entry[k] for k in sorted(entry) if k.startswith("msgstr[")]
                value = "\0".join(forms)
            else:
                value = entry.get("msgstr", "")
            if "msgctxt" in entry:
                key = entry["msgctxt"] + "\x04" + key
            # Fuzzy translations are guesses and are left out; the header (msgid "") is kept
            # even when fuzzy, because it carries the charset and plural rules.
            if include_untranslated or (value.replace("\0", "") and (not fuzzy or key == "")):
                messages[key.encode("utf-8")] = value.encode("utf-8")
        entry, fuzzy = {}, False

    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if line.startswith("#,") and "fuzzy" in line:
                if "msgid" in entry:
                    flush()
                fuzzy = True
            continue
        if line.startswith('"'):
            if field is None:
                raise PoSyntaxError(f"{name}:{lineno}: continuation string outside an entry")
            entry[field] += _unquote(line, name, lineno)
            continue
        keyword, _, rest = line.partition(" ")
        if keyword in ("msgctxt", "msgid") and ("msgstr" in entry or any(k.startswith("msgstr[") for k in entry)):
            flush()
        if keyword in ("msgctxt", "msgid", "msgid_plural", "msgstr") or (
            keyword.startswith("msgstr[") and keyword.endswith("]")
        ):
            field = keyword
            entry[field] = _unquote(rest.strip(), name, lineno)
        else:
            raise PoSyntaxError(f"{name}:{lineno}: unknown keyword {keyword!r}")
    flush()
    return messages


def _unquote(token: str, name: str, lineno: int) -> str:
    """Decode one C-style quoted .po string."""
    if len(token) < 2 or token[0] != '"' or token[-1] != '"':
        raise PoSyntaxError(f"{name}:{lineno}: expected a quoted string, got {token!r}")
    try:
        return ast.literal_eval(token)
    except (ValueError, SyntaxError) as exc:
        raise PoSyntaxError(f"{name}:{lineno}: bad string {token!r}: {exc}") from exc


def compile_mo(messages: dict[bytes, bytes]) -> bytes:
    """Encode parsed messages as a .mo file (keys sorted, as gettext's binary search needs)."""
    keys = sorted(messages)
    ids = strs = b""
    spans = []
    for key in keys:
        spans.append((len(ids), len(key), len(strs), len(messages[key])))
        ids += key + b"\0"
        strs += messages[key] + b"\0"
    header_size = 7 * 4
    key_start = header_size + 16 * len(keys)
    value_start = key_start + len(ids)
    key_table = b"".join(struct.pack("<II", klen, key_start + koff) for koff, klen, _, _ in spans)
    value_table = b"".join(struct.pack("<II", vlen, value_start + voff) for _, _, voff, vlen in spans)
    header = struct.pack(
        "<IIIIIII", _MAGIC, 0, len(keys), header_size, header_size + 8 * len(keys), 0, 0
    )
    return header + key_table + value_table + ids + strs


UI_DIR = LOCALE_DIR.parent.parent


def extract_messages(root: Path = UI_DIR) -> list[str | tuple[str, str]]:
    """The literal msgids passed to ``_()`` (a str) or ``ngettext()`` (a (singular, plural)
    pair) in every .py file under ``root``, in file and line order, without repeats."""
    found: list[str | tuple[str, str]] = []
    for path in sorted(root.rglob("*.py")):
        calls = []
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            name = getattr(node.func, "id", None) if isinstance(node, ast.Call) else None
            if name in ("_", "ngettext"):
                args = node.args[:2] if name == "ngettext" else node.args[:1]
                if args and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in args):
                    key = (args[0].value, args[1].value) if name == "ngettext" else args[0].value
                    calls.append((node.lineno, node.col_offset, key))
        for _line, _col, key in sorted(calls, key=lambda c: (c[0], c[1])):
            if key not in found:
                found.append(key)
    return found


def missing_entries(po_text: str, root: Path = UI_DIR) -> str:
    """.po entries (empty msgstr) for the msgids of ``extract_messages(root)`` that ``po_text``
    does not hold; "" when none is missing."""
    keys = {part for k in parse_po(po_text, include_untranslated=True) for part in k.decode("utf-8").split("\0")}
    out = []
    for key in extract_messages(root):
        if isinstance(key, tuple):
            if key[0] not in keys:
                out.append(f"msgid {_quote(key[0])}\nmsgid_plural {_quote(key[1])}\nmsgstr[0] \"\"\nmsgstr[1] \"\"\n")
        elif key not in keys:
            out.append(f"msgid {_quote(key)}\nmsgstr \"\"\n")
    return "\n".join(out)


def _quote(text: str) -> str:
    """A .po quoted string (backslash, quote, newline and tab escaped)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def catalogs() -> list[tuple[Path, Path]]:
    """The (.po, .mo) path pairs of every language under ``LOCALE_DIR``, sorted."""
    return [(po, po.with_suffix(".mo")) for po in sorted(LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))]


def main(argv: list[str] | None = None) -> int:
    """Compile every catalog, or with ``--check`` report stale ones (exit 1)."""
    parser = argparse.ArgumentParser(prog="python -m ui.i18n.msgfmt", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that every .mo is up to date")
    parser.add_argument("--missing", action="store_true", help="print .po entries for msgids no catalog has yet")
    args = parser.parse_args(argv)
    stale = []
    for po, mo in catalogs():
        if args.missing and po.parent.parent.name == "en":
            continue  # the msgids are English: this catalog holds only the cards' texts
        if args.missing:
            entries = missing_entries(po.read_text(encoding="utf-8"))
            if entries:
                print(f"# missing from {po}\n{entries}")
            continue
        data = compile_mo(parse_po(po.read_text(encoding="utf-8"), str(po)))
        if args.check:
            if not mo.exists() or mo.read_bytes() != data:
                stale.append(mo)
        else:
            mo.write_bytes(data)
            print(f"wrote {mo}")
    for mo in stale:
        print(f"stale: {mo} (run python -m ui.i18n.msgfmt)", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
