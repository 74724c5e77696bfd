"""Games stored as append-only lists of moves.

A :class:`Game` holds what the engine needs to rebuild it (game kind, normalized options, seed);
its :class:`MoveRecord` rows are the history, one per applied move, never changed nor deleted
(PostgreSQL refuses UPDATE and DELETE on that table through a trigger). Everything else is derived
and disposable: :class:`Snapshot` caches the engine state at some seq (rebuilt by replay when it is
missing or stale), :class:`PendingDecision` mirrors ``Game.pending(state)`` with deadlines.

Players and seats: the engine's *player* ``p`` is the :class:`Seat` row with ``position == p``
(fixed for the game: where the player sat down). The Puppeteer moves players between table seats;
the engine state says who sits where now.
"""

from __future__ import annotations

import uuid

import orjson
import pgtrigger
from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Game(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("open")
        ACTIVE = "active", _("active")
        PAUSED = "paused", _("paused")
        FINISHED = "finished", _("finished")
        ABORTED = "aborted", _("aborted")

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(_("game"), max_length=32, default="mascarade")
    options = models.JSONField(_("options"), default=dict)
    # Drawn with `secrets` at creation; never shown by any API answer.
    seed = models.BigIntegerField(_("seed"))
    status = models.CharField(_("status"), max_length=16, choices=Status.choices,
                              default=Status.OPEN, db_index=True)
    private = models.BooleanField(_("private"), default=False)
    invite_code = models.CharField(_("invite code"), max_length=32, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                   null=True, related_name="created_games")
    # Number of moves applied (= the seq of the last MoveRecord, 0 before the first move).
    seq = models.PositiveIntegerField(default=0)
    # Bumped by every write that changes what any viewer's answer shows (a move, a table move, a
    # seat's request, a vacation of one of its players...): the ETag of a game read is built on
    # it.
    version = models.PositiveIntegerField(default=0)
    # The seqs of the table moves (pauses, absences...), ascending: the rules number their own
    # moves only, and a move number they give (what a player saw, when) becomes a seq with them.
    table_seqs = models.JSONField(default=list, blank=True)
    # Seats of the table (the options' player count), kept here for listings.
    seat_count = models.PositiveSmallIntegerField(default=0)
    # Winning seats once finished (also derivable by replay; kept for listings).
    winners = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "private", "-created_at"],
                                name="games_public_listing")]

    def __str__(self) -> str:
        return f"{self.kind} {self.id} ({self.status})"


class Seat(models.Model):
    """A player of a game: a user or a bot, at ``position`` (the engine's player index)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True,
                             blank=True, related_name="seats")
    # "" for a human; the bot kind ("heuristic", "random") for a bot seat.
    bot_kind = models.CharField(max_length=16, blank=True)
    # Consecutive decisions this seat let time out (reset when its player acts).
    timeouts_in_row = models.PositiveSmallIntegerField(default=0)
    # Marked absent (a table move "absent"); with the "bot" policy a bot plays for the seat
    # until its player acts again.
    absent = models.BooleanField(default=False)
    # The player muted this game's notifications.
    muted = models.BooleanField(default=False)
    # The player asks for a pause; the game pauses when every human player asks.
    wants_pause = models.BooleanField(default=False)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["game", "position"], name="seat_unique_position"),
            models.UniqueConstraint(fields=["game", "user"], condition=models.Q(user__isnull=False),
                                    name="seat_unique_user"),
            models.CheckConstraint(
                condition=(models.Q(user__isnull=False, bot_kind="")
                           | (models.Q(user__isnull=True) & ~models.Q(bot_kind=""))),
                name="seat_user_xor_bot"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id} #{self.position} {self.name}"

    @property
    def is_bot(self) -> bool:
        return bool(self.bot_kind)

    @property
    def name(self) -> str:
        """The player's public name: the username, or "Bot N" (spaces never occur in usernames)."""
        if self.user_id is not None:
            return self.user.username
        return f"Bot {self.position + 1}"


class MoveRecord(models.Model):
    """One applied move: append-only (a database trigger refuses UPDATE and DELETE)."""

    class Actor(models.TextChoices):
        PLAYER = "player", _("player")
        TIMEOUT = "timeout", _("timeout")
        BOT = "bot", _("bot")
        MODERATOR = "moderator", _("moderator")
        SYSTEM = "system", _("system")

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="moves")
    seq = models.PositiveIntegerField()
    # The seat that moved (or, for a table move, the seat it is about; null for the whole table).
    seat = models.ForeignKey(Seat, on_delete=models.PROTECT, related_name="moves", null=True,
                             blank=True)
    actor = models.CharField(max_length=16, choices=Actor.choices, default=Actor.PLAYER)
    # The user who sent it (the player, or a moderator); null for bots, timeouts, the system.
    by_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                blank=True, related_name="+")
    payload = models.JSONField()
    # The engine's events for this move, the whole truth, shown only through Game.view_event.
    events = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game_id", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="move_unique_seq"),
        ]
        triggers = [
            pgtrigger.Protect(name="move_append_only",
                              operation=pgtrigger.Update | pgtrigger.Delete),
        ]

    def __str__(self) -> str:
        return f"{self.game_id} #{self.seq} {self.payload}"


class CachedStateField(models.TextField):
    """A JSON document kept as text and read and written with orjson: for the snapshot, a cache
    that is rewritten on every move and never queried into (jsonb's parsing and its own binary
    form would be work thrown away)."""

    def from_db_value(self, value, expression, connection):
        return None if value is None else orjson.loads(value)

    def to_python(self, value):
        return orjson.loads(value) if isinstance(value, (str, bytes)) else value

    def get_prep_value(self, value):
        return None if value is None else orjson.dumps(value).decode()

    def value_to_string(self, obj):
        return self.get_prep_value(self.value_from_object(obj))


class Snapshot(models.Model):
    """The engine state after ``seq`` moves: a cache, deletable at any time."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, primary_key=True,
                                related_name="snapshot")
    seq = models.PositiveIntegerField()
    state = CachedStateField()
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.game_id} @{self.seq}"


class PendingDecision(models.Model):
    """A decision the game waits for, with its deadline (mirrors ``Game.pending(state)``).

    Rows are replaced inside the move transaction: a decision still awaited from a player who did
    not move keeps its row (and deadline); the mover's and finished ones go, new ones come with
    ``seq`` = the game's seq when they became pending. ``bot`` marks decisions a bot must play, so
    a periodic sweep can find the ones whose task was lost.

    The deadline is computed from the stored base ``clock_from`` / ``clock_seconds`` and the
    vacations of the awaited user (``games.deadlines``): kept here, indexed, for the sweeps.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="pending_decisions")
    player = models.PositiveSmallIntegerField()
    seat = models.PositiveSmallIntegerField()
    decision = models.CharField(max_length=32)
    seq = models.PositiveIntegerField()
    # The clock: it runs from ``clock_from`` (the decision began, or the game resumed) for
    # ``clock_seconds`` of running time; ``given_seconds`` is all the time given (the timer and
    # its extensions), for the reminder.
    clock_from = models.DateTimeField()
    clock_seconds = models.PositiveIntegerField()
    given_seconds = models.PositiveIntegerField()
    deadline = models.DateTimeField(db_index=True)
    # While the game is paused: the seconds of running time that were left when it paused (the
    # clock starts again with them on resume); null otherwise.
    remaining = models.PositiveIntegerField(null=True, blank=True)
    # When the "deadline is near" reminder is due (80% of the time given); null once queued, for
    # bots, and while paused.
    remind_at = models.DateTimeField(null=True, blank=True, db_index=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True,
                             blank=True, related_name="pending_decisions")
    bot = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game_id", "deadline", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "player"], name="pending_unique_player"),
        ]
        indexes = [models.Index(fields=["bot", "deadline"], name="pending_bot_deadline")]

    def __str__(self) -> str:
        return f"{self.game_id} seat {self.seat} {self.decision} by {self.deadline}"


class IdempotencyKey(models.Model):
    """The first answer to a POST sent with an ``Idempotency-Key`` header, kept 24 hours."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="+")
    key = models.CharField(max_length=255)
    # sha256 of method, path and canonical JSON body: the same key with another body is refused.
    request_hash = models.CharField(max_length=64)
    # The first answer's body.
    response = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="idempotency_unique_key"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}:{self.key}"


class Notification(models.Model):
    """A message to a user, written in the transaction of what caused it (a transactional
    outbox), delivered later by a Celery task with retries; ``dedupe_key`` (unique) makes a second
    message for the same cause impossible."""

    class Kind(models.TextChoices):
        YOUR_TURN = "your_turn", _("your turn")
        CHALLENGE = "challenge", _("challenge window")
        POWER = "power", _("power decision")
        REMINDER = "reminder", _("deadline near")
        STARTED = "started", _("game started")
        ENDED = "ended", _("game ended")
        ABSENT = "absent", _("marked absent")
        MODERATION = "moderation", _("moderator's action")

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        SENDING = "sending", _("sending")
        SENT = "sent", _("sent")
        FOLDED = "folded", _("folded into another")
        SKIPPED = "skipped", _("skipped (notifications off)")
        FAILED = "failed", _("failed")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="notifications")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, null=True, blank=True,
                             related_name="notifications")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    dedupe_key = models.CharField(max_length=200, unique=True)
    # What the message says beyond its kind (decision, deadline, seq): nothing secret.
    context = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING,
                              db_index=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    # Attempts whose outcome is unknown: the worker stopped during them (the message may have
    # gone out; it was sent again, with the same Message-ID).
    interrupted = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(db_index=True)
    last_error = models.TextField(blank=True)
    folded_into = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True,
                                    related_name="folded")
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="outbox_due")]

    def __str__(self) -> str:
        return f"{self.kind} to {self.user_id} ({self.status})"
