"""Ratings per game (OpenSkill's Plackett-Luce) and players' reliability.

A rating changes once per finished game, in the transaction that ends it
(:mod:`.subscribers`, on :class:`games.core.events.GameEnded`): the game's rules say how each
player finished (``Result.ranks`` and ``Result.teams``, read by
:func:`games.engine.base.standings`); bots' seats are left out, and a game with fewer than two
rated sides (fewer than two humans) is not rated. Aborted games never end by their rules: they
are never rated. ``manage.py recompute_ratings`` rates every finished game again, in order
(:func:`.services.recompute`).

Modules: :mod:`.skill` (the model, its parameters, the figure shown), :mod:`.services` (the
writes), :mod:`.reliability` (how reliability is counted), :mod:`.selectors` (the reads),
:mod:`.models`.

The reads (:mod:`games.ratings.selectors`), for the pages and the API:

- ``player_profile(user) -> dict``: ``{"player", "joined", "ratings", "reliability", "games"}``;
- ``ratings_of(user) -> list[dict]``: ``[{"game", "rating", "provisional", "games"}]``, every
  game of the catalog;
- ``rating_history(user, kind) -> list[dict]``: ``[{"game", "name", "at", "rating", "place",
  "players"}]``, oldest first (the chart's points);
- ``leaderboard(kind) -> QuerySet[Rating]`` (to paginate), then
  ``leaderboard_rows(ratings, first_rank=1) -> list[dict]``: ``[{"rank", "player", "rating",
  "provisional", "games"}]``;
- ``reliability(user, as_of=None) -> dict``: ``{"percent", "decisions", "answered", "removed",
  "left", "days", "as_of"}`` (``percent`` ``None`` without decisions);
- ``ratings_for_seats(seats, kind) -> dict[int, dict]``: by position, ``{"rating": {"rating",
  "provisional", "games"}, "reliability": percent or None}``, humans only;
- ``rating_figures(mu, sigma, games) -> dict``: ``{"rating", "provisional", "games"}``;
- ``game_counts(user) -> dict``: ``{"finished", "active", "won", "rated", "by_game"}``.
"""
