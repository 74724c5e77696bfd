"""The French catalogue is complete, not fuzzy, and compiled (the committed .mo matches it)."""

from __future__ import annotations

import re
from pathlib import Path

from django.utils import translation

PO = Path(__file__).resolve().parents[2] / "locale" / "fr" / "LC_MESSAGES" / "django.po"


def entries(text: str) -> list[tuple[str, str, bool]]:
    """(msgid, msgstr, fuzzy) of each entry but the header."""
    out = []
    for block in text.split("\n\n"):
        fuzzy = "#, fuzzy" in block or re.search(r"^#,.*\bfuzzy\b", block, re.M) is not None
        parts = {"msgid": "", "msgstr": ""}
        key = None
        for line in block.splitlines():
            match = re.match(r'^(msgid|msgstr) "(.*)"$', line)
            if match:
                key = match.group(1)
                parts[key] = match.group(2)
            elif line.startswith('"') and key:
                parts[key] += line[1:-1]
            elif line.startswith(("msgid_plural", "msgstr[")):
                key = None
        if parts["msgid"]:
            out.append((parts["msgid"], parts["msgstr"], fuzzy))
    return out


def unescape(value: str) -> str:
    return value.encode().decode("unicode_escape").encode("latin-1").decode()


def test_every_french_entry_is_translated_and_not_fuzzy():
    found = entries(PO.read_text(encoding="utf-8"))
    assert len(found) > 50
    assert [msgid for msgid, msgstr, _f in found if not msgstr] == []
    assert [msgid for msgid, _s, fuzzy in found if fuzzy] == []


def test_the_compiled_catalogue_matches_the_po_file():
    with translation.override("fr"):
        for msgid, msgstr, _fuzzy in entries(PO.read_text(encoding="utf-8")):
            assert translation.gettext(unescape(msgid)) == unescape(msgstr), msgid
