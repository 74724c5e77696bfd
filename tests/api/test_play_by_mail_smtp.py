"""A real SMTP conversation: ``manage.py mailreceiver`` started as a process on the test's
PostgreSQL database, a reply sent with ``smtplib`` to the ``Reply-To`` of a real notification:
the move is stored (channel "mail") and the confirmation written to the outbox."""

from __future__ import annotations

import os
import re
import smtplib
import subprocess
import sys
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core import mail
from django.db import connection

from games.models import InboundMessage, MoveRecord, Notification, PendingDecision, Seat
from tests.site.test_mail_receivers import free_port

from .helpers import start_game
from .test_play_by_mail import deliver, last_mail_to

ROOT = Path(__file__).resolve().parents[2]
DOMAIN = "mascarade.example"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_reply_sent_over_smtp_plays_the_move_and_is_confirmed(users, settings, tmp_path):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.MAIL_DOMAIN = DOMAIN
    game = start_game(users[0], users[1:], options={"players": 4})
    deliver()
    row = PendingDecision.objects.get(game=game)
    player = Seat.objects.get(game=game, position=row.player).user
    notice = last_mail_to(player)
    address = notice.reply_to[0]
    assert address.endswith("@" + DOMAIN)

    port = free_port()
    db = connection.settings_dict
    env = {**os.environ, "DEBUG": "1", "VAR_DIR": str(tmp_path), "MAIL_DOMAIN": DOMAIN,
           "SECRET_KEY": django_settings.SECRET_KEY, "PYTHONUNBUFFERED": "1",
           "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"}
    proc = subprocess.Popen([sys.executable, "manage.py", "mailreceiver", "--port", str(port)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        banner = proc.stdout.readline()
        assert f"127.0.0.1:{port}" in banner, (banner, proc.stderr.read()
                                                if proc.poll() is not None else "")
        reply = EmailMessage()
        reply["From"] = player.email
        reply["To"] = address
        reply["Subject"] = "Re: " + notice.subject
        reply["Message-ID"] = make_msgid(domain="example.org")
        reply["In-Reply-To"] = notice.extra_headers["Message-ID"]
        reply.set_content("1\n\nOn Tue, 24 Nov 2026 at 10:02, Mascarade Online wrote:\n> "
                          + notice.body.replace("\n", "\n> "))
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
            refused = client.send_message(reply, from_addr=player.email, to_addrs=[address])
        assert refused == {}
    finally:
        proc.terminate()
        proc.wait(30)
        proc.stdout.close()
        proc.stderr.close()
    inbound = InboundMessage.objects.get()
    assert inbound.status == InboundMessage.Status.PLAYED and inbound.via == "smtp"
    record = MoveRecord.objects.get(game=game, seq=inbound.move_seq)
    assert record.channel == "mail" and record.by_user == player
    confirmation = Notification.objects.get(kind="mail_reply", user=player)
    mail.outbox.clear()
    deliver()
    sent = next(m for m in mail.outbox if m.to == [player.email]
                and m.extra_headers["Auto-Submitted"] == "auto-replied")
    assert "Your move is played" in sent.body
    assert re.fullmatch(rf"play\+\d+\.[0-9a-f]{{24}}@{re.escape(DOMAIN)}", sent.reply_to[0])
    assert Notification.objects.get(pk=confirmation.pk).status == "sent"
