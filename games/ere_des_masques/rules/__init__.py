"""L'Ère des Masques (2 players): the pure rules.

Rules: ``shared/rules/ere-des-masques.md`` (§n, rulings E1–E5); the engine's own rulings are in
:mod:`.rules`'s docstring. A game plays the rules' revision its options name (``revision``: 2,
the latest, follows E3b and E5; options stored before revisions have none and play revision 1).
Pure: nothing here imports Django or the site, only :mod:`games.engine`.

Modules
-------
:mod:`.cards`     the five kinds (:data:`KINDS`, §1 order), their French names and powers, zone sums
:mod:`.options`   :func:`normalize_options`
:mod:`.state`     :class:`State`, its fields and JSON form
:mod:`.rules`     set-up, awaited decisions, legal moves, ``apply``, timeout defaults, rulings
:mod:`.views`     the projections of a state and of an event for a viewer (§4)
:mod:`.game`      :data:`GAME`, the :class:`games.engine.base.Game` object
:mod:`.bots`      :class:`HeuristicBot`, the bot that plays from what its player knows

Player ``p`` always sits at seat ``p`` (0 or 1). Card kinds: ``"noble"``, ``"recruiter"``,
``"spy"``, ``"brute"``, ``"assassin"``; every list of cards the engine shows a hand or a choice in
is in that order (a zone's ``zone_cards`` is in the order the cards were laid).

Decisions (``Pending.decision``) and moves
------------------------------------------
- ``"turn"`` (``move_timeout``; timeout: draw): ``{"type": "draw"}`` ·
  ``{"type": "play", "card": kind}``
- ``"respond"`` (``challenge_timeout``; timeout: let pass), the opponent after a play:
  ``{"type": "let_pass"}`` · ``{"type": "counter", "kind": kind}`` (only with a card in hand)
- ``"discard"`` (``move_timeout``; timeout: the first card of the hand), the counterer:
  ``{"type": "discard", "card": kind}``
- ``"keep"`` (``move_timeout``; timeout: the first card drawn in §1 order), Recruiter:
  ``{"type": "keep", "card": kind}``
- ``"assassinate"`` (``move_timeout``; timeout: the first kind of the opponent's zone in §1
  order), Assassin: ``{"type": "assassinate", "card": kind}``

[E5] (revision 2) A response from an empty hand, a keep among a single card and an Assassin's
choice in a zone of one kind are never awaited: the move that leads to them takes them, and their
events say ``forced``. [E3b] A Recruiter or an Assassin whose card just made its owner win asks
nothing: the game ends.

View (``GAME.view(state, viewer)``)
-----------------------------------
::

    {"phase": "playing" | "over", "turn": 7, "turn_limit": 300, "turn_seat": 1,
     "awaiting": [{"player": 0, "seat": 0, "decision": "respond",
                   "timer": "challenge_timeout"}],
     "seats": [{"seat": 0, "player": 0, "hand_size": 4,
                "zone": {"noble": 2, "spy": 1},              # kinds present, §1 order
                "zone_cards": ["noble", "spy", "noble"],      # in the order laid
                "to_win": {"four_of_a_kind": 2, "five_kinds": 3}}, ...],
     "draw_pile": 17, "discard": ["brute", "noble"], "discard_size": 2,   # oldest first
     "played": null | {"seat": 1, "revealed": false, "countered": false,
                       "counter_kind": null | kind, "right": null | bool,
                       "card": null | kind},    # the kind: its owner and the moderator before
                                                # the reveal, everyone after
     "power": null | {"seat": 1, "kind": "recruiter" | "assassin",
                      "count": 5 | null},       # a power waiting for its decision; count: the
                                                # Recruiter's cards drawn
     "recruited": null | [kinds],               # the Recruiter's cards: its owner (and the
                                                # moderator) only, while they choose
     "winners": [seats], "reason": null | "four_of_a_kind" | "five_kinds" | "stalemate"
                                     | "turn_limit",
     "kind": null | kind,                       # the kind of a four-of-a-kind victory
     "you": null | {"player": 0, "seat": 0, "hand": [kinds],
                    "seen": [{"seq": 12, "hand": [kinds]}]}}   # the Spy's sightings

``played`` is present from the play until the card is placed or discarded: during the answer
(``revealed`` false) and, after a counter, during the counterer's discard (``revealed`` true,
``right`` told). ``you`` is null for spectators and the moderator. ``seen[].seq`` is the rules'
move number (like Mascarade's knowledge ``seq``), the move whose resolution showed the hand. The
moderator's view adds ``"moderator"``: ``{"hands": [[kinds], [kinds]], "pile": [kinds, top
first], "played": kind | null, "recruited": [kinds], "seen": [per seat], "idle", "seq"}``.

Events (``apply`` returns them with the whole truth; ``view_event`` filters)
---------------------------------------------------------------------------
Every event has ``type``, ``seat`` (the seat it is about, or null) and ``turn``. ``(o)`` marks
fields only the event's seat (and the moderator) sees; nothing else is hidden:

- ``play``  ``card`` (o): a card put face down
- ``draw``  ``count``, ``cards`` (o), ``why`` (``"turn"``, ``"noble"``, ``"spy"``)
- ``let_pass`` / ``counter`` ``kind``: the answer (seat: the one answering); ``let_pass`` has
  ``forced: true`` when the rules let the card pass for an empty hand (E5)
- ``reveal``  ``card`` (seat: the card's owner); ``right`` (bool) when countered
- ``place``  ``card``: the revealed card stays in the seat's zone
- ``discard``  ``card``, ``why`` (``"counter"``: the counterer's own discard; ``"countered"``: the
  played card after a right counter; ``"brute"``, ``"assassin"``, ``"recruiter"``), ``from``
  (``"hand"``, ``"zone"``, ``"played"``, ``"drawn"``: among the Recruiter's cards); ``by`` (the
  seat whose Brute or Assassin did it); ``forced: true`` when the rules chose the Assassin's kind
  (E5). The seat is the one whose card it was.
- ``power``  ``kind``: a power starts resolving for the seat
- ``spy``  ``target``, ``hand`` (o): the target's hand the Spy saw
- ``recruit``  ``count``, ``cards`` (o): the Recruiter's draw
- ``keep``  ``card`` (o): the card the Recruiter kept; ``forced: true`` when it was the single
  card drawn (E5)
- ``reshuffle``  ``count``: the discard pile became the draw pile (seat null)
- ``turn``  ``player``: the seat's turn starts
- ``end``  ``winners`` (seats), ``players``, ``reason``; ``kind`` for four of a kind (seat null)
"""

from __future__ import annotations

from .bots import HeuristicBot
from .cards import FRENCH, KINDS, POWERS
from .game import GAME, EreDesMasques
from .options import OPTION_KEYS, normalize_options
from .rules import DECISIONS, MOVE_FIELDS, TURN_LIMIT
from .state import State

__all__ = [
    "DECISIONS",
    "FRENCH",
    "GAME",
    "KINDS",
    "MOVE_FIELDS",
    "OPTION_KEYS",
    "POWERS",
    "TURN_LIMIT",
    "EreDesMasques",
    "HeuristicBot",
    "State",
    "normalize_options",
]
