"""L'Ère des Masques's presentation: what the site shows and takes of a game of it
(``games.core.kit``)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.core.kit import Board, GameKit, seat_line, seat_name, waiting_line

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
    stylesheet = "ere_des_masques/table.css"
    moves_template = "ere_des_masques/_moves.html"
    rules_template = "ere_des_masques/rules.html"
    options_schema = schema.OPTIONS
    move_schema = schema.MOVE
    state_schema = schema.STATE
    you_schema = schema.YOU
    you_before_start = {"hand": [], "seen": []}

    def error_words(self, error) -> str | None:
        return display.error_words(error)

    def ending_lines(self, board: Board) -> list[str]:
        state, names = board.state, board.names
        return [display.end_words(state.get("reason"), state.get("kind"),
                                  [seat_name(w, names) for w in state.get("winners", [])])]

    def decision_words(self, decision: str) -> str:
        return display.decision(decision)

    def decision_context(self, item: dict[str, Any], board: Board) -> str:
        return display.decision_context(item, board.state, board.you, board.names)

    def decision_question(self, decision: str) -> str:
        return display.question(decision)

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
        # The table seen from the viewer's seat: the opponent across from them (a spectator sees
        # seat 0 at the bottom).
        bottom = you.get("seat", 0)
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
                # the hand drawn as card backs (a fan of at most BACKS; the number in words)
                "backs": range(min(seat.get("hand_size", 0), BACKS)),
                "place": "bottom" if seat["seat"] == bottom else "top",
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
            "ending": self.ending_lines(board) if state.get("phase") == "over" else [],
        }

    def command_words(self, move: dict, names: dict[int, str]) -> str:
        return display.command(move, names) or super().command_words(move, names)

    def status_lines(self, board: Board) -> list[str]:
        """Whose turn, both players (hand size, play zone, how far from each victory), the
        card played face down and the power under way, the piles, and the viewer's hand, the
        Recruiter's cards to choose from and what their Spy saw last."""
        state, names = board.state, board.names
        context = self.board_context(board)
        lines = list(context["ending"]) or [waiting_line(board, display.decision)]
        for player in context["players"]:
            zone = display.cards(player.get("zone_cards") or [])
            lines.append(seat_line(player, [
                ngettext("%(n)s card in hand", "%(n)s cards in hand", player["hand_size"]) % {
                    "n": player["hand_size"]},
                _("play zone: %(cards)s") % {"cards": zone or _("empty")},
                *([ngettext("Four of a kind: %(n)s card away",
                            "Four of a kind: %(n)s cards away", player["four_away"]) % {
                    "n": player["four_away"]},
                   ngettext("Five kinds: %(n)s kind missing", "Five kinds: %(n)s kinds missing",
                            player["five_away"]) % {"n": player["five_away"]}]
                  if player["four_away"] is not None and player["five_away"] is not None
                  else [])]))
        played = context["played"]
        if played:
            if played.get("revealed"):
                line = _("%(who)s's card, revealed: %(card)s.") % {
                    "who": played["who"], "card": played["card_title"]}
            elif played.get("card_name"):
                line = _("You played %(card)s face down; your opponent decides.") % {
                    "card": played["card_name"]}
            else:
                line = _("%(who)s played a card face down.") % {"who": played["who"]}
            if played.get("countered") and played.get("counter_name"):
                line += " " + _("Countered: “it is %(kind)s”.") % {
                    "kind": played["counter_name"]}
            lines.append(line)
        power = state.get("power")
        if power:
            lines.append(_("%(card)s's power applies for %(player)s.") % {
                "card": display.title(power.get("kind")),
                "player": seat_name(power.get("seat"), names)})
        piles = ngettext("Draw pile: %(n)s card.", "Draw pile: %(n)s cards.",
                         state.get("draw_pile", 0)) % {"n": state.get("draw_pile", 0)}
        discard = state.get("discard_size", 0)
        piles += " " + ngettext("Discard pile: %(n)s card", "Discard pile: %(n)s cards",
                                discard) % {"n": discard}
        if state.get("discard"):
            piles += f" ({display.cards(state['discard'])})"
        lines.append(piles + ".")
        if board.you is not None:
            hand = board.you.get("hand") or []
            lines.append(_("Your hand: %(cards)s.") % {"cards": display.cards(hand)} if hand
                         else _("Your hand is empty."))
            if context["recruited"]:
                lines.append(_("Recruited, to choose from:") + " " + ", ".join(
                    card["title"] for card in context["recruited"]))
            if context["last_seen"]:
                lines.append(_("Your Spy saw your opponent's hand at move #%(seq)s: "
                               "%(cards)s.") % {
                    "seq": context["last_seen"]["seq"],
                    "cards": context["last_seen"]["cards"] or _("empty")})
        return [line for line in lines if line]

    def rules_context(self) -> dict[str, Any]:
        return {"cards": [{"id": kind, "name": display.title(kind),
                           "power": display.POWERS[kind]} for kind in KINDS]}

    def create_context(self) -> dict[str, Any]:
        return self.rules_context()


#: The most card backs drawn for a hand (its size is said in words beside them).
BACKS = 10

_DECISION_LINES = {
    "discard": gettext_lazy("You countered: choose the card you discard from your hand."),
    "keep": gettext_lazy("Your Recruiter drew its cards: choose the one you keep."),
    "assassinate": gettext_lazy("Your Assassin strikes: choose the card it discards from your "
                                "opponent's zone."),
}

KIT = EreDesMasquesKit()
