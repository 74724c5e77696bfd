"""Mascarade's presentation: what the site shows and takes of a Mascarade game
(``games.core.kit``)."""

from __future__ import annotations

import functools
import json
import math
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from games.core.kit import (
    Board,
    GameKit,
    ranking_lines,
    seat_line,
    seat_name,
    viewers_decision,
    waiting_line,
)

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
    field_templates = {"masks": "mascarade/_masks_field.html",
                       "center": "mascarade/_center_field.html"}
    create_stylesheet = "mascarade/create.css"
    board_template = "mascarade/_board.html"
    stylesheet = "mascarade/table.css"
    aside_template = "mascarade/_aside.html"
    rules_template = "mascarade/rules.html"
    moves_template = "mascarade/_moves.html"
    options_schema = schema.OPTIONS
    move_schema = schema.MOVE
    state_schema = schema.STATE
    you_schema = schema.YOU

    def option_errors(self, error, options):
        return forms.option_errors(error, options)

    def error_words(self, error) -> str | None:
        return display.error_words(error)

    def ending_lines(self, board: Board) -> list[str]:
        state, names = board.state, board.names
        winners = ", ".join(seat_name(w, names) for w in state.get("winners", []))
        # Why it ended is public: the end event says it (the state's reason is the moderator's).
        reason = next((event.get("reason") for event in reversed(board.recent)
                       if event.get("type") == "end"), None)
        if reason == "thirteen":
            why = _("%(winners)s reached 13 coins.") % {"winners": winners}
            how = _("13 coins or more")
        elif reason == "ruin":
            ruined = ", ".join(seat_name(seat["seat"], names) for seat in state.get("seats", [])
                               if seat.get("coins") == 0)
            why = _("%(ruined)s is ruined: the richest win, %(winners)s.") % {
                "ruined": ruined, "winners": winners}
            how = _("the richest when a player was ruined")
        elif reason == "cheater":
            why = _("%(winners)s won with the Cheater, holding 10 coins or more.") % {
                "winners": winners}
            how = _("the Cheater's power, with 10 coins or more")
        else:
            return super().ending_lines(board)
        seats = state.get("seats", [])
        scores = [(seat_name(seat["seat"], names), seat.get("coins", 0)) for seat in seats]
        # [R7] the winners first, though a Cheater's win leaves others as rich or richer
        won = [i for i, seat in enumerate(seats) if seat["seat"] in state.get("winners", [])]
        return [why, *ranking_lines(scores, lambda n: ngettext("%(n)d coin", "%(n)d coins",
                                                              n) % {"n": n}, won, how)]

    def options_summary(self, options: dict[str, Any]) -> str:
        scenario = options.get("scenario")
        words = (_("custom scenario") if scenario == "custom"
                 else _("scenario %(name)s") % {"name": scenario} if scenario else "")
        if options.get("challenge_mode") == "simultaneous":
            words += (", " if words else "") + _("challenges all at once")
        return words

    def decision_words(self, decision: str) -> str:
        return display.decision(decision)

    def decision_context(self, item: dict[str, Any], board: Board) -> str:
        return display.decision_context(item, board.state, board.you, board.names)

    def decision_question(self, decision: str) -> str:
        return display.question(decision)

    def decision_banner(self, item: dict[str, Any], board: Board) -> str:
        """[R5] A player whose card was revealed last turn may not announce: their turn's
        banner offers only what they may do (the seats revealed last turn are public)."""
        if (item.get("decision") == "turn" and viewers_decision(item, board)
                and item.get("seat") in (board.state.get("revealed_last_turn") or [])):
            return display.r5_turn_banner(board.state)
        return super().decision_banner(item, board)

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
        moved = {entry["about"]: entry["seq"] for entry in state.get("last_moved", [])}
        turned = _turned(board.recent, state.get("turn") or 0, moved)
        for seat in board.seats:
            mask = turned.get(seat["seat"])
            seat["turned"] = display.mask(mask) if mask else None
            # The face drawn is the card turned up (nothing else): its mask's picture.
            seat["card_image"] = f"mascarade/masks/{mask}.svg" if mask in MASKS else None
            seat["revealed_recently"] = seat["seat"] in revealed
        ring = _ring(board.seats, (you or {}).get("seat"))
        # Whether a card seen was touched since: the slot's last move, from the state's public
        # "last_moved" (one entry per slot), not from the history (no projection of old events).
        knowledge = [{**k, "mask_name": display.mask(k["mask"]),
                      "about_words": display.slot(k["about"], names),
                      "touched_at": moved.get(k["about"], 0)
                      if moved.get(k["about"], 0) > k["seq"] else None}
                     for k in (you or {}).get("knowledge", [])]
        announcement = state.get("announcement")
        legal = (you or {}).get("legal_moves") or []
        return {
            "ring": ring,
            "center_cards": list(state.get("center") or ()),
            "justice_coins": range(min(state.get("justice") or 0, JUSTICE_COINS_DRAWN)),
            # A turn's choices as one form per action, each target a whole legal move (the
            # exchange's swap from its radios: the form's ``field_swap``).
            "exchange_options": [{"json": json.dumps(m, sort_keys=True),
                                  "words": display.slot(m.get("target"), names)}
                                 for m in legal if m.get("type") == "exchange" and not m["swap"]],
            "announce_options": [{"json": json.dumps(m, sort_keys=True),
                                  "words": display.mask(m.get("mask"))}
                                 for m in legal if m.get("type") == "announce"],
            "decision_note": _decision_note(state, you, names),
            "claim_label": announcement and _("Claim: I am the %(mask)s") % {
                "mask": display.mask(announcement.get("mask"))},
            "ending": self.ending_lines(board) if state.get("phase") == "over" else [],
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

    def command_words(self, move: dict, names: dict[int, str]) -> str:
        return display.command(move, names) or super().command_words(move, names)

    def command_notes(self, legal_moves: list[dict]) -> list[str]:
        return display.command_notes(legal_moves)

    def status_lines(self, board: Board) -> list[str]:
        """Whose turn (or how the game ended and the ranking), the seats (the viewer's
        neighbours, coins, a card turned face up and still in place, revealed last turn), the
        Justice board, the announcement and the power under way, the masks in play with their
        powers, the starting deal (public: R4), and the viewer's notebook: all from the page's
        own board context."""
        state, names = board.state, board.names
        context = self.board_context(board)
        lines = list(context["ending"]) or [waiting_line(board, display.decision)]
        for seat in board.seats:
            coins = seat.get("coins", 0)
            lines.append(seat_line(seat, [
                {"left": _("on your left"), "right": _("on your right")}.get(seat.get("side"), ""),
                ngettext("%(coins)s coin", "%(coins)s coins", coins) % {"coins": coins},
                _("card turned: %(mask)s") % {"mask": seat["turned"]} if seat.get("turned")
                else "",
                _("revealed last turn") if seat.get("revealed_recently") else ""]))
        justice = state.get("justice", 0)
        table = ngettext("Justice board: %(n)s coin.", "Justice board: %(n)s coins.",
                         justice) % {"n": justice}
        if state.get("center"):
            count = len(state["center"])
            table += " " + ngettext("%(n)s center card.", "%(n)s center cards.", count) % {
                "n": count}
        lines.append(table)
        announcement = context["announcement"]
        if announcement:
            line = _("%(who)s announced the %(mask)s.") % {
                "who": announcement["who"], "mask": announcement["mask_name"]}
            for key, words in (("claims", _("Claimed: %(names)s.")),
                               ("passes", _("Passed: %(names)s."))):
                if announcement.get(key):
                    line += " " + words % {"names": ", ".join(
                        seat_name(s, names) for s in announcement[key])}
            lines.append(line)
        power = state.get("power")
        if power:
            line = _("%(player)s uses the power of the %(mask)s.") % {
                "player": seat_name(power.get("seat"), names),
                "mask": display.mask(power.get("mask"))}
            if power.get("target") is not None:
                line += " " + _("Target: %(target)s.") % {
                    "target": seat_name(power["target"], names)}
            lines.append(line)
        lines.append(context["decision_note"])
        if context["masks_in_play"]:  # with their powers, as the page's aside
            lines.append(_("Masks in play:"))
            lines.extend("- " + _("%(name)s: %(power)s") % {"name": m["name"], "power": m["power"]}
                         for m in context["masks_in_play"])
        if context["starting_deal"]:  # [R4] public, as the page's "The starting deal"
            lines.append(_("The starting deal: %(deal)s.") % {"deal": "; ".join(
                pgettext("starting deal", "%(about)s: %(mask)s") % deal
                for deal in context["starting_deal"])})
        if board.you is not None:
            if not context["knowledge"]:
                lines.append(_("You have not seen any card since the deal."))
            else:
                lines.append(_("Your notebook:"))
                for known in context["knowledge"]:
                    line = _("Move %(seq)s: %(about)s was the %(mask)s.") % {
                        "seq": known["seq"], "about": known["about_words"],
                        "mask": known["mask_name"]}
                    line += " " + (_("Touched since: it may have moved (last at move %(seq)s).")
                                   % {"seq": known["touched_at"]} if known["touched_at"]
                                   else _("Not touched since."))
                    lines.append("- " + line)
        return [line for line in lines if line]

    def rules_context(self) -> dict[str, Any]:
        return {"masks": [{"id": m.id, "name": display.mask(m.id), "power": display.POWERS[m.id],
                           "star": m.star, "min_players": m.min_players, "copies": m.copies,
                           "custom_only": m.custom_only} for m in MASKS.values()],
                "scenarios": forms.scenario_table()}

    def create_context(self) -> dict[str, Any]:
        return {"scenarios": forms.scenario_table()}


def _decision_note(state: dict, you: dict | None, names: dict[int, str]) -> str:
    """What the power decision awaited from the viewer is about, from their projection only:
    the Guru's target is told who chose them and what a wrong answer costs; the Spy's swap
    restates the two cards and what the Spy saw of them."""
    power = state.get("power") or {}
    mine = (you or {}).get("seat")
    if mine is None or not any(item.get("seat") == mine and item.get("decision")
                               == power.get("decision") for item in state.get("awaiting", [])):
        return ""
    guru = seat_name(power.get("seat"), names)
    if power.get("decision") == "guru_answer" and power.get("target") == mine:
        return _("%(player)s used the Guru on you: name your mask, then your card is revealed. "
                 "If you name it wrongly, you pay %(player)s 4 coins (all you have if fewer).") % {
            "player": guru}
    if power.get("decision") == "spy_swap" and power.get("seat") == mine:
        target = power.get("target")
        seen = [k for k in (you or {}).get("knowledge", []) if k.get("how") == "spy"]
        latest = max((k["seq"] for k in seen), default=None)
        masks = {k["about"]: k["mask"] for k in seen if k["seq"] == latest}
        if mine in masks and target in masks:
            return _("You saw your card, the %(mine)s, and %(player)s's card, the %(theirs)s: "
                     "swap these two cards, or leave them as they are.") % {
                "mine": display.mask(masks[mine]), "player": seat_name(target, names),
                "theirs": display.mask(masks[target])}
        return _("Your card and %(player)s's card: swap them, or leave them as they are.") % {
            "player": seat_name(target, names)}
    return ""


def _turned(recent: list[dict], turn: int, moved: dict[Any, int]) -> dict[int, str]:
    """The cards face up on the table for this viewer: for each seat, its card's latest reveal
    of this turn or the previous one (a challenge's, the Guru's, the Princess's), as this viewer
    saw it, while no move has taken that card under the table since (an exchange, a Spy's or a
    Fool's swap, real or not). A latest reveal this viewer did not see (the Princess's target
    does not see their own card) turns nothing, nor does an older one. Seat → the mask's id."""
    shown: dict[int, tuple[int, str | None]] = {}
    for event in recent:  # oldest first
        kind = event.get("type")
        if kind in ("reveal", "princess") and event.get("turn") in (turn, turn - 1):
            seat = event.get("seat") if kind == "reveal" else event.get("target")
            shown[seat] = (event.get("seq", 0), event.get("mask"))
        elif kind in ("exchange", "spy_swap", "fool"):
            touched = (event.get("targets") or [] if kind == "fool"
                       else [event.get("seat"), event.get("target")])
            for slot in touched:
                shown.pop(slot, None)
    return {seat: mask for seat, (seq, mask) in shown.items()
            if mask and seq > moved.get(seat, 0)}


#: The Justice board draws its coins up to this many (its sentence gives the count).
JUSTICE_COINS_DRAWN = 12
#: The phone's table: three columns around the centre, as many rows as the seats need (the
#: ring of a 3 × rows grid holds 2 × rows + 2 seats).
PHONE_COLUMNS = 3


def _phone_rows(n: int) -> int:
    return max(3, -(-(n - 2) // 2))


def _ring(seats: list[dict], you: int | None) -> dict[str, Any]:
    """Where each seat sits around the drawn table, the viewer at the bottom (a spectator sees
    seat 0 there) and play going clockwise: the viewer's left neighbour (the next seat, rules
    §1) is drawn on their left. Each seat gets ``ring`` (its place from the bottom, clockwise),
    ``side`` ("left"/"right" for the viewer's neighbours) and ``row``/``col``, its cell on the
    phone's grid (the ring of cells around the centre whose angle from the centre is nearest
    its own, in order); the desktop's oval places it by ``ring`` alone (``table.css``)."""
    n = len(seats)
    positions = [s["seat"] for s in seats]
    bottom = positions.index(you) if you in positions else 0
    rows = _phone_rows(n)
    cells = _ring_cells(n, rows, PHONE_COLUMNS)
    for index, seat in enumerate(seats):
        k = (index - bottom) % n
        seat["ring"] = k
        seat["side"] = ("left" if you is not None and k == 1
                        else "right" if you is not None and k == n - 1 else "")
        seat["row"], seat["col"] = cells[k]
    return {"n": n, "rows": rows}


@functools.cache  # (a few table sizes; every page and live refresh draws one)
def _ring_cells(n: int, rows: int, cols: int) -> tuple[tuple[int, int], ...]:
    """``n`` cells of the border of a ``rows`` × ``cols`` grid (1-based row, column), clockwise
    from the bottom middle, spread as evenly as the angles allow (a dynamic programme on the
    squared angle differences, keeping the order)."""
    middle_row, middle_col = (rows + 1) / 2, (cols + 1) / 2
    border = [(r, c) for r in range(1, rows + 1) for c in range(1, cols + 1)
              if r in (1, rows) or c in (1, cols)]

    def angle(cell):  # 0 at the bottom, growing clockwise on the screen (bottom, left, top)
        x = (cell[1] - middle_col) / (middle_col - 1)
        y = (cell[0] - middle_row) / (middle_row - 1)
        return math.degrees(math.atan2(-x, y)) % 360

    border.sort(key=angle)
    p = len(border)
    wanted = [360 * k / n for k in range(n)]
    inf = float("inf")
    # cost[k][i]: the best placement of seats 0..k with seat k at border[i].
    cost = [[inf] * p for _ in range(n)]
    back = [[0] * p for _ in range(n)]
    cost[0][0] = 0.0
    for k in range(1, n):
        best, best_at = inf, 0
        for i in range(1, p):
            if cost[k - 1][i - 1] < best:
                best, best_at = cost[k - 1][i - 1], i - 1
            cost[k][i] = best + (angle(border[i]) - wanted[k]) ** 2
            back[k][i] = best_at
    i = min(range(p), key=lambda j: cost[n - 1][j])
    chosen = [0] * n
    for k in range(n - 1, -1, -1):
        chosen[k] = i
        i = back[k][i]
    return tuple(border[i] for i in chosen)


KIT = MascaradeKit()
