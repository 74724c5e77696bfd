"""Shadow House Mascarade's own tests: its rules, bots and options (no Django), its pages, its API
and a round in a browser; the suite's shared harness (tests/) runs over every game of the catalog
besides."""
