"""Deadlines as arithmetic: a decision's clock runs from a stored base, never during a vacation.

A pending decision stores its base: ``clock_from`` (when its clock last started: the decision
began, or the game resumed), ``clock_seconds`` (the running time it has from then on: its timer,
plus extensions, minus what ran before a pause) and ``given_seconds`` (all the time it was given:
its timer plus extensions). Its deadline is not a stored fact that requests push around but a
function of that base and of the vacations in force (time during a vacation does not run)::

    deadline = run_until(vacations, clock_from, clock_seconds)

so declaring, cancelling and declaring a vacation again gives the deadline of one declaration,
and no sequence of requests moves a deadline by more than the vacation days in force.

Pure functions of datetimes (timezone-aware, UTC); no Django.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

Interval = tuple[dt.datetime, dt.datetime]

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
