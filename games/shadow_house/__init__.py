"""Shadow House Mascarade (3 to 8 players): its pure rules (``rules/``) and its presentation."""
