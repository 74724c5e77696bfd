"""Games recorded by the engine before ruling S6 and SH-16 (``recorded_games.json``: seeded
games of 3, 5 and 8 players over several rounds, one where a Sharing's cards all went at once and
the turn passed twice, snapshots taken while a Witness looked and after a Little one spoke) replay
exactly as they were played: their stored options have no ``revision``, so they play revision 1,
from the seed and from the snapshot the site stored then (with ``witnessed`` and ``culprit_seen``
as lists), in the engine and as the site reads them. Under the latest revision the same seed and
moves would give something else: that is why the revision is kept in the options."""

from __future__ import annotations

from pathlib import Path

import pytest

from games.shadow_house.rules import GAME as G
from tests.engine.recorded import check_replays_as_recorded, plays_otherwise_under, recorded
from tests.site.recorded import check_the_site_reads_it_as_recorded

GAMES = recorded(Path(__file__).with_name("recorded_games.json"))


def test_the_recorded_games_hold_what_changed():
    snapshots = [entry["snapshot"]["state"] for entry in GAMES]
    assert any(state["witnessed"] for state in snapshots)
    assert any(any(seen) for state in snapshots for seen in state["culprit_seen"])
    assert any("twice" in entry["why"] for entry in GAMES)


@pytest.mark.parametrize("entry", GAMES, ids=[entry["why"] for entry in GAMES])
def test_a_game_recorded_before_revisions_replays_as_it_was_played(entry):
    assert "revision" not in entry["options"]
    final = check_replays_as_recorded(G, entry)
    assert final.revision == 1 and G.result(final) is not None
    latest = G.normalize_options(entry["options"])
    assert latest["revision"] == 2 and plays_otherwise_under(G, entry, latest)


@pytest.mark.django_db
@pytest.mark.parametrize("entry", GAMES, ids=[entry["why"] for entry in GAMES])
def test_the_site_reads_a_game_recorded_before_revisions_as_it_was_played(entry):
    check_the_site_reads_it_as_recorded(G, entry)
