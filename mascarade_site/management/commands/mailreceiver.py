"""`manage.py mailreceiver`: the self-hosted mail receiver (SMTP, or LMTP with ``--lmtp``).

Listens on ``MAIL_RECEIVER_HOST:MAIL_RECEIVER_PORT`` (``--host``/``--port`` override them),
accepts ``play+<token>@MAIL_DOMAIN`` only and hands each message to
``games.mail.receive.receive_mail`` (see ``games/mail/receiver.py``). SIGTERM or SIGINT stops
it once the messages being stored are stored.
"""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from games.mail.receiver import DATA_SIZE_LIMIT, ReceiverHandler, serve_forever


class Command(BaseCommand):
    help = ("Receive play-by-email messages over SMTP (or LMTP with --lmtp) for "
            "play+<token>@MAIL_DOMAIN; SIGTERM or Ctrl-C stops it.")

    def add_arguments(self, parser):
        parser.add_argument("--host", default=None,
                            help="address to listen on (default: MAIL_RECEIVER_HOST)")
        parser.add_argument("--port", type=int, default=None,
                            help="port to listen on (default: MAIL_RECEIVER_PORT)")
        parser.add_argument("--lmtp", action="store_true",
                            help="speak LMTP (behind postfix) instead of SMTP")

    def handle(self, *args, **options):
        host = options["host"] or settings.MAIL_RECEIVER_HOST
        port = options["port"] if options["port"] is not None else settings.MAIL_RECEIVER_PORT
        protocol = "LMTP" if options["lmtp"] else "SMTP"
        handler = ReceiverHandler()

        def listening(bound_host: str, bound_port: int) -> None:
            self.stdout.write(
                f"Mail receiver ({protocol}) listening on {bound_host}:{bound_port} for "
                f"play+<token>@{handler.domain} (messages up to {DATA_SIZE_LIMIT} bytes); "
                "SIGTERM or Ctrl-C stops it.")
            self.stdout.flush()

        try:
            serve_forever(handler, host, port, lmtp=options["lmtp"], on_listening=listening)
        except OSError as error:
            handler.close(timeout=0)
            raise CommandError(f"cannot listen on {host}:{port}: {error}") from error
        self.stdout.write("Mail receiver stopped.")
