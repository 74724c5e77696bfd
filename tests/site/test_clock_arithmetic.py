"""The deadlines' arithmetic (``games.core.deadlines``) under any sequence of what happens to
a game's clocks: decisions opened (one at a time per seat, several seats at once as in a
challenge window or Shadow House's Sharing), answered, timed out or closed by others' moves,
pauses and resumes, vacations declared, extensions. Every step is made with the functions the
write path makes it with (``games.core.services.write`` and ``table_actions``), and after every
step no bank is above its cap, and no decision began with its deadline in the past."""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field

from hypothesis import given
from hypothesis import strategies as st

from games.core import deadlines
from games.core.deadlines import Bank

T0 = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
SEATS = 3


@dataclass
class Decision:
    clock_from: dt.datetime
    clock_seconds: int
    remaining: int | None = None
    deadline: dt.datetime | None = None


@dataclass
class Clocks:
    """The rows the write path keeps: each seat's bank (``Seat.bank_seconds``) and decision
    (``PendingDecision``), the seats' vacations, the game's pause."""

    bank: Bank | None
    now: dt.datetime = T0
    paused: bool = False
    left: dict[int, int | None] = field(default_factory=lambda: dict.fromkeys(range(SEATS)))
    decisions: dict[int, Decision] = field(default_factory=dict)
    away: dict[int, list] = field(default_factory=lambda: {s: [] for s in range(SEATS)})

    def place(self, seat: int) -> None:
        row = self.decisions[seat]
        row.deadline = deadlines.deadline(self.away[seat], row.clock_from, row.clock_seconds)

    def open(self, seat: int, timer: str) -> None:
        options = ({"speed": "bank", "bank_initial": self.bank.cap,
                    "bank_increment": self.bank.increment} if self.bank
                   else {"speed": "fast", "move_timeout": 3600, "challenge_timeout": 1800})
        seconds = deadlines.opening_seconds(options, timer, self.left[seat])
        row = Decision(clock_from=self.now, clock_seconds=seconds,
                       remaining=seconds if self.paused else None)
        self.decisions[seat] = row
        self.place(seat)
        # A decision's deadline is later than its start (its clock has time).
        assert seconds > 0 and row.deadline > self.now

    def close(self, seat: int) -> None:
        """The decision goes (answered, timed out, or closed by others' moves): the seat's
        bank keeps what its clock had left (``write._draw_banks``)."""
        row = self.decisions.pop(seat)
        if self.bank is not None:
            left = deadlines.seconds_left(self.away[seat], row.clock_from, row.clock_seconds,
                                          row.remaining, self.now)
            self.left[seat] = self.bank.left_after(left, 0)

    def pause(self) -> None:
        for seat, row in self.decisions.items():
            row.remaining = int(deadlines.seconds_left(self.away[seat], row.clock_from,
                                                       row.clock_seconds, None, self.now))
        self.paused = True

    def resume(self) -> None:
        for seat, row in self.decisions.items():
            row.clock_from, row.clock_seconds, row.remaining = self.now, row.remaining, None
            self.place(seat)
        self.paused = False

    def extend(self, seat: int, seconds: int) -> None:
        row = self.decisions[seat]
        added = seconds
        if self.bank is not None:
            left = math.ceil(deadlines.seconds_left(self.away[seat], row.clock_from,
                                                    row.clock_seconds, row.remaining, self.now))
            added = max(0, self.bank.extended(left, added) - left)
        if row.remaining is not None:
            row.remaining += added
        else:
            row.clock_seconds += added
            self.place(seat)

    def check(self) -> None:
        if self.bank is None:
            return
        for seat in range(SEATS):
            left = self.left[seat]
            assert left is None or 0 <= left <= self.bank.cap
        for seat, row in self.decisions.items():
            now_left = deadlines.seconds_left(self.away[seat], row.clock_from,
                                              row.clock_seconds, row.remaining, self.now)
            assert 0 <= now_left <= self.bank.cap
            if row.remaining is not None:
                assert row.remaining <= self.bank.cap


seats = st.integers(0, SEATS - 1)
steps = st.lists(st.one_of(
    st.tuples(st.just("open"), st.lists(seats, min_size=1, max_size=SEATS, unique=True),
              st.sampled_from(["move_timeout", "challenge_timeout"])),
    st.tuples(st.just("wait"), st.integers(0, 10 * 86_400)),
    st.tuples(st.just("answer"), seats),
    st.tuples(st.just("timeout"), seats),
    st.tuples(st.just("close_all")),
    st.tuples(st.just("pause")),
    st.tuples(st.just("resume")),
    st.tuples(st.just("extend"), seats, st.integers(1, 14 * 86_400)),
    st.tuples(st.just("vacation"), seats, st.integers(-5 * 86_400, 20 * 86_400),
              st.integers(1, 21 * 86_400)),
), max_size=40)
banks = st.one_of(st.none(), st.integers(3600, 2_592_000).flatmap(
    lambda cap: st.builds(Bank, cap=st.just(cap), increment=st.integers(60, cap))))


@given(bank=banks, steps=steps)
def test_no_bank_above_its_cap_and_no_deadline_in_the_past_at_creation(bank, steps):
    clocks = Clocks(bank=bank)
    for step in steps:
        kind = step[0]
        if kind == "open":  # several seats at once: a simultaneous decision
            for seat in step[1]:
                if seat in clocks.decisions:
                    clocks.close(seat)  # replaced by the new decision
                clocks.open(seat, step[2])
        elif kind == "wait":
            clocks.now += dt.timedelta(seconds=step[1])
        elif kind == "answer" and step[1] in clocks.decisions:
            clocks.close(step[1])
        elif kind == "timeout" and step[1] in clocks.decisions and not clocks.paused:
            clocks.now = max(clocks.now, clocks.decisions[step[1]].deadline)
            clocks.close(step[1])
            assert bank is None or clocks.left[step[1]] == 0
        elif kind == "close_all":
            for seat in list(clocks.decisions):
                clocks.close(seat)
        elif kind == "pause" and not clocks.paused:
            clocks.pause()
        elif kind == "resume" and clocks.paused:
            clocks.resume()
        elif kind == "extend" and step[1] in clocks.decisions:
            clocks.extend(step[1], step[2])
        elif kind == "vacation":
            start = clocks.now + dt.timedelta(seconds=step[2])
            clocks.away[step[1]].append((start, start + dt.timedelta(seconds=step[3])))
            if step[1] in clocks.decisions and not clocks.paused:
                clocks.place(step[1])
        clocks.check()


def test_a_bank_gives_its_increment_up_to_its_cap():
    bank = Bank(cap=3 * 86_400, increment=12 * 3600)
    assert bank.opening(None) == 3 * 86_400  # the whole bank, capped
    assert bank.opening(0) == 12 * 3600  # a bank that ran out: the increment
    assert bank.opening(86_400) == 86_400 + 12 * 3600
    assert bank.left_after(86_400, 3600) == 82_800
    assert bank.left_after(86_400, 90_000) == 0
    assert bank.extended(2 * 86_400, 7 * 86_400) == 3 * 86_400


def test_the_speeds_options_give_a_bank_or_a_timer():
    bank = {"speed": "bank", "bank_initial": 7200, "bank_increment": 600}
    assert deadlines.bank_of(bank) == Bank(cap=7200, increment=600)
    assert deadlines.opening_seconds(bank, "challenge_timeout", 100) == 700
    slow = {"speed": "slow", "move_timeout": 259_200, "challenge_timeout": 129_600}
    assert deadlines.bank_of(slow) is None
    assert deadlines.opening_seconds(slow, "challenge_timeout", None) == 129_600
    # Options stored before speeds existed: their timers, a day without one.
    assert deadlines.opening_seconds({"move_timeout": 600}, "move_timeout", None) == 600
    assert deadlines.opening_seconds({}, "challenge_timeout", None) == 86_400
