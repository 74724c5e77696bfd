"""Games recorded by the engine before rulings E3b and E5 (``recorded_games.json``: a game with
an empty hand's response, one with an Assassin facing one kind, one with a single card recruited,
two won while a Recruiter's or an Assassin's decision was still asked) replay exactly as they
were played: their stored options have no ``revision``, so they play revision 1, from the seed
and from the snapshot the site stored then, in the engine and as the site reads them. Under the
latest revision the same seed and moves would give something else: that is why the revision is
kept in the options."""

from __future__ import annotations

from pathlib import Path

import pytest

from games.ere_des_masques.rules import GAME as G
from tests.engine.recorded import check_replays_as_recorded, plays_otherwise_under, recorded
from tests.site.recorded import check_the_site_reads_it_as_recorded

GAMES = recorded(Path(__file__).with_name("recorded_games.json"))


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
