"""Celery tasks of the games app."""

from __future__ import annotations

from celery import shared_task

from . import services


@shared_task(name="games.play_bots", ignore_result=True, acks_late=True)
def play_bots(game_id: str, seq: int) -> int:
    """Play the bots' pending decisions of ``game_id`` scheduled at ``seq``.

    Takes ids and the seq it was scheduled for, so it is safe to run twice or late: a game that
    moved on (or ended) since is left alone, and each move is sent with ``expected_seq``.
    """
    return services.play_bots(game_id, seq)
