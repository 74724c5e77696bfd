"""Deadlines as arithmetic: a decision's clock runs from a stored base, never during a vacation.

A pending decision stores its base: ``clock_from`` (when its clock last started: the decision
began, or the game resumed), ``clock_seconds`` (the running time it has from then on: its timer,
plus extensions, minus what ran before a pause) and ``given_seconds`` (all the time it was given:
its timer plus extensions). Its deadline is not a stored fact that requests push around but a
function of that base and of the vacations in force (time during a vacation does not run)::

    deadline = run_until(vacations, clock_from, clock_seconds)

so declaring, cancelling and declaring a vacation again gives the deadline of one declaration,
and no sequence of requests moves a deadline by more than the vacation days in force.

A game's speed (``games.engine.options.speed_options``) gives each decision its running time:
a fixed timer (:func:`timer_seconds`), or, with a time bank (:class:`Bank`), what is left of the
seat's bank plus the increment, never above the cap (:meth:`Bank.opening`). Each seat's bank
is drawn on by its own decisions only, simultaneous ones included: when a decision goes (played,
timed out, or closed by others' moves), the seat keeps what its clock had left
(:meth:`Bank.left_after`); a pause keeps it too, a vacation does not run it, an extension adds
to it up to the cap (:meth:`Bank.extended`). The write path stores the bank in the seat's row,
under the game's lock. So no sequence of moves, pauses, vacations and extensions makes a bank
exceed its cap, and a decision's deadline is always later than the moment it begins.

Pure functions of datetimes (timezone-aware, UTC); no Django.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

Interval = tuple[dt.datetime, dt.datetime]

#: A decision's timer when its game's options do not name it (seconds).
DEFAULT_TIMEOUT = 86_400

#: The "deadline is near" reminder goes when this share of the time given has run.
REMIND_AT = 0.8


def run_until(intervals: Iterable[Interval], start: dt.datetime, seconds: float
              ) -> dt.datetime:
    """The moment ``seconds`` of running time have passed since ``start``, the clock stopping
    during the ``intervals`` (which may overlap, in any order)."""
    left = dt.timedelta(seconds=max(0.0, seconds))
    at = start
    for begin, end in sorted(intervals):
        if end <= at:
            continue
        if begin > at:
            if begin - at >= left:
                break
            left -= begin - at
        at = end
    return at + left


def running_time(intervals: Iterable[Interval], start: dt.datetime, end: dt.datetime) -> float:
    """Seconds of running time between ``start`` and ``end`` (0 if ``end`` is not later): the
    time outside the ``intervals``."""
    if end <= start:
        return 0.0
    total = (end - start).total_seconds()
    covered_until = start
    for begin, finish in sorted(intervals):
        begin, finish = max(begin, covered_until), min(finish, end)
        if finish > begin:
            total -= (finish - begin).total_seconds()
            covered_until = finish
    return max(0.0, total)


def deadline(intervals: Iterable[Interval], clock_from: dt.datetime, clock_seconds: float
             ) -> dt.datetime:
    return run_until(intervals, clock_from, clock_seconds)


def remind_at(intervals: Iterable[Interval], clock_from: dt.datetime, clock_seconds: float,
              given_seconds: float) -> dt.datetime:
    """When :data:`REMIND_AT` of the time given has run (at once if that much already ran
    before the clock's last start)."""
    still = clock_seconds - given_seconds * (1 - REMIND_AT)
    return run_until(intervals, clock_from, max(0.0, still))


def place(row, intervals: Iterable[Interval]) -> None:
    """Set a running ``PendingDecision`` row's deadline, and its reminder unless already sent
    (or a bot's), from its stored base and its user's vacations (``intervals``)."""
    row.deadline = deadline(intervals, row.clock_from, row.clock_seconds)
    if row.remind_at is not None:
        row.remind_at = remind_at(intervals, row.clock_from, row.clock_seconds,
                                  row.given_seconds)


# --------------------------------------------------------------------------------------------
# Speeds: a fixed timer per decision, or a time bank per seat


@dataclass(frozen=True)
class Bank:
    """A time bank: each seat starts with ``cap`` seconds (the option ``bank_initial``); each
    of its decisions adds ``increment`` seconds (``bank_increment``), the total never above
    ``cap``. ``increment`` is at least 1 (the options' range: 60), so every decision has time.
    """

    cap: int
    increment: int

    def start(self, left: int | None) -> int:
        """A seat's bank before its first decision (``left`` is ``None``), else ``left`` kept
        within ``0…cap``."""
        return self.cap if left is None else max(0, min(self.cap, int(left)))

    def opening(self, left: int | None) -> int:
        """The running time a new decision of a seat gets: what its bank has ``left`` (the
        whole bank before its first decision) plus the increment, at most the cap; at least
        the increment, so its deadline is later than its start."""
        return min(self.cap, self.start(left) + self.increment)

    def left_after(self, clock_seconds: float, ran: float) -> int:
        """What a seat's bank keeps when its decision goes: the decision's running time less
        what ran of it (nothing when it timed out), within ``0…cap``."""
        return max(0, min(self.cap, int(clock_seconds - max(0.0, ran))))

    def extended(self, left: float, seconds: int) -> int:
        """A bank with ``left`` seconds given ``seconds`` more (a moderator's extension): at
        most the cap."""
        return max(0, min(self.cap, int(left) + max(0, int(seconds))))


def bank_of(options: dict[str, Any]) -> Bank | None:
    """The time bank of a game with these options, or ``None`` when it is played with a timer
    per decision (every game created before speeds existed)."""
    if options.get("speed") != "bank":
        return None
    cap, increment = options.get("bank_initial"), options.get("bank_increment")
    if not (isinstance(cap, int) and isinstance(increment, int) and 0 < increment <= cap):
        return None
    return Bank(cap=cap, increment=increment)


def timer_seconds(options: dict[str, Any], timer: str) -> int:
    """The running time of a decision whose timer is ``timer`` (``move_timeout``,
    ``challenge_timeout``) in a game without a bank: the option, its default for options
    without it (a day, as before the options named both)."""
    value = options.get(timer, DEFAULT_TIMEOUT)
    return value if isinstance(value, int) and value > 0 else DEFAULT_TIMEOUT


def opening_seconds(options: dict[str, Any], timer: str, left: int | None) -> int:
    """The running time a new decision gets: from its seat's bank (``left``: what it has,
    ``None`` before its first decision) in a game with a time bank, else from its timer."""
    bank = bank_of(options)
    return bank.opening(left) if bank is not None else timer_seconds(options, timer)


def seconds_left(intervals: Iterable[Interval], clock_from: dt.datetime, clock_seconds: float,
                 remaining: float | None, at: dt.datetime) -> float:
    """The running time a decision has left at ``at``: ``remaining`` while the game is paused,
    else its ``clock_seconds`` less what ran since ``clock_from`` (never during a vacation)."""
    if remaining is not None:
        return max(0.0, float(remaining))
    return max(0.0, clock_seconds - running_time(intervals, clock_from, at))
