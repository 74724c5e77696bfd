"""L'Ère des Masques's presentation: what the site shows and takes of a game of it
(``games.kit``)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy

from games.kit import Board, GameKit, seat_name

from . import display, forms, schema
from .rules import GAME, KINDS
from .rules.bots import HeuristicBot


class EreDesMasquesKit(GameKit):
    id = GAME.id
    rules = GAME
    name = gettext_lazy("L'Ère des Masques")
    blurb = gettext_lazy(
        "L'Ère des Masques is a duel of bluff for 2 players in Venice. Play your masks face "
        "down; your opponent lets them pass or names their kind to counter them. Four of one "
        "kind, or one of each of the five, in your zone wins at once.")
    players_text = gettext_lazy("2 players")
    credits = gettext_lazy("L'Ère des Masques is a game by Pierre Canali, Antoine Lagarde, "
                           "Bastien Perez Assaël and Malo Willefert, illustrated by Vincent "
                           "Roché.")
    bots = {"heuristic": HeuristicBot}
    option_form = forms.EreOptionsForm
    create_help_template = "ere_des_masques/_create_help.html"
    board_template = "ere_des_masques/_board.html"
    moves_template = "ere_des_masques/_moves.html"
    rules_template = "ere_des_masques/rules.html"
    options_schema = schema.OPTIONS
    move_schema = schema.MOVE
    state_schema = schema.STATE
    you_schema = schema.YOU
    you_before_start = {"hand": [], "seen": []}

    def decision_words(self, decision: str) -> str:
        return display.decision(decision)

    def decision_mail(self, decision: str) -> tuple[str, Any, Any]:
        if decision == "respond":
            return ("challenge",
                    gettext_lazy("A card was played against you in %(game)s"),
                    gettext_lazy("Your opponent played a card face down: let it pass, or "
                                 "counter it by naming its kind."))
        if decision == "turn":
            return super().decision_mail(decision)
        return ("power", gettext_lazy("A decision awaits you in %(game)s"),
                _DECISION_LINES.get(decision, _DECISION_LINES["discard"]))

    def move_label(self, move: dict, names: dict[int, str]) -> str:
        return display.move_label(move, names)

    def move_group(self, move: dict) -> str:
        return display.move_group(move)

    def sentence(self, event: dict, names: dict[int, str]) -> str:
        return display.sentence(event, names)

    def board_context(self, board: Board) -> dict[str, Any]:
        state, you, names = board.state, board.you or {}, board.names
        by_seat = {seat["seat"]: seat for seat in board.seats}
        players = []
        for seat in state.get("seats", []):
            shown = by_seat.get(seat["seat"], seat)
            to_win = seat.get("to_win", {})
            players.append({
                **shown,
                "zone_groups": [{"kind": kind, "title": display.title(kind),
                                 "count": seat.get("zone", {}).get(kind, 0)}
                                for kind in KINDS if seat.get("zone", {}).get(kind)],
                "four_away": to_win.get("four_of_a_kind"),
                "five_away": to_win.get("five_kinds"),
                "hand_size": seat.get("hand_size", 0),
            })
        played = state.get("played")
        played_words = None
        if played:
            played_words = {
                **played, "who": seat_name(played.get("seat"), names),
                "card_title": display.title(played["card"]) if played.get("card") else None,
                "card_name": display.card(played["card"]) if played.get("card") else None,
                "counter_name": (display.card(played["counter_kind"])
                                 if played.get("counter_kind") else None)}
        discard = state.get("discard") or []
        seen = you.get("seen") or []
        last_seen = seen[-1] if seen else None
        return {
            "players": players,
            "played": played_words,
            "hand": [{"kind": kind, "title": display.title(kind)} for kind in you.get("hand", [])],
            "discard_groups": [{"kind": kind, "title": display.title(kind),
                                "count": discard.count(kind)}
                               for kind in KINDS if kind in discard],
            "recruited": [{"kind": kind, "title": display.title(kind)}
                          for kind in state.get("recruited") or []],
            "last_seen": last_seen and {"seq": last_seen["seq"],
                                        "cards": display.cards(last_seen["hand"])},
            "end_words": (display.end_words(state.get("reason"), state.get("kind"),
                                            [seat_name(w, names) for w in state["winners"]])
                          if state.get("phase") == "over" else None),
        }

    def rules_context(self) -> dict[str, Any]:
        return {"cards": [{"id": kind, "name": display.title(kind),
                           "power": display.POWERS[kind]} for kind in KINDS]}

    def create_context(self) -> dict[str, Any]:
        return self.rules_context()


_DECISION_LINES = {
    "discard": gettext_lazy("You countered: choose the card you discard from your hand."),
    "keep": gettext_lazy("Your Recruiter drew its cards: choose the one you keep."),
    "assassinate": gettext_lazy("Your Assassin strikes: choose the card it discards from your "
                                "opponent's zone."),
}

KIT = EreDesMasquesKit()
