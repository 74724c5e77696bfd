"""The lobby: creating a game, joining and leaving it, filling seats with bots, and the start
when the last seat is taken.

Locking duties: every function locks the game's row (``create_game`` the creator's, when an
``Idempotency-Key`` guards it) for its whole transaction.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.core import events, selectors
from games.core.catalog import bot_kinds, get_game
from games.core.errors import (
    AlreadySeated,
    Forbidden,
    GameFull,
    GameNotActive,
    Invalid,
    NotFound,
    ReliabilityTooLow,
)
from games.core.services import idempotency
from games.core.services.bots import DEFAULT_BOT_KIND
from games.core.services.write import Table, commit, lock
from games.models import NAME_MAX_LENGTH, Game, Invitation, Seat

#: Options only staff may set (API.md "Mascarade options").
STAFF_OPTIONS = ("deal", "first_seat")


def invite_matches(game: Game, code) -> bool:
    """Whether ``code`` is this private game's invite code (compared in constant time, any
    text a client sends included)."""
    given = code.encode("utf-8", "surrogatepass") if isinstance(code, str) else b""
    return secrets.compare_digest(given, game.invite_code.encode())


def _bot_seats(game: Game, positions: list[int], kind: str) -> list[Seat]:
    if kind not in bot_kinds():
        raise Invalid({"kind": [_("Choose one of: %(kinds)s.") % {
            "kinds": ", ".join(bot_kinds())}]})
    return [Seat(game=game, position=p, bot_kind=kind) for p in positions]


def _free_positions(game: Game, seats: list[Seat]) -> list[int]:
    taken = {seat.position for seat in seats}
    return [p for p in range(game.seat_count) if p not in taken]


def _start_if_full(game: Game, seats: list[Seat]) -> selectors.Loaded:
    """Start the game if every seat is taken (set up from its seed, its first decisions
    awaited); else record the change. The game as loaded either way (no state while open)."""
    if len(seats) == game.seat_count and game.status == Game.Status.OPEN:
        table = Table(game=game, seats=seats)
        game.status = Game.Status.ACTIVE
        game.started_at = table.now
        table.state = get_game(game.kind).setup(game.options, game.seed)
        table.started = table.resync = table.bots_maybe = True
        table.game_fields |= {"status", "started_at"}
        return commit(table).loaded()
    game.version += 1
    game.save(update_fields=["version", "updated_at"])
    events.publish(events.GameChanged(game=game, seats=seats))
    return selectors.Loaded(game=game, seats=seats)


def game_name(name: Any) -> str:
    """A name a creator gave a game, on one line (runs of spaces and line breaks become one
    space: it goes into mails' subjects too); refused when longer than the column."""
    if name is None:
        return ""
    if not isinstance(name, str):
        raise Invalid({"name": [_("A game's name is text.")]})
    name = " ".join(name.split())
    if len(name) > NAME_MAX_LENGTH:
        raise Invalid({"name": [ngettext(
            "A game's name has at most %(n)d character.",
            "A game's name has at most %(n)d characters.", NAME_MAX_LENGTH) % {
            "n": NAME_MAX_LENGTH}]})
    return name


def least_reliability(value: Any) -> int | None:
    """A minimum reliability a creator asks for: a whole percentage from 1 to 100, or none
    (``None``, or 0: anyone may join)."""
    if value is None or value == 0:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= 100:
        raise Invalid({"min_reliability": [_(
            "The minimum reliability is a whole percentage from 0 to 100.")]})
    return value


def _default_name(user) -> str:
    """A new game's name when its creator gives none: "<creator> #<n>", their n-th game (the
    creator's row is locked meanwhile: two games created at once get two numbers)."""
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    return f"{user.username} #{Game.objects.filter(created_by=user).count() + 1}"


def create_game(user, kind: str, options: Any, *, private: bool = False, bots: int = 0,
                bot_kind: str = DEFAULT_BOT_KIND, name: str | None = None,
                min_reliability: int | None = None,
                idem: idempotency.Idempotency | None = None) -> idempotency.Outcome:
    """A new game with ``user`` at seat 0 (and ``bots`` bot seats after it), named ``name``
    (default: :func:`_default_name`), joined only by players whose reliability is at least
    ``min_reliability`` percent (``None``: anyone); its payload as the creator sees it."""
    engine = get_game(kind)
    name = game_name(name)
    min_reliability = least_reliability(min_reliability)
    if isinstance(options, dict) and not user.is_staff:
        staff_only = [key for key in STAFF_OPTIONS if key in options]
        if staff_only:
            raise Forbidden(_("The option %(option)s is for staff only.") % {
                "option": repr(staff_only[0])})
    normalized = engine.normalize_options(options)
    count = engine.player_count(normalized)
    if not 0 <= bots <= count - 1:
        raise Invalid({"bots": [_("Between 0 and %(most)d bots can join a game of %(count)d.") % {
            "most": count - 1, "count": count}]})

    def work() -> idempotency.Outcome:
        with transaction.atomic():
            if idem is not None:
                type(user).objects.select_for_update().filter(pk=user.pk).first()
                first = idempotency.stored(idem)
                if first is not None:
                    return first
            game = Game.objects.create(
                kind=engine.id, name=name or _default_name(user), options=normalized,
                seed=secrets.randbits(63), private=private,
                invite_code=secrets.token_urlsafe(9) if private else "", created_by=user,
                seat_count=count, min_reliability=min_reliability)
            seats = [Seat.objects.create(game=game, position=0, user=user)]
            if bots:
                seats += Seat.objects.bulk_create(_bot_seats(game, list(range(1, bots + 1)),
                                                             bot_kind))
            outcome = idempotency.Outcome(selectors.game_payload(_start_if_full(game, seats),
                                                                 user))
            idempotency.store(idem, outcome)
            return outcome

    return idempotency.once(idem, work)


def _kept_for_others(game: Game, user) -> dict[int, int]:
    """The seats of ``game`` kept for invited players who have not sat down, by position: the
    invited user's id (``user``'s own invitation excluded)."""
    return dict(Invitation.objects.filter(game=game).exclude(user_id=getattr(user, "pk", None))
                .exclude(user__seats__game=game).values_list("position", "user_id"))


def join_game(user, game_id, invite_code: str | None = None) -> dict[str, Any]:
    """Seat ``user`` at the lowest free seat (an invited player at the seat kept for them);
    the game starts when the last one is filled. A player below the game's minimum
    reliability is refused (:class:`~games.core.errors.ReliabilityTooLow`), unless invited."""
    with transaction.atomic():
        game = lock(game_id)
        seats = selectors.seats_of(game)
        if any(seat.user_id == user.pk for seat in seats):
            raise AlreadySeated()
        invitation = Invitation.objects.filter(game=game, user=user).first()
        if game.private and invitation is None and not invite_matches(game, invite_code):
            if not selectors.can_see(game, seats, user):  # (as for reading it)
                raise NotFound(_("No such game."))
            raise Forbidden(_("This game is private: joining it needs its invite code."))
        kept = _kept_for_others(game, user)
        free = [p for p in _free_positions(game, seats) if p not in kept]
        if invitation is not None and invitation.position in _free_positions(game, seats):
            free = [invitation.position]
        if not free:
            if kept and game.status == Game.Status.OPEN:
                raise GameFull(_("Every free seat of this game is kept for a player invited "
                                 "back to it."))
            raise GameFull()
        if game.status != Game.Status.OPEN:
            raise GameNotActive(_("This game is %(status)s: it takes no new players.") % {
                "status": game.get_status_display()})
        if invitation is None and game.min_reliability is not None:
            _check_reliability(user, game.min_reliability)
        seat = Seat.objects.create(game=game, position=free[0], user=user)
        seats = sorted([*seats, seat], key=lambda s: s.position)
        return selectors.game_payload(_start_if_full(game, seats), user)


def _check_reliability(user, least: int) -> None:
    """Refuse ``user`` when their reliability is below ``least`` percent."""
    from games.ratings import selectors as ratings

    mine = ratings.reliability_percent(user)
    if mine is None or mine < least:
        raise ReliabilityTooLow(least, mine)


def decline_invitation(user, game_id) -> None:
    """An invited player says no: the seat kept for them is free for anyone (bots too)."""
    with transaction.atomic():
        game = lock(game_id)
        seats = selectors.seats_of(game)
        deleted, _kinds = Invitation.objects.filter(game=game, user=user).delete()
        if not deleted:
            raise NotFound(_("You have no invitation to this game."))
        game.version += 1
        game.save(update_fields=["version", "updated_at"])
        events.publish(events.GameChanged(game=game, seats=seats))


def leave_game(user, game_id) -> dict[str, Any]:
    """Give the seat back, before the start only. A game left without humans is aborted."""
    with transaction.atomic():
        game = lock(game_id)
        seats = selectors.seats_of(game)
        if not selectors.can_see(game, seats, user):
            raise NotFound(_("No such game."))
        mine = [seat for seat in seats if seat.user_id == user.pk]
        if not mine:
            raise Forbidden(_("You have no seat in this game."))
        if game.status != Game.Status.OPEN:
            raise Forbidden(_("This game is %(status)s: seats can only be left before the "
                              "start.") % {"status": game.get_status_display()})
        mine[0].delete()
        seats = [seat for seat in seats if seat.pk != mine[0].pk]
        fields = ["version", "updated_at"]
        if not any(seat.user_id for seat in seats):
            game.status = Game.Status.ABORTED
            fields.append("status")
            # (its bots' seats: every seat of a game over says when it ended)
            Seat.objects.filter(game=game).update(ended_at=timezone.now())
        game.version += 1
        game.save(update_fields=fields)
        events.publish(events.GameChanged(game=game, seats=seats))
        return selectors.game_payload(selectors.Loaded(game=game, seats=seats), user)


def add_bots(user, game_id, count: int, kind: str = DEFAULT_BOT_KIND) -> dict[str, Any]:
    """The creator fills ``count`` empty seats (the lowest first) with bots."""
    with transaction.atomic():
        game = lock(game_id)
        seats = selectors.seats_of(game)
        if not selectors.can_see(game, seats, user):
            raise NotFound(_("No such game."))
        if game.created_by_id != user.pk:
            raise Forbidden(_("Only the game's creator can add bots."))
        kept = _kept_for_others(game, None)
        free = [p for p in _free_positions(game, seats) if p not in kept]
        if not free:
            raise GameFull(_("Every free seat of this game is kept for a player invited back "
                             "to it.") if kept and game.status == Game.Status.OPEN else None)
        if game.status != Game.Status.OPEN:
            raise GameNotActive(_("This game is %(status)s: bots join open games only.") % {
                "status": game.get_status_display()})
        if count < 1:
            raise Invalid({"count": [_("Add at least one bot.")]})
        if count > len(free):
            raise Invalid({"count": [ngettext("Only %(n)d seat is free.",
                                              "Only %(n)d seats are free.", len(free))
                                     % {"n": len(free)}]})
        seats = sorted([*seats, *Seat.objects.bulk_create(_bot_seats(game, free[:count], kind))],
                       key=lambda s: s.position)
        return selectors.game_payload(_start_if_full(game, seats), user)
