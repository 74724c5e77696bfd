"""``manage.py make_moderator <username>``: staff access to the admin plus the Moderators group
(``--remove`` takes both back)."""

from __future__ import annotations

from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError

from accounts.models import User
from moderation.models import MODERATORS_GROUP


class Command(BaseCommand):
    help = "Make a user a moderator (or, with --remove, no longer one)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--remove", action="store_true")

    def handle(self, username, remove=False, **options):
        user = User.objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No user named {username!r}.")
        group = Group.objects.get(name=MODERATORS_GROUP)
        if remove:
            user.groups.remove(group)
            if not user.is_superuser:
                user.is_staff = False
            user.save()
            self.stdout.write(f"{username} is no longer a moderator.")
        else:
            user.groups.add(group)
            user.is_staff = True
            user.save()
            self.stdout.write(f"{username} is a moderator: they can log in at /admin/.")
