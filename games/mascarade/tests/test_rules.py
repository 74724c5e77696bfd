"""Mascarade rules (shared/rules/mascarade.md): turn structure, rulings R1–R7, every mask, and the
rulebook's examples. Games are scripted with the ``deal`` and ``first_seat`` options."""

import pytest

from games.engine import IllegalMove, InvalidOptions
from games.mascarade.rules import MASCARADE as M
from games.mascarade.rules import MASKS

from .helpers import A8, B8, announce, at_turn, cards, decide, do, of_type, start, with_coins

# A custom 8-player deck for the masks of neither 8-player scenario (stars: widow, gambler, king,
# fool: 4 of 8).
C8 = ["judge", "spy", "thief", "widow", "gambler", "king", "guru", "fool"]


def coins(s):
    return list(s.coins)


# Turn structure (§5, §6) -----------------------------------------------------------------------


def test_four_preparatory_turns_exchange_only_then_clockwise():
    s = start(A8, first_seat=6)
    seen = []
    for _ in range(4):
        (p,) = M.pending(s)
        assert (p.decision, p.timer) == ("prep", "move_timeout")
        moves = M.legal_moves(s, p.player)
        assert {m["type"] for m in moves} == {"exchange"}
        with pytest.raises(IllegalMove) as info:
            do(s, p.player, {"type": "look"})
        assert info.value.code == "prep_exchange_only"
        seen.append(p.seat)
        s, events = do(s, p.player, {"type": "exchange", "target": (p.seat + 3) % 8,
                                     "swap": False})
        assert events[0]["prep"] is True
    assert seen == [6, 7, 0, 1]
    assert (s.phase, s.turn, s.seat) == ("turn", 5, 2)
    assert M.pending(s)[0].decision == "turn"


def test_four_preparatory_turns_whatever_the_player_count():
    s = start(["judge", "king", "empress", "thief", "cheater", "spy"], first_seat=2, players=4)
    for seat in (2, 3, 0, 1):
        assert (s.phase, s.seat) == ("prep", seat)
        s, _ = do(s, seat, {"type": "exchange", "target": "center-1", "swap": False})
    assert (s.phase, s.seat, s.turn) == ("turn", 2, 5)


def test_exchange_swaps_only_when_asked_and_may_use_a_center_card():
    s = start(["judge", "king", "empress", "thief", "cheater", "spy"], players=4)
    s, _ = do(s, 0, {"type": "exchange", "target": "center-0", "swap": True})
    s, _ = do(s, 1, {"type": "exchange", "target": 2, "swap": False})
    s, _ = do(s, 2, {"type": "exchange", "target": 3, "swap": True})
    assert s.cards == ["cheater", "king", "thief", "empress", "judge", "spy"]
    with pytest.raises(IllegalMove) as info:
        do(s, 3, {"type": "exchange", "target": 3, "swap": True})
    assert info.value.code == "exchange_with_self"


def test_look_shows_the_card_to_the_player_only():
    s = at_turn(A8, 2)
    s, events = do(s, 2, {"type": "look"})
    assert events[0] == {"type": "look", "seat": 2, "turn": 5, "player": 2, "mask": "empress"}
    assert M.view(s, 2)["you"]["knowledge"] == [
        {"seq": 5, "about": 2, "mask": "empress", "how": "look"}]
    assert M.view(s, 3)["you"]["knowledge"] == []
    assert (s.turn, s.seat) == (6, 3)


def test_announcing_a_mask_not_in_play_is_refused():
    s = at_turn(A8, 2)
    with pytest.raises(IllegalMove) as info:
        do(s, 2, {"type": "announce", "mask": "spy"})
    assert info.value.code == "mask_not_in_play"
    assert "§5" in info.value.message


def test_sequential_window_asks_one_at_a_time_clockwise_and_shows_earlier_answers():
    s = at_turn(A8, 6)
    s, _ = do(s, 6, {"type": "announce", "mask": "king"})
    order = []
    while s.phase == "challenge":
        (p,) = M.pending(s)
        assert (p.decision, p.timer) == ("challenge", "challenge_timeout")
        order.append(p.seat)
        view = M.view(s, p.player)["announcement"]
        assert sorted(view["claims"] + view["passes"]) == sorted(order[:-1])
        s, _ = do(s, p.player, {"type": "claim" if p.seat == 1 else "pass"})
    assert order == [7, 0, 1, 2, 3, 4, 5]


def test_simultaneous_window_asks_everyone_at_once():
    s = at_turn(A8, 6, challenge_mode="simultaneous")
    s, _ = do(s, 6, {"type": "announce", "mask": "king"})
    assert [(p.seat, p.decision, p.timer) for p in M.pending(s)] == [
        (x, "challenge", "challenge_timeout") for x in (7, 0, 1, 2, 3, 4, 5)]
    s, _ = do(s, 3, {"type": "claim"})
    assert 3 not in [p.seat for p in M.pending(s)]
    assert M.view(s, 3)["announcement"]["claims"] == [3]
    assert M.view(s, 4)["announcement"]["claims"] == []
    assert M.view(s, "spectator")["announcement"]["claims"] == []
    for seat in (5, 4, 2, 1, 0, 7):
        s, events = do(s, seat, {"type": "pass"})
    closed = of_type(events, "challenge_closed")[0]
    assert (closed["claims"], closed["passes"]) == ([3], [7, 0, 1, 2, 4, 5])


def test_unchallenged_announcer_applies_the_power_whatever_the_card():
    s = at_turn(A8, 0)  # seat 0 holds the Judge and bluffs the Empress
    s, events = announce(s, "empress")
    assert coins(s)[0] == 9
    assert of_type(events, "reveal") == []
    assert s.public[0] == [0, "judge"]


# Rulings ---------------------------------------------------------------------------------------


def test_r1_stars_and_minimum_player_counts_are_data():
    for mask in MASKS.values():
        if mask.min_players > 4:
            masks = ["judge", "king", "empress", "fool", "thief", mask.id][: 6]
            with pytest.raises(InvalidOptions) as info:
                M.normalize_options({"players": 5, "scenario": "custom", "masks": masks})
            assert "custom_min_players" in [c for c, _ in info.value.extra["errors"]]
    starred = [m for m in MASKS if MASKS[m].star and m != "peasant"][:2]
    plain = [m for m in MASKS if not MASKS[m].star and MASKS[m].min_players == 4]
    M.normalize_options({"players": 6, "scenario": "custom",
                         "masks": ["judge", *starred, *plain[1:4]]})
    with pytest.raises(InvalidOptions):
        M.normalize_options({"players": 6, "scenario": "custom",
                             "masks": ["judge", starred[0], *plain[1:5]]})


def test_r2_puppeteer_moves_players_not_cards_or_coins_and_knowledge_stays_with_players():
    s = at_turn(B8, 6)
    for seat in (6, 7, 0, 1, 2, 3, 4):
        s, _ = do(s, seat, {"type": "look"})
    s, _ = announce(s, "puppeteer")
    assert M.pending(s)[0].decision == "puppeteer"
    s, events = decide(s, {"type": "puppeteer", "targets": [6, 7]})
    assert coins(s) == [6, 6, 6, 6, 6, 8, 5, 5]
    assert s.at[6] == 7 and s.at[7] == 6
    assert s.cards[6] == "empress" and s.cards[7] == "beggar"
    assert of_type(events, "seat_change")[0]["players"] == [7, 6]
    you = M.view(s, 6)["you"]
    assert you["seat"] == 7
    assert you["knowledge"] == [{"seq": 5, "about": 6, "mask": "empress", "how": "look"}]
    assert M.view(s, "spectator")["seats"][6] == {"seat": 6, "player": 7, "coins": 5}
    # Play goes on by seat: seat 6 is next, and player 7 now sits there.
    assert [(p.player, p.seat, p.decision) for p in M.pending(s)] == [(7, 6, "turn")]
    s, _ = do(s, 7, {"type": "look"})
    assert M.view(s, 7)["you"]["knowledge"][-1] == {"seq": s.seq, "about": 6,
                                                     "mask": "empress", "how": "look"}


def test_r4_starting_deal_is_public():
    s = at_turn(A8, 3)
    for viewer in (0, 5, "spectator", "moderator"):
        assert M.view(s, viewer)["starting_deal"] == [
            {"about": x, "mask": m} for x, m in enumerate(A8)]
    four = start(["judge", "king", "empress", "thief", "cheater", "spy"], players=4)
    assert M.view(four, "spectator")["starting_deal"][-2:] == [
        {"about": "center-0", "mask": "cheater"}, {"about": "center-1", "mask": "spy"}]


def test_r5_revealed_in_a_challenge_cannot_announce_next_turn():
    s = at_turn(A8, 1)
    s, _ = announce(s, "king", claims=(2, 3))
    assert s.seat == 2
    assert M.view(s, "spectator")["revealed_last_turn"] == [1, 2, 3]
    assert {m["type"] for m in M.legal_moves(s, 2)} == {"look", "exchange"}
    with pytest.raises(IllegalMove) as info:
        do(s, 2, {"type": "announce", "mask": "empress"})
    assert info.value.code == "r5_revealed_last_turn"
    assert info.value.message == ("You cannot announce this turn: your card was revealed during "
                                  "the previous turn (R5). You may look at it or exchange it.")
    s, _ = do(s, 2, {"type": "look"})
    # Seat 3 was revealed two turns ago: it may announce again.
    assert {"type": "announce", "mask": "cheater"} in M.legal_moves(s, 3)


@pytest.mark.parametrize("power", ["princess", "guru"])
def test_r5_applies_to_princess_and_guru_reveals(power):
    holder = B8.index(power)
    s = at_turn(B8, holder)
    s, _ = announce(s, power)
    s, _ = decide(s, {"type": power, "target": holder + 1})
    if power == "guru":
        s, _ = decide(s, {"type": "guru_answer", "mask": "judge"})
    assert s.seat == holder + 1
    assert not [m for m in M.legal_moves(s, holder + 1) if m["type"] == "announce"]


def puppeteer_moves_a_claimant(claimant: int, other: int):
    """Turn 5: seat 5 (the Puppeteer, B8) announces it, ``claimant`` claims wrongly; both reveal;
    the Puppeteer makes players ``claimant`` and ``other`` change seats."""
    s = at_turn(B8, 5)
    s, events = announce(s, "puppeteer", claims=(claimant,))
    assert [e["seat"] for e in of_type(events, "reveal")] == [5, claimant]
    s, more = decide(s, {"type": "puppeteer", "targets": [claimant, other]})
    assert (s.at[claimant], s.at[other]) == (other, claimant)
    assert (s.turn, s.seat) == (6, 6)
    return s, events + more


def test_r5_bars_the_revealed_player_even_moved_to_another_seat():
    # Player 2 revealed during turn 5, then the Puppeteer seats them at seat 6, which plays turn 6.
    s, _ = puppeteer_moves_a_claimant(2, 6)
    assert [(p.player, p.seat) for p in M.pending(s)] == [(2, 6)]
    assert M.view(s, "spectator")["revealed_last_turn"] == [5, 6]
    assert {m["type"] for m in M.legal_moves(s, 2)} == {"look", "exchange"}
    with pytest.raises(IllegalMove) as info:
        do(s, 2, {"type": "announce", "mask": "judge"})
    assert info.value.code == "r5_revealed_last_turn"


def test_r5_does_not_bar_a_player_moved_into_a_revealed_seat():
    # Player 6 revealed during turn 5 and was moved to seat 0; player 0 now sits at seat 6, whose
    # card was revealed, and plays turn 6: they were not made to reveal, they may announce.
    s, _ = puppeteer_moves_a_claimant(6, 0)
    assert [(p.player, p.seat) for p in M.pending(s)] == [(0, 6)]
    assert M.view(s, "spectator")["revealed_last_turn"] == [0, 5]
    assert {"type": "announce", "mask": "judge"} in M.legal_moves(s, 0)
    s, events = do(s, 0, {"type": "announce", "mask": "judge"})
    assert events[0]["type"] == "announce" and s.phase == "challenge"


def test_r8_the_wrong_claimant_pays_from_the_seat_the_puppeteer_gave_them():
    # Player 2 claimed wrongly; the Puppeteer took a coin from seats 2 and 6, then seated player 2
    # at seat 6 and player 6 at seat 2. Player 2 pays the fine from seat 6; player 6 pays nothing.
    s, events = puppeteer_moves_a_claimant(2, 6)
    (fines,) = of_type(events, "fines")
    assert fines["seats"] == [6] and fines["players"] == [2]
    assert coins(s) == [6, 6, 5, 6, 6, 8, 4, 6]
    assert s.justice == 1


def test_r8_the_player_who_sat_down_in_the_claimants_seat_pays_nothing():
    s, events = puppeteer_moves_a_claimant(6, 0)
    (fines,) = of_type(events, "fines")
    assert fines["seats"] == [0] and fines["players"] == [6]
    assert coins(s) == [4, 6, 6, 6, 6, 8, 5, 6]


def test_r8_every_wrong_claimant_pays_from_their_own_seat_at_payment_time():
    # Seats 2 and 6 both claim wrongly and are made to change seats: each pays once, from the
    # other's old seat; the announcer, a true Puppeteer, pays nothing.
    s = at_turn(B8, 5)
    s, _ = announce(s, "puppeteer", claims=(2, 6))
    s, events = decide(s, {"type": "puppeteer", "targets": [2, 6]})
    (fines,) = of_type(events, "fines")
    assert fines["seats"] == [2, 6] and fines["players"] == [6, 2]
    assert coins(s) == [6, 6, 4, 6, 6, 8, 4, 6] and s.justice == 2


def test_r6_judge_does_not_take_this_turns_fines():
    s = with_coins(at_turn(A8, 0), justice=2)
    s, events = announce(s, "judge", claims=(1,))
    assert coins(s)[:2] == [8, 5]
    assert s.justice == 1
    kinds = [e["type"] for e in events if e["type"] in ("coins", "fines")]
    assert kinds == ["coins", "fines"]


def test_r6_sorceress_swaps_before_the_fines():
    s = with_coins(at_turn(A8, 4), coins=[6, 6, 6, 6, 2, 9, 6, 6])
    s, _ = announce(s, "sorceress", claims=(5,))
    s, events = decide(s, {"type": "sorceress", "target": 5})
    # Swap first (4: 9, 5: 2), then seat 5's fine (5: 1).
    assert coins(s)[4:6] == [9, 1]
    assert [e["type"] for e in events][:2] == ["sorceress", "fines"]


def test_r7_end_checked_after_each_single_movement():
    thief = ["judge", "king", "empress", "thief", "cheater", "sorceress"]
    s = with_coins(at_turn(thief, 3, players=6), coins=[6, 6, 6, 6, 1, 6])
    s, events = announce(s, "thief")
    assert s.phase == "over"
    assert coins(s) == [6, 6, 6, 7, 0, 6]  # the right neighbour (seat 2) kept its coin
    assert (s.winners, s.reason) == ([3], "ruin")
    assert events[-1]["type"] == "end"


def test_r7_fines_of_a_resolution_are_one_movement_and_ties_share():
    s = with_coins(at_turn(A8, 1), coins=[6, 4, 1, 1, 8, 6, 8, 6])
    s, events = announce(s, "king", claims=(2, 3))
    assert coins(s) == [6, 6, 0, 0, 8, 6, 8, 6]
    assert len(of_type(events, "fines")) == 1
    assert (s.winners, s.reason) == ([4, 6], "ruin")
    assert M.result(s).winner_seats == (4, 6)


def test_r7_thirteen_wins_before_a_ruin_is_looked_at():
    s = with_coins(at_turn(B8, 1), coins=[6, 9, 4, 6, 6, 6, 6, 6])
    s, _ = announce(s, "guru")
    s, _ = decide(s, {"type": "guru", "target": 2})
    s, _ = decide(s, {"type": "guru_answer", "mask": "judge"})
    assert coins(s)[1:3] == [13, 0]
    assert (s.winners, s.reason) == ([1], "thirteen")


def test_r7_cheater_wins_alone_at_once():
    s = with_coins(at_turn(A8, 3), coins=[6, 6, 6, 10, 6, 6, 6, 6])
    s, events = announce(s, "cheater", claims=(4,))
    assert (s.winners, s.reason) == ([3], "cheater")
    assert s.justice == 0  # the rest of the resolution (seat 4's fine) is not played
    assert of_type(events, "end")[0]["winners"] == [3]


# Masks ----------------------------------------------------------------------------------------


def test_judge_takes_the_justice_board_even_empty():
    s = with_coins(at_turn(A8, 0), justice=4)
    s, _ = announce(s, "judge")
    assert (coins(s)[0], s.justice) == (10, 0)
    s = at_turn(A8, 0)
    s, events = announce(s, "judge")
    assert coins(s)[0] == 6 and of_type(events, "coins") == []


def test_king_announced_and_unchallenged_rulebook_example():
    s = at_turn(A8, 1)
    s, events = announce(s, "king")
    assert coins(s)[1] == 8
    assert of_type(events, "reveal") == []
    assert of_type(events, "coins") == [{"type": "coins", "seat": 1, "turn": 5, "from": "bank",
                                         "to": 1, "amount": 2, "why": "king"}]
    assert (s.turn, s.seat, s.phase) == (6, 2, "turn")


def test_empress_takes_three():
    s, _ = announce(at_turn(A8, 2), "empress")
    assert coins(s)[2] == 9


def test_cheater_below_ten_does_nothing():
    s = with_coins(at_turn(A8, 3), coins=[6, 6, 6, 9, 6, 6, 6, 6])
    s, events = announce(s, "cheater")
    assert s.phase == "turn" and coins(s)[3] == 9 and of_type(events, "coins") == []


def test_thief_takes_left_then_right():
    s, events = announce(at_turn(C8, 2), "thief")
    assert coins(s)[1:4] == [5, 8, 5]
    assert [e["from"] for e in of_type(events, "coins")] == [3, 1]


def test_spy_looks_at_both_cards_then_swaps_or_not():
    s, _ = announce(at_turn(C8, 1), "spy")
    assert M.pending(s)[0].decision == "spy"
    assert M.legal_moves(s, 1) == [{"type": "spy", "target": t} for t in (2, 3, 4, 5, 6, 7, 0)]
    with pytest.raises(IllegalMove) as info:
        decide(s, {"type": "spy", "target": 1})
    assert info.value.code == "target_self"
    s, events = decide(s, {"type": "spy", "target": 4})
    assert events[0]["mask"] == "spy" and events[0]["target_mask"] == "gambler"
    assert M.view(s, 1)["you"]["knowledge"] == [
        {"seq": s.seq, "about": 1, "mask": "spy", "how": "spy"},
        {"seq": s.seq, "about": 4, "mask": "gambler", "how": "spy"}]
    assert M.pending(s)[0].decision == "spy_swap"
    s, _ = decide(s, {"type": "spy_swap", "swap": True})
    assert s.cards[1] == "gambler" and s.cards[4] == "spy"
    assert s.phase == "turn"


def test_sorceress_may_exchange_fortunes_or_not():
    s = with_coins(at_turn(A8, 4), coins=[11, 6, 6, 6, 3, 6, 6, 6])
    s, _ = announce(s, "sorceress")
    assert M.legal_moves(s, 4)[0] == {"type": "sorceress", "target": None}
    s2, _ = decide(s, {"type": "sorceress", "target": None})
    assert coins(s2)[0] == 11 and coins(s2)[4] == 3
    s3, events = decide(s, {"type": "sorceress", "target": 0})
    assert coins(s3)[0] == 3 and coins(s3)[4] == 11
    assert events[0]["coins"] == [11, 3]


def test_fool_takes_a_coin_then_swaps_two_other_cards_or_not():
    s, _ = announce(at_turn(A8, 5), "fool")
    assert coins(s)[5] == 7  # the coin comes before the decision
    assert len(M.legal_moves(s, 5)) == 7 * 6 * 2
    with pytest.raises(IllegalMove) as info:
        decide(s, {"type": "fool", "targets": [0, 0], "swap": True})
    assert info.value.code == "targets_not_distinct"
    with pytest.raises(IllegalMove):
        decide(s, {"type": "fool", "targets": [5, 0], "swap": True})
    s, _ = decide(s, {"type": "fool", "targets": [0, 1], "swap": True})
    assert s.cards[:2] == ["king", "judge"]


@pytest.mark.parametrize(("answer", "paid"), [("crook", 0), ("judge", 4)])
def test_guru_target_names_their_mask_then_reveals(answer, paid):
    s, _ = announce(at_turn(B8, 1), "guru")
    s, events = decide(s, {"type": "guru", "target": 2})
    assert events[0] == {"type": "guru", "seat": 1, "turn": 5, "player": 1, "target": 2}
    assert [(p.player, p.decision) for p in M.pending(s)] == [(2, "guru_answer")]
    assert M.legal_moves(s, 2) == [{"type": "guru_answer", "mask": m} for m in B8]
    s, events = decide(s, {"type": "guru_answer", "mask": answer})
    reveal = of_type(events, "reveal")[0]
    assert (reveal["seat"], reveal["mask"], reveal["cause"]) == (2, "crook", "guru")
    assert coins(s)[1:3] == [6 + paid, 6 - paid]


def test_guru_answer_must_be_a_mask_in_play():
    s, _ = announce(at_turn(B8, 1), "guru")
    s, _ = decide(s, {"type": "guru", "target": 2})
    with pytest.raises(IllegalMove) as info:
        decide(s, {"type": "guru_answer", "mask": "king"})
    assert info.value.code == "mask_not_in_play"


def test_guru_poor_player_pays_all_and_the_game_ends_rulebook_example():
    s = with_coins(at_turn(B8, 1), coins=[6, 6, 3, 7, 6, 6, 6, 6])
    s, _ = announce(s, "guru")
    s, _ = decide(s, {"type": "guru", "target": 2})
    s, events = decide(s, {"type": "guru_answer", "mask": "judge"})
    assert coins(s)[1:3] == [9, 0]
    assert of_type(events, "coins")[0]["amount"] == 3
    assert (s.phase, s.winners, s.reason) == ("over", [1], "ruin")
    assert M.pending(s) == [] and M.legal_moves(s, 3) == []


def test_crook_takes_from_the_single_richest_without_asking():
    s = with_coins(at_turn(B8, 2), coins=[6, 6, 6, 6, 6, 9, 6, 6])
    s, events = announce(s, "crook")
    assert coins(s)[2] == 8 and coins(s)[5] == 7
    assert of_type(events, "crook") == []


def test_crook_chooses_among_tied_richest():
    s = with_coins(at_turn(B8, 2), coins=[6, 6, 6, 6, 9, 6, 9, 6])
    s, _ = announce(s, "crook")
    assert M.legal_moves(s, 2) == [{"type": "crook", "target": 4}, {"type": "crook", "target": 6}]
    with pytest.raises(IllegalMove) as info:
        decide(s, {"type": "crook", "target": 3})
    assert info.value.code == "crook_not_richest"
    s, _ = decide(s, {"type": "crook", "target": 6})
    assert coins(s)[2] == 8 and coins(s)[6] == 7


def test_widow_takes_up_to_ten_or_nothing():
    s = with_coins(at_turn(C8, 3), coins=[6, 6, 6, 4, 6, 6, 6, 6])
    s, _ = announce(s, "widow")
    assert coins(s)[3] == 10
    s = with_coins(at_turn(C8, 3), coins=[6, 6, 6, 11, 6, 6, 6, 6])
    s, events = announce(s, "widow")
    assert coins(s)[3] == 11 and of_type(events, "coins") == []


def test_princess_shows_a_card_to_everyone_but_its_owner():
    s, _ = announce(at_turn(B8, 3), "princess")
    assert coins(s)[3] == 8
    s, events = decide(s, {"type": "princess", "target": 0})
    entry = {"seq": s.seq, "about": 0, "mask": "judge", "how": "princess"}
    for player in range(1, 8):
        assert entry in M.view(s, player)["you"]["knowledge"]
    assert M.view(s, 0)["you"]["knowledge"] == []
    assert "mask" not in M.view_event(events[0], 0, s)
    assert M.view_event(events[0], 5, s)["mask"] == "judge"


def test_patron_pays_himself_then_left_then_right():
    s, events = announce(at_turn(B8, 4), "patron")
    assert coins(s)[3:6] == [7, 9, 7]
    assert [e["to"] for e in of_type(events, "coins")] == [4, 5, 3]


def test_patron_neighbour_reaching_thirteen_rulebook_example():
    s = with_coins(at_turn(B8, 4), coins=[6, 6, 6, 6, 6, 12, 6, 6])
    s, _ = announce(s, "patron")
    assert coins(s)[3:6] == [6, 9, 13]  # the right neighbour's coin is never paid
    assert (s.winners, s.reason) == ([5], "thirteen")


def test_beggar_grows_as_he_collects_rulebook_example():
    s = with_coins(at_turn(B8, 7), coins=[4, 4, 5, 2, 6, 6, 7, 3])
    s, events = announce(s, "beggar")
    assert [e["from"] for e in of_type(events, "coins")] == [0, 2, 4, 6]
    assert coins(s) == [3, 4, 4, 2, 5, 6, 6, 7]


def test_puppeteer_takes_from_two_others():
    s, _ = announce(at_turn(B8, 5), "puppeteer")
    with pytest.raises(IllegalMove) as info:
        decide(s, {"type": "puppeteer", "targets": [5, 1]})
    assert info.value.code == "target_self"
    s, _ = decide(s, {"type": "puppeteer", "targets": [1, 3]})
    assert coins(s)[1] == 5 and coins(s)[3] == 5 and coins(s)[5] == 8
    assert s.at[1] == 3 and s.at[3] == 1 and s.seat_of[1] == 3


def test_peasant_alone_takes_one():
    s, _ = announce(at_turn(A8, 6), "peasant")
    assert coins(s)[6] == 7
    s, _ = announce(at_turn(A8, 6), "peasant", claims=(0,))
    assert coins(s)[6] == 7 and coins(s)[0] == 5


def test_peasant_pair_revealed_take_two_each():
    s, _ = announce(at_turn(A8, 6), "peasant", claims=(7,))
    assert coins(s)[6:8] == [8, 8]
    # A false claimant beside the pair is still fined; the pair still takes 2 each.
    s, _ = announce(at_turn(A8, 1), "peasant", claims=(6, 7))
    assert coins(s)[1] == 5 and coins(s)[6:8] == [8, 8]


@pytest.mark.parametrize(("guess", "expected"), [(2, (6, 8)), (3, (8, 6))])
def test_gambler_hides_coins_and_the_target_guesses(guess, expected):
    s, _ = announce(at_turn(C8, 4), "gambler")
    assert len(M.legal_moves(s, 4)) == 3 * 7
    s, _ = decide(s, {"type": "gambler", "hidden": 2, "target": 5})
    assert [(p.player, p.decision) for p in M.pending(s)] == [(5, "gambler_guess")]
    assert M.view(s, "spectator")["power"] == {"seat": 4, "mask": "gambler",
                                               "decision": "gambler_guess", "target": 5}
    s, events = decide(s, {"type": "gambler_guess", "guess": guess})
    assert (coins(s)[4], coins(s)[5]) == expected
    assert events[0]["hidden"] == 2 and events[0]["right"] is (guess == 2)


def test_every_mask_has_a_test_here():
    tested = {name.split("_")[1] for name in globals() if name.startswith("test_")}
    assert set(MASKS) <= tested


def test_challenge_where_nobody_holds_the_mask_fines_everyone_rulebook_example():
    s, events = announce(at_turn(A8, 1), "fool", claims=(2, 3))
    assert [e["mask"] for e in of_type(events, "reveal")] == ["king", "empress", "cheater"]
    assert of_type(events, "power") == []
    assert coins(s)[1:4] == [5, 5, 5] and s.justice == 3
    assert of_type(events, "fines")[0]["seats"] == [1, 2, 3]
    assert cards(s)[1] == {"about": 1, "mask": "king"}
