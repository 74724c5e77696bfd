"""games.mail.parsing: a raw inbound email read (who, to whom, automatic or not, the command).

The corpus (``tests/mail_corpus/``) holds replies written the way Gmail, Outlook, Apple Mail and
Thunderbird write them, automatic messages and broken ones; ``expected.json`` says what each one
is. Then one unit test per rule, the size limit, malformed input, charsets, and fuzzing: on any
bytes ``parse`` returns or raises MalformedMail, nothing else. No database.
"""

from __future__ import annotations

import ast
import base64
import email
import email.policy
import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.mail import parsing as inbound_mail
from games.mail.parsing import (
    MAX_BYTES,
    Inbound,
    MalformedMail,
    decode_text,
    html_to_text,
    parse,
    reply_lines,
    unflow,
)

CORPUS = Path(__file__).resolve().parents[1] / "mail_corpus"
EXPECTED = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))
TOKEN = "play+12.9f3a1c0d2b4e6a8c1d0e@mascarade.example"
NOTIFICATIONS = {"game12.turn9.seat0.1795514520@mascarade.example",
                 "game12.turn9.seat1.1795514520@mascarade.example"}
FUZZ = settings(max_examples=300, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])


def mail(body: str | bytes = "2\n", *, headers: str = "", content_type: str = "text/plain",
         charset: str | None = "utf-8", cte: str | None = None,
         sender: str = "Alice <alice@example.org>") -> bytes:
    """A small message: From (unless ``sender`` is empty), To, the extra ``headers`` (one a
    line), a Content-Type, the body."""
    lines = []
    if sender:
        lines.append(f"From: {sender}")
    lines.append(f"To: Mascarade Online <{TOKEN}>")
    lines.extend(line for line in headers.strip().splitlines() if line)
    lines.append("MIME-Version: 1.0")
    lines.append(f"Content-Type: {content_type}"
                 + (f"; charset={charset}" if charset else ""))
    if cte:
        lines.append(f"Content-Transfer-Encoding: {cte}")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("ascii")
    if isinstance(body, str):
        body = body.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8")
    return head + body


def command_of(text: str) -> str | None:
    return parse(mail(text)).command


# --- The corpus ----------------------------------------------------------------------------

def test_the_corpus_is_the_table():
    files = {path.name for path in CORPUS.glob("*.eml")}
    assert files == set(EXPECTED)
    assert len(files) >= 16
    replies = [name for name, want in EXPECTED.items()
               if not want.get("malformed") and want["automatic"] is None]
    assert len(replies) >= 16 - 4
    automatic = {want["automatic"] for want in EXPECTED.values() if not want.get("malformed")}
    assert {"auto-submitted", "autoreply-header", "delivery-report", "precedence",
            "list"} <= automatic


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_message(name):
    want = EXPECTED[name]
    raw = (CORPUS / name).read_bytes()
    if want.get("malformed"):
        with pytest.raises(MalformedMail):
            parse(raw)
        return
    got = parse(raw)
    assert (got.command, got.automatic, got.sender) == (
        want["command"], want["automatic"], want["sender"])
    if "lines" in want:
        assert list(got.lines) == want["lines"]
    assert TOKEN in got.recipients
    assert got.message_id and "<" not in got.message_id
    if got.automatic is None:
        assert got.in_reply_to in NOTIFICATIONS
        assert got.subject.lower().startswith("re")


@pytest.mark.parametrize("name", sorted(n for n, w in EXPECTED.items() if not w.get("malformed")))
def test_corpus_message_with_bare_newlines_reads_the_same(name):
    """The same message with LF line ends (as some receivers hand it over) reads the same."""
    raw = (CORPUS / name).read_bytes()
    assert parse(raw.replace(b"\r\n", b"\n")) == parse(raw)


def _alternatives():
    for name in sorted(EXPECTED):
        if EXPECTED[name].get("malformed"):
            continue
        msg = email.message_from_bytes((CORPUS / name).read_bytes(), policy=email.policy.default)
        if msg.get_content_type() == "multipart/alternative":
            yield name


@pytest.mark.parametrize("name", list(_alternatives()))
def test_corpus_html_alternative_says_the_same(name):
    """Where a client sent both, its HTML read alone gives the lines its plain text gives."""
    raw = (CORPUS / name).read_bytes()
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    part = msg.get_body(preferencelist=("html",))
    html = decode_text(part.get_payload(decode=True), part.get_content_charset())
    assert reply_lines(html_to_text(html)) == parse(raw).lines


def test_corpus_has_html_only_and_both_encodings():
    kinds = set()
    for name in EXPECTED:
        msg = email.message_from_bytes((CORPUS / name).read_bytes(), policy=email.policy.default)
        for part in msg.walk():
            kinds.add(part.get_content_type())
            kinds.add(str(part.get("content-transfer-encoding", "")).lower())
            kinds.add((part.get_content_charset() or "").lower())
            if part.get_param("format") == "flowed":
                kinds.add("flowed")
    assert {"quoted-printable", "base64", "8bit", "utf-8", "iso-8859-1", "windows-1252",
            "flowed", "multipart/alternative", "multipart/report", "text/html"} <= kinds


# --- The API -------------------------------------------------------------------------------

def test_the_module_imports_the_standard_library_and_authres_only():
    """Pure: no Django, no database (authres reads the Authentication-Results headers)."""
    tree = ast.parse(Path(inbound_mail.__file__).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported - {"__future__", "authres"} <= set(sys.stdlib_module_names)


def test_a_reply_read_whole():
    raw = mail("exchange bob swap\n\nOn Tue, Nov 24, 2026 at 10:02 AM X <x@y.z> wrote:\n> hi\n",
               headers=f"""Message-ID: <CAJx8@mail.gmail.com>
In-Reply-To: <notify.1@mascarade.example>
Subject: =?utf-8?q?Re=3A_=C3=A0_vous?=
Return-Path: <Alice@Example.org>
Cc: Bob <BOB@example.org>
Delivered-To: {TOKEN}
X-Original-To: {TOKEN}
Envelope-To: other@mascarade.example""",
               sender='"Martin, Alice" <Alice@Example.ORG>')
    got = parse(raw, envelope_recipients=["<Env@Mascarade.example>", TOKEN])
    assert got == Inbound(
        message_id="CAJx8@mail.gmail.com",
        sender="alice@example.org",
        return_path="alice@example.org",
        recipients=(TOKEN, "bob@example.org", "other@mascarade.example",
                    "env@mascarade.example"),
        subject="Re: à vous",
        in_reply_to="notify.1@mascarade.example",
        automatic=None,
        lines=("exchange bob swap",),
        command="exchange bob swap",
    )


def test_missing_optional_headers():
    got = parse(mail("2"))
    assert (got.message_id, got.in_reply_to, got.subject, got.return_path) == ("", "", "", None)


def test_message_id_without_brackets_is_kept_as_is():
    assert parse(mail(headers="Message-ID: abc@def")).message_id == "abc@def"


def test_raw_8bit_header_bytes_are_read_as_utf8_or_replaced():
    raw = mail().replace(b"MIME-Version",
                         b"Message-ID: <caf\xc3\xa9@x>\r\nIn-Reply-To: <a\xff@b>\r\n"
                         b"Return-Path: <\xe9@x>\r\nMIME-Version", 1)
    got = parse(raw)
    assert (got.message_id, got.in_reply_to, got.return_path) == ("café@x", "a\ufffd@b",
                                                                  "\ufffd@x")


def test_in_reply_to_is_its_first_id():
    got = parse(mail(headers="In-Reply-To: <a@b> <c@d>"))
    assert got.in_reply_to == "a@b"


def test_return_path_null_and_envelope_sender():
    assert parse(mail(headers="Return-Path: <>")).return_path == ""
    got = parse(mail(headers="Return-Path: <>"), envelope_sender="X@Y.org")
    assert got.return_path == "x@y.org"
    assert parse(mail(), envelope_sender="<>").return_path == ""
    assert parse(mail(), envelope_sender="").return_path == ""


def test_recipients_once_each_and_groups():
    raw = mail(headers=f"Cc: undisclosed-recipients:;\nDelivered-To: {TOKEN.upper()}")
    assert parse(raw, envelope_recipients=[TOKEN]).recipients == (TOKEN,)


# --- Malformed input -----------------------------------------------------------------------

@pytest.mark.parametrize("raw", [
    b"",
    b"\x00" * 64,
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00",
    b"just some text\r\nwith two lines\r\n",
    b"2\r\n\r\nOn Tue, Nov 24, 2026 X wrote:\r\n> hi\r\n",
])
def test_junk_is_malformed(raw):
    with pytest.raises(MalformedMail):
        parse(raw)


@pytest.mark.parametrize("sender", [
    "",                                   # no From
    "Alice",                              # no address
    "alice",                              # no domain
    "alice@example.org, bob@example.org",  # two addresses
    "alice@example.org)<bob@example.org>",  # an invalid list (the email package's defect)
    "undisclosed-recipients:;",
])
def test_from_must_be_one_address(sender):
    with pytest.raises(MalformedMail):
        parse(mail(sender=sender))


def test_two_from_headers_are_malformed():
    with pytest.raises(MalformedMail):
        parse(mail(headers="From: mallory@example.org"))


def test_truncated_multipart_is_malformed():
    raw = mail(b"--b\r\nContent-Type: text/plain\r\n\r\n2\r\n",
               content_type='multipart/alternative; boundary="b"', charset=None)
    with pytest.raises(MalformedMail):
        parse(raw)
    # The same message, complete, reads.
    assert parse(raw + b"--b--\r\n").command == "2"


@pytest.mark.parametrize("content_type, body", [
    ("multipart/mixed", b"2\r\n"),                              # no boundary parameter
    ('multipart/mixed; boundary="zz"', b"2\r\n--yy--\r\n"),     # the boundary never comes
])
def test_multipart_without_its_boundaries_is_malformed(content_type, body):
    with pytest.raises(MalformedMail):
        parse(mail(body, content_type=content_type, charset=None))


def test_size_limit():
    assert MAX_BYTES == 10 * 1024 * 1024
    head = mail("2\n")
    assert parse(head + b"x" * (MAX_BYTES - len(head))).command == "2"
    with pytest.raises(MalformedMail):
        parse(head + b"x" * (MAX_BYTES - len(head) + 1))


def test_a_body_with_no_text_part_has_no_command():
    raw = mail(base64.b64encode(b"\x89PNG....").decode(), content_type="image/png",
               charset=None, cte="base64")
    got = parse(raw)
    assert (got.lines, got.command) == ((), None)


def test_plain_is_preferred_to_html():
    raw = mail(b"""--b\r
Content-Type: text/plain; charset=utf-8\r
\r
from the plain part\r
--b\r
Content-Type: text/html; charset=utf-8\r
\r
<p>from the html part</p>\r
--b--\r
""", content_type='multipart/alternative; boundary="b"', charset=None)
    assert parse(raw).command == "from the plain part"


def test_attachments_are_not_the_body():
    raw = mail(b"""--b\r
Content-Type: text/plain; charset=utf-8\r
Content-Disposition: attachment; filename="notes.txt"\r
\r
from the attachment\r
--b\r
Content-Type: text/plain; charset=utf-8\r
\r
2\r
--b--\r
""", content_type='multipart/mixed; boundary="b"', charset=None)
    assert parse(raw).command == "2"


# --- Charsets and transfer encodings -------------------------------------------------------

@pytest.mark.parametrize("charset, cte, body, command", [
    ("iso-8859-1", "8bit", "échanger bob oui".encode("latin-1"), "échanger bob oui"),
    ("ISO-8859-1", "quoted-printable", b"=E9changer bob oui", "échanger bob oui"),
    ("windows-1252", "quoted-printable", b"say =93bluff=94", "say \u201cbluff\u201d"),
    # ISO-8859-1 mislabelled Windows-1252 text reads as Windows-1252 (as browsers do).
    ("iso-8859-1", "8bit", b"say \x93bluff\x94", "say \u201cbluff\u201d"),
    ("utf-8", "base64", base64.b64encode("échanger bob oui".encode()), "échanger bob oui"),
    ("utf-8", "quoted-printable", b"=C3=A9changer bob =\r\noui", "échanger bob oui"),
    (None, "8bit", "échanger bob oui".encode(), "échanger bob oui"),          # undeclared
    ("us-ascii", "8bit", "échanger bob oui".encode(), "échanger bob oui"),    # mislabelled
    ("x-unknown", "8bit", "échanger bob oui".encode(), "échanger bob oui"),   # unknown
    ("x-unknown", "8bit", "échanger bob oui".encode("latin-1"), "échanger bob oui"),
    ("base64", "8bit", "échanger bob oui".encode(), "échanger bob oui"),      # not a text codec
    ("unicode_escape", "8bit", b"say \\x41", "say \\x41"),                     # not a charset
    ("utf-16", "base64", base64.b64encode("Regarder".encode("utf-16")), "Regarder"),
])
def test_charsets(charset, cte, body, command):
    assert parse(mail(body, charset=charset, cte=cte)).command == command


def test_invalid_utf8_is_replaced_not_raised():
    got = parse(mail(b"say caf\xc3 ok", charset="utf-8", cte="8bit"))
    assert got.command == "say caf\ufffd ok"


def test_encoded_and_raw_8bit_subjects():
    assert parse(mail(headers="Subject: =?iso-8859-1?q?=E0_vous?=")).subject == "à vous"
    raw = mail().replace(b"MIME-Version", "Subject: à vous\r\nMIME-Version".encode(), 1)
    assert parse(raw).subject == "à vous"


# --- Cutting: quotes, attributions, headers, signatures ------------------------------------

@pytest.mark.parametrize("text", [
    "2\n> quoted\n> more",
    "2\n  > quoted with leading spaces",
    "2\nOn Tue, Nov 24, 2026 at 10:02 AM Mascarade Online <noreply@mascarade.example> wrote:",
    "2\nOn Tue, Nov 24, 2026 at 10:02 AM Mascarade Online <\nnoreply@mascarade.example> wrote:",
    "2\nOn 24/11/2026 10:02, Mascarade Online wrote:\n",
    "2\nLe mar. 24 nov. 2026 à 10:02, Mascarade Online <noreply@mascarade.example> a écrit :",
    "2\nLe mar. 24 nov. 2026 à 10:02, Mascarade Online <\nnoreply@mascarade.example> a écrit :",
    "2\nLe 24/11/2026 à 10:02, Mascarade Online a écrit\u00a0:",
    "2\nEl mar, 24 nov 2026 a las 10:02, Mascarade Online (<noreply@mascarade.example>) "
    "escribió:",
    "2\nAm Di., 24. Nov. 2026 um 10:02 Uhr schrieb Mascarade Online <noreply@x.example>:",
    "2\nMascarade Online <noreply@mascarade.example> wrote:\n\n> quoted",
    "2\n-----Original Message-----\nFrom: Mascarade Online",
    "2\n-----Message d'origine-----\nDe : Mascarade Online",
    "2\n-------- Original Message --------\nSubject: x",
    "2\nFrom: Mascarade Online <noreply@mascarade.example>\nSent: Tuesday, November 24, 2026"
    "\nTo: Alice\nSubject: x",
    "2\nFrom: Mascarade Online <noreply@mascarade.example>\nDate: Tuesday, 24 November 2026",
    "2\nDe : Mascarade Online <noreply@mascarade.example>\nEnvoyé : mardi 24 novembre 2026",
    "2\n*From:* Mascarade Online\n*Sent:* Tuesday",
    "2\n-- \nAlice Martin\n06 12 34 56 78",
    "2\n--\nAlice Martin",
    "2\nSent from my iPhone",
    "2\nSent from my Galaxy",
    "2\nEnvoyé de mon iPhone",
    "2\nGet Outlook for iOS<https://aka.ms/o0ukef>",
    "2\nTélécharger Outlook pour iOS<https://aka.ms/o0ukef>",
    "2\nGet Outlook for Android",
])
def test_cut_rules(text):
    assert parse(mail(text + "\nafter the cut\n")).lines == ("2",)


def test_outlook_underscores_above_the_header_block_go_with_it():
    text = "2\n\n________________________________\nFrom: Mascarade Online\nSent: Tuesday\n"
    assert parse(mail(text)).lines == ("2",)


@pytest.mark.parametrize("text, lines", [
    # Lines that only look like a cut are kept.
    ("2\n________________________________\nthanks", ("2", "________________________________",
                                                    "thanks")),
    ("2\nFrom: the king's side\nthanks", ("2", "From: the king's side", "thanks")),
    ("2\n---\nthanks", ("2", "---", "thanks")),
    ("2\nOn second thought, never mind", ("2", "On second thought, never mind")),
    ("2\nI wrote: nothing", ("2", "I wrote: nothing")),
    ("2\nsay a > b", ("2", "say a > b")),
])
def test_lines_that_are_not_cuts(text, lines):
    assert parse(mail(text)).lines == lines


def test_the_command_is_the_first_line_even_with_text_after_it():
    got = parse(mail("\n\n   \n  exchange bob swap  \n\n\nI think he has the King.\n"))
    assert got.lines == ("exchange bob swap", "I think he has the King.")
    assert got.command == "exchange bob swap"


def test_invisible_and_space_characters():
    got = parse(mail("\u200b\n\u00a0\nexchange\u00a0bob\tswap\u200b\u202f\n\ufeff\n"))
    assert got.lines == ("exchange bob swap",)


def test_a_reply_with_no_text_of_its_own_has_no_command():
    assert command_of("On Tue, Nov 24, 2026 X <x@y.z> wrote:\n> Your turn.\n") is None
    assert command_of("\n\n-- \nAlice\n") is None
    assert command_of("From: X\nSent: Tuesday\nTo: Y\n\nYour turn.\n") is None
    assert command_of("") is None


def test_an_attribution_without_a_quote_cuts_everything():
    assert command_of("On Tue, Nov 24, 2026 X <x@y.z> wrote:\n\n2\n") is None


@pytest.mark.parametrize("text", [
    "> Your turn.\n> Reply with your move.\n\n2\n\n-- \nAlice\n",
    "On Tue, Nov 24, 2026 X <x@y.z> wrote:\n> Your turn.\n>\n2\n> more quote\nmore text\n",
    "\n\nLe mar. 24 nov. 2026 à 10:02, X <\nx@y.z> a écrit :\n\n> À vous.\n\n2\n",
    "X wrote:\n> Your turn.\n2\n",
])
def test_bottom_posted_and_inline_replies(text):
    assert parse(mail(text)).lines == ("2",)


def test_only_the_leading_quote_is_skipped():
    text = "> q1\n\n2\n> q2\n\n3\n"
    assert parse(mail(text)).lines == ("2",)


def test_a_very_long_line_is_text_not_an_attribution():
    line = "On " + "x" * 5000 + " wrote:"
    assert command_of(f"{line}\n> quoted\n") == line


# --- format=flowed -------------------------------------------------------------------------

def test_flowed_lines_are_joined():
    raw = mail("say I think Carol is lying about the \nKing\n\n-- \nBob\n",
               charset="utf-8; format=flowed")
    assert parse(raw).lines == ("say I think Carol is lying about the King",)


def test_flowed_delsp():
    raw = mail("say abc\u00e9 \ndef\n", charset="utf-8; format=flowed; delsp=yes")
    assert parse(raw).command == "say abcédef"


def test_flowed_unit():
    assert unflow("a \nb\n> c \n> d\ne") == "a b\n> c d\ne"
    assert unflow("-- \nsig") == "-- \nsig"
    assert unflow("> a \nb") == "> a \nb"          # a flowed quote does not swallow the reply
    assert unflow(" From me") == "From me"          # space-stuffing
    assert unflow("a \nb", delsp=True) == "ab"


def test_not_flowed_text_keeps_its_trailing_spaces_as_breaks():
    assert parse(mail("say the \nKing\n")).lines == ("say the", "King")


# --- HTML ----------------------------------------------------------------------------------

def html_lines(html: str) -> tuple[str, ...]:
    return parse(mail(html, content_type="text/html")).lines


def test_html_blocks_breaks_and_entities():
    assert html_lines("<p>exchange&nbsp;bob   swap</p><div>second<br>third</div>"
                      "<ul><li>a</li><li>b &amp; c</li></ul>") == (
        "exchange bob swap", "second", "third", "a", "b & c")


def test_html_inline_elements_do_not_break_lines():
    assert html_lines("<div>say <b>I</b> suspect <span>Bob</span></div>") == (
        "say I suspect Bob",)


def test_html_drops_style_script_head_and_comments():
    html = ("<html><head><title>t</title><style>p{color:red}</style></head><body>"
            "<script>var x = '<p>no</p>';</script><!-- a comment --><p>2</p></body></html>")
    assert html_lines(html) == ("2",)


def test_html_head_without_end_tag():
    assert html_lines("<html><head><meta charset=utf-8><body><p>2</p></body></html>") == ("2",)


@pytest.mark.parametrize("html", [
    # Gmail
    '<div dir="ltr">2</div><br><div class="gmail_quote gmail_quote_container"><div dir="ltr" '
    'class="gmail_attr">On Tue, X wrote:<br></div><blockquote class="gmail_quote">Your turn'
    "</blockquote></div>",
    # Gmail's signature
    '<div>2</div><span class="gmail_signature_prefix">-- </span><br>'
    '<div class="gmail_signature">Alice</div>',
    # Outlook on the web
    '<div>2</div><div id="appendonsend"></div><hr><div id="divRplyFwdMsg"><b>From:</b> X<br>'
    "<b>Sent:</b> Tuesday</div><div>Your turn</div>",
    '<div>2</div><hr><div id="divRplyFwdMsg"><b>From:</b> X</div><div>Your turn</div>',
    # Outlook desktop: the <hr> or border before "From:" then "Sent:"
    '<p class="MsoNormal">2</p><hr><p><b>From:</b> X<br><b>Sent:</b> Tuesday</p><p>Your turn</p>',
    # Outlook for Mac
    '<p>2</p><div id="OLK_SRC_BODY_SECTION"><p>Your turn</p></div>',
    # Apple Mail
    '<div>2</div><div><br><blockquote type="cite">On 24 Nov 2026, at 10:02, X wrote:<br>'
    "</blockquote></div><blockquote type=\"cite\"><div>Your turn</div></blockquote>",
    # Thunderbird
    '<p>2</p><div class="moz-cite-prefix">On 24/11/2026 10:02, X wrote:<br></div>'
    '<blockquote type="cite"><pre class="moz-quote-pre">Your turn</pre></blockquote>',
    '<p>2</p><div class="moz-signature">-- <br>Alice</div>',
    # Nested blockquotes of the same tag
    "<p>2</p><blockquote><blockquote>a</blockquote>b</blockquote>",
])
def test_html_quotes_and_signatures(html):
    assert html_lines(html) == ("2",)


def test_html_text_after_a_dropped_blockquote_is_read():
    """A reply written below the quote (Thunderbird, Apple Mail) in HTML."""
    html = ('<div class="moz-cite-prefix">On 24/11/2026 10:02, X wrote:<br></div>'
            '<blockquote type="cite">Your turn</blockquote><p>2</p><p>Bob</p>')
    assert html_lines(html) == ("2", "Bob")


def test_html_pre_keeps_its_lines():
    assert html_lines("<pre>2\nsecond line</pre>") == ("2", "second line")


def test_html_unclosed_and_broken_markup():
    assert html_lines("<div><p>2<p>3</div></span></b>") == ("2", "3")
    assert html_lines("<p>2</p><td")[0] == "2"
    assert html_lines("<p>2</p><blockquote>never closed") == ("2",)


# --- Automatic messages --------------------------------------------------------------------

@pytest.mark.parametrize("headers, sender, content_type, reason", [
    ("", "alice@example.org", "text/plain", None),
    ("Auto-Submitted: auto-replied", "alice@example.org", "text/plain", "auto-submitted"),
    ("Auto-Submitted: auto-generated (failure)", "alice@example.org", "text/plain",
     "auto-submitted"),
    ("Auto-Submitted: no", "alice@example.org", "text/plain", None),
    ("Auto-Submitted: No (a person)", "alice@example.org", "text/plain", None),
    ("Precedence: bulk", "alice@example.org", "text/plain", "precedence"),
    ("Precedence: junk", "alice@example.org", "text/plain", "precedence"),
    ("Precedence: auto_reply", "alice@example.org", "text/plain", "precedence"),
    ("Precedence: list", "alice@example.org", "text/plain", "precedence"),
    ("Precedence: first-class", "alice@example.org", "text/plain", None),
    ("Precedence: list\nList-Id: <jeux.lists.example.org>", "alice@example.org", "text/plain",
     "list"),
    ("Precedence: list\nList-Unsubscribe: <mailto:u@x.org>", "alice@example.org",
     "text/plain", "list"),
    ("Precedence: bulk\nList-Id: <news.example.org>", "alice@example.org", "text/plain",
     "precedence"),
    ("List-Id: <jeux.lists.example.org>", "alice@example.org", "text/plain", "list"),
    ("List-Unsubscribe: <https://x.example/u>", "alice@example.org", "text/plain", "list"),
    ("", "alice@example.org", 'multipart/report; report-type=delivery-status; boundary="b"',
     "delivery-report"),
    ("", "alice@example.org",
     'multipart/report; report-type=disposition-notification; boundary="b"',
     "delivery-report"),
    ("X-Failed-Recipients: old@example.net", "alice@example.org", "text/plain",
     "delivery-report"),
    ("Return-Path: <>", "alice@example.org", "text/plain", "null-sender"),
    ("", "MAILER-DAEMON@mx.example.net (Mail Delivery System)", "text/plain",
     "mailer-daemon"),
    ("", "postmaster@outlook.com", "text/plain", "mailer-daemon"),
    ("X-Autoreply: yes", "alice@example.org", "text/plain", "autoreply-header"),
    ("X-Autorespond: your turn", "alice@example.org", "text/plain", "autoreply-header"),
    ("X-Auto-Response-Suppress: All", "alice@example.org", "text/plain", "autoreply-header"),
    ("X-Auto-Response-Suppress: DR, OOF", "alice@example.org", "text/plain",
     "autoreply-header"),
    ("X-Auto-Response-Suppress: DR, RN, NRN", "alice@example.org", "text/plain", None),
    ("X-MS-Exchange-Generated-Message-Source: Mailbox Rules Agent", "alice@example.org",
     "text/plain", "autoreply-header"),
    ("Subject: Automatic reply: Mascarade", "alice@example.org", "text/plain",
     "autoreply-header"),
    ("Subject: Out of Office: Mascarade", "alice@example.org", "text/plain",
     "autoreply-header"),
    ("Subject: =?utf-8?q?R=C3=A9ponse_automatique_:_Mascarade?=", "alice@example.org",
     "text/plain", "autoreply-header"),
    ("Subject: Re: Automatic reply in the subject of a person", "alice@example.org",
     "text/plain", None),
    # The first reason that applies, in the documented order.
    ("Auto-Submitted: auto-replied\nReturn-Path: <>\nPrecedence: bulk", "mailer-daemon@x.org",
     'multipart/report; report-type=delivery-status; boundary="b"', "delivery-report"),
    ("Auto-Submitted: auto-replied\nReturn-Path: <>\nX-Autoreply: yes", "alice@example.org",
     "text/plain", "auto-submitted"),
    ("Return-Path: <>", "mailer-daemon@x.org", "text/plain", "null-sender"),
])
def test_automatic(headers, sender, content_type, reason):
    body = "--b\r\nContent-Type: text/plain\r\n\r\n2\r\n--b--\r\n" if "boundary" in content_type \
        else "2\r\n"
    raw = mail(body, headers=headers, sender=sender, content_type=content_type,
               charset=None if "boundary" in content_type else "utf-8")
    got = parse(raw)
    assert got.automatic == reason
    assert got.command == "2"  # read all the same: the caller decides


def test_automatic_null_envelope_sender():
    assert parse(mail(), envelope_sender="<>").automatic == "null-sender"
    assert parse(mail(headers="Return-Path: <>"), envelope_sender="a@b.c").automatic is None


# --- Fuzzing: only Inbound or MalformedMail ------------------------------------------------

def _check(raw: bytes, **kwargs) -> Inbound | None:
    try:
        got = parse(raw, **kwargs)
    except MalformedMail:
        return None
    assert isinstance(got, Inbound)
    assert got.command == (got.lines[0] if got.lines else None)
    assert all(line and line == line.strip() for line in got.lines)
    assert got.sender == got.sender.lower() and "@" in got.sender
    assert all(recipient == recipient.lower() for recipient in got.recipients)
    for text in (got.subject, got.message_id, got.in_reply_to, got.sender, *got.lines):
        text.encode("utf-8")  # no lone surrogates
    return got


@FUZZ
@given(st.binary(max_size=3000))
def test_fuzz_any_bytes(raw):
    _check(raw)


_HEADER_LINES = st.lists(st.sampled_from([
    b"From: Alice <alice@example.org>", b"From: =?utf-8?q?=C3=A9?= <e@x.fr>", b"From: x",
    b"To: a@b.c, <d@e.f>", b"Cc: undisclosed-recipients:;", b"Return-Path: <>",
    b"Message-ID: <a@b>", b"In-Reply-To: <", b"Subject: =?iso-8859-1?q?=E9?=",
    b"Subject: =?x-bad?b?!!!?=", b"Auto-Submitted: auto-replied", b"Precedence: bulk",
    b"Content-Type: text/plain; charset=utf-8; format=flowed; delsp=yes",
    b"Content-Type: text/html; charset=iso-8859-1", b"Content-Type: text/plain; charset=base64",
    b'Content-Type: multipart/alternative; boundary="b"', b"Content-Type: multipart/report",
    b'Content-Type: text/plain; charset*=utf-8\'\'%E9', b"Content-Type: ;;;=",
    b"Content-Transfer-Encoding: base64", b"Content-Transfer-Encoding: quoted-printable",
    b"Content-Transfer-Encoding: x-uuencode", b"MIME-Version: 1.0", b" folded continuation",
]), max_size=8)

_BODY_PIECES = st.lists(st.one_of(
    st.binary(max_size=40),
    st.sampled_from([
        b"2", b"\r\n", b"> quoted", b"-- ", b"On Tue X wrote:", b"--b", b"--b--",
        b"Content-Type: text/html\r\n\r\n", b"<div class=gmail_quote>", b"<blockquote>",
        b"<p>", b"</p>", b"<div id=appendonsend>", b"=E9=", b"=\r\n", b"====", b"\xff\xfe",
        b"From: X", b"Sent: Y", b"\x00", b"&#xD800;", b"&#0;", b"<![CDATA[", b"<!--",
    ]),
), max_size=30)


@FUZZ
@given(_HEADER_LINES, _BODY_PIECES)
def test_fuzz_message_shaped_bytes(headers, pieces):
    raw = b"\r\n".join(headers) + b"\r\n\r\n" + b"".join(pieces)
    _check(raw)
    _check(b"From: a@b.c\r\n" + raw, envelope_recipients=["<X@Y>", ""], envelope_sender="")


@FUZZ
@given(st.text(max_size=400))
def test_fuzz_text_and_html(text):
    lines = reply_lines(text)
    assert all(line and line == line.strip() for line in lines)
    try:
        converted = html_to_text(text)
    except MalformedMail:
        return
    assert all(line and line == line.strip() for line in reply_lines(converted))
    unflow(text, delsp=True)
