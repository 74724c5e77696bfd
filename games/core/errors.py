"""The site's domain errors: what a service refuses, and why, in words and as a machine code.

Services (``games.core.services``, ``moderation.services``) raise these and know nothing of HTTP;
the
edges map them: the API to the contract's status codes and bodies in one exception handler
(``games/api/errors.py``), the pages and the admin to messages. The rules' own refusals are the
engine's errors (``games.engine.EngineError``), mapped the same way.

``code`` is the machine code of ``shared/API.md``'s error bodies (``"stale_seq"``, ``"forbidden"``
…); ``message`` a sentence for a person; ``extra`` what else the refusal tells (``seq``,
``fields``).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, gettext_noop

from games.engine import EngineError, GameOver, InvalidOptions, MalformedMove, NotYourDecision


class ApplicationError(Exception):
    """Base of every refusal of the site's services."""

    code = "invalid"
    default_message = "The request is not valid."

    def __init__(self, message: str | None = None, *, code: str | None = None,
                 **extra: Any) -> None:
        self.message = message or gettext(self.default_message)
        super().__init__(self.message)
        if code:
            self.code = code
        self.extra = extra

    def __str__(self) -> str:
        return self.message

    def as_dict(self) -> dict[str, Any]:
        """``{"code", "detail", ...extra}``: the contract's error body."""
        return {"code": self.code, "detail": self.message, **self.extra}

    def text(self) -> str:
        """What a page or the admin shows: the message, or the fields' messages."""
        fields = self.extra.get("fields")
        if isinstance(fields, dict) and fields:
            return " ".join(str(m) for messages in fields.values() for m in messages)
        return self.message


class Invalid(ApplicationError):
    """A request whose fields are wrong: ``fields`` maps each field to its messages."""

    def __init__(self, fields: dict[str, list[str]], message: str | None = None, **extra: Any):
        super().__init__(message or "The request is not valid: see `fields`.", fields=fields,
                         **extra)


class Forbidden(ApplicationError):
    code = "forbidden"
    default_message = gettext_noop("You are not allowed to do this.")


class NotFound(ApplicationError):
    code = "not_found"
    default_message = gettext_noop("Not found.")


class Conflict(ApplicationError):
    """The request came too late or too early for the game as it is now."""

    code = "conflict"


class StaleSeq(Conflict):
    code = "stale_seq"

    def __init__(self, seq: int):
        super().__init__(f"The game is at seq {seq}, not at the expected_seq you sent: read it "
                         f"again and decide on the current position.", seq=seq)

    def text(self) -> str:
        # The API's message speaks of its fields; a page or a mail says it in words.
        return gettext("The game moved on meanwhile: here it is now, decide again.")


class GameNotActive(Conflict):
    code = "game_not_active"


class GameFull(Conflict):
    code = "game_full"
    default_message = gettext_noop("Every seat of this game is taken.")


class ReliabilityTooLow(Forbidden):
    """The game's creator asked for a reliability (the share of decisions a player took in
    time, ``games.ratings``) that the player who would join does not have."""

    code = "reliability_too_low"

    def __init__(self, least: int, yours: int | None):
        if yours is None:
            message = gettext("This game is for players with a reliability of at least "
                              "%(least)d%%, and you have none yet: finish a few games "
                              "first.") % {"least": least}
        else:
            message = gettext("This game is for players with a reliability of at least "
                              "%(least)d%%; yours is %(yours)d%%.") % {"least": least,
                                                                       "yours": yours}
        super().__init__(message, min_reliability=least, reliability=yours)


class AlreadySeated(Conflict):
    code = "already_seated"
    default_message = gettext_noop("You already have a seat in this game.")


class DecisionGone(Conflict):
    """The decision an action named is no longer awaited (answered, or timed out, meanwhile)."""

    code = "decision_gone"
    default_message = gettext_noop("That decision is no longer awaited: the game moved on.")


class RateLimited(ApplicationError):
    """Too many requests of one kind in a while (a player's chat messages): ``retry_after`` is
    the number of seconds after which the next one will be taken."""

    code = "throttled"
    default_message = gettext_noop("Too many requests: try again later.")

    def __init__(self, retry_after: int, message: str | None = None):
        self.retry_after = max(1, int(retry_after))
        super().__init__(message, retry_after=self.retry_after)


class IdempotencyConflict(ApplicationError):
    code = "idempotency_conflict"
    default_message = ("This Idempotency-Key was already used with a different request in the "
                       "last 24 hours; use a new key for a new request.")


class InvalidCredentials(ApplicationError):
    code = "invalid_credentials"
    default_message = "Unable to log in with this username and password."


def text_of(exc: Exception, kit: Any = None) -> str:
    """What a page, a mail or the admin shows of a refusal, in the active language: a
    service's, or the rules' (``kit``, the game's :class:`games.core.kit.GameKit`, words the codes
    it
    knows; any other is said by its class: the engine's own messages are English)."""
    if isinstance(exc, ApplicationError):
        return exc.text()
    if isinstance(exc, EngineError):
        words = kit.error_words(exc) if kit is not None else None
        return str(words) if words else engine_words(exc)
    return str(exc)


def engine_words(exc: EngineError) -> str:
    """A refusal of the rules said by its class alone, in the active language."""
    if isinstance(exc, GameOver):
        return gettext("The game is over.")
    if isinstance(exc, NotYourDecision):
        return gettext("The game is not waiting for a decision from you now.")
    if isinstance(exc, MalformedMove):
        return gettext("This is not a move of this game.")
    if isinstance(exc, InvalidOptions):
        return gettext("These options cannot make a game.")
    return gettext("This move is not allowed now.")
