"""A tiny seeded random generator whose whole state is one 64-bit integer (SplitMix64), for every
game's rules to keep in its state.

Python's :class:`random.Random` state is 625 integers: too big to live in every stored game state,
and its algorithms may change between Python versions. This one is fixed here, so the same seed
gives the same deal on every machine and version, and its state serialises as a single int.
"""

from __future__ import annotations

import hashlib

_MASK64 = (1 << 64) - 1
#: Ints below this (4,300 digits at most, Python's default printing limit) are hashed in decimal.
_DECIMAL_LIMIT = 10**4300


def seed_state(seed: int) -> int:
    """The generator state for any Python int ``seed`` (negative and huge seeds included).

    The seed's decimal spelling is hashed (BLAKE2b, 8 bytes), so that nearby seeds give unrelated
    streams and no two ints share a state by truncation. Python does not print ints of more than
    4,300 digits in decimal (``sys.get_int_max_str_digits``): those are spelled ``"x"`` and their
    hexadecimal digits, which no decimal spelling starts with.
    """
    seed = int(seed)
    text = str(seed) if -_DECIMAL_LIMIT < seed < _DECIMAL_LIMIT else "x" + hex(seed)
    digest = hashlib.blake2b(text.encode("ascii"), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def next_u64(state: int) -> tuple[int, int]:
    """``(new_state, value)``: one SplitMix64 step."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return state, z ^ (z >> 31)


def below(state: int, bound: int) -> tuple[int, int]:
    """``(new_state, k)`` with ``k`` uniform in ``0..bound-1`` (rejection sampling, no bias)."""
    limit = ((1 << 64) // bound) * bound
    while True:
        state, value = next_u64(state)
        if value < limit:
            return state, value % bound


def shuffle(state: int, items: list) -> tuple[int, list]:
    """``(new_state, shuffled copy of items)`` (Fisher–Yates)."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        state, j = below(state, i + 1)
        out[i], out[j] = out[j], out[i]
    return state, out
