"""Inbound mail, read: what a raw email is, and which command its sender wrote at the top of it.

Play by email answers the notification mail: a player replies and the first line they wrote is
their move. This module only reads: given the raw bytes of one inbound message (and, when the
receiving side knows them, the SMTP envelope's recipients and sender) it tells

* who sent it (the From address), whom it was sent to (every recipient header and the envelope),
  which message it answers (In-Reply-To);
* whether it was written by a machine, and so must never be played nor answered
  (``automatic``): an out-of-office, a bounce or a read receipt, a list or bulk mailing;
* the reply's own text (``lines``) and its first line, the command (``command``).

The sender is the single address of the single From header (lowercased); anything else (no
From, two of them, two addresses, an address without a domain, a list the email package finds
invalid) is :class:`MalformedMail`, as are a message without headers and a multipart whose
boundaries are missing (a truncated message). ``return_path`` is the envelope sender when the
caller gives one, else the Return-Path header.

``automatic``, the first reason that applies, in this order:

* ``"delivery-report"``: a multipart/report (bounces, delay notices, read receipts) or an
  X-Failed-Recipients header;
* ``"auto-submitted"``: Auto-Submitted other than ``no``;
* ``"autoreply-header"``: X-Autoreply / X-Autorespond (not ``no``), X-Auto-Response-Suppress
  with ``All`` or ``OOF``, X-MS-Exchange-Generated-Message-Source, X-Autoreply-From,
  X-Mail-Autoreply, or a subject that starts "Automatic reply", "Auto-reply", "Out of office",
  "Réponse automatique", "Absence du bureau" …;
* ``"precedence"`` / ``"list"``: Precedence (or X-Precedence) bulk, junk, auto_reply or list:
  ``"list"`` when it is ``list`` and List-Id or List-Unsubscribe is there, else
  ``"precedence"``; without Precedence, List-Id or List-Unsubscribe alone is ``"list"``;
* ``"null-sender"``: the return path is ``<>``;
* ``"mailer-daemon"``: the sender is mailer-daemon@… or postmaster@….

The reply's text is read for automatic messages too (the caller only stores it).

It is pure: the standard library (``email``, ``html.parser``) and ``authres`` (RFC 8601
Authentication-Results headers), no Django, no database. The bytes are not trusted: anything
unreadable is :class:`MalformedMail`, never another exception.

Parsing takes several times the message's size in memory for a moment (the email package
splits it into lines), and it is pure Python, so threads parsing at once gain nothing (the
GIL): messages over :data:`LARGE_BYTES` are parsed one at a time in a process
(:data:`_LARGE`), which bounds the receiver's memory (its figure: docs/performance.md).

``authentication`` lists every Authentication-Results header's results as ``(authserv-id,
method, result)``, lowercased; the caller decides whose it trusts (its own MTA's authserv-id).

The reply's own text, in order:

1. The body: ``get_body(preferencelist=("plain", "html"))``, decoded with its transfer encoding
   and its charset (an unknown or missing charset: UTF-8, else Windows-1252; ISO-8859-1 is read
   as Windows-1252, as browsers do). ``format=flowed`` text is unwrapped (RFC 3676, ``delsp``
   honoured). HTML, only when there is no text/plain part, is converted to text: block elements
   end lines; ``<style>``, ``<script>``, ``<head>``, every ``<blockquote>`` (Apple Mail's
   ``type=cite`` included), Gmail's ``div.gmail_quote`` and signature, Thunderbird's
   ``div.moz-cite-prefix`` and ``div.moz-signature``, Yahoo's and Proton's quotes are dropped
   with their content; at Outlook's ``#appendonsend``, ``#divRplyFwdMsg`` or (Outlook for Mac)
   ``#OLK_SRC_BODY_SECTION`` the rest of the document is dropped.
2. Leading blank lines are ignored. A message that *starts* with quoted history (an optional
   attribution line, then lines starting with ``>``) is a reply written below the quote: that
   first quoted block is skipped and reading starts after it.
3. The text is cut at the first of: a line starting with ``>``; an attribution ("On … wrote:",
   "Le … a écrit :", "El … escribió:", "Am … schrieb …:", on one line or wrapped over two; or any
   line ending in "wrote:" / "a écrit :" right before a quoted line); Outlook's
   "-----Original Message-----" / "-----Message d'origine-----"; a header block ("From: …"
   then, within three lines, "Sent: …" or "Date: …"; "De : …" then "Envoyé : …" or "Date : …"),
   with the rule of underscores Outlook puts above it; the signature separator "-- " (or "--");
   a mobile client's line ("Sent from my iPhone", "Envoyé de mon iPhone", "Get Outlook for iOS",
   "Télécharger Outlook pour iOS" …).
4. Each remaining line is stripped (zero-width characters and control characters removed too)
   and blank lines are dropped; the command is the first of them.
"""

from __future__ import annotations

import codecs
import email
import email.errors
import email.policy
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from email.message import EmailMessage
from html.parser import HTMLParser

import authres

#: Larger messages are refused before parsing (the caller checks ``len(raw)``; ``parse`` too).
MAX_BYTES = 10 * 1024 * 1024
#: Messages over this size are parsed one at a time (see the module's docstring).
LARGE_BYTES = 1024 * 1024
_LARGE = threading.Lock()

_POLICY = email.policy.default


class MalformedMail(Exception):
    """The bytes are not a readable message: too large, no headers, no single usable From
    address, or a broken MIME structure (a multipart without its boundaries, a truncated one)."""


@dataclass(frozen=True)
class Inbound:
    """One inbound message, read."""

    message_id: str
    """The Message-ID without ``<>``, ``""`` if none."""
    sender: str
    """The From address (addr-spec only), lowercased."""
    return_path: str | None
    """The envelope sender if given, else the Return-Path header's address, lowercased; ``""``
    for the null sender ``<>``; ``None`` if neither is known."""
    recipients: tuple[str, ...]
    """Every address in To, Cc, Delivered-To, X-Original-To, Envelope-To, then the envelope
    recipients given, lowercased, each once, in that order."""
    subject: str
    in_reply_to: str
    """The first message id of In-Reply-To, without ``<>``; ``""`` if none."""
    automatic: str | None
    """Why the message must never be played nor answered, or ``None``: ``"delivery-report"``,
    ``"auto-submitted"``, ``"autoreply-header"``, ``"precedence"``, ``"list"``,
    ``"null-sender"``, ``"mailer-daemon"`` (the first that applies, in that order)."""
    lines: tuple[str, ...]
    """The reply's own text: quoted history and signatures removed, lines stripped, no blank."""
    command: str | None
    """``lines[0]``, or ``None`` when the reply has no text of its own."""
    authentication: tuple[tuple[str, str, str], ...] = ()
    """``(authserv-id, method, result)`` of each result of each readable
    Authentication-Results header, lowercased, in order: ``("mx.example.org", "dmarc",
    "fail")``."""


def parse(raw: bytes, envelope_recipients: Iterable[str] = (),
          envelope_sender: str | None = None) -> Inbound:
    """Read one raw message. Raises :class:`MalformedMail` (and nothing else) on unreadable
    bytes."""
    if len(raw) > MAX_BYTES:
        raise MalformedMail(f"larger than {MAX_BYTES} bytes")
    if len(raw) > LARGE_BYTES:
        with _LARGE:
            return _parse(raw, envelope_recipients, envelope_sender)
    return _parse(raw, envelope_recipients, envelope_sender)


def _parse(raw: bytes, envelope_recipients: Iterable[str],
           envelope_sender: str | None) -> Inbound:
    try:
        msg = email.message_from_bytes(bytes(raw), policy=_POLICY)
        headers = [(name.lower(), _unfold(value)) for name, value in msg.raw_items()]
    except Exception as exc:  # the email package on hostile bytes
        raise MalformedMail("not a message") from exc
    if not headers:
        raise MalformedMail("no headers")
    _check_structure(msg)

    sender = _sender(headers)
    return_path = _return_path(headers, envelope_sender)
    recipients = _recipients(headers, envelope_recipients)
    lines = reply_lines(_body_text(msg))
    return Inbound(
        message_id=_msg_id(_first(headers, "message-id")),
        sender=sender,
        return_path=return_path,
        recipients=recipients,
        subject=_text_header("subject", _first(headers, "subject")),
        in_reply_to=_msg_id(_first(headers, "in-reply-to")),
        automatic=_automatic(msg, headers, sender, return_path),
        lines=lines,
        command=lines[0] if lines else None,
        authentication=_authentication(headers),
    )


# --- Headers -------------------------------------------------------------------------------

_NEWLINES = re.compile(r"\r\n|\r|\n")
_MSG_ID = re.compile(r"<([^<>]*)>")


def _unfold(value: str) -> str:
    return _NEWLINES.sub("", str(value))


def _first(headers: list[tuple[str, str]], name: str) -> str | None:
    return next((value for key, value in headers if key == name), None)


def _all(headers: list[tuple[str, str]], name: str) -> list[str]:
    return [value for key, value in headers if key == name]


def _clean(text: str) -> str:
    """Text safe to store and print: bytes the email package could not decode (kept as lone
    surrogates) read as UTF-8, else replaced."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def _text_header(name: str, value: str | None) -> str:
    if value is None:
        return ""
    try:
        text = str(_POLICY.header_fetch_parse(name, value))
    except Exception:  # an encoded word the email package chokes on: keep it raw
        text = value
    return _clean(text).strip()


def _msg_id(value: str | None) -> str:
    if value is None:
        return ""
    value = _clean(value)
    found = _MSG_ID.search(value)
    return (found.group(1) if found else value).strip()


def _addresses(value: str, *, strict: bool = False) -> list[str]:
    """The addr-specs of an address list, lowercased. ``strict``: an invalid list (the email
    package reports it as a defect) raises ValueError."""
    header = _POLICY.header_fetch_parse("to", value)
    if strict and any(isinstance(d, email.errors.InvalidHeaderDefect) for d in header.defects):
        raise ValueError("invalid address list")
    found = []
    for address in header.addresses:
        spec = _clean(address.addr_spec).strip().lower()
        if spec and spec != "<>":
            found.append(spec)
    return found


def _valid_address(spec: str) -> bool:
    local, at, domain = spec.rpartition("@")
    return bool(at and local and domain) and not any(ch.isspace() for ch in spec)


def _sender(headers: list[tuple[str, str]]) -> str:
    values = _all(headers, "from")
    if not values:
        raise MalformedMail("no From")
    if len(values) > 1:
        raise MalformedMail("several From headers")
    try:
        found = _addresses(values[0], strict=True)
    except Exception as exc:
        raise MalformedMail("unreadable From") from exc
    if len(found) != 1 or not _valid_address(found[0]):
        raise MalformedMail("From is not one address")
    return found[0]


def _bare_address(value: str) -> str:
    value = _clean(value).strip()
    found = _MSG_ID.search(value)
    return (found.group(1) if found else value).strip().lower()


def _return_path(headers: list[tuple[str, str]], envelope_sender: str | None) -> str | None:
    if envelope_sender is not None:
        return _bare_address(envelope_sender)
    value = _first(headers, "return-path")
    return None if value is None else _bare_address(value)


_RECIPIENT_HEADERS = ("to", "cc", "delivered-to", "x-original-to", "envelope-to")


def _recipients(headers: list[tuple[str, str]], envelope: Iterable[str]) -> tuple[str, ...]:
    found: list[str] = []
    for name in _RECIPIENT_HEADERS:
        for value in _all(headers, name):
            try:
                found.extend(_addresses(value))
            except Exception:  # noqa: S112 (an unreadable list names nobody)
                continue
    found.extend(_bare_address(value) for value in envelope)
    return tuple(dict.fromkeys(spec for spec in found if spec))


def _authentication(headers: list[tuple[str, str]]) -> tuple[tuple[str, str, str], ...]:
    """Every Authentication-Results header's results (an unreadable header is skipped)."""
    found = []
    for value in _all(headers, "authentication-results"):
        try:
            parsed = authres.AuthenticationResultsHeader.parse_value(_clean(value))
        except Exception:  # noqa: S112 (authres on a hostile header: it says nothing)
            continue
        authserv = str(parsed.authserv_id or "").strip().lower()
        found.extend((authserv, str(result.method or "").lower(),
                      str(result.result or "").lower()) for result in parsed.results)
    return tuple(found)


# --- Automatic messages --------------------------------------------------------------------

_AUTOREPLY_SUBJECT = re.compile(
    r"^\s*(automatic reply|auto[- ]?reply|auto[- ]?response|out of (the )?office|"
    r"réponse automatique|absence du bureau|absent du bureau|abwesenheitsnotiz)\b",
    re.IGNORECASE)
_NEGATIVE = {"", "no", "false", "0"}


def _token(value: str | None) -> str:
    """A header's first token, lowercased: "auto-replied" of "auto-replied; (comment)"."""
    if value is None:
        return ""
    return re.split(r"[;(\s]", _clean(value).strip().lower(), maxsplit=1)[0]


def _automatic(msg: EmailMessage, headers: list[tuple[str, str]], sender: str,
               return_path: str | None) -> str | None:
    try:
        content_type = msg.get_content_type()
    except Exception:
        content_type = ""
    if content_type == "multipart/report" or _first(headers, "x-failed-recipients") is not None:
        return "delivery-report"
    if any(_token(v) not in _NEGATIVE for v in _all(headers, "auto-submitted")):
        return "auto-submitted"
    suppress = {part.strip().lower()
                for v in _all(headers, "x-auto-response-suppress") for part in v.split(",")}
    if (
        suppress & {"all", "oof"}
        or any(_token(v) not in _NEGATIVE for name in ("x-autoreply", "x-autorespond")
               for v in _all(headers, name))
        or any(_first(headers, name) is not None for name in (
            "x-ms-exchange-generated-message-source", "x-autoreply-from", "x-mail-autoreply"))
        or _AUTOREPLY_SUBJECT.match(_text_header("subject", _first(headers, "subject")))
    ):
        return "autoreply-header"
    listed = any(_first(headers, name) is not None for name in ("list-id", "list-unsubscribe"))
    precedence = {_token(v) for name in ("precedence", "x-precedence") for v in _all(headers, name)}
    if precedence & {"bulk", "junk", "auto_reply", "auto-reply", "list"}:
        return "list" if listed and "list" in precedence else "precedence"
    if listed:
        return "list"
    if return_path == "":
        return "null-sender"
    if sender.rpartition("@")[0] in ("mailer-daemon", "postmaster"):
        return "mailer-daemon"
    return None


# --- The body ------------------------------------------------------------------------------

_STRUCTURAL_DEFECTS = (
    email.errors.NoBoundaryInMultipartDefect,
    email.errors.StartBoundaryNotFoundDefect,
    email.errors.CloseBoundaryNotFoundDefect,
    email.errors.MultipartInvariantViolationDefect,
)


def _check_structure(msg: EmailMessage) -> None:
    try:
        broken = any(isinstance(defect, _STRUCTURAL_DEFECTS)
                     for part in msg.walk() for defect in part.defects)
    except Exception as exc:
        raise MalformedMail("unreadable MIME structure") from exc
    if broken:
        raise MalformedMail("broken MIME structure (a multipart's boundaries are missing)")


def _body_text(msg: EmailMessage) -> str:
    """The chosen part's text (HTML converted, flowed text unwrapped), newlines as "\\n"."""
    try:
        part = msg.get_body(preferencelist=("plain", "html"))
        if part is None:
            return ""
        payload = part.get_payload(decode=True)
        charset = part.get_content_charset()
        subtype = part.get_content_subtype()
        flowed = (part.get_param("format") or "").lower() == "flowed"
        delsp = (part.get_param("delsp") or "").lower() == "yes"
    except Exception as exc:
        raise MalformedMail("unreadable body") from exc
    if not isinstance(payload, bytes):
        return ""
    text = _NEWLINES.sub("\n", decode_text(payload, charset))
    if subtype == "html":
        return html_to_text(text)
    if flowed:
        return unflow(text, delsp=delsp)
    return text


#: Codecs Python has that no mail charset names: read as if undeclared.
_NOT_CHARSETS = {"ascii", "unicode-escape", "raw-unicode-escape", "undefined", "idna",
                 "punycode"}


def decode_text(data: bytes, charset: str | None) -> str:
    """Bytes as text: with their declared charset; undeclared, unknown or plain ASCII with 8-bit
    bytes: UTF-8, else Windows-1252."""
    codec = None
    if charset:
        try:
            codec = codecs.lookup(charset).name
        except Exception:  # unknown, or a name codecs refuses (a NUL, a surrogate)
            codec = None
    if codec in ("latin-1", "iso8859-1"):
        codec = "cp1252"
    if codec is not None and codec not in _NOT_CHARSETS:
        try:
            return data.decode(codec, "replace")
        except Exception:  # noqa: S110 (not a text codec, such as "base64": guess below)
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace")


def unflow(text: str, *, delsp: bool = False) -> str:
    """RFC 3676 ``format=flowed`` text unwrapped: a line ending in a space goes on with the next
    line of the same quote depth; space-stuffing removed; "-- " is never flowed."""
    out: list[str] = []
    buffer: str | None = None
    depth = 0

    def flush() -> None:
        nonlocal buffer
        if buffer is not None:
            out.append((">" * depth + " " + buffer) if depth else buffer)
        buffer = None

    for line in text.split("\n"):
        line_depth = len(line) - len(line.lstrip(">"))
        content = line[line_depth:]
        if content.startswith(" "):
            content = content[1:]
        soft = content.endswith(" ") and content != "-- "
        if buffer is not None and line_depth != depth:
            flush()
        piece = content[:-1] if soft and delsp else content
        buffer = piece if buffer is None else buffer + piece
        depth = line_depth
        if not soft:
            flush()
    flush()
    return "\n".join(out)


# --- HTML to text --------------------------------------------------------------------------

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
         "source", "track", "wbr"}
_BLOCK = {"address", "article", "aside", "blockquote", "br", "center", "dd", "div", "dl", "dt",
          "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5",
          "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table",
          "tbody", "td", "tfoot", "th", "thead", "tr", "ul"}
_DROP_TAGS = {"style", "script", "head", "title", "blockquote", "template", "xml"}
_DROP_CLASSES = {"gmail_quote", "gmail_signature", "gmail_signature_prefix", "gmail_extra",
                 "moz-cite-prefix", "moz-signature", "yahoo_quoted", "protonmail_quote"}
_CUT_IDS = {"appendonsend", "divrplyfwdmsg", "olk_src_body_section"}
_SPACES = re.compile(r"[ \t\r\n\f]+")


class _Cut(Exception):
    """Raised inside the parser at a cut: nothing after it is read."""


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip_tag: str | None = None
        self.skip_depth = 0
        self.pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skip_tag is not None:
            if tag == self.skip_tag and tag not in _VOID:
                self.skip_depth += 1
            elif self.skip_tag == "head" and tag == "body":
                self.skip_tag = None
            return
        values = {name: (value or "") for name, value in attrs}
        if values.get("id", "").strip().lower() in _CUT_IDS:
            raise _Cut
        classes = set(values.get("class", "").lower().split())
        if tag not in _VOID and (tag in _DROP_TAGS or classes & _DROP_CLASSES):
            self.skip_tag, self.skip_depth = tag, 1
            self.parts.append("\n")
            return
        if tag == "pre":
            self.pre += 1
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        if self.skip_tag is not None:
            if tag == self.skip_tag:
                self.skip_depth -= 1
                if self.skip_depth == 0:
                    self.skip_tag = None
            return
        if tag == "pre" and self.pre:
            self.pre -= 1
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.skip_tag is not None:
            return
        self.parts.append(data if self.pre else _SPACES.sub(" ", data))


def html_to_text(html: str) -> str:
    """An HTML body as text, its quoted history and signatures dropped (see the module's doc)."""
    extractor = _TextExtractor()
    try:
        extractor.feed(html)
        extractor.close()
    except _Cut:
        pass
    except Exception as exc:  # html.parser on hostile markup
        raise MalformedMail("unreadable HTML") from exc
    return _NEWLINES.sub("\n", "".join(extractor.parts))


# --- The reply's own lines -----------------------------------------------------------------

_ATTRIBUTION = re.compile(
    r"^(on\s.*\bwrote|le\s.*\ba\s+écrit|el\s.*\bescribió|am\s.*\bschrieb\b.*)\s*:$",
    re.IGNORECASE)
#: An attribution is a short line: longer ones are text (and never searched).
_ATTRIBUTION_MAX = 400
_ATTRIBUTION_START = re.compile(r"^(on|le|el|am)\s", re.IGNORECASE)
_WROTE = re.compile(r"\b(wrote|a\s+écrit|escribió|schrieb)\s*:$", re.IGNORECASE)
_ORIGINAL = re.compile(
    r"^-{2,}\s*(original message|message d['’]origine|message original|"
    r"ursprüngliche nachricht|mensaje original)\s*-{2,}$",
    re.IGNORECASE)
_HEADER_FROM = re.compile(r"^\*?(from|de|von)\s*:", re.IGNORECASE)
_HEADER_SENT = re.compile(r"^\*?(sent|date|envoyé|gesendet|enviado)\s*:", re.IGNORECASE)
_RULE = re.compile(r"^[_-]{8,}$")
_MOBILE = re.compile(
    r"^(sent from my\s|sent from mail for\s|sent from outlook\b|sent from yahoo mail\b|"
    r"envoyé de mon\s|envoyé depuis mon\s|envoyé à partir de\s|get outlook for\s|"
    r"télécharger outlook pour\s|obtenir outlook pour\s)",
    re.IGNORECASE)
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
_WHITESPACE = re.compile(r"\s")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def _clean_line(line: str) -> str:
    """A line stripped, its zero-width and control characters removed, every other space
    (tab, no-break space, narrow no-break space …) an ordinary one."""
    line = _CONTROL.sub("", _WHITESPACE.sub(" ", _INVISIBLE.sub("", line)))
    return line.strip()


def _next_nonblank(lines: list[str], start: int) -> int:
    while start < len(lines) and not lines[start]:
        start += 1
    return start


def _attribution(lines: list[str], k: int) -> int:
    """How many lines (1 or 2) the attribution at ``k`` spans, 0 if there is none."""
    line = lines[k]
    if len(line) > _ATTRIBUTION_MAX:
        return 0
    if _ATTRIBUTION.match(line):
        return 1
    if (_ATTRIBUTION_START.match(line) and k + 1 < len(lines) and lines[k + 1]
            and len(lines[k + 1]) <= _ATTRIBUTION_MAX and not _ATTRIBUTION.match(lines[k + 1])
            and _ATTRIBUTION.match(line + " " + lines[k + 1])):
        return 2
    if _WROTE.search(line):
        after = _next_nonblank(lines, k + 1)
        if after < len(lines) and lines[after].startswith(">"):
            return 1
    return 0


def _header_block(lines: list[str], k: int) -> bool:
    if not _HEADER_FROM.match(lines[k]):
        return False
    following = [line for line in lines[k + 1:k + 8] if line][:3]
    return any(_HEADER_SENT.match(line) for line in following)


def _cut_here(lines: list[str], k: int) -> bool:
    line = lines[k]
    if line.startswith(">") or line == "--":
        return True
    if _attribution(lines, k) or _ORIGINAL.match(line) or _MOBILE.match(line):
        return True
    if _header_block(lines, k):
        return True
    if _RULE.match(line):
        after = _next_nonblank(lines, k + 1)
        return after < len(lines) and _header_block(lines, after)
    return False


def reply_lines(text: str) -> tuple[str, ...]:
    """The reply's own lines of a body's text (see the module's doc)."""
    lines = [_clean_line(line) for line in _NEWLINES.split(text)]
    start = _next_nonblank(lines, 0)
    # A reply written below the quoted message: skip the leading quote block.
    if start < len(lines):
        quote = _next_nonblank(lines, start + _attribution(lines, start))
        if quote < len(lines) and lines[quote].startswith(">"):
            while quote < len(lines) and (not lines[quote] or lines[quote].startswith(">")):
                quote += 1
            start = quote
    kept: list[str] = []
    for k in range(start, len(lines)):
        if _cut_here(lines, k):
            break
        if lines[k]:
            kept.append(lines[k])
    return tuple(kept)
