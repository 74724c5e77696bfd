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
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Length
from django.db.models.lookups import GreaterThan, LessThanOrEqual
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.engine.options import speed_of

#: The longest name a game may have.
NAME_MAX_LENGTH = 80


class Game(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("open")
        ACTIVE = "active", _("active")
        PAUSED = "paused", _("paused")
        FINISHED = "finished", _("finished")
        ABORTED = "aborted", _("aborted")

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(_("game"), max_length=32)
    # What the players call the game (the lists, the table's title, the API, mails' subjects):
    # its creator's choice, or "<creator> #<n>", their n-th game (``services.create_game``).
    name = models.CharField(_("name"), max_length=NAME_MAX_LENGTH, blank=True, default="")
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
    # The speed it is played at ("fast", "normal", "slow", "bank", "custom": its options'
    # ``speed``, or what the timers of options stored before speeds say), kept here for the
    # lobby's estimates of a game's length.
    speed = models.CharField(_("speed"), max_length=8, blank=True, default="")
    # Winning seats once finished (also derivable by replay; kept for listings).
    winners = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The least reliability (a percentage, ``games.ratings``) a player needs to join, set by the
    # creator; null: anyone may join. Players invited back to a rematch join whatever theirs.
    min_reliability = models.PositiveSmallIntegerField(_("minimum reliability"), null=True,
                                                       blank=True)
    # The table its players opened to play this finished game again ("play again": one per
    # game, whoever asks first; ``services.rematch``).
    rematch = models.OneToOneField("self", on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="rematch_of")

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "private", "-created_at"],
                                name="games_public_listing"),
                   # The lobby's estimates of a game's length (``selectors.estimates``).
                   models.Index(fields=["kind", "speed", "seat_count", "-finished_at"],
                                include=["started_at"], name="games_finished_lengths",
                                condition=models.Q(status="finished", started_at__isnull=False,
                                                   finished_at__isnull=False)),
                   # A player's games counted by game and status (``games.ratings.selectors.
                   # game_counts``, the player's page): each of their seats finds its game's
                   # kind and status in this index alone, where the planner read the whole
                   # table to hash it (bench/fill.py --scale 0.2, 20,240 games, the heaviest
                   # player's 899 seats: 13.5 ms, 5.2 ms with it).
                   models.Index(fields=["id"], include=["kind", "status"],
                                name="games_kind_status")]

    def __str__(self) -> str:
        return f"{self.kind} {self.id} ({self.status})"

    def save(self, *args, **kwargs) -> None:
        if self._state.adding and not self.speed:  # (from its options, whatever created it)
            self.speed = speed_of(self.options if isinstance(self.options, dict) else {})
        super().save(*args, **kwargs)

    @property
    def title(self) -> str:
        """The game's name as everything shows it: its own (every game created by the site
        has one), else the start of its id."""
        return self.name or str(self.id)[:8]


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
    # In a game played with a time bank (its option ``speed`` is "bank"): the seconds left in
    # this seat's bank outside its decision under way (null: the whole bank, before its first
    # decision). Written under the game's lock when a decision of the seat goes
    # (``games.core.deadlines``); a decision under way draws on it through its own clock.
    bank_seconds = models.PositiveIntegerField(null=True, blank=True)
    # The game's seq when its player last saw the table's page (null: never): the page then
    # says what happened since.
    seen_seq = models.PositiveIntegerField(null=True, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)
    # When the game ended (finished or aborted; null while it is not over): written under the
    # game's lock with its end (``services.write``), kept here so that a player's games over
    # are listed newest first by an index of their seats (``seat_user_ended``), however many
    # they played (``selectors.games_of``).
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["game_id", "position"]
        indexes = [models.Index(fields=["user", "-ended_at", "game"], name="seat_user_ended")]
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


class Invitation(models.Model):
    """A seat of an open game kept for one player, who was asked to come (a rematch invites the
    finished game's players back to their seats): only they may take it; they join without the
    invite code, whatever the game's minimum reliability. Declining frees the seat."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="invitations")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="invitations")
    position = models.PositiveSmallIntegerField()
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                   null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="invitation_unique_user"),
            models.UniqueConstraint(fields=["game", "position"],
                                    name="invitation_unique_position"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} invited to {self.game_id} #{self.position}"


class MoveRecord(models.Model):
    """One applied move: append-only (a database trigger refuses UPDATE and DELETE)."""

    class Actor(models.TextChoices):
        PLAYER = "player", _("player")
        TIMEOUT = "timeout", _("timeout")
        BOT = "bot", _("bot")
        MODERATOR = "moderator", _("moderator")
        SYSTEM = "system", _("system")

    # No index of its own: move_unique_seq (game, seq) serves every look-up by game.
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="moves", db_index=False)
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
    # How a player's move came: the API, a page, a mail; "" for bots, timeouts, the system.
    channel = models.CharField(max_length=8, choices=[("api", "API"), ("web", "web"),
                                                      ("mail", "mail")], blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game_id", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="move_unique_seq"),
        ]
        indexes = [
            # The seats given away from a user (a table "replace" naming them ``previous``),
            # for their reliability (games.ratings.reliability): partial, so a move of the
            # rules writes no entry in it.
            models.Index(KeyTextTransform("previous", "payload"), name="move_replaced_user",
                         condition=models.Q(payload__action="replace")),
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
    vacations of the awaited user (``games.core.deadlines``): kept here, indexed, for the sweeps.
    """

    # No index of its own: pending_unique_player (game, player) serves every look-up by game.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="pending_decisions",
                             db_index=False)
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
        INVITED = "invited", _("invited to play again")
        ENDED = "ended", _("game ended")
        ABSENT = "absent", _("marked absent")
        MODERATION = "moderation", _("moderator's action")
        CHAT_DIGEST = "chat_digest", _("daily chat digest")
        MAIL_REPLY = "mail_reply", _("answer to a mail")
        WEBHOOK_DISABLED = "webhook_disabled", _("webhook endpoint disabled")

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
    # Unique by a constraint (Meta): a unique field would also get a text-pattern index, which
    # no query uses.
    dedupe_key = models.CharField(max_length=200)
    # What the message says beyond its kind (decision, deadline, seq): nothing secret.
    context = models.JSONField(default=dict, blank=True)
    # Indexed with next_attempt_at (outbox_due): every query on either names a status.
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    # Attempts whose outcome is unknown: the worker stopped during them (the message may have
    # gone out; it was sent again, with the same Message-ID).
    interrupted = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    last_error = models.TextField(blank=True)
    folded_into = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True,
                                    related_name="folded")
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="outbox_due")]
        constraints = [models.UniqueConstraint(fields=["dedupe_key"],
                                               name="notification_unique_dedupe_key")]

    def __str__(self) -> str:
        return f"{self.kind} to {self.user_id} ({self.status})"


# --------------------------------------------------------------------------------------------
# The table chat


#: The longest chat message, in characters (after stripping).
CHAT_MAX_LENGTH = 500


class ChatMessage(models.Model):
    """A message at a game's table: what a player typed, or a line the game's rules put there
    (``source``: the kit's key, e.g. a card whose text is posted; ``GameKit.chat_lines``).
    Append-only: the database refuses UPDATE and DELETE; a moderator hides a message with a
    :class:`ChatHide` row."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="chat_messages")
    # The player who wrote it (for a game's line, the seat's user); null for a bot's seat.
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True,
                               blank=True, related_name="+")
    # The author's seat (the engine player index) when they wrote it.
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    text = models.TextField()
    # "" for what a person typed; the game's key for a line of its rules.
    source = models.CharField(max_length=64, blank=True)
    # The game's seq when it was written (for a game's line, its move's).
    seq = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game_id", "id"]
        indexes = [models.Index(fields=["game", "id"], name="chat_game_id"),
                   models.Index(fields=["author", "game", "created_at"],
                                name="chat_author_recent")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(LessThanOrEqual(Length("text"), CHAT_MAX_LENGTH))
                & models.Q(GreaterThan(Length("text"), 0)), name="chat_text_length"),
        ]
        triggers = [
            pgtrigger.Protect(name="chat_message_append_only",
                              operation=pgtrigger.Update | pgtrigger.Delete),
        ]
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")

    def __str__(self) -> str:
        return f"{self.game_id} #{self.pk}: {self.text[:40]}"


class ChatHide(models.Model):
    """A moderator hid a chat message (once; every moderator action is also in the moderation
    log). Append-only like the messages themselves."""

    message = models.OneToOneField(ChatMessage, on_delete=models.PROTECT, related_name="hide")
    moderator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                  related_name="+")
    reason = models.TextField(_("reason"))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        triggers = [
            pgtrigger.Protect(name="chat_hide_append_only",
                              operation=pgtrigger.Update | pgtrigger.Delete),
        ]
        verbose_name = _("hidden chat message")
        verbose_name_plural = _("hidden chat messages")

    def __str__(self) -> str:
        return f"message {self.message_id} hidden by {self.moderator_id}"


class ChatDigestMark(models.Model):
    """How far the daily chat digest went for one user in one game: the last message it
    counted. The digest mails what came after it, then moves it on, in one transaction."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="+")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    last_message_id = models.BigIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "game"],
                                               name="chat_digest_mark_unique")]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.game_id}: up to {self.last_message_id}"


#: How much of an inbound mail is kept (its size is kept whole).
INBOUND_KEPT_BYTES = 64 * 1024


class MailPlay(models.Model):
    """The moves listed to a player in one mail (numbered, as commands), and the state they were
    listed at: the mail's ``Reply-To`` names this row with a signed token
    (``games.mail.receive``), so that an answer "2" means the second move of this list, played
    only while the decision it answers is still awaited."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="+")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    # The game's seq when the moves were listed.
    seq = models.PositiveIntegerField()
    moves = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"{len(self.moves)} moves for {self.user_id} in {self.game_id} at #{self.seq}"


class InboundMessage(models.Model):
    """A mail received (through the SMTP/LMTP receiver or a provider's webhook), kept with what
    became of it, for moderators; its text is kept up to :data:`INBOUND_KEPT_BYTES`."""

    class Status(models.TextChoices):
        PLAYED = "played", _("move played")
        WORD = "word", _("command done (help, status, pause, back, mute)")
        UNREADABLE = "unreadable", _("command not understood")
        ILLEGAL = "illegal", _("move refused by the rules")
        STALE = "stale", _("the decision had passed")
        AUTOMATIC = "automatic", _("automatic mail (ignored)")
        DUPLICATE = "duplicate", _("same message again (ignored)")
        NO_TOKEN = "no_token", _("no reply address of ours (ignored)")
        BAD_TOKEN = "bad_token", _("forged reply address (ignored)")
        EXPIRED = "expired", _("expired reply address (the player told)")
        WRONG_SENDER = "wrong_sender", _("sender is not the player (ignored)")
        TOO_LARGE = "too_large", _("too large (ignored)")
        MALFORMED = "malformed", _("unreadable mail (ignored)")
        REFUSED = "refused", _("sender not authenticated (refused, the player told)")
        THROTTLED = "throttled", _("too many mails (the player told once)")
        SILENCED = "silenced", _("too many mails (ignored)")

    received_at = models.DateTimeField(auto_now_add=True, db_index=True)
    via = models.CharField(max_length=32)
    message_id = models.CharField(max_length=255, blank=True, db_index=True)
    sender = models.CharField(max_length=254, blank=True)
    recipient = models.CharField(max_length=254, blank=True)
    subject = models.CharField(max_length=255, blank=True)
    size = models.PositiveIntegerField(default=0)
    raw = models.BinaryField(default=b"")
    command = models.CharField(max_length=500, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, db_index=True)
    detail = models.TextField(blank=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                             blank=True, related_name="+")
    game = models.ForeignKey(Game, on_delete=models.SET_NULL, null=True, blank=True,
                             related_name="+")
    play = models.ForeignKey(MailPlay, on_delete=models.SET_NULL, null=True, blank=True,
                             related_name="+")
    # The move it played (its seq), when it played one.
    move_seq = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-received_at"]
        indexes = [
            # The mails of one sender in the last window (games.mail.receive's limits).
            models.Index(fields=["sender", "received_at"], name="games_inbound_sender_time"),
        ]

    def __str__(self) -> str:
        return f"{self.via} from {self.sender or '?'}: {self.status}"


# --------------------------------------------------------------------------------------------
# Webhooks


#: The most webhook endpoints one user may register.
WEBHOOK_MAX_ENDPOINTS = 5
#: The longest endpoint URL taken.
WEBHOOK_URL_MAX_LENGTH = 2000


class WebhookEndpoint(models.Model):
    """An HTTPS address of a user's where the site posts, signed with ``secret``, what concerns
    them: a decision awaits them, a game of theirs started or ended (``games.webhooks.endpoints``).
    ``active`` goes off after ``WEBHOOK_DISABLE_AFTER`` failed attempts in a row (the
    owner is told by mail) or when the owner turns it off; the owner turns it on again."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="webhook_endpoints")
    url = models.CharField(_("URL"), max_length=WEBHOOK_URL_MAX_LENGTH)
    # Shown once, when it is made; kept as it is, since every delivery is signed with it.
    secret = models.CharField(max_length=100)
    description = models.CharField(_("description"), max_length=200, blank=True)
    active = models.BooleanField(_("active"), default=True)
    # Failed attempts in a row (any delivery of this endpoint); a success resets it.
    failures_in_row = models.PositiveIntegerField(default=0)
    # The first failure of those in a row (none since: null).
    failing_since = models.DateTimeField(null=True, blank=True)
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    last_failure_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)

    class Meta:
        ordering = ["user_id", "created_at", "id"]
        indexes = [models.Index(fields=["user", "active"], name="webhook_user_active")]
        verbose_name = _("webhook endpoint")
        verbose_name_plural = _("webhook endpoints")

    def __str__(self) -> str:
        return f"{self.user_id}: {self.url}"


class WebhookDelivery(models.Model):
    """One event posted to one endpoint: an outbox row, written in the transaction of its cause,
    posted by a worker, retried with backoff. ``body`` is the exact JSON text posted (and
    signed) at every attempt; its ``id`` is this row's."""

    class Type(models.TextChoices):
        DECISION = "decision", _("a decision awaits")
        GAME_STARTED = "game_started", _("game started")
        GAME_ENDED = "game_ended", _("game ended")
        PING = "ping", _("ping")

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        DELIVERED = "delivered", _("delivered")
        # The last attempt failed; the next one is at next_attempt_at.
        FAILED = "failed", _("failed, to be retried")
        # No attempt left: out of attempts, or its endpoint was turned off.
        ABANDONED = "abandoned", _("abandoned")

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE,
                                 related_name="deliveries")
    event_type = models.CharField(max_length=16, choices=Type.choices)
    # What caused it ("decision:<pending id>", "started:<game id>"...): once per endpoint.
    cause = models.CharField(max_length=100)
    body = models.TextField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    # When it is due (set to the next retry's time when an attempt starts); null once final.
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    # (the body's "created": given by whoever writes the row)
    created_at = models.DateTimeField(default=timezone.now)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["endpoint", "cause"],
                                               name="webhook_delivery_once")]
        indexes = [
            models.Index(fields=["next_attempt_at"], name="webhook_delivery_due",
                         condition=models.Q(status__in=["pending", "failed"])),
            models.Index(fields=["endpoint", "-created_at"], name="webhook_delivery_recent"),
        ]
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")

    def __str__(self) -> str:
        return f"{self.event_type} to {self.endpoint_id} ({self.status})"
