"""`manage.py rundev`: the development service in one foreground command.

Starts Django's web server on http://127.0.0.1:8000 and a real Celery worker with an embedded beat
scheduler (on Redis when REDIS_URL is set, else on kombu's filesystem transport under var/), and,
in a thread of this process, the play-by-email receiver (SMTP on 127.0.0.1:MAIL_RECEIVER_PORT;
skipped with a warning if the port is taken), prints the URL and an admin login, and stops
everything on one Ctrl-C.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from games.mail.receiver import start_receiver

ADMIN_USERNAME = "admin"
DEMO_USERS = ("alice", "bob")


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


class Command(BaseCommand):
    help = "Run the web server and a Celery worker with beat in the foreground (Ctrl-C stops both)."

    def add_arguments(self, parser):
        parser.add_argument("--addr", default="127.0.0.1:8000", help="host:port for the web server")
        parser.add_argument("--no-worker", action="store_true", help="do not start Celery")
        parser.add_argument("--no-mail", action="store_true",
                            help="do not start the play-by-email receiver")

    def ensure_admin(self) -> tuple[str, str]:
        """Create the development superuser once; its password is kept in var/dev-admin.txt."""
        secret_file = Path(settings.VAR_DIR) / "dev-admin.txt"
        User = get_user_model()
        user = User.objects.filter(username=ADMIN_USERNAME).first()
        password = secret_file.read_text().strip() if secret_file.exists() else ""
        if user is None or not password or not user.check_password(password):
            password = secrets.token_urlsafe(12)
            if user is None:
                user = User(username=ADMIN_USERNAME, email="admin@localhost",
                            is_staff=True, is_superuser=True)
            user.set_password(password)
            user.save()
            secret_file.write_text(password + "\n")
            secret_file.chmod(0o600)
        return ADMIN_USERNAME, password

    def ensure_demo(self, password: str) -> str:
        """Two demo players (alice, bob: verified, the admin's password) and, once, a game of
        alice's against three bots that is ready to play. Returns the game's id."""
        from allauth.account.models import EmailAddress

        from games.core import services
        from games.models import Game

        User = get_user_model()
        players = []
        for name in DEMO_USERS:
            user = User.objects.filter(username=name).first()
            if user is None:
                user = User(username=name, email=f"{name}@localhost")
            user.set_password(password)
            user.save()
            EmailAddress.objects.update_or_create(user=user, email=user.email,
                                                  defaults={"verified": True, "primary": True})
            players.append(user)
        game = (Game.objects.filter(created_by=players[0], status=Game.Status.ACTIVE)
                .order_by("-created_at").first())
        if game is None:
            body = services.create_game(players[0], "mascarade",
                                        {"players": 4, "move_timeout": 3600,
                                         "challenge_timeout": 600}, bots=3).body
            return body["id"]
        return str(game.pk)

    def vapid_keys(self) -> dict[str, str]:
        """Development VAPID keys for Web Push when the environment has none: made once into
        var/vapid-dev.env and given to the web server and the worker (an operator sets
        VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY instead)."""
        if settings.VAPID_PUBLIC_KEY and settings.VAPID_PRIVATE_KEY:
            return {}
        from games.webpush.service import generate_keys

        keys_file = Path(settings.VAR_DIR) / "vapid-dev.env"
        found = {}
        if keys_file.exists():
            found = dict(line.split("=", 1) for line in keys_file.read_text().split()
                         if "=" in line)
        if not (found.get("VAPID_PUBLIC_KEY") and found.get("VAPID_PRIVATE_KEY")):
            public, private = generate_keys()
            found = {"VAPID_PUBLIC_KEY": public, "VAPID_PRIVATE_KEY": private}
            keys_file.write_text("".join(f"{k}={v}\n" for k, v in found.items()))
            keys_file.chmod(0o600)
        return {"VAPID_PUBLIC_KEY": found["VAPID_PUBLIC_KEY"],
                "VAPID_PRIVATE_KEY": found["VAPID_PRIVATE_KEY"]}

    def handle(self, *args, **options):
        username, password = self.ensure_admin()
        demo_game = self.ensure_demo(password)
        addr = options["addr"]
        python = sys.executable
        dev_keys = self.vapid_keys()
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **dev_keys}
        push_line = ("development VAPID keys, var/vapid-dev.env" if dev_keys
                     else "VAPID keys from the environment")
        commands = [
            ("web", [python, "manage.py", "runserver", addr, "--noreload"]),
        ]
        if not options["no_worker"]:
            commands.append(("worker", [
                python, "-m", "celery", "-A", "mascarade_site", "worker", "--beat",
                "--loglevel", "INFO", "--concurrency", "2",
                "--queues", f"celery,{settings.WEBHOOK_QUEUE}",
                "--schedule", settings.CELERY_BEAT_SCHEDULE_FILENAME,
            ]))
        broker = "Redis" if settings.REDIS_URL else "filesystem transport under var/celery/"
        receiver, mail_line = self.start_mail(options["no_mail"])
        self.stdout.write(self.style.SUCCESS(
            f"\n  Mascarade Online is starting on http://{addr}/\n"
            f"  Admin: http://{addr}/admin/  user: {username}  password: {password}\n"
            f"  Demo players: {', '.join(DEMO_USERS)} (same password); alice's game against "
            f"three bots: http://{addr}/games/{demo_game}/\n"
            f"  Database: {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}"
            f" · Celery broker: {broker} · mail: {settings.EMAIL_BACKEND.rsplit('.', 2)[-2]}"
            f" ({settings.EMAIL_FILE_PATH})\n"
            f"  {mail_line}\n"
            f"  Web Push: {push_line} (browsers take push on http://127.0.0.1 and localhost)\n"
            "  Press Ctrl-C once to stop everything.\n"
        ))
        # Ctrl-C reaches the whole foreground process group; a SIGTERM to this process alone
        # (a supervisor, `kill`) is turned into the same clean stop of both children.
        signal.signal(signal.SIGTERM, _raise_interrupt)
        procs = [(name, subprocess.Popen(cmd, env=env)) for name, cmd in commands]  # noqa: S603
        try:
            while True:
                for name, proc in procs:
                    if proc.poll() is not None:
                        self.stderr.write(f"{name} exited with code {proc.returncode}; stopping.")
                        raise KeyboardInterrupt
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            self._stop(procs)
            if receiver is not None:
                receiver.stop()

    def start_mail(self, skip: bool):
        """The play-by-email receiver in a thread (SMTP, 127.0.0.1:MAIL_RECEIVER_PORT), or None
        with the reason; returns it and the banner's line."""
        if skip:
            return None, "Play by mail: receiver not started (--no-mail)"
        port = settings.MAIL_RECEIVER_PORT
        try:
            receiver = start_receiver("127.0.0.1", port)
        except OSError as error:
            self.stderr.write(self.style.WARNING(
                f"Play by mail: port {port} on 127.0.0.1 is not free ({error.strerror or error});"
                " going on without the mail receiver (set MAIL_RECEIVER_PORT to another port)."))
            return None, f"Play by mail: receiver NOT running (port {port} taken)"
        return receiver, (f"Play by mail: send to play+<token>@{settings.MAIL_DOMAIN} "
                          f"through smtp://127.0.0.1:{receiver.port}")

    def _stop(self, procs) -> None:
        for _, proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 15
        for _, proc in procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.stdout.write("Stopped.")
