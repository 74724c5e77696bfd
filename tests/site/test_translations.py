"""The French catalogue is complete, not fuzzy, and compiled (the committed .mo matches it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.utils import translation

PO = Path(__file__).resolve().parents[2] / "locale" / "fr" / "LC_MESSAGES" / "django.po"


def entries(text: str) -> list[dict]:
    """Each entry but the header: msgctxt (when it has one), msgid, msgid_plural, msgstr (or
    msgstr[n]), fuzzy."""
    out = []
    for block in text.split("\n\n"):
        parts: dict[str, str] = {}
        key = None
        for line in block.splitlines():
            match = re.match(r'^(msgctxt|msgid|msgid_plural|msgstr|msgstr\[\d\]) "(.*)"$', line)
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
            context = unescape(e["msgctxt"]) if "msgctxt" in e else None
            if "msgid_plural" in e:
                args = (unescape(e["msgid"]), unescape(e["msgid_plural"]))
                if context is None:
                    one, many = translation.ngettext(*args, 1), translation.ngettext(*args, 5)
                else:
                    one = translation.npgettext(context, *args, 1)
                    many = translation.npgettext(context, *args, 5)
                assert (one, many) == (unescape(e["msgstr[0]"]), unescape(e["msgstr[1]"]))
            else:
                text = (translation.gettext(unescape(e["msgid"])) if context is None
                        else translation.pgettext(context, unescape(e["msgid"])))
                assert text == unescape(e["msgstr"]), e["msgid"]


#: What is not copied for ``makemessages`` (it reads no string of theirs): the virtualenv, the
#: run-time files, the benches, the docs' images, the catalogue itself (its copy is put back).
IGNORED = (".git", ".venv", "var", "bench", "node_modules", "docs", "locale", "__pycache__",
           ".pytest_cache", ".ruff_cache", ".hypothesis", "*.png", "*.mo")


def test_every_string_the_code_marks_is_in_the_catalogue(tmp_path, monkeypatch, settings):
    """``makemessages`` run on a copy of the code and of the catalogue adds no message and drops
    none: a string marked for translation but never extracted would reach French users in
    English. Needs GNU gettext's ``xgettext`` (skips without it, fails under
    ``REQUIRE_SERVICES=1``)."""
    import os
    import shutil

    from django.core.management import call_command

    if shutil.which("xgettext") is None or shutil.which("msgmerge") is None:
        if os.environ.get("REQUIRE_SERVICES", "") not in ("", "0", "false", "False"):
            pytest.fail("REQUIRE_SERVICES=1 but GNU gettext (xgettext) is not installed")
        pytest.skip("needs GNU gettext (xgettext, msgmerge)")
    # makemessages writes into ./locale of the folder it runs in: a copy, never the project's.
    source = tmp_path / "project"
    shutil.copytree(PO.parents[3], source, ignore=shutil.ignore_patterns(*IGNORED))
    copy = source / "locale" / "fr" / "LC_MESSAGES" / "django.po"
    copy.parent.mkdir(parents=True)
    shutil.copy(PO, copy)
    monkeypatch.chdir(source)
    settings.LOCALE_PATHS = [str(source / "locale")]
    call_command("makemessages", locale=["fr"], no_obsolete=True, verbosity=0)
    before = {(e.get("msgctxt"), e["msgid"]) for e in entries(PO.read_text(encoding="utf-8"))}
    after = {(e.get("msgctxt"), e["msgid"]) for e in entries(copy.read_text(encoding="utf-8"))}
    missing, stale = sorted(after - before, key=str), sorted(before - after, key=str)
    assert missing == [], "marked for translation, missing from the catalogue"
    assert stale == [], "in the catalogue, no longer in the code"
