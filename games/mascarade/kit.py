"""Mascarade's presentation: what the site shows and takes of a Mascarade game (``games.kit``)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy

from games.kit import Board, GameKit

from . import display, forms, schema
from .rules import MASCARADE, MASKS
from .rules.bots import HeuristicBot


class MascaradeKit(GameKit):
    id = MASCARADE.id
    rules = MASCARADE
    name = gettext_lazy("Mascarade")
    blurb = gettext_lazy(
        "Mascarade is a bluffing game for 4 to 12 players. Everyone wears a mask, face down; "
        "masks change hands under the table, and you claim to be the King, the Judge or the "
        "Cheater to grab their powers.")
    players_text = gettext_lazy("4 to 12 players")
    credits = gettext_lazy("Mascarade is a game by Bruno Faidutti, published by Repos Production.")
    you_before_start = {"knowledge": []}
    bots = {"heuristic": HeuristicBot}
    option_form = forms.MascaradeOptionsForm
    create_help_template = "mascarade/_create_help.html"
    check_template = "mascarade/_scenario_check.html"
    field_templates = {"masks": "mascarade/_masks_field.html"}
    board_template = "mascarade/_board.html"
    aside_template = "mascarade/_aside.html"
    rules_template = "mascarade/rules.html"
    options_schema = schema.OPTIONS
    move_schema = schema.MOVE
    state_schema = schema.STATE
    you_schema = schema.YOU

    def option_errors(self, error, options):
        return forms.option_errors(error, options)

    def decision_words(self, decision: str) -> str:
        return display.decision(decision)

    def decision_mail(self, decision: str) -> tuple[str, Any, Any]:
        if decision == "challenge":
            return ("challenge",
                    gettext_lazy("A challenge window is open for you in %(game)s"),
                    gettext_lazy("A mask was announced: you may claim it or pass."))
        if decision in ("turn", "prep"):
            return super().decision_mail(decision)
        return ("power", gettext_lazy("A power decision awaits you in %(game)s"),
                gettext_lazy("Your mask's power asks you to decide."))

    def move_label(self, move: dict, names: dict[int, str]) -> str:
        return display.move_label(move, names)

    def move_group(self, move: dict) -> str:
        return display.move_group(move)

    def sentence(self, event: dict, names: dict[int, str]) -> str:
        return display.sentence(event, names)

    def names_then(self, events: list[dict], names: dict[int, str]) -> list[dict[int, str]]:
        """The Puppeteer's seat changes among the events (R2) are undone from the newest back,
        so that a past sentence names the player who sat there then, not the seat's occupant
        now."""
        out: list[dict[int, str]] = []
        current = names
        for event in reversed(events):
            out.append(current)
            seats = event.get("seats") if event.get("type") == "seat_change" else None
            if isinstance(seats, list) and len(seats) == 2 and all(s in current for s in seats):
                a, b = seats
                current = {**current, a: current[b], b: current[a]}
        out.reverse()
        return out

    def board_context(self, board: Board) -> dict[str, Any]:
        state, you, names = board.state, board.you, board.names
        revealed = set(state.get("revealed_last_turn", []))
        # Cards turned face up in this turn or the previous one, as this viewer saw them, while
        # they are still where they were shown (no exchange has touched them since).
        moved = {entry["about"]: entry["seq"] for entry in state.get("last_moved", [])}
        turned: dict[int, str] = {}
        turn = state.get("turn")
        for event in board.recent:
            if (event.get("type") == "reveal" and event.get("mask")
                    and event.get("turn") in (turn, turn - 1)
                    and event["seq"] > moved.get(event.get("seat"), 0)):
                turned[event["seat"]] = display.mask(event["mask"])
        for seat in board.seats:
            seat["turned"] = turned.get(seat["seat"])
            seat["revealed_recently"] = seat["seat"] in revealed
        # Whether a card seen was touched since: the slot's last move, from the state's public
        # "last_moved" (one entry per slot), not from the history (no projection of old events).
        knowledge = [{**k, "mask_name": display.mask(k["mask"]),
                      "about_words": display.slot(k["about"], names),
                      "touched_at": moved.get(k["about"], 0)
                      if moved.get(k["about"], 0) > k["seq"] else None}
                     for k in (you or {}).get("knowledge", [])]
        announcement = state.get("announcement")
        return {
            "knowledge": knowledge,
            "announcement": announcement and {
                **announcement, "mask_name": display.mask(announcement.get("mask")),
                "who": names.get(announcement.get("seat"), "")},
            "masks_in_play": [{"id": m, "name": display.mask(m),
                               "power": display.POWERS.get(m, "")}
                              for m in dict.fromkeys(state.get("masks_in_play") or ())],
            "starting_deal": [{"about": display.slot(d["about"], names),
                               "mask": display.mask(d["mask"])}
                              for d in state.get("starting_deal", [])],
        }

    def rules_context(self) -> dict[str, Any]:
        return {"masks": [{"id": m.id, "name": display.mask(m.id), "power": display.POWERS[m.id],
                           "star": m.star, "min_players": m.min_players, "copies": m.copies,
                           "custom_only": m.custom_only} for m in MASKS.values()],
                "scenarios": forms.scenario_table()}

    def create_context(self) -> dict[str, Any]:
        return {"scenarios": forms.scenario_table()}


KIT = MascaradeKit()
