"""Mascarade (Bruno Faidutti): the pure rules.

Rules: ``shared/rules/mascarade.md`` (§n, rulings R1–R9); moves and views: ``shared/API.md`` and
``docs/api/mascarade.md``. Pure: nothing here imports Django or the site (import-linter checks it).

Modules
-------
:mod:`.data`      the masks (:data:`MASKS`), named scenarios (:data:`SCENARIOS`), center counts,
                  custom-scenario validation
:mod:`.options`   :func:`normalize_options`
:mod:`.state`     :class:`State`, its fields and JSON form
:mod:`.rules`     set-up, awaited decisions, legal moves, ``apply``, timeout defaults
:mod:`.views`     the projections of a state and of an event for a viewer (§9)
:mod:`.game`      :data:`MASCARADE`, the :class:`games.engine.base.Game` object
:mod:`.bots`      :class:`HeuristicBot`, the bot that plays from what its player knows

Players and seats
-----------------
A *player* is an index ``0..n-1`` fixed for the game (their starting seat). A *seat* owns a card
and coins; the Puppeteer swaps players between seats (R2). Knowledge belongs to players and is
about slots (a seat ``0..n-1`` or a center slot ``"center-k"``). Moves and views name seats.

Decisions (``Pending.decision``): ``"prep"``, ``"turn"``, ``"challenge"`` (timer
``challenge_timeout``) and the power decisions ``"spy"``, ``"spy_swap"``, ``"fool"``,
``"puppeteer"``, ``"princess"``, ``"guru"``, ``"guru_answer"``, ``"sorceress"``, ``"crook"``,
``"gambler"``, ``"gambler_guess"`` (timer ``move_timeout``).

View (``MASCARADE.view(state, viewer)``)
-----------------------------------------
::

    {"phase": "prep|turn|challenge|power|over", "turn": 9, "turn_seat": 3,
     "awaiting": [{"seat": 4, "player": 4, "decision": "challenge"}],
     "seats": [{"seat": 0, "player": 0, "coins": 6}, ...],
     "center": ["center-0", "center-1"], "justice": 0,
     "masks_in_play": ["judge", "king", ...],          # the Peasant twice when in play
     "starting_deal": [{"about": 0, "mask": "judge"}, {"about": "center-0", "mask": "spy"}],
     "last_moved": [{"about": 0, "seq": 12}, {"about": "center-0", "seq": 0}],  # per slot
     "announcement": {"seat": 3, "mask": "king", "claims": [5], "passes": [4]} | null,
     "power": {"seat": 3, "mask": "guru", "decision": "guru_answer", "target": 5} | null,
     "revealed_last_turn": [2],                        # seats that may not announce (R5)
     "winners": [],
     "you": {"player": 2, "seat": 2,
             "knowledge": [{"seq": 12, "about": 2, "mask": "king", "how": "look|spy|princess"}]}
            | null}

``last_moved`` gives, for every slot, the seq of the last move that may have moved its card (an
exchange, a Spy's swap or not, a Fool's; 0: none since the deal): which cards went under the table
is public, whether they were swapped is not. ``revealed_last_turn`` names the seats where the
players made to reveal during the previous turn
sit now: R5 bars the players, whom a Puppeteer may have moved since (the moderator's
``revealed_this_turn`` likewise for the current turn). ``announcement`` is present during a
challenge window and its resolution; in simultaneous mode its ``claims``/``passes`` show only the
viewer's own answer until the window closes. ``power`` is present while a power waits for a
decision (the target once chosen; never the Gambler's hidden number). ``you`` is null for
spectators and moderators. The moderator view adds ``"moderator"``: ``{"cards": [{"about",
"mask"}], "claims", "passes", "decision": {"decision", "seat", "target", "hidden"} | null,
"knowledge": [per player], "revealed_this_turn", "seq", "reason"}``.

Events (``apply`` returns them with the whole truth; ``view_event`` filters)
-------------------------------------------------------------------------
Every event has ``type``, ``seat`` (the acting seat, or null) and ``turn``; events of a player's
action have ``player``. ``(x)`` marks what only the acting player sees (§9):

- ``exchange``  ``target`` (seat or ``"center-k"``), ``prep``, ``swapped`` (x)
- ``look``  ``mask`` (x)
- ``announce``  ``mask``; ``claim`` / ``pass`` (simultaneous mode, window open, others see
  ``{"type": "answer", "seat", "turn", "player"}``)
- ``challenge_closed``  ``mask``, ``claims``, ``passes`` (clockwise from the announcer's left)
- ``reveal``  ``mask``, ``cause`` (``"challenge"`` / ``"guru"``); with ``log_masks`` off the mask
  is dropped once the event is more than one turn old (R9)
- ``power``  ``mask``, ``revealed`` (a holder starts applying the power); with ``log_masks`` off
  the mask of a revealed holder's power is dropped likewise (R9); an unrevealed one's stays
- ``coins``  ``from``, ``to`` (a seat, ``"bank"`` or ``"justice"``), ``amount``, ``why`` (mask;
  with ``log_masks`` off dropped likewise, R9)
- ``fines``  ``seats`` (the seats that paid, where the wrong claimants sit when the fines are
  paid: R8), ``players`` (those claimants, in the same order), ``amount`` (1 each), ``justice``
  (the board's new total)
- ``spy``  ``target``, ``mask`` (x), ``target_mask`` (x); ``spy_swap`` ``target``, ``swapped`` (x)
- ``fool``  ``targets``, ``swapped`` (x)
- ``puppeteer``  ``targets``; ``seat_change``  ``seats``, ``players`` (now at those seats)
- ``princess``  ``target``, ``target_player``, ``mask`` (for the other players only: not for
  ``target_player`` nor spectators; dropped like a reveal's when old and ``log_masks`` is off)
- ``guru``  ``target``; ``guru_answer``  (seat = the target) ``holder``, ``mask`` (the answer)
- ``sorceress``  ``target`` (or null), ``coins`` (the two seats' coins after the swap)
- ``crook``  ``target`` (only when several were tied)
- ``gambler``  ``target``, ``hidden`` (x); ``gambler_guess`` (seat = the target) ``holder``,
  ``guess``, ``hidden``, ``right``
- ``turn``  (seat = the new turn's seat) ``player``, ``prep``
- ``end``  ``winners`` (seats), ``players``, ``reason`` (``"thirteen"``/``"ruin"``/``"cheater"``),
  ``coins``
"""

from __future__ import annotations

from .data import BOX, CENTER_CARDS, MASKS, SCENARIOS, Mask, scenario_problems
from .game import MASCARADE, Mascarade
from .options import normalize_options
from .state import State

__all__ = [
    "BOX",
    "CENTER_CARDS",
    "MASCARADE",
    "MASKS",
    "SCENARIOS",
    "Mascarade",
    "Mask",
    "State",
    "normalize_options",
    "scenario_problems",
]
