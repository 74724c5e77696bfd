"""L'Ère des Masques (2 players): its pure rules (``rules/``) and its presentation (``kit``,
``display``, ``forms``, ``schema``, ``templates/ere_des_masques/``)."""
