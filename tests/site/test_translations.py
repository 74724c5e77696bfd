"""The French catalogue is complete, not fuzzy, and compiled (the committed .mo matches it)."""

from __future__ import annotations

import re
from pathlib import Path

from django.utils import translation

PO = Path(__file__).resolve().parents[2] / "locale" / "fr" / "LC_MESSAGES" / "django.po"


def entries(text: str) -> list[dict]:
    """Each entry but the header: msgid, msgid_plural, msgstr (or msgstr[n]), fuzzy."""
    out = []
    for block in text.split("\n\n"):
        parts: dict[str, str] = {}
        key = None
        for line in block.splitlines():
            match = re.match(r'^(msgid|msgid_plural|msgstr|msgstr\[\d\]) "(.*)"$', line)
            if match:
                key = match.group(1)
                parts[key] = match.group(2)
            elif line.startswith('"') and key:
                parts[key] += line[1:-1]
        if parts.get("msgid"):
            parts["fuzzy"] = re.search(r"^#,.*\bfuzzy\b", block, re.M) is not None
            out.append(parts)
    return out


def unescape(value: str) -> str:
    return value.encode().decode("unicode_escape").encode("latin-1").decode()


def test_every_french_entry_is_translated_and_not_fuzzy():
    found = entries(PO.read_text(encoding="utf-8"))
    assert len(found) > 200
    empty = [e["msgid"] for e in found
             if not (e.get("msgstr") or (e.get("msgstr[0]") and e.get("msgstr[1]")))]
    assert empty == []
    assert [e["msgid"] for e in found if e["fuzzy"]] == []
    assert "#, fuzzy" not in PO.read_text(encoding="utf-8").split("\n\n")[0]


def test_the_compiled_catalogue_matches_the_po_file():
    with translation.override("fr"):
        for e in entries(PO.read_text(encoding="utf-8")):
            if "msgid_plural" in e:
                one = translation.ngettext(unescape(e["msgid"]), unescape(e["msgid_plural"]), 1)
                many = translation.ngettext(unescape(e["msgid"]),
                                            unescape(e["msgid_plural"]), 5)
                assert (one, many) == (unescape(e["msgstr[0]"]), unescape(e["msgstr[1]"]))
            else:
                assert translation.gettext(unescape(e["msgid"])) == unescape(e["msgstr"]), \
                    e["msgid"]
