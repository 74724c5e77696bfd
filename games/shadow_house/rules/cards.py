"""The cards of Shadow House Mascarade (``shared/rules/shadow-house.md`` §1) and the set-up table
of §2.

:data:`CARDS` is the order of §1: every list the engine shows a hand, a choice or a pool in
follows it, and so do the turn's timeout (§6) and the box order of a seeded round. The box's
counts are the project's ruling **[S1]** (36 cards).
"""

from __future__ import annotations

from collections.abc import Iterable

#: The sixteen card ids, in the order of §1.
CARDS: tuple[str, ...] = (
    "first_on_scene", "culprit", "detective", "accomplice", "sheriff", "alibi", "toby",
    "little_one", "sharing", "rumour", "panic", "divining_hat", "witness", "maid", "governess",
    "exchange",
)
#: The French names printed on the cards.
FRENCH: dict[str, str] = {
    "first_on_scene": "Premier sur place",
    "culprit": "Coupable",
    "detective": "Détective",
    "accomplice": "Complice",
    "sheriff": "Shérif",
    "alibi": "Alibi",
    "toby": "Toby",
    "little_one": "Le Petit Dernier",
    "sharing": "Partage",
    "rumour": "Rumeur",
    "panic": "Panique !!!",
    "divining_hat": "Chapeau divinatoire",
    "witness": "Témoin",
    "maid": "La Servante",
    "governess": "La Gouvernante",
    "exchange": "Échange",
}
#: What each card does when played face up (§1), in English.
EFFECTS: dict[str, str] = {
    "first_on_scene": "Starts the round (its holder plays it first). No other effect.",
    "culprit": "May be played (or discarded) only as the last card of your hand; doing so wins "
               "the round for the culprit side.",
    "detective": "Ask a player \"are you the culprit?\"; they answer yes only if they hold the "
                 "Culprit and no Alibi.",
    "accomplice": "You become an accomplice for the rest of the round. Choose a player: they "
                  "discard a card of their choice face up, then draw one from the pile.",
    "sheriff": "Give the Handcuffs to another player.",
    "alibi": "No effect when played. While in your hand you answer no to a Detective.",
    "toby": "A random card of another player's hand is shown to everyone; the Culprit wins you "
            "the round, any other card goes back.",
    "little_one": "You learn which player holds the Culprit.",
    "sharing": "Every player with cards gives one of their choice to their left neighbour, all "
               "at once.",
    "rumour": "Every player takes a random card from their right neighbour's hand (as the hands "
              "were before).",
    "panic": "Every player with cards, you included, puts one in a pool; you see the pool; it is "
             "shuffled and dealt one to each contributor. Nothing as your last card.",
    "divining_hat": "Say what you suspect (a short text to the table).",
    "witness": "Look at a player's hand. If you saw the Culprit or an Accomplice and still hold "
               "a card, you may swap a card with them, each choosing their own.",
    "maid": "Detectives cannot question you until your next turn.",
    "governess": "Toby and the Sheriff cannot target you until your next turn.",
    "exchange": "Give a player a card of your choice; they give you one of theirs. Nothing if "
                "your hand is empty.",
}
#: How many of each card the box holds [S1].
BOX_COUNTS: dict[str, int] = {
    "first_on_scene": 1, "culprit": 1, "detective": 2, "accomplice": 2, "sheriff": 1, "alibi": 3,
    "toby": 2, "little_one": 1, "sharing": 3, "rumour": 4, "panic": 2, "divining_hat": 3,
    "witness": 3, "maid": 2, "governess": 2, "exchange": 4,
}
#: The box, in the order of §1 (36 cards).
BOX: tuple[str, ...] = tuple(card for card in CARDS for _ in range(BOX_COUNTS[card]))
BOX_SIZE = len(BOX)

MIN_PLAYERS = 3
MAX_PLAYERS = 8
HAND_SIZE = 4
#: The game ends after the round in which someone reaches this many points (§4).
GOAL = 5

#: §2: the fixed cards of a round by number of players (the other types: none fixed).
FIXED: dict[int, dict[str, int]] = {
    3: {"first_on_scene": 1, "culprit": 1, "detective": 1, "accomplice": 0, "sheriff": 1,
        "alibi": 1},
    4: {"first_on_scene": 1, "culprit": 1, "detective": 1, "accomplice": 1, "sheriff": 1,
        "alibi": 1},
    5: {"first_on_scene": 1, "culprit": 1, "detective": 1, "accomplice": 1, "sheriff": 1,
        "alibi": 2},
    6: {"first_on_scene": 1, "culprit": 1, "detective": 2, "accomplice": 2, "sheriff": 1,
        "alibi": 2},
    7: {"first_on_scene": 1, "culprit": 1, "detective": 2, "accomplice": 2, "sheriff": 1,
        "alibi": 3},
    8: {"first_on_scene": 1, "culprit": 1, "detective": 2, "accomplice": 2, "sheriff": 1,
        "alibi": 3},
}
#: §2: the "others" drawn at random from the rest of the box.
OTHERS: dict[int, int] = {3: 7, 4: 10, 5: 13, 6: 15, 7: 18, 8: 22}

#: Cards played with a target when somebody can be chosen (§3; the engine's eligibility rules
#: are in :func:`games.shadow_house.rules.rules.targets`).
TARGETED: tuple[str, ...] = ("detective", "accomplice", "sheriff", "toby", "witness",
                             "exchange")
#: The two protections (§1), each until the protected player's next turn [SH-5].
PROTECTIONS: tuple[str, ...] = ("maid", "governess")

ORDER = {card: i for i, card in enumerate(CARDS)}


def in_order(cards: Iterable[str]) -> list[str]:
    """``cards`` sorted in the order of §1 (a hand as the views show it)."""
    return sorted(cards, key=ORDER.__getitem__)


def distinct(cards: Iterable[str]) -> list[str]:
    """The ids present in ``cards``, each once, in the order of §1."""
    present = set(cards)
    return [card for card in CARDS if card in present]


def round_cards(box_order: list[str], players: int) -> tuple[list[str], list[str]]:
    """``(deck, pile)`` of a round from a box order [SH-1]: the fixed cards of §2 are the first
    cards of each fixed type in ``box_order``; the others are the first :data:`OTHERS` cards of
    the rest of the box, in that order; the deck is the chosen cards in box order, the pile the
    unused cards in box order (top first)."""
    fixed = dict(FIXED[players])
    chosen = [False] * len(box_order)
    for i, card in enumerate(box_order):
        if fixed.get(card, 0) > 0:
            fixed[card] -= 1
            chosen[i] = True
    others = OTHERS[players]
    for i in range(len(box_order)):
        if others == 0:
            break
        if not chosen[i]:
            chosen[i] = True
            others -= 1
    deck = [card for i, card in enumerate(box_order) if chosen[i]]
    pile = [card for i, card in enumerate(box_order) if not chosen[i]]
    return deck, pile
