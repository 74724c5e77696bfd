"""`manage.py recompute_ratings [--game <id> ...]`: every rating computed again from the
finished games, replayed in the order they ended (after a change of the model's parameters,
``games/ratings/skill.py``), in one transaction, with the players' tallies of games finished
and won; what the live updates gave is replaced.

`--reliability` also stores every player's reliability of the day (the daily task's work)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from games.core import catalog
from games.core.services import ratings


class Command(BaseCommand):
    help = "Recompute every rating from the finished games, in the order they ended."

    def add_arguments(self, parser):
        parser.add_argument("--game", action="append", dest="games", metavar="ID",
                            help="only this game's ratings (repeat for several)")
        parser.add_argument("--reliability", action="store_true",
                            help="also store every player's reliability of the day")

    def handle(self, *args, games=None, reliability=False, **options):
        unknown = [kind for kind in games or () if catalog.find_kit(kind) is None]
        if unknown:
            raise CommandError(f"Unknown game {', '.join(unknown)}; the games are: "
                               f"{', '.join(catalog.ids())}.")
        rated = ratings.recompute(kinds=games)
        self.stdout.write(f"{rated} games rated.")
        if reliability:
            self.stdout.write(f"{ratings.refresh_reliability()} players' reliability stored.")
