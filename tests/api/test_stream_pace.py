"""The pace of a stream woken through Redis (:class:`games.live.streams.Pace`): a heartbeat
every ``STREAM_HEARTBEAT_SECONDS``, a full check every ``STREAM_CHECK_SECONDS``, each on its own
clock, however often the stream is woken; each stream's first check at a random phase, so that
thousands of streams opened together spread their checks over the interval."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from games.live.streams import Pace


def ticks(pace: Pace, until: float) -> tuple[list[float], list[float]]:
    """When the heartbeats and the full checks come, the stream idle up to ``until``."""
    beats, checks = [], []
    while (now := pace.next_at()) <= until:
        beat, check = pace.due(now)
        assert beat or check
        if beat:
            beats.append(now)
        if check:
            checks.append(now)
    return beats, checks


def test_the_heartbeat_and_the_full_check_keep_their_own_intervals():
    beats, checks = ticks(Pace(heartbeat=15, check=60, now=100, phase=20), until=400)
    assert beats == [100 + 15 * n for n in range(1, 21)]
    assert checks == [120, 180, 240, 300, 360]


def test_a_wake_between_moves_neither():
    pace = Pace(heartbeat=15, check=60, now=0, phase=20)
    assert pace.due(7) == (False, False)  # woken by a move: nothing is due
    assert pace.next_at() == 15
    assert pace.due(16.5) == (True, False)  # late (a busy process): the next, its interval on
    assert (pace.beat_at, pace.check_at) == (31.5, 20)
    assert pace.due(31.5) == (True, True)
    assert (pace.beat_at, pace.check_at) == (46.5, 91.5)


def test_streams_opened_together_spread_their_full_checks():
    rng = random.Random(45)
    paces = [Pace.start(heartbeat=15, check=60, now=0, rng=rng) for _ in range(5000)]
    firsts = [pace.check_at for pace in paces]
    assert min(firsts) >= 0 and max(firsts) <= 60
    # (83 a second on average: none of the 60 seconds gets all of them, nor twice its share)
    per_second = Counter(int(first) for first in firsts)
    assert len(per_second) == 60 and max(per_second.values()) < 2 * 5000 / 60
    # Each keeps its phase: one interval later, as spread.
    for pace in paces:
        while pace.next_at() < pace.check_at:
            pace.due(pace.next_at())
        pace.due(pace.check_at)
    assert [pace.check_at - 60 for pace in paces] == pytest.approx(firsts)
