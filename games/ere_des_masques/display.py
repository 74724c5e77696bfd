"""L'Ère des Masques in words, in the viewer's language: the cards, the decisions, the moves as
buttons, the history's sentences. Everything here is worded from a viewer's projection (a card a
viewer may not know is absent from it, and so from the sentence)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext_lazy

from games.core.kit import acting_player, cards_in_words, command_text, seat_name

from .rules.cards import KINDS

#: The kinds' names (E1: named by their power; the French cards' own names).
NAMES = {
    "noble": pgettext_lazy("ere card", "the Noble"),
    "recruiter": pgettext_lazy("ere card", "the Recruiter"),
    "spy": pgettext_lazy("ere card", "the Spy"),
    "brute": pgettext_lazy("ere card", "the Brute"),
    "assassin": pgettext_lazy("ere card", "the Assassin"),
}
#: A kind's name as a card's title.
TITLES = {
    "noble": pgettext_lazy("ere card title", "Noble"),
    "recruiter": pgettext_lazy("ere card title", "Recruiter"),
    "spy": pgettext_lazy("ere card title", "Spy"),
    "brute": pgettext_lazy("ere card title", "Brute"),
    "assassin": pgettext_lazy("ere card title", "Assassin"),
}
POWERS = {
    "noble": pgettext_lazy("ere power", "Draw 2 cards."),
    "recruiter": pgettext_lazy("ere power",
                               "Draw 5 cards, keep 1 in your hand, discard the other 4."),
    "spy": pgettext_lazy("ere power", "Draw 1 card and look at your opponent's hand."),
    "brute": pgettext_lazy("ere power", "Discard 1 card at random from your opponent's hand."),
    "assassin": pgettext_lazy("ere power",
                              "Discard 1 card of your choice from your opponent's play zone."),
}


def card(kind: Any) -> str:
    return str(NAMES.get(kind, kind))


def title(kind: Any) -> str:
    return str(TITLES.get(kind, kind))


def cards(kinds: list) -> str:
    """Cards in words, grouped by kind in the rules' order ("2 × Noble, Spy")."""
    return cards_in_words(kinds, KINDS, title)


#: Each decision as a question put to the player it awaits (the table's banner).
QUESTIONS = {
    "turn": pgettext_lazy("ere question", "draw 2 cards, or play a card face down?"),
    "respond": pgettext_lazy("ere question", "let it pass, or counter it by naming its kind?"),
    "discard": pgettext_lazy("ere question", "which card of your hand do you discard?"),
    "keep": pgettext_lazy("ere question", "which card do you keep in your hand?"),
    "assassinate": pgettext_lazy("ere question",
                                 "which card of your opponent's zone do you discard?"),
}


def question(name: str) -> str:
    return str(QUESTIONS.get(name) or decision(name))


def decision_context(item: dict, state: dict, you: dict | None, names: dict[int, str]) -> str:
    """What an awaited decision is about, from the viewer's ``state`` only (the banner's
    context): the turn, the card played face down, the counter and its outcome, the power."""
    kind = item.get("decision")
    mine = (you or {}).get("seat")
    played = state.get("played") or {}
    power = state.get("power") or {}
    if kind == "turn":
        return _("Turn %(turn)d") % {"turn": state.get("turn") or 0}
    if kind == "respond" and played:
        return _("%(player)s played a card face down") % {
            "player": seat_name(played.get("seat"), names)}
    if kind == "discard" and played.get("countered"):
        named = card(played.get("counter_kind"))
        if item.get("seat") == mine:
            if played.get("right"):
                return _("You named %(kind)s, rightly (the card you discard applies its power "
                         "for you)") % {"kind": named}
            return _("You named %(kind)s, wrongly (it was %(card)s)") % {
                "kind": named, "card": card(played.get("card"))}
        who = seat_name(item.get("seat"), names)
        if played.get("right"):
            return _("%(player)s named %(kind)s, rightly") % {"player": who, "kind": named}
        return _("%(player)s named %(kind)s, wrongly") % {"player": who, "kind": named}
    if kind == "keep" and power:
        count = power.get("count") or 0
        if power.get("seat") == mine:
            return ngettext("Your Recruiter drew %(n)d card", "Your Recruiter drew %(n)d cards",
                            count) % {"n": count}
        return ngettext("%(player)s's Recruiter drew %(n)d card",
                        "%(player)s's Recruiter drew %(n)d cards", count) % {
            "player": seat_name(power.get("seat"), names), "n": count}
    if kind == "assassinate" and power:
        if power.get("seat") == mine:
            return _("Your Assassin")
        return _("%(player)s's Assassin") % {"player": seat_name(power.get("seat"), names)}
    return ""


def decision(name: str) -> str:
    words = {
        "turn": _("draw 2 cards or play a card"),
        "respond": _("let the card pass or counter it"),
        "discard": _("discard a card from the hand"),
        "keep": _("keep one of the recruited cards"),
        "assassinate": _("choose the card the Assassin discards"),
    }
    return words.get(name, name)


def move_group(move: dict) -> str:
    kind = move.get("type")
    if kind in ("draw", "play"):
        return _("Your turn: draw 2 cards, or play a card face down")
    if kind in ("let_pass", "counter"):
        return _("The card played face down: let it pass, or counter it by naming its kind")
    if kind == "discard":
        return _("Discard a card from your hand")
    if kind == "keep":
        return _("The Recruiter: keep one card, the others are discarded")
    if kind == "assassinate":
        return _("The Assassin: discard a card from your opponent's zone")
    return _("Your move")


def move_label(move: dict, names: dict[int, str]) -> str:
    kind, what = move.get("type"), card(move.get("card") or move.get("kind"))
    if kind == "draw":
        return _("Draw 2 cards")
    if kind == "play":
        return _("Play %(card)s") % {"card": what}
    if kind == "let_pass":
        return _("Let it pass")
    if kind == "counter":
        return _("Counter: it is %(card)s") % {"card": what}
    if kind == "discard":
        return _("Discard %(card)s") % {"card": what}
    if kind == "keep":
        return _("Keep %(card)s") % {"card": what}
    if kind == "assassinate":
        return _("Assassinate %(card)s") % {"card": what}
    return str(kind)


#: The moves' mail commands, by move type (``%(card)s`` filled in by :func:`command`).
COMMANDS = {
    "draw": pgettext_lazy("ere command", "draw"),
    "play": pgettext_lazy("ere command", "play %(card)s"),
    "let_pass": pgettext_lazy("ere command", "pass"),
    "counter": pgettext_lazy("ere command", "counter %(card)s"),
    "discard": pgettext_lazy("ere command", "discard %(card)s"),
    "keep": pgettext_lazy("ere command", "keep %(card)s"),
    "assassinate": pgettext_lazy("ere command", "kill %(card)s"),
}


def command(move: dict, names: dict[int, str]) -> str:
    """A legal move as a mail command ("draw", "play noble", "counter spy"); empty for a move
    this game does not have."""
    words = COMMANDS.get(move.get("type"))
    if words is None:
        return ""
    return command_text(str(words) % {"card": title(move.get("card") or move.get("kind"))})


def _discard(event: dict, names: dict[int, str]) -> str:
    whose = seat_name(event.get("seat"), names)
    what = card(event.get("card"))
    why = event.get("why")
    if why == "brute":
        return _("The Brute discards %(card)s from %(player)s's hand.") % {
            "card": what, "player": whose}
    if why == "assassin":
        if event.get("forced"):  # [E5] the zone held one kind: no choice was asked
            return _("The Assassin discards %(card)s from %(player)s's zone, the only kind "
                     "it holds.") % {"card": what, "player": whose}
        return _("The Assassin discards %(card)s from %(player)s's zone.") % {
            "card": what, "player": whose}
    if why == "countered":
        return _("%(player)s's %(card)s goes to the discard pile.") % {
            "player": whose, "card": title(event.get("card"))}
    if why == "recruiter":
        return _("%(player)s discards %(card)s among the recruited cards.") % {
            "player": whose, "card": what}
    return _("%(player)s discards %(card)s from their hand.") % {"player": whose, "card": what}


def sentence(event: dict, names: dict[int, str]) -> str:
    """One event of the viewer's history, from what the viewer saw of it."""
    kind = event.get("type")
    player = acting_player(event, names)
    shown = event.get("card")
    if kind == "turn":
        return _("Turn: %(player)s.") % {"player": player}
    if kind == "draw":
        count = event.get("count", 0)
        text = ngettext("%(player)s draws %(count)d card.", "%(player)s draws %(count)d cards.",
                        count) % {"player": player, "count": count}
        if event.get("cards"):
            text += " " + _("(%(cards)s)") % {"cards": cards(event["cards"])}
        return text
    if kind == "play":
        if shown:
            return _("%(player)s plays %(card)s face down.") % {"player": player,
                                                                "card": card(shown)}
        return _("%(player)s plays a card face down.") % {"player": player}
    if kind == "let_pass":
        if event.get("forced"):  # [E5] an empty hand cannot counter
            return _("%(player)s has no card to counter with: the card passes.") % {
                "player": player}
        return _("%(player)s lets it pass.") % {"player": player}
    if kind == "counter":
        return _("%(player)s counters: “it is %(card)s”.") % {
            "player": player, "card": card(event.get("kind"))}
    if kind == "reveal":
        text = _("The card is %(card)s.") % {"card": card(shown)}
        if event.get("right") is True:
            text += " " + _("The counter is right.")
        elif event.get("right") is False:
            text += " " + _("The counter is wrong.")
        return text
    if kind == "place":
        return _("%(card)s joins %(player)s's zone.") % {"card": title(shown), "player": player}
    if kind == "discard":
        return _discard(event, names)
    if kind == "power":
        return _("%(card)s's power applies for %(player)s.") % {
            "card": title(event.get("kind")), "player": player}
    if kind == "spy":
        target = seat_name(event.get("target"), names)
        if "hand" in event:
            return _("%(player)s looks at %(target)s's hand: %(cards)s.") % {
                "player": player, "target": target,
                "cards": cards(event["hand"]) or _("empty")}
        return _("%(player)s looks at %(target)s's hand.") % {"player": player,
                                                                "target": target}
    if kind == "recruit":
        count = event.get("count", 0)
        text = ngettext("%(player)s recruits %(count)d card.",
                        "%(player)s recruits %(count)d cards.", count) % {
            "player": player, "count": count}
        if event.get("cards"):
            text += " " + _("(%(cards)s)") % {"cards": cards(event["cards"])}
        return text
    if kind == "keep" and event.get("forced"):  # [E5] a single card was recruited
        if shown:
            return _("%(player)s keeps %(card)s, the only card recruited.") % {
                "player": player, "card": card(shown)}
        return _("%(player)s keeps the only card recruited.") % {"player": player}
    if kind == "keep":
        if shown:
            return _("%(player)s keeps %(card)s.") % {"player": player, "card": card(shown)}
        return _("%(player)s keeps one of the recruited cards.") % {"player": player}
    if kind == "reshuffle":
        count = event.get("count", 0)
        return ngettext("The discard pile is shuffled into a new draw pile (%(count)d card).",
                        "The discard pile is shuffled into a new draw pile (%(count)d cards).",
                        count) % {"count": count}
    if kind == "end":
        return end_words(event.get("reason"), event.get("kind"),
                         [seat_name(w, names) for w in event.get("winners", [])])
    return str(kind)


def end_words(reason: Any, kind: Any, winners: list[str]) -> str:
    if reason == "four_of_a_kind":
        return _("%(winner)s wins with four of %(card)s.") % {
            "winner": ", ".join(winners), "card": card(kind)}
    if reason == "five_kinds":
        return _("%(winner)s wins with the five kinds.") % {"winner": ", ".join(winners)}
    if reason == "stalemate":
        return _("The game ends without a winner: nothing was left to draw and nobody played.")
    if reason == "turn_limit":
        return _("The game ends without a winner: the turn limit was reached.")
    return _("The game is over.")


def error_words(error: Any) -> str | None:
    """A refusal of the rules in words (``GameKit.error_words``), from its code and extra."""
    extra, code = error.extra, error.code
    if code == "wrong_move_now":
        return {
            "turn": _("It is your turn: draw 2 cards or play a card from your hand (§3)."),
            "respond": _("Your opponent played a card face down: let it pass or counter it by "
                         "naming a kind (§3)."),
            "discard": _("You countered: discard a card of your choice from your hand (§3)."),
            "keep": _("The Recruiter's power: keep one of the cards you drew (§1)."),
            "assassinate": _("The Assassin's power: choose a card of your opponent's zone to "
                             "discard (§1)."),
        }.get(extra.get("decision"))
    if code == "counter_needs_card":
        return _("You may counter only with at least one card in your hand: let the card pass "
                 "(§3).")
    if code == "card_not_in_hand" and extra.get("card"):
        if extra.get("action") == "discard":
            return _("You have no %(card)s in your hand to discard.") % {
                "card": title(extra["card"])}
        return _("You have no %(card)s in your hand to play.") % {"card": title(extra["card"])}
    if code == "card_not_recruited" and extra.get("card"):
        return _("There is no %(card)s among the cards you drew: keep one of %(cards)s (§1).") % {
            "card": title(extra["card"]), "cards": cards(extra.get("cards") or [])}
    if code == "card_not_in_zone" and extra.get("card"):
        return _("There is no %(card)s in your opponent's zone: choose one of %(cards)s "
                 "(§1).") % {"card": title(extra["card"]), "cards": cards(extra.get("cards") or [])}
    return None
