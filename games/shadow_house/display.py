"""Shadow House Mascarade in words, in the viewer's language: the cards, the decisions, the moves
as buttons, the history's sentences, a round's result. Everything here is worded from a viewer's
projection: a card the viewer may not know is absent from the event, and so from the sentence."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext_lazy

from games.core.kit import acting_player, cards_in_words, command_text, seat_name

from .rules import CARDS

#: The cards' names (the French edition's are the French translation's).
TITLES = {
    "first_on_scene": pgettext_lazy("shadow card", "First on scene"),
    "culprit": pgettext_lazy("shadow card", "Culprit"),
    "detective": pgettext_lazy("shadow card", "Detective"),
    "accomplice": pgettext_lazy("shadow card", "Accomplice"),
    "sheriff": pgettext_lazy("shadow card", "Sheriff"),
    "alibi": pgettext_lazy("shadow card", "Alibi"),
    "toby": pgettext_lazy("shadow card", "Toby"),
    "little_one": pgettext_lazy("shadow card", "Little one"),
    "sharing": pgettext_lazy("shadow card", "Sharing"),
    "rumour": pgettext_lazy("shadow card", "Rumour"),
    "panic": pgettext_lazy("shadow card", "Panic!!!"),
    "divining_hat": pgettext_lazy("shadow card", "Divining hat"),
    "witness": pgettext_lazy("shadow card", "Witness"),
    "maid": pgettext_lazy("shadow card", "Maid"),
    "governess": pgettext_lazy("shadow card", "Governess"),
    "exchange": pgettext_lazy("shadow card", "Exchange"),
}
POWERS = {
    "first_on_scene": pgettext_lazy("shadow power", "Opens the round: its holder plays it "
                                    "first. No other effect."),
    "culprit": pgettext_lazy("shadow power", "Only as the last card of your hand (played, or "
                             "discarded for an Accomplice): then the culprit side wins the "
                             "round."),
    "detective": pgettext_lazy("shadow power", "Ask a player “are you the culprit?”. They must "
                               "say yes if they hold the Culprit and no Alibi: you win the "
                               "round."),
    "accomplice": pgettext_lazy("shadow power", "You become an accomplice for the rest of the "
                                "round. Choose a player: they discard a card of their choice "
                                "face up, then draw one."),
    "sheriff": pgettext_lazy("shadow power", "Give the Handcuffs to another player. If the "
                             "handcuffed player is shown to be the culprit, the culprit side "
                             "loses."),
    "alibi": pgettext_lazy("shadow power", "No effect when played. While it is in your hand you "
                           "answer “no” to a Detective."),
    "toby": pgettext_lazy("shadow power", "A random card of another player's hand is shown to "
                          "everyone: the Culprit wins you the round, any other card goes "
                          "back."),
    "little_one": pgettext_lazy("shadow power", "You alone learn who holds the Culprit."),
    "sharing": pgettext_lazy("shadow power", "Every player with cards gives one of their choice "
                             "to their left neighbour, all at once."),
    "rumour": pgettext_lazy("shadow power", "Every player takes a random card from their right "
                            "neighbour's hand."),
    "panic": pgettext_lazy("shadow power", "Every player with cards puts one in a pool; you see "
                           "the pool; it is shuffled and dealt back one each. Nothing as your "
                           "last card."),
    "divining_hat": pgettext_lazy("shadow power", "Say whom you suspect: your words go to the "
                                  "table's chat."),
    "witness": pgettext_lazy("shadow power", "Look at a player's hand. If you see the Culprit or "
                             "an Accomplice and still hold a card, you may swap a card with "
                             "them, each choosing their own."),
    "maid": pgettext_lazy("shadow power", "No Detective may question you until your next "
                          "turn."),
    "governess": pgettext_lazy("shadow power", "Neither Toby nor the Sheriff may choose you "
                               "until your next turn."),
    "exchange": pgettext_lazy("shadow power", "Give a card of your choice to a player; they give "
                              "you one of theirs. Nothing if your hand is empty."),
}


#: The cards' names in a mail command: one or two plain words, without article nor
#: punctuation ("hat", "maid"), each distinct.
COMMAND_WORDS = {
    "first_on_scene": pgettext_lazy("shadow command", "first"),
    "culprit": pgettext_lazy("shadow command", "culprit"),
    "detective": pgettext_lazy("shadow command", "detective"),
    "accomplice": pgettext_lazy("shadow command", "accomplice"),
    "sheriff": pgettext_lazy("shadow command", "sheriff"),
    "alibi": pgettext_lazy("shadow command", "alibi"),
    "toby": pgettext_lazy("shadow command", "toby"),
    "little_one": pgettext_lazy("shadow command", "little one"),
    "sharing": pgettext_lazy("shadow command", "sharing"),
    "rumour": pgettext_lazy("shadow command", "rumour"),
    "panic": pgettext_lazy("shadow command", "panic"),
    "divining_hat": pgettext_lazy("shadow command", "hat"),
    "witness": pgettext_lazy("shadow command", "witness"),
    "maid": pgettext_lazy("shadow command", "maid"),
    "governess": pgettext_lazy("shadow command", "governess"),
    "exchange": pgettext_lazy("shadow command", "exchange"),
}
assert set(COMMAND_WORDS) == set(CARDS) == set(TITLES) == set(POWERS)


#: The moves' mail commands, by move type (``%(card)s``, ``%(player)s`` filled in by
#: :func:`command`; a play with a target has its own).
COMMANDS = {
    "play": pgettext_lazy("shadow command", "play %(card)s"),
    "play_on": pgettext_lazy("shadow command", "play %(card)s %(player)s"),
    "discard": pgettext_lazy("shadow command", "discard %(card)s"),
    "give": pgettext_lazy("shadow command", "give %(card)s"),
    "contribute": pgettext_lazy("shadow command", "put %(card)s"),
    "witness_exchange": pgettext_lazy("shadow command", "swap %(card)s"),
    "witness_pass": pgettext_lazy("shadow command", "pass"),
    "say": pgettext_lazy("shadow command", "say"),
}


def command(move: dict, names: dict[int, str]) -> str:
    """A legal move as a mail command ("play detective bob", "give alibi", "say"); empty for a
    move this game does not have. The Divining hat's ``say`` is followed by the player's text
    (the kit's ``free_text_moves``)."""
    kind = move.get("type")
    key = "play_on" if kind == "play" and "target" in move else kind
    if key not in COMMANDS:
        return ""
    return command_text(str(COMMANDS[key]) % {
        "card": str(COMMAND_WORDS.get(move.get("card"), move.get("card"))),
        "player": seat_name(move.get("target"), names)})


def title(card: Any) -> str:
    return str(TITLES.get(card, card))


def cards(ids: list) -> str:
    """Cards in words, in the rules' order, repeated ones counted ("2 × Alibi, Toby")."""
    return cards_in_words(ids, CARDS, title)


#: Each decision as a question put to the player it awaits (the table's banner).
QUESTIONS = {
    "turn": pgettext_lazy("shadow question", "which card do you play face up?"),
    "discard": pgettext_lazy("shadow question",
                             "which card do you discard face up (you then draw one)?"),
    "give": pgettext_lazy("shadow question", "which card do you give?"),
    "contribute": pgettext_lazy("shadow question", "which card do you put in the Panic's pool?"),
    "witness": pgettext_lazy("shadow question",
                             "swap one of your cards with the player you saw, or not?"),
    "say": pgettext_lazy("shadow question", "what do you suspect? Say it, or say nothing."),
}


def question(name: str) -> str:
    return str(QUESTIONS.get(name) or decision(name))


def decision_context(item: dict, state: dict, you: dict | None, names: dict[int, str]) -> str:
    """What an awaited decision is about, from the viewer's ``state`` only (the banner's
    context): the round for a turn, else the card whose effect waits (who played it, on
    whom)."""
    kind = item.get("decision")
    mine = (you or {}).get("seat")
    if kind == "turn":
        return _("Round %(round)d") % {"round": state.get("round") or 0}
    effect = state.get("effect") or {}
    if not effect:
        return ""
    played, target = effect.get("seat"), effect.get("target")
    what = title(effect.get("card"))
    if played == mine:
        if target is None:
            return _("You played %(card)s") % {"card": what}
        return _("You played %(card)s on %(target)s") % {
            "card": what, "target": seat_name(target, names)}
    player = seat_name(played, names)
    if target is None:
        return _("%(player)s played %(card)s") % {"player": player, "card": what}
    if target == mine:
        return _("%(player)s played %(card)s on you") % {"player": player, "card": what}
    return _("%(player)s played %(card)s on %(target)s") % {
        "player": player, "card": what, "target": seat_name(target, names)}


def decision(name: str) -> str:
    words = {
        "turn": _("play a card"),
        "discard": _("discard a card for an Accomplice"),
        "give": _("choose a card to give"),
        "contribute": _("choose a card for the Panic"),
        "witness": _("swap a card with the player seen, or not"),
        "say": _("say what they suspect"),
    }
    return words.get(name, name)


def move_label(move: dict, names: dict[int, str]) -> str:
    kind, card = move.get("type"), move.get("card")
    if kind == "play":
        if "target" in move:
            return _("Play %(card)s on %(target)s") % {
                "card": title(card), "target": seat_name(move["target"], names)}
        return _("Play %(card)s") % {"card": title(card)}
    if kind == "discard":
        return _("Discard %(card)s") % {"card": title(card)}
    if kind == "give":
        return _("Give %(card)s") % {"card": title(card)}
    if kind == "contribute":
        return _("Put %(card)s in the pool") % {"card": title(card)}
    if kind == "witness_exchange":
        return _("Swap my %(card)s") % {"card": title(card)}
    if kind == "witness_pass":
        return _("No swap")
    if kind == "say":
        return _("Say it")
    return str(kind)


def move_group(move: dict) -> str:
    kind = move.get("type")
    if kind == "play":
        return _("Your turn: play a card face up")
    if kind == "discard":
        return _("An Accomplice chose you: discard a card face up, then draw one")
    if kind == "give":
        return _("Choose the card you give")
    if kind == "contribute":
        return _("Panic: choose the card you put in the pool")
    if kind in ("witness_exchange", "witness_pass"):
        return _("Witness: swap a card with the player you saw, or not")
    if kind == "say":
        return _("Divining hat: say what you suspect")
    return _("Your move")


def _gift(event: dict, names: dict[int, str], giver: str) -> str:
    to = seat_name(event.get("to"), names)
    if event.get("card"):
        return _("%(player)s gives %(card)s to %(to)s.") % {
            "player": giver, "card": title(event["card"]), "to": to}
    return _("%(player)s gives a card to %(to)s.") % {"player": giver, "to": to}


def sentence(event: dict, names: dict[int, str]) -> str:
    """One event of the viewer's history, from what the viewer saw of it."""
    kind = event.get("type")
    player = acting_player(event, names)
    target = seat_name(event.get("target"), names)
    shown = event.get("card")
    if kind == "round_start":
        return _("Round %(round)d begins: 4 cards each.") % {"round": event.get("round", 0)}
    if kind == "deal":
        if event.get("cards"):
            return _("You are dealt %(cards)s.") % {"cards": cards(event["cards"])}
        return _("%(player)s is dealt 4 cards.") % {"player": player}
    if kind == "turn":
        return _("Turn: %(player)s.") % {"player": player}
    if kind == "skip":
        return _("%(player)s has no card left and is skipped.") % {"player": player}
    if kind == "play":
        if event.get("target") is not None:
            return _("%(player)s plays %(card)s on %(target)s.") % {
                "player": player, "card": title(shown), "target": target}
        return _("%(player)s plays %(card)s.") % {"player": player, "card": title(shown)}
    if kind == "detective":
        if event.get("answer"):
            return _("%(target)s has to answer: “Yes, I am the culprit.”") % {"target": target}
        return _("%(target)s answers: “No, I am not the culprit.”") % {"target": target}
    if kind == "accomplice":
        return _("%(player)s is now an accomplice; %(target)s must discard a card.") % {
            "player": player, "target": target}
    if kind == "discard":
        return _("%(player)s discards %(card)s face up.") % {"player": player,
                                                               "card": title(shown)}
    if kind == "draw":
        if shown:
            return _("%(player)s draws a card: %(card)s.") % {"player": player,
                                                              "card": title(shown)}
        if "card" in event and shown is None:
            return _("%(player)s cannot draw: the pile is empty.") % {"player": player}
        return _("%(player)s draws a card.") % {"player": player}
    if kind == "handcuffs":
        return _("%(target)s now holds the Handcuffs.") % {"target": target}
    if kind == "toby":
        return _("Toby shows a card of %(target)s's hand: %(card)s.") % {
            "target": target, "card": title(shown)}
    if kind == "little_one":
        if event.get("culprit") is not None:
            return _("You learn that %(who)s holds the Culprit.") % {
                "who": seat_name(event["culprit"], names)}
        return _("Everyone closes their eyes; %(player)s learns who holds the Culprit.") % {
            "player": player}
    if kind == "give":
        return _gift(event, names, player)
    if kind == "rumour":
        source = seat_name(event.get("from"), names)
        if shown:
            return _("%(player)s takes %(card)s from %(from)s's hand.") % {
                "player": player, "card": title(shown), "from": source}
        return _("%(player)s takes a card from %(from)s's hand.") % {"player": player,
                                                                      "from": source}
    if kind == "contribute":
        return _("%(player)s puts a card in the Panic's pool.") % {"player": player}
    if kind == "panic_pool":
        return _("The pool you see: %(cards)s.") % {"cards": cards(event.get("cards") or [])}
    if kind == "panic_deal":
        if shown:
            return _("%(player)s gets %(card)s from the pool.") % {"player": player,
                                                                   "card": title(shown)}
        return _("%(player)s gets a card from the pool.") % {"player": player}
    if kind == "witness":
        if "hand" in event:
            return _("%(player)s looks at %(target)s's hand: %(cards)s.") % {
                "player": player, "target": target,
                "cards": cards(event["hand"]) or _("empty")}
        return _("%(player)s looks at %(target)s's hand.") % {"player": player,
                                                                "target": target}
    if kind == "witness_exchange":
        if event.get("exchanged"):
            return _("%(player)s and %(target)s swap a card.") % {"player": player,
                                                                  "target": target}
        return _("%(player)s swaps nothing with %(target)s.") % {"player": player,
                                                                 "target": target}
    if kind == "say":
        if event.get("text"):
            return _("%(player)s says what they suspect (in the chat).") % {"player": player}
        return _("%(player)s keeps their suspicions to themselves.") % {"player": player}
    if kind == "protect":
        if event.get("kind") == "maid":
            return _("No Detective may question %(player)s until their next turn.") % {
                "player": player}
        return _("Neither Toby nor the Sheriff may choose %(player)s until their next turn.") % {
            "player": player}
    if kind == "unprotect":
        return _("%(player)s's %(card)s no longer protects them.") % {
            "player": player, "card": title(event.get("kind"))}
    if kind == "round_end":
        return round_words(event, names)
    if kind == "end":
        return end_words(event.get("reason"),
                         [seat_name(w, names) for w in event.get("winners", [])])
    return str(kind)


def case_words(case: Any, by: str, culprit: str) -> str:
    """How a round ended (§4's four cases)."""
    if case == 1:
        return _("%(by)s's Detective found the culprit, %(culprit)s.") % {"by": by,
                                                                          "culprit": culprit}
    if case == 2:
        return _("%(by)s's Toby showed the Culprit in %(culprit)s's hand.") % {
            "by": by, "culprit": culprit}
    if case == 3:
        return _("%(culprit)s got rid of the Culprit as their last card: the culprit side "
                 "wins.") % {"culprit": culprit}
    if case == 4:
        return _("The culprit, %(culprit)s, held the Handcuffs: the culprit side loses.") % {
            "culprit": culprit}
    return _("The round is over.")


def round_words(result: dict, names: dict[int, str]) -> str:
    """A round's end in one sentence: how, and who scored."""
    by = seat_name(result.get("by"), names)
    culprit = seat_name(result.get("culprit"), names)
    text = _("Round %(round)d is over.") % {"round": result.get("round", 0)}
    text += " " + case_words(result.get("case"), by, culprit)
    accomplices = [seat_name(s, names) for s in result.get("accomplices") or []]
    if accomplices:
        text += " " + ngettext("Accomplice: %(names)s.", "Accomplices: %(names)s.",
                               len(accomplices)) % {"names": ", ".join(accomplices)}
    gained = result.get("gained") or []
    scored = [_("%(player)s +%(n)d") % {"player": seat_name(seat, names), "n": n}
              for seat, n in enumerate(gained) if n]
    if scored:
        text += " " + _("Points: %(list)s.") % {"list": ", ".join(scored)}
    return text


def end_words(reason: Any, winners: list[str]) -> str:
    names = ", ".join(winners)
    if reason == "flash":
        return ngettext("The investigation is over: %(names)s wins.",
                        "The investigation is over: %(names)s win.", len(winners)) % {
            "names": names}
    if reason == "points":
        return ngettext("%(names)s wins the game on points.",
                        "%(names)s share the victory on points.", len(winners)) % {
            "names": names}
    return _("The game is over.")


def error_words(error: Any) -> str | None:
    """A refusal of the rules in words (``GameKit.error_words``), from its code and extra."""
    extra, code = error.extra, error.code
    card = title(extra.get("card"))
    if code == "wrong_move_now":
        return {
            "turn": _("It is your turn: play a card of your hand face up (§3)."),
            "discard": _("An Accomplice chose you: discard a card of your hand face up (§1)."),
            "give": _("Choose the card of your hand you give (§1)."),
            "contribute": _("Panic: choose the card of your hand you put in the pool (§1)."),
            "witness": _("Your Witness looked: swap a card with the player you saw, or pass "
                         "(§1)."),
            "say": _("Your Divining hat: say what you suspect, or send an empty text (§1)."),
        }.get(extra.get("decision"))
    if code == "card_not_in_hand" and extra.get("card"):
        return _("You have no %(card)s in your hand.") % {"card": card}
    if code == "culprit_not_last":
        if extra.get("action") == "discard":
            return _("The Culprit may be discarded only as the last card of your hand: discard "
                     "another card (S4).")
        return _("The Culprit may be played only as the last card of your hand (S4).")
    if code == "first_on_scene":
        return _("The First on scene is played only as the round opens (§2).")
    if code == "target_required" and extra.get("card"):
        return _("%(card)s needs a target: choose a player (§3).") % {"card": card}
    if code == "target_not_allowed" and extra.get("card"):
        return _("%(card)s is played without a target (§3).") % {"card": card}
    if code == "target_not_eligible":
        return {
            "self": _("You cannot target yourself with %(card)s (§3)."),
            "maid": _("That player is protected by a Maid: no Detective may question them "
                      "(§1)."),
            "governess": _("That player is protected by a Governess: %(card)s cannot target "
                           "them (§1)."),
            "handcuffs": _("That player already holds the Handcuffs: give them to another "
                           "player (§1)."),
            "no_cards": _("That player holds no card: %(card)s needs a player with cards "
                          "(§1)."),
        }.get(extra.get("why"), _("You cannot target that player with %(card)s (§3).")) % {
            "card": card}
    if code == "witness_nothing_seen":
        return _("You may swap only if you saw the Culprit or an Accomplice in that hand (§1): "
                 "pass.")
    if code == "text_too_long":
        return _("The Divining hat's text may have at most %(limit)s characters; it has "
                 "%(length)s.") % {"limit": extra.get("limit"), "length": extra.get("length")}
    if code == "control_character":
        return _("The Divining hat's text may not hold control characters (other than a new "
                 "line).")
    return None
