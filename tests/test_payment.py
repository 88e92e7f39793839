"""Paying for buys and winning bids, automatically and by hand, on stacked decks.

RULES.md ("Automatic payment"): duplicates first (lowest card first), then coins,
then as few bust tokens as possible with coins alongside to waste the least, and
last the cards whose loss costs the least score, one at a time, judged with the
incoming card already in hand; at the final buy the cards that score nothing go
before coins. Manual payment: the payer picks each coin, token
or card until the price is met.
"""


import pytest

from stacked import legal, new_game, play, player


# ---------------------------------------------------------------- automatic payment


def test_least_loss_with_nothing_to_spend_is_refused():
    """It returned None (a card id was promised), which a caller would index a hand with."""
    from ten_env import cards as C
    from ten_env.payment import least_loss

    hand = [0] * C.NUM_CARD_TYPES
    hand[C.parse("B1")] = hand[C.parse("W5")] = 1  # a numbered wildcard: the general search's path too
    for spendable in ({}, {C.parse("B1"): 0}):
        with pytest.raises(ValueError, match=r"^least_loss: spendable names no card to spend \(a count above 0\)"):
            least_loss(hand, spendable)
    assert least_loss(hand, {C.parse("B1"): 1, C.parse("W5"): 1}) == C.parse("B1")  # each costs 1: the lowest id


def _duplicates_game():
    """Seat 0 holds B1 B1 G2 G2 and takes P1; O1 and O3 wait in the market."""
    deck = ["B1", "B1", "G2", "G2", "O1", "O3", "$1", "P1", "P2", "P3", "P4"]
    game = new_game(deck)
    play(game, "draw", "draw", "draw", "stop_numbers")  # seat 0: B1 B1 G2 G2
    play(game, "draw", "draw", "stop_currency")  # seat 1: O1 O3 to the market
    play(game, "stop_numbers")  # seat 0 takes P1 and may buy
    assert legal(game) == ["pass", "buy_O1", "buy_O3"]
    return game


def test_auto_payment_spends_the_lowest_duplicate_first():
    """A price of 1 is paid with the lowest duplicate, before any coin."""
    game = _duplicates_game()
    game.act("buy_O1")
    assert player(game, 0) == {"coins": 5, "bust_tokens": 0,
                               "cards": ["B1", "G2", "G2", "O1", "P1"], "score": 4}
    assert game.snapshot()["discard"] == ["B1", "$1"]


def test_auto_payment_spends_duplicates_then_coins():
    """A price above the duplicates uses every duplicate, then coins."""
    game = _duplicates_game()
    game.act("buy_O3")
    assert player(game, 0)["cards"] == ["B1", "G2", "O3", "P1"]
    assert player(game, 0)["coins"] == 4
    assert game.snapshot()["discard"] == ["B1", "G2", "$1"]


def test_auto_payment_wildcard_copies_are_duplicates():
    """A second copy of a wildcard is a duplicate and goes first; a W3 is no duplicate of a B3."""
    game = new_game(["W3", "W3", "B3", "O1", "$1", "P1", "P2", "P3"])
    play(game, "pass", "bid_1")  # seat 0 wins the first W3 for 1
    play(game, "pass", "bid_1")  # and the second for 1; then draws B3
    play(game, "stop_numbers")  # seat 0: B3 W3 W3, 3 coins
    play(game, "draw", "stop_currency")  # seat 1: O1 to the market
    play(game, "stop_numbers", "buy_O1")  # seat 0 takes P1, buys O1
    assert player(game, 0) == {"coins": 3, "bust_tokens": 0,
                               "cards": ["B3", "O1", "P1", "W3"], "score": 4}
    assert game.snapshot()["discard"] == ["W3", "$1"]


def test_auto_payment_uses_coins_before_tokens():
    """Coins that cover the price are spent before any bust token."""
    game = new_game(["B9", "B5", "G1", "P1", "P2", "P3"])
    play(game, "draw")  # seat 0 busts: one token, B5 B9 in the market
    play(game, "stop_numbers", "pass")  # seat 1 takes G1
    play(game, "stop_numbers", "buy_B5")  # seat 0 takes P1 and buys B5
    assert player(game, 0) == {"coins": 0, "bust_tokens": 1, "cards": ["B5", "P1"], "score": 2}


def test_auto_payment_token_with_least_waste():
    """A price of 5 with 4 coins and a token is paid with 2 coins and the token."""
    game = new_game(["B9", "B5", "W1", "G1", "P1", "P2", "P3"])
    play(game, "draw")  # seat 0 busts: one token, B5 B9 in the market
    # seat 1 reveals W1: seat 0 bids 1 and wins it, leaving 4 coins
    play(game, "bid_1", "pass")
    assert player(game, 0) == {"coins": 4, "bust_tokens": 1, "cards": ["W1"], "score": 1}
    play(game, "stop_numbers", "pass")  # seat 1 takes G1
    play(game, "stop_numbers", "buy_B5")  # seat 0 takes P1 and buys B5
    assert player(game, 0)["coins"] == 2
    assert player(game, 0)["bust_tokens"] == 0
    assert player(game, 0)["cards"] == ["B5", "P1", "W1"]  # no card spent


def test_auto_payment_spends_as_few_tokens_as_possible():
    """Holding 5 coins and two tokens, a price of 7 takes one token and 4 coins, not two tokens
    and a coin: as few tokens as possible, coins alongside to waste nothing."""
    game = new_game(["B9", "B7", "G1", "O9", "O3", "G2", "P1", "P2", "P3"])
    play(game, "draw")  # seat 0 busts on B7: a token; B7 B9 in the market
    play(game, "stop_numbers")  # seat 1 takes G1 (nothing it can afford)
    play(game, "draw")  # seat 0 busts on O3: a second token
    play(game, "stop_numbers", "pass")  # seat 1 takes G2
    play(game, "stop_numbers")  # seat 0 takes P1
    assert player(game, 0) == {"coins": 5, "bust_tokens": 2, "cards": ["P1"], "score": 1}
    game.act("buy_B7")
    assert player(game, 0) == {"coins": 1, "bust_tokens": 1, "cards": ["B7", "P1"], "score": 2}


def test_auto_payment_token_gives_no_change():
    """A bust token spent on a price below 3 is spent whole: no coins come back; cards stay."""
    game = new_game(["B9", "B5", "W1", "G2", "$1", "P1", "P2", "P3"])
    play(game, "draw")  # seat 0 busts: one token
    play(game, "bid_5")  # seat 0 wins W1 for all 5 coins (seat 1 cannot outbid)
    assert player(game, 0)["coins"] == 0
    play(game, "draw", "stop_currency")  # seat 1 takes $1: G2 to the market
    play(game, "stop_numbers")  # seat 0 takes P1
    assert "buy_G2" in legal(game)
    game.act("buy_G2")
    assert player(game, 0) == {"coins": 0, "bust_tokens": 0, "cards": ["G2", "P1", "W1"], "score": 3}


def test_auto_payment_counts_cards_at_one_each():
    """Cards pay 1 each once coins and tokens run out."""
    game = new_game(["B1", "B2", "O7", "$1", "G3", "P1", "P2", "P3"])
    play(game, "draw", "stop_numbers")  # seat 0 takes B1 B2
    play(game, "draw", "stop_currency")  # seat 1: O7 to the market
    play(game, "stop_numbers", "buy_O7")  # seat 0 takes G3: 5 coins + 3 cards
    # with O7 in hand every card scores and each costs a point: the lowest goes, then the next
    assert player(game, 0) == {"coins": 0, "bust_tokens": 0, "cards": ["G3", "O7"], "score": 2}
    assert game.snapshot()["discard"] == ["B1", "B2", "$1"]


def test_auto_payment_spends_cards_judged_with_incoming_card():
    """Cards are chosen with the bought card counted: B5 and B7 join B6, so B1 and B2 score
    nothing and the lower, B1, goes."""
    game = new_game(["B1", "B2", "B5", "B6", "$1", "B7", "P1", "P2", "P3"])
    play(game, "draw", "draw", "stop_numbers")  # seat 0 takes B1 B2 B5
    play(game, "draw", "stop_currency")  # seat 1: B6 to the market
    play(game, "stop_numbers", "buy_B6")  # seat 0 takes B7, buys B6 for 5 coins + 1 card
    assert player(game, 0) == {"coins": 0, "bust_tokens": 0, "cards": ["B2", "B5", "B6", "B7"], "score": 3}
    assert game.snapshot()["discard"] == ["B1", "$1"]


def test_auto_payment_spends_an_unused_number_before_an_unused_wildcard():
    """B5 (beside the run B1-B3) and W9 (no colour's run gets longer with a 9) score nothing, so
    either could go at no cost: the number goes first, the wildcard only when a second card is due."""
    from ten_env import cards as C
    from ten_env import payment

    hand = [0] * C.NUM_OWNABLE
    for card in ("B1", "B2", "B3", "B5", "G1", "O1", "P1", "W9"):
        hand[C.parse(card)] += 1
    b5, w9, g2 = C.parse("B5"), C.parse("W9"), C.parse("G2")
    assert payment.automatic(hand, 0, 0, 1, g2) == payment.Payment(0, 0, (b5,))
    assert payment.automatic(hand, 0, 0, 2, g2) == payment.Payment(0, 0, (b5, w9))


def _auto_pays(held, price, incoming, coins=0):
    """The cards automatic payment spends, by name, and the coins, for a player without tokens."""
    from ten_env import cards as C
    from ten_env import payment

    hand = [0] * C.NUM_OWNABLE
    for card in held:
        hand[C.parse(card)] += 1
    paid = payment.automatic(hand, coins, 0, price, C.parse(incoming))
    assert paid.bust_tokens == 0
    cards = [C.NAMES[card] for card in paid.cards]
    return cards, paid.coins


def test_auto_payment_counts_the_card_bought_as_held():
    """Buying a B5 already held makes the held copy an idle duplicate: it goes before any coin."""
    assert _auto_pays(["B5"], 3, "B5", coins=3) == (["B5"], 2)


def test_auto_payment_keeps_the_lowest_of_equal_runs():
    """B3 and B5 are blue runs of one each: either could go at no cost, and RULES.md fixes the
    arrangement judged as the one with the lowest run, so B5 goes and B3 stays."""
    assert _auto_pays(["B3", "B5"], 1, "G1") == (["B5"], 0)
    assert _auto_pays(["B3", "B5", "B7"], 2, "G1") == (["B5", "B7"], 0)


def test_auto_payment_gives_a_contested_wildcard_to_the_first_colour():
    """W3 makes a run of three in blue (B2 B4) or in green (G2 G4), for the same total. The
    arrangement judged gives it to blue, the first colour, and keeps G2, green's lowest run, so
    G4 goes, although giving W3 to green would let B2 go at no cost too. A second card costs a
    point whichever goes, and the lowest such card, B2, goes."""
    assert _auto_pays(["B2", "B4", "G2", "G4", "W3"], 1, "O1") == (["G4"], 0)
    assert _auto_pays(["B2", "B4", "G2", "G4", "W3"], 2, "O1") == (["G4", "B2"], 0)


def test_auto_payment_judges_the_hand_again_after_the_left_out_cards():
    """B2 B5 B6 G2 G3 G5 O5 P2 P3, buying W2 for 14 with 8 coins: 6 cards are due. Blue and green
    hold a 2, so the best arrangement puts W2 in orange, whose lowest run it then is: B2, G5 and
    O5 are left out and go together. The hand left is judged again, every card now costs a
    point, and B5, B6 and G2 go, the lowest first. Judging again after each card would differ:
    without B2, W2 moves to blue and O5 comes into use, and G3 would go instead of O5."""
    assert _auto_pays(["B2", "B5", "B6", "G2", "G3", "G5", "O5", "P2", "P3"], 14, "W2", coins=8) \
        == (["B2", "G5", "O5", "B5", "B6", "G2"], 8)


def test_auto_payment_at_the_final_buy_spends_the_cards_that_score_nothing_first():
    """At the final buy a hand never changes again: B5, which no run of seat 0 uses, pays for O1
    before any coin (earlier in the game a coin pays, since B5 may yet fill a run). Seat 0 keeps 6
    coins to seat 1's 5 and wins the tie on points; paying a coin would have tied the money too
    and lost on cards (4 to 3)."""
    game = new_game(["O1", "$1", "G1", "G2", "G3", "B1", "B2", "B5"])
    play(game, "draw", "stop_currency")  # seat 0: O1 to the market, 6 coins
    play(game, "draw", "draw", "stop_numbers", "pass")  # seat 1 takes G1 G2 G3
    play(game, "draw", "draw", "pass")  # seat 0 takes B1 B2 B5 with the last card, buys nothing
    play(game, "pass")  # seat 1's final buy
    assert (game.phase, game.current_player) == ("final_buy", 0)
    game.act("buy_O1")
    assert player(game, 0) == {"coins": 6, "bust_tokens": 0, "cards": ["B1", "B2", "O1"], "score": 3}
    assert player(game, 1)["score"] == 3 and player(game, 1)["coins"] == 5
    assert game.winners() == [0]


def test_auto_payment_at_the_table_spends_the_idle_number_not_the_idle_wildcard():
    """The same rule played out: seat 0 holds B1-B3, B5, G1, O1, P3 and W9 with no coins and buys
    P1 for 1. B5 and W9 score nothing (every colour already has a run that a 9 does not touch);
    B5 goes."""
    game = new_game(["B1", "W9", "B2", "B3", "P1", "$1", "B5", "G1", "O1", "P3", "G5", "G6", "G7"])
    play(game, "draw", "pass", "bid_5")  # seat 0 wins W9 with all 5 coins
    play(game, "draw", "draw", "stop_numbers")  # and takes B1 B2 B3
    play(game, "draw", "stop_currency")  # seat 1: P1 to the market
    play(game, "draw", "draw", "draw", "stop_numbers")  # seat 0 takes B5 G1 O1 P3
    assert player(game, 0) == {"coins": 0, "bust_tokens": 0,
                               "cards": ["B1", "B2", "B3", "B5", "G1", "O1", "P3", "W9"], "score": 6}
    game.act("buy_P1")
    assert player(game, 0) == {"coins": 0, "bust_tokens": 0,
                               "cards": ["B1", "B2", "B3", "G1", "O1", "P1", "P3", "W9"], "score": 6}
    assert game.snapshot()["discard"] == ["B5", "$1"]


def test_auto_payment_spends_cards_greedily_one_by_one():
    """Each card spent is the one whose loss costs least at that moment, re-judged after every card.

    Seat 0 holds B4 B5 B6 B7 and buys B8 with 5 coins and three cards: B4, then B5,
    then B6 each cost one point when spent, leaving the run B7 B8 (2 points).
    """
    game = new_game(["B4", "B5", "B8", "$1", "B6", "$3", "B7", "P1", "P2", "P3"])
    play(game, "draw", "stop_numbers")  # seat 0 takes B4 B5
    play(game, "draw", "stop_currency")  # seat 1: B8 to the market
    play(game, "draw", "draw", "stop_numbers")  # seat 0 takes B6 B7 (6 - 3 + 7 = 10)
    game.act("buy_B8")
    snap = player(game, 0)
    assert snap["coins"] == 0
    assert snap["cards"] == ["B7", "B8"]
    assert snap["score"] == 2


def test_auto_payment_of_a_winning_bid():
    """A winning bid is paid like a buy: duplicates first, then coins."""
    game = new_game(["B1", "B1", "W2", "G1", "G2"])
    play(game, "draw", "stop_numbers")  # seat 0 takes B1 B1; seat 1 reveals W2
    play(game, "bid_3", "pass")  # seat 0 wins for 3
    assert player(game, 0) == {"coins": 3, "bust_tokens": 0, "cards": ["B1", "W2"], "score": 2}


# ---------------------------------------------------------------- manual payment


def _manual_buy_game():
    """Manual payment: seat 0 (5 coins, a token, P1 P2) buys B5; 5 is due."""
    game = new_game(["B9", "B5", "G1", "P1", "P2", "O1", "O2", "O3"], payment="manual")
    play(game, "draw")  # seat 0 busts: one token, B5 B9 in the market
    play(game, "stop_numbers", "pass")  # seat 1 takes G1
    play(game, "draw", "stop_numbers", "buy_B5")  # seat 0 takes P1 P2, buys B5
    return game


def test_manual_payment():
    """With manual payment the payer picks coins, tokens (worth 3) and cards (worth 1) until the price is met."""
    game = _manual_buy_game()
    snap = game.snapshot()
    assert snap["phase"] == "pay" and snap["current_player"] == 0
    assert snap["payment"] == {"payer": 0, "remaining": 5, "for": "buy", "card": "B5",
                               "duplicates_only": False}
    assert legal(game) == ["pay_coin", "pay_bust", "pay_P1", "pay_P2"]
    assert snap["market"] == ["B5", "B9"]  # not delivered yet
    game.act("pay_bust")
    assert game.snapshot()["payment"]["remaining"] == 2
    game.act("pay_P1")
    assert game.snapshot()["payment"]["remaining"] == 1
    game.act("pay_coin")
    snap = game.snapshot()
    assert snap["players"][0] == {"coins": 4, "bust_tokens": 0, "cards": ["B5", "P2"], "score": 2}
    assert snap["market"] == ["B9"]
    assert snap["discard"] == ["P1"]
    assert snap["phase"] == "draw" and snap["active_player"] == 1  # the turn ended after the buy


def test_manual_payment_token_overshoot_is_spent_whole():
    """A bust token paying more than what is left is spent whole; no change comes back."""
    game = _manual_buy_game()
    play(game, "pay_coin", "pay_coin", "pay_coin", "pay_coin")
    assert game.snapshot()["payment"]["remaining"] == 1
    game.act("pay_bust")
    assert player(game, 0) == {"coins": 1, "bust_tokens": 0, "cards": ["B5", "P1", "P2"], "score": 3}
    assert game.snapshot()["phase"] == "draw"


@pytest.mark.parametrize("first", ["cards", "coins"])
def test_manual_payment_of_a_buy_that_takes_everything_can_finish(first):
    """The payer can always finish: a buy that costs all the buyer has (5 coins and B1 B2 G3 for
    O8) is paid in either order, to nothing left but the card bought. (A solitaire auction's
    limit, duplicates only: test_solitaire_manual_payment_uses_only_duplicates.)"""
    game = new_game(["B1", "B2", "O8", "$1", "G3", "P1", "P2", "P3"], payment="manual")
    play(game, "draw", "stop_numbers")  # seat 0 takes B1 B2
    play(game, "draw", "stop_currency")  # seat 1: O8 to the market
    play(game, "stop_numbers")  # seat 0 takes G3: 5 coins and 3 cards, 8 in all
    assert legal(game) == ["pass", "buy_O8"]
    game.act("buy_O8")
    assert legal(game) == ["pay_coin", "pay_B1", "pay_B2", "pay_G3"]
    while game.snapshot()["phase"] == "pay":
        game.act(legal(game)[-1 if first == "cards" else 0])
    assert player(game, 0) == {"coins": 0, "bust_tokens": 0, "cards": ["O8"], "score": 1}
    assert game.snapshot()["discard"] == ["B1", "B2", "G3", "$1"]
    assert (game.snapshot()["phase"], game.current_player) == ("draw", 1)


def test_manual_payment_with_one_kind_of_money_is_forced():
    """A payer with only coins has no choice: the engine pays coin by coin and records it as forced."""
    game = new_game(["W2", "B1", "B2"], payment="manual")
    play(game, "bid_3", "pass")  # seat 1 wins W2 for 3 and holds nothing else
    pay_coin = game.action_id("pay_coin")
    assert game.history[-5:-1] == [(0, game.action_id("pass"), False)] + [(1, pay_coin, True)] * 3
    assert player(game, 1) == {"coins": 2, "bust_tokens": 0, "cards": ["W2"], "score": 1}
    assert game.snapshot()["tableau"] == ["B1"] and game.current_player == 0


def test_manual_payment_of_a_winning_bid():
    """With manual payment the auction's winner pays step by step, then the turn resumes."""
    game = new_game(["B1", "B2", "W3", "G1", "G2"], payment="manual")
    play(game, "draw", "stop_numbers")  # seat 0 takes B1 B2; seat 1 reveals W3
    play(game, "bid_4", "pass")  # seat 0 wins for 4
    snap = game.snapshot()
    assert snap["phase"] == "pay" and snap["payment"]["remaining"] == 4
    assert snap["payment"]["for"] == "auction" and snap["payment"]["card"] == "W3"
    assert legal(game) == ["pay_coin", "pay_B1", "pay_B2"]
    play(game, "pay_B1", "pay_coin", "pay_coin", "pay_coin")
    snap = game.snapshot()
    assert snap["players"][0] == {"coins": 2, "bust_tokens": 0, "cards": ["B2", "W3"], "score": 2}
    assert (snap["phase"], snap["current_player"], snap["tableau"]) == ("draw", 1, ["G1"])


def test_manual_payment_in_busting_variant():
    """A bust buy under manual payment is paid first; the bust then finishes and the others are paid."""
    game = new_game(["B4", "$3", "G5", "O9", "P1", "P2"], bust_buy=True, payment="manual")
    play(game, "draw", "draw", "draw", "buy_B4")  # busts on O9 (15), buys B4 back
    pay_coin = game.action_id("pay_coin")
    assert game.history[-5:-1] == [(0, pay_coin, True)] * 4  # coins are all seat 0 has
    snap = game.snapshot()
    assert snap["players"][0] == {"coins": 1, "bust_tokens": 0, "cards": ["B4"], "score": 1}
    assert snap["players"][1]["coins"] == 8 and snap["discard"] == ["$3"]
    assert snap["market"] == ["G5", "O9"] and snap["active_player"] == 1


def test_auto_payment_keeps_wildcard_copies_that_score():
    """Two copies of a colour wildcard can both sit in one run: neither is an idle duplicate,
    so a coin pays instead (the review's counterexample: a B# spent would cost a point)."""
    game = new_game(["B#", "B#", "B1", "B2", "B4", "G1", "$1", "O1", "P1", "P2", "P3"])
    play(game, "pass", "bid_1", "pass", "bid_1")  # seat 0 wins both B# for 1 each
    play(game, "draw", "draw", "stop_numbers")  # seat 0: B1 B2 B4
    play(game, "draw", "stop_currency")  # seat 1: G1 to the market, 6 coins
    play(game, "stop_numbers", "buy_G1")  # seat 0 takes O1 and buys G1 for 1
    me = player(game, 0)
    assert me["cards"] == ["B1", "B2", "B4", "G1", "O1", "B#", "B#"]
    assert me["score"] == 7 and me["coins"] == 2
