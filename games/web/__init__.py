"""The site's pages for games, a module a page: :mod:`.lobby` (the home page and the lobby),
:mod:`.create`, :mod:`.table` (the table and its live part) with :mod:`.table_actions` (its
forms), :mod:`.history` (a replay, the older moves) and :mod:`.chat` (the table chat),
:mod:`.rules_page`, :mod:`.profile`, :mod:`.unsubscribe`; :mod:`.clock` the viewer's time zone and
times left, which several show. Views stay thin: reads through ``games.core.selectors``, writes
through ``games.core.services``."""
