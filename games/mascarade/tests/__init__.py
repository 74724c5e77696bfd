"""Mascarade's own tests: its rules, bots and material (no Django), its pages and its API; the
suite's shared harness (tests/) runs over every game of the catalog besides."""
