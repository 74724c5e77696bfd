"""Ratings per game (OpenSkill's Plackett-Luce) and players' reliability.

A rating changes once per finished game, in the transaction that ends it
(``games.core.services.ratings``, on :class:`games.core.events.GameEnded`), which also counts
the game in its players' tallies of games finished and won: the game's rules say how each
player finished (``Result.ranks`` and ``Result.teams``, read by
:func:`games.engine.base.standings`); bots' seats are left out, and a game with fewer than two
rated sides (fewer than two humans) is not rated. Aborted games never end by their rules: they
are never rated. ``manage.py recompute_ratings`` rates every finished game again, in order,
and counts the tallies again (``games.core.services.ratings.recompute``).

Modules: :mod:`.skill` (the model, its parameters, the figure shown), the writes in
``games.core.services.ratings`` (a layer above), :mod:`.reliability` (how reliability is
counted), :mod:`.selectors` (the reads), :mod:`.models`.

The reads (:mod:`games.ratings.selectors`), for the pages and the API (``kinds``: the games the
site serves, ``games.core.catalog.ids()``; this layer is below the catalog):

- ``player_profile(user, kinds) -> dict``: ``{"player", "joined", "ratings", "reliability",
  "games"}`` (the three below);
- ``ratings_of(user, kinds) -> list[dict]``: ``[{"game", "rating", "provisional", "games"}]``;
- ``reliability(user, as_of=None) -> dict``: ``{"percent", "decisions", "answered", "removed",
  "left", "days", "as_of"}`` (``percent`` ``None`` without decisions; the 90 days before
  ``as_of``, default today UTC); ``reliability_percent(user) -> int | None``;
- ``game_counts(user, kinds) -> dict``: ``{"finished", "active", "won", "rated", "by_game":
  {kind: {...}}}``;
- ``rating_history(user, kind, latest=None) -> list[dict]``: ``[{"game", "name", "at",
  "rating", "place", "players"}]``, the latest ``CHART_GAMES`` (100) rated games, oldest first
  (the chart's points; ``rating`` as shown after that game);
- ``leaderboard(kind) -> QuerySet[Rating]`` (to paginate), then
  ``leaderboard_rows(ratings, first_rank=1) -> list[dict]``: ``[{"rank", "player", "rating",
  "provisional", "games"}]``;
- ``seat_figures(seat) -> dict``: ``{"rating": {"rating", "provisional", "games"} or None,
  "reliability": percent or None}`` of a seat read by ``games.core.selectors`` (its seats carry
  them: every game read's ``players`` has them, no query more);
- ``ratings_for_seats(seats, kind) -> dict[int, dict]``: the same by position, for seats read
  otherwise (two queries);
- ``rating_figures(ordinal, games) -> dict``: ``{"rating", "provisional", "games"}``.
"""
