"""Shadow House Mascarade's presentation: what the site shows and takes of a game of it
(``games.core.kit``)."""

from __future__ import annotations

import json
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.core.kit import Board, GameKit, ranking_lines, seat_line, seat_name, waiting_line

from . import display, forms, schema
from .rules import CARDS, GAME, GOAL
from .rules.bots import HeuristicBot

#: The Divining hat's words go to the table's chat under this source (its label: the card's name).
HAT = "divining_hat"


class ShadowHouseKit(GameKit):
    id = GAME.id
    rules = GAME
    name = gettext_lazy("Shadow House Mascarade")
    blurb = gettext_lazy(
        "Shadow House Mascarade: a murder at the manor, 3 to 8 players. The Culprit's card goes "
        "from hand to hand; find who holds it with Detectives and Toby, or, as the culprit and "
        "their accomplices, get rid of it as your last card. Rounds to 5 points.")
    players_text = gettext_lazy("3 to 8 players")
    credits = gettext_lazy("Shadow House Mascarade is a game by EmperorS4, illustrated by Pesu "
                           "Nabeno, published by Blue Orange.")
    bots = {"heuristic": HeuristicBot}
    option_form = forms.ShadowHouseOptionsForm
    create_help_template = "shadow_house/_create_help.html"
    board_template = "shadow_house/_board.html"
    stylesheet = "shadow_house/table.css"
    moves_template = "shadow_house/_moves.html"
    rules_template = "shadow_house/rules.html"
    options_schema = schema.OPTIONS
    move_schema = schema.MOVE
    state_schema = schema.STATE
    you_schema = schema.YOU
    you_before_start = {"hand": [], "choice": None, "culprit_seen": None, "witnessed": None,
                        "pool": None}
    free_text_moves = {"say": "text"}
    tells_opening = True

    def opening_events(self, state: dict[str, Any], you: dict[str, Any] | None) -> list[dict]:
        """Round 1's opening, which the setup does without an event (ruling SH-15), as the later
        rounds' openings tell it: the round begins, the deal (the viewer's own cards named), the
        turn of the First on scene's holder, who plays it. From the viewer's projection of the
        state right after the setup: the card played is public, a hand only its player's."""
        seats = state.get("seats") or []
        holder = next((seat["seat"] for seat in seats
                       if "first_on_scene" in (seat.get("played") or [])), None)
        mine = (you or {}).get("seat")
        events: list[dict] = [{"type": "round_start", "seat": None,
                               "round": state.get("round") or 1}]
        for seat in seats:
            deal = {"type": "deal", "seat": seat["seat"]}
            if seat["seat"] == mine:
                deal["cards"] = ([*seat.get("played", []), *(you or {}).get("hand", [])])
            events.append(deal)
        if holder is not None:
            events += [{"type": "turn", "seat": holder},
                       {"type": "play", "seat": holder, "card": "first_on_scene",
                        "target": None, "forced": True}]
        return events

    def error_words(self, error) -> str | None:
        return display.error_words(error)

    def ending_lines(self, board: Board) -> list[str]:
        state, names = board.state, board.names
        why = display.end_words(state.get("reason"),
                                [seat_name(w, names) for w in state.get("winners", [])])
        if state.get("flash"):
            return [why]
        seats = state.get("seats", [])
        scores = [(seat_name(seat["seat"], names), seat.get("points", 0)) for seat in seats]
        won = [i for i, seat in enumerate(seats) if seat["seat"] in state.get("winners", [])]
        return [why, *ranking_lines(scores, lambda n: ngettext("%(n)d point", "%(n)d points",
                                                              n) % {"n": n}, won,
                                    _("the most points") if state.get("reason") == "points"
                                    else "")]

    def options_summary(self, options: dict[str, Any]) -> str:
        if options.get("flash"):
            return _("flash investigation")
        return _("rounds to %(goal)d points") % {"goal": GOAL}

    def decision_words(self, decision: str) -> str:
        return display.decision(decision)

    def decision_context(self, item: dict[str, Any], board: Board) -> str:
        return display.decision_context(item, board.state, board.you, board.names)

    def decision_question(self, decision: str) -> str:
        return display.question(decision)

    def decision_mail(self, decision: str) -> tuple[str, Any, Any]:
        if decision == "turn":
            return super().decision_mail(decision)
        if decision in _ANSWERS:
            return ("challenge", gettext_lazy("A card to choose in %(game)s"), _ANSWERS[decision])
        return ("power", gettext_lazy("A decision awaits you in %(game)s"),
                _POWERS.get(decision, _POWERS["say"]))

    def move_label(self, move: dict, names: dict[int, str]) -> str:
        return display.move_label(move, names)

    def move_group(self, move: dict) -> str:
        return display.move_group(move)

    def sentence(self, event: dict, names: dict[int, str]) -> str:
        return display.sentence(event, names)

    def chat_lines(self, events: list[dict]) -> list[tuple[int, str, str]]:
        """The Divining hat's words, said at the table: posted to the chat under the card's
        name."""
        return [(event["seat"], event["text"], HAT) for event in events
                if event.get("type") == "say" and (event.get("text") or "").strip()]

    def chat_source_label(self, source: str) -> str:
        return display.title(source)

    def board_context(self, board: Board) -> dict[str, Any]:
        state, you, names = board.state, board.you or {}, board.names
        by_seat = {seat["seat"]: seat for seat in board.seats}
        count = len(state.get("seats", []))
        effect = state.get("effect") or None
        # The table seen from the viewer's seat (a spectator's from seat 0): ``place`` counts
        # the seats clockwise from it, the viewer's left neighbour (who gets their card in a
        # Sharing) the next one.
        mine = you.get("seat")
        base = mine if isinstance(mine, int) and count else 0
        players = []
        for seat in state.get("seats", []):
            shown = by_seat.get(seat["seat"], seat)
            played = seat.get("played", [])
            players.append({
                **shown,
                "played_cards": [{"card": card, "title": display.title(card)}
                                 for card in played],
                "played_groups": [{"card": card, "title": display.title(card),
                                   "count": played.count(card)}
                                  for card in CARDS if card in played],
                "place": (seat["seat"] - base) % count,
                "left_neighbour": (isinstance(mine, int) and count > 1
                                   and seat["seat"] == (mine + 1) % count),
                "backs": range(min(seat.get("hand_size", 0), BACKS)),
                "protections": [display.title(kind) for kind in seat.get("protected", [])],
                "hand_size": seat.get("hand_size", 0), "points": seat.get("points", 0),
                "handcuffs": seat.get("handcuffs"), "accomplice": seat.get("accomplice"),
                "chosen": seat.get("chosen"),
            })
        legal = you.get("legal_moves", [])
        playable = {move["card"] for move in legal if move.get("type") == "play"}
        hand = [{"card": card, "title": display.title(card), "power": display.POWERS[card],
                 "playable": card in playable} for card in you.get("hand", [])]
        rounds = state.get("rounds") or []
        last = rounds[-1] if rounds else None
        seat_of_you = you.get("seat")
        return {
            "players": players,
            "hand": hand,
            "culprit_held": "culprit" in you.get("hand", []) and len(you.get("hand", [])) > 1,
            "play_forms": _play_forms(legal, names),
            "choice": _choice(legal, names),
            "choice_legend": next((display.move_group(m) for m in legal
                                   if m.get("type") not in ("play", "say")), ""),
            "choice_words": _choice_words(legal, effect, seat_of_you, count, names),
            "say_move": next((json.dumps(m, sort_keys=True) for m in legal
                              if m.get("type") == "say"), None),
            "effect_words": _effect_words(effect, names),
            "discards": display.cards(state.get("discards") or []),
            "discard_groups": [{"card": card, "count": (state.get("discards") or []).count(card)}
                               for card in CARDS if card in (state.get("discards") or [])],
            "effect_card": effect and effect.get("card") in CARDS and {
                "card": effect["card"], "title": display.title(effect["card"])},
            "last_round": last and {**last, "words": display.round_words(last, names)},
            "scores": [{"name": seat_name(i, names), "points": p}
                       for i, p in enumerate(last["points"])] if last else [],
            "culprit_seen": (you.get("culprit_seen") or None) and {
                "who": seat_name(you["culprit_seen"]["seat"], names),
                "turn": you["culprit_seen"].get("turn")},
            "witnessed": (you.get("witnessed") or None) and {
                "who": seat_name(you["witnessed"]["seat"], names),
                "cards": display.cards(you["witnessed"]["hand"]) or _("an empty hand")},
            "pool": display.cards(you.get("pool") or []) if you.get("pool") else None,
            "my_choice": display.title(you["choice"]) if you.get("choice") else None,
            "ending": self.ending_lines(board) if state.get("phase") == "over" else [],
        }

    def command_words(self, move: dict, names: dict[int, str]) -> str:
        return display.command(move, names) or super().command_words(move, names)

    def status_lines(self, board: Board) -> list[str]:
        """Whose turn, the round and the piles, the last round's result, the effect under way,
        each player (the viewer's left neighbour, hand size, points, Handcuffs, accomplice,
        protections, cards played), and the viewer's hand with its cards' powers, their choice
        sent and what only they know (the Little one's culprit, the hand their Witness sees,
        the Panic's pool): what the page shows. (What a choice is about is the decision mail's
        own line: ``decision_mail``.)"""
        state = board.state
        context = self.board_context(board)
        flash = state.get("flash")
        lines = list(context["ending"]) or [waiting_line(board, display.decision)]
        table = (_("Flash investigation: one round, no points.") if flash else
                 _("Round %(round)s · the game ends after the round where someone reaches "
                   "%(goal)s points.") % {"round": state.get("round"), "goal": state.get("goal")})
        table += " " + ngettext("Draw pile: %(n)s card.", "Draw pile: %(n)s cards.",
                                state.get("pile_size", 0)) % {"n": state.get("pile_size", 0)}
        if context["discards"]:
            table += " " + _("Discarded face up: %(cards)s.") % {"cards": context["discards"]}
        lines.append(table)
        if context["last_round"]:
            lines.append(context["last_round"]["words"])
        lines.append(context["effect_words"])
        for player in context["players"]:
            played = ", ".join(card["title"] for card in player["played_cards"])
            lines.append(seat_line(player, [
                _("your left neighbour") if player["left_neighbour"] else "",
                ngettext("%(n)s card in hand", "%(n)s cards in hand", player["hand_size"]) % {
                    "n": player["hand_size"]},
                "" if flash else ngettext("%(n)s point", "%(n)s points", player["points"]) % {
                    "n": player["points"]},
                _("holds the Handcuffs") if player.get("handcuffs") else "",
                _("accomplice") if player.get("accomplice") else "",
                *(_("protected: %(card)s") % {"card": card} for card in player["protections"]),
                _("has chosen") if player.get("chosen") else "",
                _("played: %(cards)s") % {"cards": played} if played
                else _("no card played yet")]))
        if board.you is not None:
            hand = board.you.get("hand") or []
            if hand:
                line = _("Your hand: %(cards)s.") % {"cards": display.cards(hand)}
                if context["culprit_held"]:
                    line += " " + _("The Culprit may go only as your last card.")
                lines.append(line)
                # each card's power, as the page's hand and turn say them
                lines.extend("- " + _("%(name)s: %(power)s") % {
                    "name": card["title"], "power": card["power"]}
                    for card in {card["card"]: card for card in context["hand"]}.values())
            else:
                lines.append(_("Your hand is empty."))
            if context["my_choice"]:
                lines.append(_("You chose %(card)s; waiting for the others.") % {
                    "card": context["my_choice"]})
            if context["culprit_seen"]:
                lines.append(_("Your Little one told you: %(who)s held the Culprit then.") % {
                    "who": context["culprit_seen"]["who"]})
            if context["witnessed"]:
                lines.append(_("Your Witness sees %(who)s's hand: %(cards)s.") % {
                    "who": context["witnessed"]["who"], "cards": context["witnessed"]["cards"]})
            if context["pool"]:
                lines.append(_("The Panic's pool you see: %(cards)s.") % {
                    "cards": context["pool"]})
        return [line for line in lines if line]

    def rules_context(self) -> dict[str, Any]:
        return {"cards": [{"id": card, "name": display.title(card),
                           "power": display.POWERS[card]} for card in CARDS]}

    def create_context(self) -> dict[str, Any]:
        return self.rules_context()


def _play_forms(legal: list[dict], names: dict[int, str]) -> list[dict[str, Any]]:
    """The turn's moves by card, in the hand's order: one button for a card without a target, a
    list of its targets for one with."""
    forms_by_card: dict[str, dict[str, Any]] = {}
    for move in legal:
        if move.get("type") != "play":
            continue
        card = move["card"]
        entry = forms_by_card.setdefault(card, {
            "card": card, "title": display.title(card), "power": display.POWERS[card],
            "moves": [], "targeted": "target" in move})
        entry["moves"].append({
            "json": json.dumps(move, sort_keys=True),
            "label": (seat_name(move["target"], names) if "target" in move
                      else display.move_label(move, names))})
    return [forms_by_card[card] for card in CARDS if card in forms_by_card]


def _choice(legal: list[dict], names: dict[int, str]) -> list[dict[str, Any]]:
    """A choice of a card of one's hand (give, discard, contribute, the Witness's swap), with
    the Witness's refusal last."""
    kinds = ("give", "discard", "contribute", "witness_exchange", "witness_pass")
    return [{"json": json.dumps(move, sort_keys=True), "card": move.get("card"),
             "title": display.title(move["card"]) if move.get("card") else _("No swap"),
             "label": display.move_label(move, names)}
            for move in legal if move.get("type") in kinds]


def _choice_words(legal: list[dict], effect: dict | None, seat: Any, count: int,
                  names: dict[int, str]) -> str:
    """What the choice asked of the viewer is about, and who gets the card."""
    if not legal or not effect:
        return ""
    kind = legal[0].get("type")
    card, by, target = effect.get("card"), effect.get("seat"), effect.get("target")
    if kind == "give" and card == "sharing" and isinstance(seat, int) and count:
        return _("Sharing: every player with cards gives one to their left neighbour, all at "
                 "once. You give yours to %(to)s.") % {"to": seat_name((seat + 1) % count, names)}
    if kind == "give" and card == "witness":
        return _("%(by)s's Witness saw your hand and swaps a card with you: choose the card you "
                 "give; theirs is already chosen.") % {"by": seat_name(by, names)}
    if kind == "give":
        other = target if seat == by else by
        return _("You and %(other)s each choose a card for the other, at once; the cards are "
                 "then swapped face down.") % {"other": seat_name(other, names)}
    if kind == "contribute":
        return _("Panic (%(by)s's card): every player with cards puts one in a pool; %(by)s "
                 "sees it; the pool is shuffled and dealt back one each.") % {
            "by": seat_name(by, names)}
    if kind == "discard":
        return _("%(by)s's Accomplice chose you: the card you discard is shown to everyone, "
                 "then you draw one from the pile. The Culprit may go only as your last card.") % {
            "by": seat_name(by, names)}
    if kind in ("witness_exchange", "witness_pass"):
        return _("If you saw the Culprit or an Accomplice, you may swap one of your cards with "
                 "%(target)s, who chooses the card they give.") % {
            "target": seat_name(target, names)}
    return ""


def _effect_words(effect: dict | None, names: dict[int, str]) -> str:
    if not effect:
        return ""
    words = _("%(player)s's %(card)s is resolving.") % {
        "player": seat_name(effect.get("seat"), names), "card": display.title(effect.get("card"))}
    if effect.get("target") is not None:
        words += " " + _("Target: %(target)s.") % {"target": seat_name(effect["target"], names)}
    return words


#: The most card backs drawn for a hand (its size is said in words beside them).
BACKS = 8

_ANSWERS = {
    "discard": gettext_lazy("An Accomplice chose you in %(game)s: discard a card face up, then "
                            "draw one."),
    "give": gettext_lazy("A card asks you to give one of yours in %(game)s: choose it."),
    "contribute": gettext_lazy("Panic in %(game)s: choose the card you put in the pool."),
}
_POWERS = {
    "witness": gettext_lazy("Your Witness looked at a hand in %(game)s: swap a card, or not."),
    "say": gettext_lazy("Your Divining hat in %(game)s: say whom you suspect (or nothing)."),
}

KIT = ShadowHouseKit()
