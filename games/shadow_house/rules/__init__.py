"""Shadow House Mascarade (3 to 8 players): the pure rules.

Rules: ``shared/rules/shadow-house.md`` (§n, rulings S1–S9); the interface below (decisions, moves,
view, events, rulings SH-1 to SH-6) was fixed before the engine and the site were written side by
side; SH-7 onwards are the engine's own. Pure: nothing here imports Django or the site, only
:mod:`games.engine`.

Modules
-------
:mod:`.cards`     the sixteen card ids (:data:`CARDS`, §1 order), French names, effects, the box
                  (S1) and the set-up table (§2)
:mod:`.options`   :func:`normalize_options`
:mod:`.state`     :class:`State`, its fields and JSON form
:mod:`.rules`     set-up, awaited decisions, legal moves, ``apply``, timeout defaults
:mod:`.views`     the projections of a state and of an event for a viewer (§5)
:mod:`.game`      :data:`GAME`, the :class:`games.engine.base.Game` object
:mod:`.bots`      :class:`HeuristicBot`, the bot that plays from what its player knows

Player ``p`` always sits at seat ``p`` (0..n-1); play goes clockwise (seat + 1); the **left
neighbour** of seat ``s`` is ``(s + 1) % n``, the right neighbour ``(s - 1) % n``. Card ids, in
§1 order: ``first_on_scene``, ``culprit``, ``detective``, ``accomplice``, ``sheriff``, ``alibi``,
``toby``, ``little_one``, ``sharing``, ``rumour``, ``panic``, ``divining_hat``, ``witness``,
``maid``, ``governess``, ``exchange``. Hands are unordered: every hand, choice and pool is shown
in that order.

Revisions
---------
A game plays the rules' revision its options name (``revision``: 2, the latest, follows S6 and
SH-16; options stored before revisions have none and play revision 1, as they were played:
:mod:`.options`).

Rulings
-------
- **[SH-1]** A box order (the staff option ``deal``'s *k*-th list for round *k*) becomes a round:
  the fixed cards of §2 are the first cards of each fixed type in box order, the others the first
  cards of the rest of the box in box order; the deck is those cards in box order, dealt in
  packets of 4 (seat 0 the first four); the pile is the unused cards in box order, top first.
- **[SH-2]** ``first_seat`` (round 1 only): after the deal, if the First on scene is elsewhere it
  swaps places with the first card dealt to that seat.
- **[SH-3]** The First on scene is played for its holder as the round opens (``turn``, then
  ``play`` with ``forced: true``); the turn then passes clockwise.
- **[SH-4]** The engine makes a choice at once only where the forcing is public: a turn with one
  card in hand played without a target (an untargeted card, or nobody eligible), and a give,
  discard or contribution from a hand of one card. The Witness's decision is always asked when
  its player still holds a card. (While a player with one card is awaited for their turn, the
  table can tell that this card takes a target, so is not the Culprit; the card is shown as soon
  as it is played, and nobody else has a decision meanwhile.)
- **[SH-5]** Maid and Governess protect until the protected player's turn comes round, played or
  skipped (``unprotect`` right after that seat's ``turn`` or ``skip``).
- **[SH-6]** A culprit who also played an Accomplice scores once (+2 in case 3). In case 4 the
  Detective's or Toby's player only scores the +1 of the others (when neither culprit nor
  accomplice).
- **[SH-7]** Points follow §4 to the letter even where nobody gains: in cases 1, 2 and 4 only
  players outside the culprit side score; if everybody is the culprit or an accomplice the round
  gives no point, and a flash game ends then with no winner.
- **[SH-8]** Seeded rounds: [S6] the fixed cards of §2 first, then the rest of the box shuffled,
  the round's cards chosen from that order as in SH-1 (so the others are drawn evenly from the
  cards left; revision 1 shuffled the whole box, see :mod:`.options`), then the deck and the pile
  are each shuffled again (a card's seat and place in the pile do not depend
  on where its type sits in the box). Every random draw (a shuffle, Toby's card, each Rumour
  card) has a range the whole table knows (a hand's or a pool's size), so the generator's course
  never depends on a hidden card.
- **[SH-9]** The Panic resolves the moment its last card is in, so no state shows a whole pool:
  ``you.pool`` is always null, and the ``panic_pool`` event gives its player the pooled cards
  (in §1 order: who gave which is not shown).
- **[SH-10]** ``you.witnessed`` is shown to the Witness's player while the Witness's effect
  resolves: their decision and, after ``witness_exchange``, the target's ``give``. The witness's
  card is their ``choice`` (``chosen`` is true) until the swap.
- **[SH-11]** A simultaneous choice that is not the last one changes only ``chosen`` and returns
  no event; when the last one is in, the ``give`` (or ``contribute``, ``panic_pool``,
  ``panic_deal``) events come together, clockwise from the card's player. Every player with
  cards takes part in a Sharing or a Panic, the card's player included.
- **[SH-12]** The Rumour's cards are drawn clockwise from its player, every player taking part
  (the Rumour's player too), each from their right neighbour's hand as it was before the effect.
- **[SH-13]** A timeout's "card at random" is uniform among the cards (not the kinds) of the hand
  that the rules allow, drawn from a generator seeded by the state's generator, the move number
  and the player; the game's own generator does not move.
- **[SH-14]** ``say``'s text is stripped; at most 280 characters remain; control characters
  (other than a new line) and lone surrogates are refused as malformed. The ``say`` event is
  sent even for an empty text (nothing said; the site posts only a non-empty text).
- **[SH-15]** ``setup`` returns a state only: the opening of round 1 (its ``round_start``,
  ``deal`` and the First on scene's ``play``) is in the first view, not in an event. Later rounds
  open inside the move that ended the round before, with their events.
- **[SH-16]** A Sharing, a Panic or an Exchange whose cards were all given at once (every hand
  asked held one card) resolves in the move that played it, and the turn then passes once
  (revision 1 passed it a second time: its games replay so).

Decisions (``Pending.decision``) and moves
------------------------------------------
- ``"turn"`` (``move_timeout``; timeout: the first playable card in §1 order, on the left
  neighbour or the next eligible seat clockwise): ``{"type": "play", "card": id}`` or, for a
  targeted card with at least one eligible target, ``{"type": "play", "card": id, "target":
  seat}`` (``target`` required then, refused otherwise). Eligible targets (never yourself):
  Detective, any player without a Maid's protection; Accomplice and Witness, a player holding a
  card; Sheriff, a player other than the Handcuffs' holder without a Governess's protection;
  Toby, a player holding a card without a Governess's protection; Exchange, a player holding a
  card, and only if you still hold one after playing it. The Culprit only as your last card (S4).
- ``"discard"`` (``challenge_timeout``; timeout: a random allowed card), the Accomplice's target:
  ``{"type": "discard", "card": id}`` (the Culprit only as the last card: the round ends at once,
  no draw); then a draw from the pile (none when empty).
- ``"give"`` (``challenge_timeout``; timeout: a random card): ``{"type": "give", "card": id}`` —
  Sharing (every player with cards, to their left neighbour), Exchange (both sides at once), the
  Witness's swap (the target's side).
- ``"contribute"`` (``challenge_timeout``; timeout: a random card): ``{"type": "contribute",
  "card": id}`` — Panic (every player with cards; nothing at all if it was its player's last).
- ``"witness"`` (``move_timeout``; timeout: pass): ``{"type": "witness_exchange", "card": id}``
  (only if the hand seen held the Culprit or an Accomplice) · ``{"type": "witness_pass"}``.
- ``"say"`` (``move_timeout``; timeout: empty): ``{"type": "say", "text": str}``; legal moves list
  ``{"type": "say", "text": ""}``.

Several decisions may be awaited at once (Sharing, Panic, both sides of an Exchange); the effect
resolves when the last is in.

View (``GAME.view(state, viewer)``)
-----------------------------------
::

    {"phase": "playing" | "over", "round": 1, "flash": false, "goal": 5,
     "turn": 12,                                # the number of moves applied so far
     "turn_seat": 3 | null,                     # whose turn; null while an effect resolves
     "awaiting": [{"player", "seat", "decision", "timer"}],
     "seats": [{"seat": 0, "player": 0, "hand_size": 4, "points": 2,
                "played": ["first_on_scene", "maid"],   # face up in front, in order played
                "accomplice": false, "handcuffs": false,
                "protected": ["maid"] | ["governess"] | [],
                "chosen": false}, ...],                 # a simultaneous choice already sent
     "pile_size": 4, "discards": [ids, oldest first],
     "effect": null | {"card": "sharing" | "panic" | "exchange" | "witness" | "accomplice"
                               | "divining_hat", "seat": s, "target": seat | null},
     "rounds": [{"round": 1, "case": 1..4, "culprit": seat, "accomplices": [seats],
                 "by": seat | null, "gained": [per seat], "points": [per seat]}],
     "winners": [seats], "reason": null | "points" | "flash",
     "you": null | {"player": p, "seat": p, "hand": [ids],
                    "choice": null | id,
                    "culprit_seen": null | {"seat": s, "turn": t},
                    "witnessed": null | {"seat": s, "hand": [ids], "turn": t},
                    "pool": null}}

``turn`` values (the view's and those in ``culprit_seen`` and ``witnessed``) count the rules'
moves: ``t`` is the move that showed it. Spectators and the moderator have ``you`` null; the
moderator's view adds ``"moderator"``: ``{"hands": [[ids] per seat], "pile": [ids, top first],
"choices": [id | null per seat], "culprit_seen": [per seat], "witnessed", "deals_left", "seq"}``.

Events (``apply`` returns them with the whole truth; ``view_event`` filters)
---------------------------------------------------------------------------
Every event has ``type``, ``seat`` (the seat it is about, or null) and ``round``. ``(x)`` marks a
field only some players (and the moderator) see; for everyone else the key is absent:

- ``round_start`` ``hand_sizes``, ``pile_size`` (seat null); ``deal`` ``cards`` (x: that seat)
- ``turn`` / ``skip`` (no field): a seat's turn starts / a seat without cards is passed over
- ``play`` ``card``, ``target`` (seat or null), ``forced``
- ``detective`` ``target``, ``answer``
- ``accomplice`` ``target``; ``discard`` ``card``, ``forced`` (seat: the discarder);
  ``draw`` ``card`` (x: the drawer; null, shown to all, when the pile was empty)
- ``handcuffs`` ``target``; ``toby`` ``target``, ``card``
- ``little_one`` ``culprit`` (x: the Little one's player)
- ``give`` ``to``, ``card`` (x: giver and receiver), ``why`` (``"sharing"``, ``"exchange"``,
  ``"witness"``); seat: the giver
- ``rumour`` ``from``, ``card`` (x: taker and victim); seat: the taker
- ``contribute`` (no field); ``panic_pool`` ``cards`` (x: the Panic's player); ``panic_deal``
  ``card`` (x: that contributor)
- ``witness`` ``target``, ``hand`` (x: the witness); ``witness_exchange`` ``target``,
  ``exchanged``
- ``say`` ``text``; ``protect`` / ``unprotect`` ``kind`` (``"maid"``, ``"governess"``)
- ``round_end`` ``case``, ``culprit``, ``accomplices``, ``by``, ``gained``, ``points`` (seat null)
- ``end`` ``winners``, ``players``, ``reason``, ``points`` (seat null)

``view_event`` never returns None: every event shows at least that it happened.
"""

from __future__ import annotations

from .bots import HeuristicBot
from .cards import BOX_COUNTS, CARDS, EFFECTS, FRENCH, GOAL
from .game import GAME, ShadowHouse
from .options import OPTION_KEYS, normalize_options
from .rules import DECISIONS, MOVE_FIELDS, OPTIONAL_FIELDS
from .state import State

__all__ = [
    "BOX_COUNTS",
    "CARDS",
    "DECISIONS",
    "EFFECTS",
    "FRENCH",
    "GAME",
    "GOAL",
    "MOVE_FIELDS",
    "OPTIONAL_FIELDS",
    "OPTION_KEYS",
    "HeuristicBot",
    "ShadowHouse",
    "State",
    "normalize_options",
]
