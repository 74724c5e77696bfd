"""Mascarade (Bruno Faidutti; 4–12 players): its pure rules in :mod:`.rules`, its presentation
beside them (:mod:`.kit`, :mod:`.display`, :mod:`.forms`, :mod:`.schema`, ``templates/mascarade/``),
registered in ``games.core.catalog`` by :mod:`.apps`."""
