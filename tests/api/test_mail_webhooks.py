"""Inbound mail posted by providers' webhooks (django-anymail under /anymail/;
games/mail/providers.py) reaches ``games.mail.receive.receive_mail`` (replaced here by a
recorder) with the raw MIME, the recipients, the envelope sender and ``via="webhook:<esp>"``.

Payloads in the providers' documented formats, as anymail's own tests post them: Mailgun's
forward() route (multipart form, ``body-mime`` at ``…/inbound_mime/``, parsed fields at
``…/inbound/``), signed with HMAC-SHA256(signing key, timestamp + token); Postmark's inbound JSON
(with and without ``RawEmail``); Mailjet's parse API JSON. Every webhook also needs the basic auth
of ``ANYMAIL_WEBHOOK_SECRET`` (anymail's rule once a secret is set). Refused posts answer 400 and
never reach the service.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import sys
import types
from email import message_from_bytes
from email.policy import default as default_policy

import pytest
from django.conf import settings as django_settings
from django.test import Client

from games.mail.providers import esp_slug, recipients_of

SECRET = "mascarade:webhook-secret"
SIGNING_KEY = "key-mailgun-signing-for-tests"
OTHER_KEY = "key-somebody-else"
MAILGUN_TOKEN = "5c1f0b3b8a5a4c6e9d2f7a1b3c5d7e9f0a2b4c6d8e0f1a3b5c"

RAW_MIME = (
    "From: Player <player@example.org>\n"
    "To: play+abc.def@mascarade.test, Someone <someone@example.org>\n"
    "Subject: Re: your turn\n"
    "Message-ID: <m1@example.org>\n"
    "Date: Tue, 24 Nov 2026 10:00:00 +0000\n"
    "MIME-Version: 1.0\n"
    "Content-Type: text/plain; charset=\"utf-8\"\n"
    "Content-Transfer-Encoding: 8bit\n"
    "\n"
    "exchange 2 swap\n"
    "café\n"
)


@pytest.fixture
def service(monkeypatch):
    """``games.mail.receive.receive_mail`` replaced by a recorder (``raises`` makes it
    raise). Until the real module imports, a stand-in module."""
    try:
        import games.mail.receive as module
    except ImportError:
        module = types.ModuleType("games.mail.receive")
        monkeypatch.setitem(sys.modules, "games.mail.receive", module)
    recorder = types.SimpleNamespace(calls=[], raises=None)

    def receive_mail(raw, *, recipients=(), sender=None, via):
        if recorder.raises is not None:
            raise recorder.raises
        recorder.calls.append({"raw": raw, "recipients": list(recipients), "sender": sender,
                               "via": via})

    monkeypatch.setattr(module, "receive_mail", receive_mail, raising=False)
    return recorder


@pytest.fixture
def configured(settings):
    settings.ANYMAIL = {**settings.ANYMAIL, "WEBHOOK_SECRET": [SECRET],
                        "MAILGUN_WEBHOOK_SIGNING_KEY": SIGNING_KEY}


def basic_auth(credentials: str = SECRET) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": "Basic " + base64.b64encode(credentials.encode()).decode()}


def mailgun_signed(fields: dict[str, str], key: str = SIGNING_KEY, *, timestamp="1795000000",
                   token=MAILGUN_TOKEN) -> dict[str, str]:
    """Mailgun's signature of a forward() post: HMAC-SHA256 of timestamp + token."""
    signature = hmac.new(key.encode(), f"{timestamp}{token}".encode(),
                         hashlib.sha256).hexdigest()
    return {**fields, "timestamp": timestamp, "token": token, "signature": signature}


def mailgun_mime_fields() -> dict[str, str]:
    return {"recipient": "play+abc.def@mascarade.test", "sender": "bounces@example.org",
            "from": "Player <player@example.org>", "subject": "Re: your turn",
            "body-mime": RAW_MIME}


def postmark_payload(*, raw: bool = True) -> dict:
    payload = {
        "FromFull": {"Email": "player@example.org", "Name": "Player", "MailboxHash": ""},
        "ToFull": [{"Email": "play+abc.def@mascarade.test", "Name": "", "MailboxHash":
                    "abc.def"}],
        "CcFull": [],
        "BccFull": [],
        "OriginalRecipient": "play+abc.def@mascarade.test",
        "Subject": "Re: your turn",
        "MessageID": "22c74902-a0c1-4511-804f-341342852c90",
        "Date": "Tue, 24 Nov 2026 10:00:00 +0000",
        "TextBody": "exchange 2 swap\ncafé\n",
        "HtmlBody": "",
        "StrippedTextReply": "exchange 2 swap",
        "Headers": [{"Name": "Return-Path", "Value": "<bounces@example.org>"},
                    {"Name": "Message-ID", "Value": "<m1@example.org>"},
                    {"Name": "X-Spam-Status", "Value": "No"}],
        "Attachments": [],
    }
    if raw:
        payload["RawEmail"] = RAW_MIME
    return payload


def parsed(raw: bytes):
    assert isinstance(raw, bytes)
    return message_from_bytes(raw, policy=default_policy)


# --- The configuration -------------------------------------------------------------------------


def test_the_defaults_keep_every_check_on():
    """With nothing configured, the secrets are random ones of the process (never empty, which
    would make anymail accept unsigned posts from anyone)."""
    anymail = django_settings.ANYMAIL
    assert anymail["WEBHOOK_SECRET"] and all(anymail["WEBHOOK_SECRET"])
    assert anymail["MAILGUN_WEBHOOK_SIGNING_KEY"]
    assert anymail["MAILERSEND_INBOUND_SECRET"]
    assert anymail["MANDRILL_WEBHOOK_KEY"]


@pytest.mark.parametrize("path", ["/anymail/mailgun/inbound/", "/anymail/mailgun/inbound_mime/",
                                  "/anymail/postmark/inbound/", "/anymail/mailjet/inbound/",
                                  "/anymail/sendgrid/inbound/", "/anymail/sparkpost/inbound/",
                                  "/anymail/mailersend/inbound/", "/anymail/mandrill/"])
@pytest.mark.filterwarnings("ignore::anymail.exceptions.AnymailNotSupportedWarning")
def test_with_the_default_settings_unsigned_posts_are_refused(client, service, path):
    """The settings as the environment left them (the tests set no webhook secret)."""
    form = mailgun_signed(mailgun_mime_fields(), "guessed")
    response = client.post(path, data=form)
    assert response.status_code == 400
    response = client.post(path, data=json.dumps(postmark_payload()),
                           content_type="application/json", **basic_auth("anymail:guessed"))
    assert response.status_code == 400
    assert service.calls == []


@pytest.mark.parametrize("path", ["/anymail/brevo/inbound/", "/anymail/resend/inbound/",
                                  "/anymail/mailtrap/inbound/", "/anymail/postal/inbound/",
                                  "/anymail/amazon_ses/inbound/"])
def test_providers_that_need_a_key_refuse_without_it(service, path):
    """Brevo, Resend and Mailtrap (their API key, to fetch the message), Postal (its public
    key) and Amazon SES (boto3, not installed) are refused by anymail's configuration error
    while their key is not set: a 500, the post not taken."""
    client = Client(raise_request_exception=False)
    response = client.post(path, data=json.dumps(postmark_payload()),
                           content_type="application/json", **basic_auth(SECRET))
    assert response.status_code == 500
    assert service.calls == []


def test_esp_slugs():
    assert esp_slug("Mailgun") == "mailgun"
    assert esp_slug("SendGrid") == "sendgrid"
    assert esp_slug("Amazon SES") == "amazon_ses"


# --- Mailgun: HMAC signature (and basic auth) --------------------------------------------------


def test_mailgun_raw_mime_reaches_the_service(client, configured, service):
    response = client.post("/anymail/mailgun/inbound_mime/",
                           data=mailgun_signed(mailgun_mime_fields()), **basic_auth())
    assert response.status_code == 200
    assert len(service.calls) == 1
    call = service.calls[0]
    assert call["via"] == "webhook:mailgun"
    assert call["sender"] == "bounces@example.org"
    # The envelope recipient first, then the To header's addresses, each once.
    assert call["recipients"] == ["play+abc.def@mascarade.test", "someone@example.org"]
    # The raw MIME as Mailgun posted it.
    assert call["raw"] == RAW_MIME.encode()
    message = parsed(call["raw"])
    assert message["Subject"] == "Re: your turn"
    assert message.get_content() == "exchange 2 swap\ncafé\n"


def test_mailgun_parsed_fields_reach_the_service_as_mime(client, configured, service):
    fields = {
        "recipient": "play+abc.def@mascarade.test", "sender": "bounces@example.org",
        "from": "Player <player@example.org>", "subject": "Re: your turn",
        "message-headers": json.dumps([
            ["From", "Player <player@example.org>"],
            ["To", "play+abc.def@mascarade.test"],
            ["Subject", "Re: your turn"],
            ["Message-Id", "<m1@example.org>"],
        ]),
        "body-plain": "exchange 2 swap\ncafé\n",
        "stripped-text": "exchange 2 swap",
    }
    response = client.post("/anymail/mailgun/inbound/", data=mailgun_signed(fields),
                           **basic_auth())
    assert response.status_code == 200
    call = service.calls[0]
    assert call["recipients"] == ["play+abc.def@mascarade.test"]
    assert call["sender"] == "bounces@example.org"
    message = parsed(call["raw"])
    assert message["Message-Id"] == "<m1@example.org>"
    assert message.get_body(("plain",)).get_content() == "exchange 2 swap\ncafé\n"


@pytest.mark.parametrize("case", ["no signature", "wrong key", "tampered", "no basic auth",
                                  "wrong basic auth"])
def test_mailgun_refuses_bad_signatures(client, configured, service, case):
    form = mailgun_signed(mailgun_mime_fields())
    auth = basic_auth()
    if case == "no signature":
        form = {k: v for k, v in form.items() if k not in ("signature", "token", "timestamp")}
    elif case == "wrong key":
        form = mailgun_signed(mailgun_mime_fields(), OTHER_KEY)
    elif case == "tampered":
        form["timestamp"] = str(int(form["timestamp"]) + 1)
    elif case == "no basic auth":
        auth = {}
    else:
        auth = basic_auth("mascarade:guessed")
    response = client.post("/anymail/mailgun/inbound_mime/", data=form, **auth)
    assert response.status_code == 400
    assert service.calls == []


# --- Postmark: basic auth only ------------------------------------------------------------------


def test_postmark_raw_email_reaches_the_service(client, configured, service):
    response = client.post("/anymail/postmark/inbound/", data=json.dumps(postmark_payload()),
                           content_type="application/json", **basic_auth())
    assert response.status_code == 200
    call = service.calls[0]
    assert call["via"] == "webhook:postmark"
    assert call["sender"] == "bounces@example.org"  # the Return-Path Postmark prepends
    assert call["recipients"] == ["play+abc.def@mascarade.test", "someone@example.org"]
    assert call["raw"] == RAW_MIME.encode()


def test_postmark_without_raw_email_is_rebuilt_as_mime(client, configured, service):
    response = client.post("/anymail/postmark/inbound/",
                           data=json.dumps(postmark_payload(raw=False)),
                           content_type="application/json", **basic_auth())
    assert response.status_code == 200
    call = service.calls[0]
    assert call["recipients"] == ["play+abc.def@mascarade.test"]
    message = parsed(call["raw"])
    assert message["From"] == "Player <player@example.org>"
    assert message["Subject"] == "Re: your turn"
    assert message["Message-ID"] == "<m1@example.org>"
    assert message.get_body(("plain",)).get_content() == "exchange 2 swap\ncafé\n"


@pytest.mark.parametrize("auth", [{}, basic_auth("mascarade:guessed"), basic_auth(""),
                                  {"HTTP_AUTHORIZATION": "Bearer " + SECRET}])
def test_postmark_refuses_posts_without_the_secret(client, configured, service, auth):
    response = client.post("/anymail/postmark/inbound/", data=json.dumps(postmark_payload()),
                           content_type="application/json", **auth)
    assert response.status_code == 400
    assert service.calls == []


def test_several_secrets_while_rotating(client, settings, service):
    settings.ANYMAIL = {**settings.ANYMAIL, "WEBHOOK_SECRET": ["old:one", SECRET]}
    for credentials in ("old:one", SECRET):
        response = client.post("/anymail/postmark/inbound/",
                               data=json.dumps(postmark_payload()),
                               content_type="application/json", **basic_auth(credentials))
        assert response.status_code == 200
    assert len(service.calls) == 2


# --- Mailjet: basic auth only -------------------------------------------------------------------


def test_mailjet_reaches_the_service(client, configured, service):
    payload = {
        "Sender": "bounces@example.org",
        "Recipient": "play+abc.def@mascarade.test",
        "From": "Player <player@example.org>",
        "Subject": "Re: your turn",
        "Headers": {"From": "Player <player@example.org>",
                    "To": "play+abc.def@mascarade.test",
                    "Subject": "Re: your turn", "Message-ID": "<m1@example.org>"},
        "Parts": [{"Headers": {"Content-Type": "text/plain; charset=UTF-8"},
                   "ContentRef": "Text-part"}],
        "Text-part": "exchange 2 swap\n",
        "SpamAssassinScore": "0.1",
    }
    response = client.post("/anymail/mailjet/inbound/", data=json.dumps(payload),
                           content_type="application/json", **basic_auth())
    assert response.status_code == 200
    call = service.calls[0]
    assert call["via"] == "webhook:mailjet"
    assert call["sender"] == "bounces@example.org"
    assert call["recipients"] == ["play+abc.def@mascarade.test"]
    assert parsed(call["raw"]).get_body(("plain",)).get_content() == "exchange 2 swap\n"


# --- When the service cannot store ---------------------------------------------------------------


def test_the_service_raising_is_a_500_so_the_provider_retries(configured, service):
    service.raises = RuntimeError("the database is down")
    client = Client(raise_request_exception=False)
    response = client.post("/anymail/postmark/inbound/", data=json.dumps(postmark_payload()),
                           content_type="application/json", **basic_auth())
    assert response.status_code == 500


def test_an_unreadable_to_header_leaves_the_envelope_recipient():
    class Message:
        envelope_recipient = "play+x@mascarade.test"

        @property
        def to(self):
            raise ValueError("an unreadable To header")

    assert recipients_of(Message()) == ["play+x@mascarade.test"]
