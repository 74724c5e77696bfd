"""Hostile values for a game's property tests (``games/<game>/tests/``: L'Ère des Masques',
Shadow House's): what a client could send in a move or the options, so that the rules refuse each
with a short message and never crash. (Mascarade's own, older and larger set is in
``games/mascarade/tests/test_junk_input.py``.)"""

from __future__ import annotations

from hypothesis import strategies as st

#: An error message a player reads: a sentence, not a page.
MAX_MESSAGE = 400

DEEP: list = []
for _ in range(3000):
    DEEP = [DEEP]

#: Too large to print, nested too deep to print, too long to quote.
EXTREMES = [10**5000, -(10**5000), 2**20_000, 10**40, -(2**64), float("nan"), float("inf"),
            "x" * 10_000, "\x00" * 50, ["x" * 10_000] * 100, list(range(5000)), DEEP]


def junk_values(words: list[str], small: list[int], deck: list[str], min_size: int,
                max_size: int):
    """JSON values built of ``words`` (the game's own, so that values get past the first
    checks), ``small`` numbers and the usual leaves, lists of ``deck``'s cards almost a deck
    long (``min_size`` to ``max_size``), and the :data:`EXTREMES`."""
    leaves = st.one_of(st.none(), st.booleans(), st.integers(), st.sampled_from(small),
                       st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(words),
                       st.text(max_size=20))
    json_values = st.one_of(
        leaves,
        st.recursive(leaves, lambda children: st.lists(children, max_size=4)
                     | st.dictionaries(st.one_of(st.sampled_from(words), st.text(max_size=8)),
                                       children, max_size=4), max_leaves=8),
        st.lists(st.sampled_from(deck), min_size=min_size, max_size=max_size),
    )
    # Unprintable values are drawn by index, so that a failing example prints.
    extreme = st.integers(0, len(EXTREMES) - 1).map(lambda i: EXTREMES[i])
    return st.one_of(json_values, extreme)
