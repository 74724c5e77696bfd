"""Moderator actions. Each change to a game goes through the games services as a move record by
actor ``moderator`` (so a replay reproduces it), and every action, on a game or a user, and
every look at a full table, is written to the :class:`ModerationLog` in the same transaction.
The people concerned are told by mail through the outbox (``games.notify.outbox``), in their
language, after the commit."""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.models import User
from games.core import events, selectors
from games.core import services as games
from games.core.catalog import bot_kinds, get_game
from games.core.errors import Conflict, Forbidden, Invalid, NotFound
from games.engine import MODERATOR, SPECTATOR
from games.models import ChatHide, ChatMessage, Game, MoveRecord, Seat
from games.notify import outbox

from .models import MODERATORS_GROUP, ModerationLog, Report

logger = logging.getLogger(__name__)
Actor = MoveRecord.Actor

#: Reports a user may file per day.
REPORTS_PER_DAY = 5


def is_moderator(user) -> bool:
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    return user.is_superuser or user.groups.filter(name=MODERATORS_GROUP).exists()


def _require(moderator) -> None:
    if not is_moderator(moderator):
        raise Forbidden("Only moderators can do this.")


def _reason(reason: Any) -> str:
    text = (reason or "").strip() if isinstance(reason, str) else ""
    if not text:
        raise Invalid({"reason": ["Say why: the reason is kept in the moderation log."]})
    return text[:500]


def log(moderator, action: str, *, game=None, target_user=None, reason: str = "",
        **details) -> ModerationLog:
    return ModerationLog.objects.create(moderator=moderator, action=action, game=game,
                                        target_user=target_user, reason=reason,
                                        details=details)


def _game(game_id) -> Game:
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise NotFound("No such game.")
    return game


def _tell(users, entry: ModerationLog, subject: str, body: str, **params) -> None:
    """A mail to ``users`` about ``entry`` (``subject`` and ``body`` marked with
    ``gettext_noop``, translated per recipient at delivery), through the outbox."""
    outbox.moderation_message(users, subject, body, cause=f"log:{entry.pk}",
                                     game=entry.game_id, **params)


def _players(game_id) -> list[User]:
    return [seat.user for seat in Seat.objects.filter(game_id=game_id, user__isnull=False)
            .select_related("user")]


# --------------------------------------------------------------------------------------------
# Games


def pause(moderator, game_id, reason) -> MoveRecord:
    _require(moderator)
    reason = _reason(reason)
    with transaction.atomic():
        record = games.apply_table_move(game_id, "pause", actor=Actor.MODERATOR,
                                        by_user=moderator, by="moderator", reason=reason)
        log(moderator, "pause", game=record.game, reason=reason, seq=record.seq)
    return record


def resume(moderator, game_id, reason) -> MoveRecord:
    _require(moderator)
    reason = _reason(reason)
    with transaction.atomic():
        record = games.apply_table_move(game_id, "resume", actor=Actor.MODERATOR,
                                        by_user=moderator, by="moderator", reason=reason)
        Seat.objects.filter(game_id=game_id).update(wants_pause=False)
        log(moderator, "resume", game=record.game, reason=reason, seq=record.seq)
    return record


def extend(moderator, game_id, hours: int, reason, player: int | None = None) -> MoveRecord:
    _require(moderator)
    reason = _reason(reason)
    if not isinstance(hours, int) or not 1 <= hours <= 720:
        raise Invalid({"hours": ["Extend by 1 to 720 hours."]})
    fields: dict[str, Any] = {"seconds": hours * 3600, "reason": reason}
    if player is not None:
        fields["player"] = player
    with transaction.atomic():
        record = games.apply_table_move(game_id, "extend", actor=Actor.MODERATOR,
                                        by_user=moderator, **fields)
        log(moderator, "extend", game=record.game, reason=reason, seq=record.seq,
            hours=hours, player=player)
    return record


def timeout_now(moderator, game_id, reason, player: int | None,
                expected_seq: int | None = None) -> int:
    """Play now the timeout default of the decision awaited from ``player``, as actor
    ``moderator``. The decision must still be awaited when the game is locked (a player may
    answer it meanwhile): else :class:`DecisionGone` (or :class:`StaleSeq` when the game left
    ``expected_seq``) and nothing is played nor logged. Returns the new seq."""
    _require(moderator)
    reason = _reason(reason)
    if not isinstance(player, int) or isinstance(player, bool):
        raise Invalid({"player": ["Name the seat whose decision times out."]})
    with transaction.atomic():
        game = _game(game_id)
        seq, decision = games.play_timeout_now(game.pk, player, expected_seq=expected_seq,
                                               actor=Actor.MODERATOR, by_user=moderator)
        log(moderator, "timeout", game=game, reason=reason, seq=seq, player=player,
            decision=decision)
    return seq


def replace(moderator, game_id, player: int, reason, *, user: User | None = None,
            bot_kind: str = "heuristic", action: str = "replace") -> MoveRecord:
    """Give a seat to another user, or to a bot (``user`` None)."""
    _require(moderator)
    reason = _reason(reason)
    if bot_kind not in bot_kinds():
        raise Invalid({"bot_kind": [f"One of {', '.join(bot_kinds())}."]})
    occupant = f"user:{user.pk}" if user is not None else f"bot:{bot_kind}"
    with transaction.atomic():
        seat = Seat.objects.filter(game_id=game_id, position=player).select_related(
            "user").first()
        if seat is None:
            raise Invalid({"player": [f"Seat {player} has nobody in it."]})
        previous = seat.user
        record = games.apply_table_move(game_id, "replace", actor=Actor.MODERATOR,
                                        by_user=moderator, player=player, occupant=occupant,
                                        reason=reason)
        entry = log(moderator, action, game=record.game, target_user=previous, reason=reason,
                    seq=record.seq, player=player, occupant=occupant)
        if previous is not None:
            _tell([previous], entry,
                  gettext_noop("Your seat in a game was given to someone else"),
                  gettext_noop("A moderator gave your seat to another player. "
                               "Reason: %(reason)s"), reason=reason)
    return record


def abort(moderator, game_id, reason) -> MoveRecord:
    _require(moderator)
    reason = _reason(reason)
    with transaction.atomic():
        record = games.apply_table_move(game_id, "abort", actor=Actor.MODERATOR,
                                        by_user=moderator, reason=reason)
        entry = log(moderator, "abort", game=record.game, reason=reason, seq=record.seq)
        _tell(_players(game_id), entry, gettext_noop("A game you play was aborted"),
              gettext_noop("A moderator aborted the game. Reason: %(reason)s"), reason=reason)
    return record


def full_table(moderator, game_id) -> dict[str, Any]:
    """Every card and every secret decision (the engine's moderator projection); each opening
    is written to the log."""
    _require(moderator)
    game = selectors.find_game(game_id)
    if game is None:
        raise NotFound("No such game.")
    loaded = selectors.load_for_viewer(game, moderator) or selectors.Loaded(
        game=game, seats=selectors.seats_of(game))
    if loaded.state is None:
        selectors.complete(loaded)
    view = (get_game(game.kind).view(loaded.state, MODERATOR)
            if loaded.state is not None else None)
    log(moderator, "full_table", game=game, seq=game.seq)
    return {"id": str(game.pk), "seq": game.seq, "status": game.status,
            "players": selectors.players_payload(loaded.seats), "state": view}


def game_history(user, game_id, viewer) -> tuple[selectors.Loaded, list[dict]]:
    """A game's events as ``viewer`` saw them, oldest first from its opening, through the one
    projection (``selectors.events_payload``): ``SPECTATOR`` (public: any staff member of the
    admin), a seat's engine player index (what that player saw: their secrets) or
    ``MODERATOR`` (the whole truth). The last two are for moderators only, and each reading is
    written to the log, as the full table's. The game loaded (its seats), and the events."""
    game = selectors.find_game(game_id)
    if game is None:
        raise NotFound("No such game.")
    if viewer != SPECTATOR:
        _require(user)
    loaded = selectors.complete(selectors.Loaded(game=game, seats=selectors.seats_of(game)),
                                with_pending=False)
    if viewer not in (SPECTATOR, MODERATOR) and not any(
            seat.position == viewer for seat in loaded.seats):
        raise NotFound("No such seat.")
    events = (selectors.opening_events(loaded, None, viewer=viewer)
              + selectors.events_payload(loaded, None, 0, limit=max(1, game.seq),
                                         viewer=viewer)["results"])
    if viewer != SPECTATOR:
        log(user, "history", game=game, seq=game.seq,
            viewer=viewer if viewer == MODERATOR else f"seat {viewer}")
    return loaded, events


# --------------------------------------------------------------------------------------------
# Users


def _seats_to_bots(moderator, user: User, reason: str) -> list[int]:
    moved = []
    for seat in Seat.objects.filter(user=user, game__status__in=[Game.Status.ACTIVE,
                                                                 Game.Status.PAUSED]):
        games.apply_table_move(seat.game_id, "replace", actor=Actor.MODERATOR,
                               by_user=moderator, player=seat.position,
                               occupant=f"bot:{games.DEFAULT_BOT_KIND}", reason=reason)
        moved.append(seat.game_id)
    return moved


def suspend(moderator, user: User, until: dt.datetime, reason) -> User:
    _require(moderator)
    reason = _reason(reason)
    if until <= timezone.now():
        raise Invalid({"until": ["A suspension ends in the future."]})
    if user.pk == moderator.pk or user.is_superuser:
        raise Forbidden("This account cannot be suspended here.")
    with transaction.atomic():
        user.suspended_until, user.moderation_reason = until, reason
        user.save(update_fields=["suspended_until", "moderation_reason"])
        moved = _seats_to_bots(moderator, user, reason)
        entry = log(moderator, "suspend", target_user=user, reason=reason,
                    until=until.isoformat(), games=[str(g) for g in moved])
        _tell([user], entry, gettext_noop("Your Mascarade Online account is suspended"),
              gettext_noop("Your account is suspended until %(until)s UTC. Reason: "
                           "%(reason)s. Your seats in games under way were given to bots."),
              until=f"{until:%Y-%m-%d %H:%M}", reason=reason)
    return user


def ban(moderator, user: User, reason) -> User:
    _require(moderator)
    reason = _reason(reason)
    if user.pk == moderator.pk or user.is_superuser:
        raise Forbidden("This account cannot be banned here.")
    with transaction.atomic():
        user.banned, user.moderation_reason = True, reason
        user.save(update_fields=["banned", "moderation_reason"])
        moved = _seats_to_bots(moderator, user, reason)
        entry = log(moderator, "ban", target_user=user, reason=reason,
                    games=[str(g) for g in moved])
        _tell([user], entry, gettext_noop("Your Mascarade Online account is banned"),
              gettext_noop("Your account is banned. Reason: %(reason)s. Your seats in "
                           "games under way were given to bots."), reason=reason)
    return user


def lift(moderator, user: User, reason) -> User:
    _require(moderator)
    reason = _reason(reason)
    with transaction.atomic():
        user.banned, user.suspended_until, user.moderation_reason = False, None, ""
        user.save(update_fields=["banned", "suspended_until", "moderation_reason"])
        entry = log(moderator, "lift", target_user=user, reason=reason)
        _tell([user], entry, gettext_noop("Your Mascarade Online account is open again"),
              gettext_noop("A moderator lifted the restriction on your account. Note: %(reason)s"),
              reason=reason)
    return user


# --------------------------------------------------------------------------------------------
# Reports


def file_report(reporter, game_id, reported_name: str, reason: str, text: str = "") -> Report:
    """A player reports another player of the same game (at most :data:`REPORTS_PER_DAY` a
    day; not oneself)."""
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=reporter.pk).first()
        game = _game(game_id)
        seats = list(Seat.objects.filter(game=game).select_related("user"))
        if not any(s.user_id == reporter.pk for s in seats):
            if game.private:
                raise NotFound("No such game.")
            raise Forbidden("Only the players of a game can report one of its players.")
        target = next((s.user for s in seats if s.user and s.user.username == reported_name),
                      None)
        if target is None:
            raise Invalid({"reported": ["Name a human player of this game."]})
        if target.pk == reporter.pk:
            raise Invalid({"reported": ["You cannot report yourself."]})
        if reason not in Report.Reason.values:
            raise Invalid({"reason": [f"One of {', '.join(Report.Reason.values)}."]})
        since = timezone.now() - dt.timedelta(days=1)
        if Report.objects.filter(reporter=reporter, created_at__gte=since).count() \
                >= REPORTS_PER_DAY:
            raise Invalid({"reason": [f"You can file {REPORTS_PER_DAY} reports a day; try "
                                      "again tomorrow."]})
        return Report.objects.create(reporter=reporter, reported=target, game=game,
                                     seq=game.seq, reason=reason, text=(text or "")[:2000])


def _reports_left_today(reporter) -> None:
    since = timezone.now() - dt.timedelta(days=1)
    if Report.objects.filter(reporter=reporter, created_at__gte=since).count() \
            >= REPORTS_PER_DAY:
        raise Invalid({"reason": [_("You can file %(n)d reports a day; try again tomorrow.")
                                  % {"n": REPORTS_PER_DAY}]})


def report_message(reporter, game_id, message_id, reason: str = Report.Reason.ABUSE,
                   text: str = "") -> Report:
    """A player of the game reports one of its chat messages to the moderators (its author is
    the reported user): not their own, not a line of the game's rules for a bot, once per
    message while the report is open, within the daily limit of reports."""
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=reporter.pk).first()
        game = _game(game_id)
        seats = list(Seat.objects.filter(game=game))
        if not any(s.user_id == reporter.pk for s in seats):
            if game.private and not reporter.is_staff:
                raise NotFound(_("No such game."))
            raise Forbidden(_("Only the players of a game can report its messages."))
        message = (ChatMessage.objects.filter(pk=message_id, game=game).select_related("author")
                   .first() if isinstance(message_id, int) else None)
        if message is None or ChatHide.objects.filter(message=message).exists():
            raise NotFound(_("No such message at this table."))
        if message.author_id is None:
            raise Invalid({"message": [_("This line comes from the game itself; there is "
                                         "nobody to report.")]})
        if message.author_id == reporter.pk:
            raise Invalid({"message": [_("You cannot report your own message.")]})
        if reason not in Report.Reason.values:
            raise Invalid({"reason": [_("One of %(choices)s.") % {
                "choices": ", ".join(Report.Reason.values)}]})
        if Report.objects.filter(reporter=reporter, message=message,
                                 status=Report.Status.OPEN).exists():
            raise Invalid({"message": [_("You reported this message already; the moderators "
                                         "will look at it.")]})
        _reports_left_today(reporter)
        return Report.objects.create(reporter=reporter, reported=message.author, game=game,
                                     seq=game.seq, reason=reason, text=(text or "")[:2000],
                                     message=message)


def hide_message(moderator, message_id, reason) -> ChatHide:
    """Hide a chat message from everyone but moderators (a hide row: messages are never
    changed), logged; the open reports of it are resolved ("message hidden", the reason as the
    note), each reporter told. :class:`Conflict` (``already_hidden``) if it was hidden
    already."""
    _require(moderator)
    reason = _reason(reason)
    message = (ChatMessage.objects.filter(pk=message_id).select_related("author", "game")
               .first() if isinstance(message_id, int) else None)
    if message is None:
        raise NotFound(_("No such message."))
    already = Conflict(_("This message is hidden already."), code="already_hidden")
    try:
        with transaction.atomic():
            if ChatHide.objects.filter(message=message).exists():
                raise already
            hide = ChatHide.objects.create(message=message, moderator=moderator, reason=reason)
            events.publish(events.ChatChanged(game_id=message.game_id))
            log(moderator, "hide_message", game=message.game, target_user=message.author,
                reason=reason, message=message.pk, seq=message.seq, text=message.text)
            for report in Report.objects.filter(message=message, status=Report.Status.OPEN):
                resolve_report(moderator, report, "message hidden", reason)
    except IntegrityError as exc:  # hidden meanwhile by another moderator
        raise already from exc
    return hide


def resolve_report(moderator, report: Report, resolution: str, note: str) -> Report:
    _require(moderator)
    if report.status == Report.Status.RESOLVED:
        raise Invalid({"report": ["This report is resolved already."]})
    note = _reason(note)
    with transaction.atomic():
        report.status, report.resolution, report.note = (Report.Status.RESOLVED,
                                                         resolution[:64], note)
        report.resolved_by, report.resolved_at = moderator, timezone.now()
        report.save()
        entry = log(moderator, "resolve_report", game=report.game, target_user=report.reported,
                    reason=note, report=report.pk, resolution=resolution)
        _tell([report.reporter], entry, gettext_noop("Your report was handled"),
              gettext_noop("A moderator handled the report you filed (%(resolution)s). Thank you."),
              resolution=resolution)
    return report
