"""`manage.py vapid_keys`: a new VAPID key pair for Web Push, as the environment takes it
(``VAPID_PUBLIC_KEY``, ``VAPID_PRIVATE_KEY``: base64url). Keep the private key secret, and keep
the pair: a new one makes every device's subscription useless (their push services refuse the
new key), and players must turn notifications on again."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from games.webpush.service import generate_keys


class Command(BaseCommand):
    help = "Print a new VAPID key pair for Web Push (VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY)."

    def handle(self, *args, **options):
        public, private = generate_keys()
        self.stdout.write(f"VAPID_PUBLIC_KEY={public}\nVAPID_PRIVATE_KEY={private}\n")
