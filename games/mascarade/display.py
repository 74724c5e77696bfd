"""Mascarade's words: mask names and powers, moves and events as plain sentences.

One place, translated, used by the kit (pages and mails). It only rewords what it is given:
callers pass events and moves *as the viewer may see them* (``games.core.selectors``), so a sentence
can never say more than the projection did (with ``log_masks`` off the rules have already dropped
old masks and the sentence reads "a card").
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy

from games.core.kit import acting_player, command_text, seat_name

from .rules.data import MASKS, PREP_TURNS

MASK_NAMES = {
    "judge": gettext_lazy("Judge"), "king": gettext_lazy("King"),
    "empress": gettext_lazy("Empress"), "cheater": gettext_lazy("Cheater"),
    "thief": gettext_lazy("Thief"), "spy": gettext_lazy("Spy"),
    "sorceress": gettext_lazy("Sorceress"), "fool": gettext_lazy("Fool"),
    "guru": gettext_lazy("Guru"), "crook": gettext_lazy("Crook"),
    "widow": gettext_lazy("Widow"), "princess": gettext_lazy("Princess"),
    "patron": gettext_lazy("Patron"), "puppeteer": gettext_lazy("Puppeteer"),
    "beggar": gettext_lazy("Beggar"), "peasant": gettext_lazy("Peasant"),
    "gambler": gettext_lazy("Gambler"),
}

POWERS = {
    "judge": gettext_lazy("Take all coins on the Justice board."),
    "king": gettext_lazy("Take 2 coins from the Bank."),
    "empress": gettext_lazy("Take 3 coins from the Bank."),
    "cheater": gettext_lazy("If you have 10 or more coins, you win immediately."),
    "thief": gettext_lazy("Take 1 coin from your left neighbour, then 1 from your right "
                          "neighbour."),
    "spy": gettext_lazy("Choose another player; secretly look at their card and yours; then "
                        "swap them or not."),
    "sorceress": gettext_lazy("You may exchange your whole fortune with another player's."),
    "fool": gettext_lazy("Take 1 coin from the Bank; then swap (or not) the cards of two other "
                         "players, without looking."),
    "guru": gettext_lazy("Choose another player; they name their mask, then reveal; if wrong "
                         "they pay you 4 coins."),
    "crook": gettext_lazy("Take 2 coins from the richest other player (you choose among tied "
                          "richest)."),
    "widow": gettext_lazy("Take coins from the Bank until you have 10 (no effect at 10 or "
                          "more)."),
    "princess": gettext_lazy("Take 2 coins from the Bank; then choose another player whose card "
                             "is shown to everyone but its owner."),
    "patron": gettext_lazy("Take 3 coins from the Bank; your left and right neighbours take 1 "
                           "each."),
    "puppeteer": gettext_lazy("Take 1 coin from each of two other players; those two then change "
                              "seats."),
    "beggar": gettext_lazy("Clockwise from your left, every player strictly richer than you at "
                           "that moment gives you 1 coin."),
    "peasant": gettext_lazy("Take 1 coin; if both Peasants are revealed in a challenge, each "
                            "takes 2 instead."),
    "gambler": gettext_lazy("Take 3 coins from the Bank and hide 1-3 of them; a chosen player "
                            "guesses how many; right: they gain the hidden coins; wrong: you gain "
                            "them; the rest go back to the Bank."),
}
assert set(MASK_NAMES) == set(MASKS) == set(POWERS)

DECISIONS = {
    "prep": gettext_lazy("a preparatory exchange"), "turn": gettext_lazy("a turn"),
    "challenge": gettext_lazy("claim or pass"),
}


def mask(mask_id: Any) -> str:
    if not mask_id:
        return _("a card")
    return str(MASK_NAMES.get(mask_id, mask_id))


def decision(name: str) -> str:
    return str(DECISIONS.get(name, _("a power decision")))


#: Each decision as a question put to the player it awaits (the table's banner).
QUESTIONS = {
    "prep": gettext_lazy("exchange your card with another one, really or only pretending?"),
    "turn": gettext_lazy("look at your card, exchange it, or announce a mask?"),
    "challenge": gettext_lazy("claim or pass?"),
    "spy": gettext_lazy("whose card do you look at, with yours?"),
    "spy_swap": gettext_lazy("swap the two cards, or leave them?"),
    "fool": gettext_lazy("the cards of which two other players do you swap, or pretend to?"),
    "puppeteer": gettext_lazy("which two players pay you a coin and change seats?"),
    "princess": gettext_lazy("whose card is shown to everyone but its owner?"),
    "guru": gettext_lazy("whom do you question?"),
    "guru_answer": gettext_lazy("which mask do you name?"),
    "sorceress": gettext_lazy("exchange your fortune with another player's, or keep it?"),
    "crook": gettext_lazy("which of the richest players pays you 2 coins?"),
    "gambler": gettext_lazy("how many coins do you hide (1 to 3), and who guesses?"),
    "gambler_guess": gettext_lazy("how many coins are hidden: 1, 2 or 3?"),
}


def question(name: str) -> str:
    return str(QUESTIONS.get(name) or decision(name))


def r5_turn_banner(state: dict) -> str:
    """The turn's banner of a player whose card was revealed last turn (R5: no announcement)."""
    return _("Turn %(turn)d: your card was revealed last turn, so you may not announce (R5): "
             "look at your card or exchange it?") % {"turn": state.get("turn") or 0}


def decision_context(item: dict, state: dict, you: dict | None, names: dict[int, str]) -> str:
    """What an awaited decision is about, from the viewer's ``state`` only (the banner's
    context): the turn, the announcement and who claimed it, the power and whose it is."""
    kind = item.get("decision")
    mine = (you or {}).get("seat")
    if kind == "prep":
        return _("Preparatory turn %(turn)d of %(count)d") % {
            "turn": state.get("turn") or 0, "count": PREP_TURNS}
    if kind == "turn":
        return _("Turn %(turn)d") % {"turn": state.get("turn") or 0}
    if kind == "challenge":
        announcement = state.get("announcement") or {}
        words = _("%(player)s announced the %(mask)s") % {
            "player": seat_name(announcement.get("seat"), names),
            "mask": mask(announcement.get("mask"))}
        claims = [seat_name(s, names) for s in announcement.get("claims") or []
                  if s != item.get("seat")]
        if claims:
            words = _("%(announced)s; claimed by %(players)s") % {
                "announced": words, "players": ", ".join(claims)}
        return words
    power = state.get("power") or {}
    if not power:
        return ""
    holder, target = power.get("seat"), power.get("target")
    the_mask = mask(power.get("mask"))
    if kind == "guru_answer":
        if target == mine:
            return _("%(player)s's Guru questions you") % {"player": seat_name(holder, names)}
        return _("%(player)s's Guru questions %(target)s") % {
            "player": seat_name(holder, names), "target": seat_name(target, names)}
    if kind == "gambler_guess":
        return _("%(player)s's Gambler hid 1 to 3 coins") % {"player": seat_name(holder, names)}
    if kind == "spy_swap":
        if holder == mine:
            return _("Your Spy looked at %(target)s's card and yours") % {
                "target": seat_name(target, names)}
        return _("%(player)s's Spy looked at %(target)s's card") % {
            "player": seat_name(holder, names), "target": seat_name(target, names)}
    if holder == mine:
        return _("The power of your %(mask)s") % {"mask": the_mask}
    return _("the power of %(player)s's %(mask)s") % {
        "player": seat_name(holder, names), "mask": the_mask}


def slot(value: Any, names: dict[int, str]) -> str:
    """A seat number or a center slot ("center-0") in words."""
    if isinstance(value, str) and value.startswith("center-"):
        return _("center card %(n)s") % {"n": int(value.split("-")[1]) + 1}
    if isinstance(value, int):
        return _("%(player)s's card") % {"player": names.get(value, _("seat %(n)s") % {
            "n": value})}
    return str(value)


def move_label(move: dict, names: dict[int, str]) -> str:
    """A legal move as a button's words ("Exchange with bob's card, really")."""
    kind = move.get("type")
    if kind == "exchange":
        if move.get("swap"):
            return _("Exchange with %(slot)s (really swap)") % {
                "slot": slot(move.get("target"), names)}
        return _("Exchange with %(slot)s (only pretend)") % {
            "slot": slot(move.get("target"), names)}
    if kind == "look":
        return _("Look at your card")
    if kind == "announce":
        return _("Announce: I am the %(mask)s") % {"mask": mask(move.get("mask"))}
    if kind == "claim":
        return _("Claim: I am the announced mask")
    if kind == "pass":
        return _("Pass")
    if kind in ("spy", "princess", "guru", "crook"):
        return _("Choose %(player)s") % {"player": seat_name(move.get("target"), names)}
    if kind == "sorceress":
        if move.get("target") is None:
            return _("Keep your fortune")
        return _("Exchange fortunes with %(player)s") % {
            "player": seat_name(move.get("target"), names)}
    if kind in ("spy_swap",):
        return _("Swap the two cards") if move.get("swap") else _("Leave the cards")
    if kind == "fool":
        a, b = move.get("targets", [None, None])
        verb = _("swap") if move.get("swap") else _("do not swap")
        return _("%(a)s and %(b)s: %(verb)s") % {"a": seat_name(a, names),
                                                 "b": seat_name(b, names), "verb": verb}
    if kind == "puppeteer":
        a, b = move.get("targets", [None, None])
        return _("Take from %(a)s and %(b)s") % {"a": seat_name(a, names),
                                                 "b": seat_name(b, names)}
    if kind == "guru_answer":
        return _("My mask is the %(mask)s") % {"mask": mask(move.get("mask"))}
    if kind == "gambler":
        hidden = move.get("hidden")
        return ngettext("Hide %(hidden)s coin, %(player)s guesses",
                        "Hide %(hidden)s coins, %(player)s guesses",
                        hidden if isinstance(hidden, int) else 2) % {
            "hidden": hidden, "player": seat_name(move.get("target"), names)}
    if kind == "gambler_guess":
        return _("Guess %(guess)s") % {"guess": move.get("guess")}
    return str(kind)


#: The moves' mail commands, by what decides them (``%(...)s`` filled in by :func:`command`).
COMMANDS = {
    "look": pgettext_lazy("mascarade command", "look"),
    "exchange_swap": pgettext_lazy("mascarade command", "exchange %(slot)s swap"),
    "exchange_keep": pgettext_lazy("mascarade command", "exchange %(slot)s keep"),
    "announce": pgettext_lazy("mascarade command", "announce %(mask)s"),
    "claim": pgettext_lazy("mascarade command", "claim"),
    "pass": pgettext_lazy("mascarade command", "pass"),
    "choose": pgettext_lazy("mascarade command", "choose %(player)s"),
    "choose_nobody": pgettext_lazy("mascarade command", "choose nobody"),
    "spy_swap": pgettext_lazy("mascarade command", "swap"),
    "spy_keep": pgettext_lazy("mascarade command", "keep"),
    "fool_swap": pgettext_lazy("mascarade command", "choose %(a)s %(b)s swap"),
    "fool_keep": pgettext_lazy("mascarade command", "choose %(a)s %(b)s keep"),
    "puppeteer": pgettext_lazy("mascarade command", "choose %(a)s %(b)s"),
    "guru_answer": pgettext_lazy("mascarade command", "answer %(mask)s"),
    "gambler": pgettext_lazy("mascarade command", "hide %(n)s %(player)s"),
    "gambler_guess": pgettext_lazy("mascarade command", "guess %(n)s"),
    "center": pgettext_lazy("mascarade command", "center %(n)s"),
}


def _slot_word(value: Any, names: dict[int, str]) -> str:
    """A seat (its player's name) or a center slot ("center 1") in a command."""
    if isinstance(value, str) and value.startswith("center-"):
        return str(COMMANDS["center"]) % {"n": int(value.split("-")[1]) + 1}
    return seat_name(value, names)


def command(move: dict, names: dict[int, str]) -> str:
    """A legal move as a mail command ("exchange bob swap", "announce king"); empty for a move
    this game does not have."""
    kind = move.get("type")
    targets = move.get("targets") or [None, None]
    values = {"slot": _slot_word(move.get("target"), names),
              "player": seat_name(move.get("target"), names), "mask": mask(move.get("mask")),
              "a": seat_name(targets[0], names), "b": seat_name(targets[-1], names),
              "n": move.get("hidden", move.get("guess"))}
    yes = "swap" if move.get("swap") else "keep"
    if kind == "exchange":
        key = f"exchange_{yes}"
    elif kind in ("spy", "princess", "guru", "crook", "sorceress"):
        key = "choose" if move.get("target") is not None else "choose_nobody"
    elif kind in ("spy_swap", "fool"):
        key = f"{kind.split('_')[0]}_{yes}"
    else:
        key = kind
    if key not in COMMANDS or key == "center":
        return ""
    return command_text(str(COMMANDS[key]) % values)


def command_notes(legal_moves: list[dict]) -> list[str]:
    """What the last word of an exchange's, the Spy's or the Fool's command means (``swap`` /
    ``keep``), when such a move is listed."""
    if not {move.get("type") for move in legal_moves} & {"exchange", "spy_swap", "fool"}:
        return []
    return [_("“%(swap)s”: the cards really change hands. “%(keep)s”: they stay where they "
              "are, and the others cannot tell which you chose.") % {
        "swap": COMMANDS["spy_swap"], "keep": COMMANDS["spy_keep"]}]


MOVE_GROUPS = {
    "exchange": gettext_lazy("Exchange"), "look": gettext_lazy("Look"),
    "announce": gettext_lazy("Announce a mask"), "claim": gettext_lazy("Challenge"),
    "pass": gettext_lazy("Challenge"), "guru_answer": gettext_lazy("Name your mask"),
}


def move_group(move: dict) -> str:
    return str(MOVE_GROUPS.get(move.get("type"), _("Your power")))


def sentence(event: dict, names: dict[int, str]) -> str:
    """One event of the viewer's history in words."""
    kind = event.get("type")
    who = acting_player(event, names)
    if kind == "turn":
        return (_("Preparatory turn: %(player)s.") if event.get("prep")
                else _("Turn: %(player)s.")) % {"player": who}
    if kind == "exchange":
        target = slot(event.get("target"), names)
        if "swapped" in event:
            how = _("really swapped") if event["swapped"] else _("only pretended")
            return _("%(player)s exchanged with %(target)s (you know: %(how)s).") % {
                "player": who, "target": target, "how": how}
        return _("%(player)s exchanged (or pretended to) with %(target)s.") % {
            "player": who, "target": target}
    if kind == "look":
        if event.get("mask"):
            return _("%(player)s looked at their card: the %(mask)s.") % {
                "player": who, "mask": mask(event["mask"])}
        return _("%(player)s looked at their card.") % {"player": who}
    if kind == "announce":
        return _("%(player)s announced: “I am the %(mask)s”.") % {
            "player": who, "mask": mask(event.get("mask"))}
    if kind == "claim":
        return _("%(player)s claims to be the announced mask.") % {"player": who}
    if kind == "pass":
        return _("%(player)s passes.") % {"player": who}
    if kind == "challenge_closed":
        if event.get("claims"):
            return _("The challenge closes: everyone involved reveals.")
        return _("Nobody challenged.")
    if kind == "reveal":
        return _("%(player)s revealed %(mask)s.") % {
            "player": who, "mask": (_("the %(mask)s") % {"mask": mask(event["mask"])}
                                    if event.get("mask") else _("a card"))}
    if kind == "fines":
        count, amount = len(event.get("seats", [])), event.get("amount")
        coins = ngettext("%(n)s coin", "%(n)s coins",
                         amount if isinstance(amount, int) else 2) % {"n": amount}
        return ngettext("Wrong claims: %(count)s player pays %(coins)s to the Justice board.",
                        "Wrong claims: %(count)s players pay %(coins)s each to the Justice "
                        "board.", count) % {"count": count, "coins": coins}
    if kind == "power":
        if not event.get("mask"):  # forgotten (R9: log_masks off, a revealed holder's)
            return _("%(player)s uses the power of their revealed card.") % {"player": who}
        return _("%(player)s uses the power of the %(mask)s.") % {
            "player": who, "mask": mask(event.get("mask"))}
    if kind == "coins":
        source, dest = event.get("from"), event.get("to")
        def side(value):
            if value == "bank":
                return _("the Bank")
            if value == "justice":
                return _("the Justice board")
            return seat_name(value, names)
        amount = event.get("amount")
        return ngettext("%(amount)s coin from %(from)s to %(to)s.",
                        "%(amount)s coins from %(from)s to %(to)s.",
                        amount if isinstance(amount, int) else 2) % {
            "amount": amount, "from": side(source), "to": side(dest)}
    if kind in ("spy", "princess", "guru", "crook", "sorceress", "gambler"):
        target = event.get("target")
        text = _("%(player)s chose %(target)s.") % {
            "player": who, "target": seat_name(target, names) if target is not None
            else _("nobody")}
        if kind == "princess" and event.get("mask"):
            text += " " + _("Their card is shown: the %(mask)s.") % {"mask": mask(event["mask"])}
        if kind == "spy" and event.get("mask"):
            text += " " + _("You saw: your card, the %(mine)s; theirs, the %(theirs)s.") % {
                "mine": mask(event["mask"]), "theirs": mask(event.get("target_mask"))}
        return text
    if kind == "spy_swap":
        if "swapped" in event:
            return _("%(player)s %(how)s the two cards.") % {
                "player": who, "how": _("swapped") if event["swapped"] else _("did not swap")}
        return _("%(player)s swapped the two cards, or not.") % {"player": who}
    if kind == "fool":
        return _("%(player)s swapped two other players' cards, or not.") % {"player": who}
    if kind in ("puppeteer", "seat_change"):
        return _("%(player)s makes two players change seats.") % {"player": who}
    if kind == "guru_answer":
        return _("%(player)s says they are the %(mask)s.") % {
            "player": who, "mask": mask(event.get("mask"))}
    if kind == "gambler_guess":
        return _("%(player)s guessed %(guess)s.") % {"player": who, "guess": event.get("guess")}
    if kind == "end":
        winners = [seat_name(w, names) for w in event.get("winners", [])]
        return ngettext("The game is over. Winner: %(winners)s.",
                        "The game is over. Winners: %(winners)s.", len(winners)) % {
            "winners": ", ".join(winners)}
    return str(kind)


def error_words(error: Any) -> str | None:
    """A refusal of the rules in words (``GameKit.error_words``), from its code and extra."""
    extra, code = error.extra, error.code
    if code == "prep_exchange_only":
        return _("During the four preparatory turns you may only exchange your card, with "
                 "another seat or a center card, swapping it or not (§5).")
    if code == "wrong_move_now":
        decision = extra.get("decision")
        if decision == "turn":
            return _("It is your turn: look at your card, exchange it or announce a mask (§5).")
        if decision == "challenge":
            return _("%(mask)s was announced: answer with a claim or a pass (§6).") % {
                "mask": mask(extra.get("mask"))}
        return _("The power of %(mask)s is waiting for another decision from you (§7).") % {
            "mask": mask(extra.get("mask"))}
    if code == "exchange_with_self":
        return _("You cannot exchange your card with your own seat: choose another seat or a "
                 "center card (§5).")
    if code == "r5_revealed_last_turn":
        return _("You cannot announce this turn: your card was revealed during the previous "
                 "turn (R5). You may look at it or exchange it.")
    if code == "mask_not_in_play" and extra.get("mask"):
        return _("%(mask)s is not in play in this game: choose one of %(masks)s.") % {
            "mask": mask(extra["mask"]),
            "masks": ", ".join(mask(m) for m in extra.get("masks") or [])}
    if code == "target_self":
        return _("%(mask)s: choose other players, not your own seat (§7).") % {
            "mask": mask(extra.get("mask"))}
    if code == "targets_not_distinct":
        return _("%(mask)s: choose two different players (§7).") % {
            "mask": mask(extra.get("mask"))}
    if code == "crook_not_richest":
        return _("The Crook takes from the richest other player (§7).")
    return None
