"""The outbox's mail through a real Celery worker process and a real SMTP server (aiosmtpd, in
this process), on the test's PostgreSQL database and Redis broker:

- a decision's mail is sent by its own task once the debounce has passed (no beat runs here:
  nothing else would send it), and the answer to a move played by mail waits for the bots,
  which the worker plays, and carries the decision they leave to the player, with its commands
  (issue 42);
- a worker killed (SIGKILL) in the middle of a batch has recorded each mail it sent before the
  one in flight: once the interrupted batch is taken back, that one mail alone goes twice, with
  its Message-ID (issue 44)."""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from django.conf import settings as django_settings
from django.db import connection
from django.utils import timezone

from games import tasks
from games.mail.receive import receive_mail
from games.models import Game, InboundMessage, Notification
from games.notify import delivery
from mascarade_site.celery import app
from tests.api.factories import UserFactory
from tests.api.test_play_by_mail import answer
from tests.site.servers import free_port

ROOT = Path(__file__).resolve().parents[2]
DOMAIN = "mascarade.example"

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

Status = Notification.Status


class Sink:
    """aiosmtpd's handler: keeps every message it is given; ``on_message(n)`` runs when the
    n-th arrives, before it is answered."""

    def __init__(self, on_message=None):
        self.messages: list[email.message.EmailMessage] = []
        self.on_message = on_message
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.messages.append(email.message_from_bytes(envelope.content,
                                                          policy=email.policy.default))
            count = len(self.messages)
        if self.on_message:
            self.on_message(count)
        return "250 OK"

    def to(self, address: str) -> list[email.message.EmailMessage]:
        with self.lock:
            return [m for m in self.messages if m["To"] == address]


@pytest.fixture
def sink():
    handler = Sink()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    yield handler, controller.port
    controller.stop()


def start_worker(tmp_path, smtp_port: int, **extra: str) -> subprocess.Popen:
    """A Celery worker (solo pool: its tasks run in this very process) on the test's database,
    sending mail to the sink; no beat."""
    app.control.purge()  # (what earlier tests left in the queue)
    db = connection.settings_dict
    env = {**os.environ, "DEBUG": "1", "VAR_DIR": str(tmp_path), "MAIL_DOMAIN": DOMAIN,
           "SITE_URL": "https://mascarade.example", "LOG_LEVEL": "WARNING",
           "SECRET_KEY": django_settings.SECRET_KEY, "PYTHONUNBUFFERED": "1",
           "EMAIL_URL": f"smtp://127.0.0.1:{smtp_port}",
           "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
           **extra}
    return subprocess.Popen([sys.executable, "-m", "celery", "-A", "mascarade_site", "worker",
                             "--pool", "solo", "--loglevel", "WARNING", "--without-gossip",
                             "--without-mingle", "--without-heartbeat"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


def stop(proc: subprocess.Popen) -> str:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    errors = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    return errors[-3000:]


def wait_for(condition, what: str, proc: subprocess.Popen, seconds: float = 90):
    """Poll ``condition`` until it returns something true (or fail, with the worker's end of
    errors, after ``seconds``: a bound on a wait, not a measure of speed)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    raise AssertionError(f"{what}: not within {seconds} s; worker: {stop(proc)}")


def test_decision_mails_go_by_their_own_task_and_the_answer_carries_the_bots_decision(
        sink, tmp_path, settings):
    handler, port = sink
    settings.MAIL_DOMAIN = DOMAIN
    settings.MAIL_DEBOUNCE_SECONDS = 1
    human = UserFactory(is_staff=True)  # (first_seat is a staff option)
    worker = start_worker(tmp_path, port, MAIL_DEBOUNCE_SECONDS="1")
    try:
        from games.core import services

        body = services.create_game(human, "mascarade", {"players": 4, "first_seat": 0},
                                    bots=3).body
        game = Game.objects.get(pk=body["id"])
        # The first decision's mail, by its task (no beat runs: no sweep would send it).
        first = wait_for(lambda: [m for m in handler.to(human.email) if m["Reply-To"]],
                         "the first decision's mail", worker)[0]
        reply_to = str(first["Reply-To"])
        assert re.search(r"^  1\. ", first.get_body(("plain",)).get_content(), re.M)
        inbound = receive_mail(answer(reply_to, human.email, "1"), via="test")
        assert inbound.status == InboundMessage.Status.PLAYED, (inbound.status,
                                                                inbound.detail)
        reply = Notification.objects.get(kind="mail_reply", user=human)
        wait_for(lambda: Notification.objects.filter(pk=reply.pk, status=Status.SENT).exists(),
                 "the answer to the mail", worker)
    finally:
        errors = stop(worker)
    game.refresh_from_db()
    assert game.seq > inbound.move_seq, "the worker played the bots"
    assert game.pending_decisions.filter(bot=False).exists(), errors
    answers = [m for m in handler.to(human.email)
               if "Your move is played" in m.get_body(("plain",)).get_content()]
    assert len(answers) == 1
    text = answers[0].get_body(("plain",)).get_content()
    assert "Nothing awaits you now" not in text
    assert re.search(r"^  1\. ", text, re.M), text
    # The decision the bots left to the player went in the answer, not in a mail of its own.
    decisions = Notification.objects.filter(game=game, user=human,
                                            kind__in=delivery.DECISION_KINDS,
                                            created_at__gt=reply.created_at)
    assert decisions.exists()
    assert set(decisions.values_list("status", "folded_into")) == {(Status.FOLDED, reply.pk)}
    # In all: "the game started", the first decision's mail, the answer.
    assert len(handler.to(human.email)) == 3


def test_a_worker_killed_mid_batch_repeats_only_the_mail_in_flight(sink, tmp_path, settings):
    handler, port = sink
    users = [UserFactory() for _ in range(10)]
    now = timezone.now()
    notes = [Notification.objects.create(
        user=user, kind=Notification.Kind.MODERATION, dedupe_key=f"test-kill:{k}",
        next_attempt_at=now, context={"subject": "A word from the moderators",
                                      "body": "Hello."})
        for k, user in enumerate(users)]
    worker = start_worker(tmp_path, port)
    killed = threading.Event()

    def kill_at_the_fourth(count: int) -> None:
        if count == 4:  # received; the worker dies before it hears the answer
            os.kill(worker.pid, signal.SIGKILL)
            killed.set()

    handler.on_message = kill_at_the_fourth
    try:
        tasks.deliver_queued.apply_async(args=[[n.dedupe_key for n in notes]])
        wait_for(killed.is_set, "the fourth mail", worker)
        worker.wait(30)
    finally:
        stop(worker)
    assert worker.returncode == -signal.SIGKILL
    handler.on_message = None
    statuses = dict(Notification.objects.filter(pk__in=[n.pk for n in notes])
                    .values_list("dedupe_key", "status"))
    sent_first = {m["Message-ID"] for m in handler.messages}
    assert len(sent_first) == 4
    assert sorted(statuses.values()) == sorted([Status.SENT] * 3 + [Status.SENDING] * 7)
    # The interrupted delivery is taken back once stale, by the sweep (here, in this process).
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.SITE_URL = "https://mascarade.example"  # (the worker's: the same Message-IDs)
    later = now + delivery.SENDING_STALE_AFTER + dt.timedelta(minutes=1)
    delivery.deliver_due(now=later)
    assert set(Notification.objects.filter(pk__in=[n.pk for n in notes])
               .values_list("status", flat=True)) == {Status.SENT}
    ids = [m["Message-ID"] for m in handler.messages]
    assert len(ids) == 11 and len(set(ids)) == 10
    (twice,) = [i for i in set(ids) if ids.count(i) == 2]
    assert twice == handler.messages[3]["Message-ID"]
    assert Notification.objects.filter(interrupted=1).count() == 7
