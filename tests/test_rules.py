"""Scenario tests for the rules of TEN, each played on a stacked deck.

Decks are written top card first. The engine takes every move that has only one
legal choice (the first draw of a turn, a buy phase with nothing affordable...),
so a freshly built game already shows its first card in the tableau.
"""

import random
import re
from collections import Counter

import numpy as np
import pytest

from stacked import legal, new_game, play, player
from ten_env import Game, Rules, score
from ten_env import cards as C
from ten_env.game import bust_by


# ---------------------------------------------------------------- helpers


def cards(game, seat):
    return game.snapshot()["players"][seat]["cards"]


def bids(game):
    """The amounts the current player may bid."""
    return [int(name[4:]) for name in legal(game) if name.startswith("bid_")]


def assert_unchanged_error(game, action, phase, legal_names):
    """``action`` raises a ValueError naming it, the phase and the legal actions; nothing changes."""
    before = game.clone()
    with pytest.raises(ValueError) as info:
        game.act(action)
    message = str(info.value)
    assert str(action) in message
    assert phase in message
    for name in legal_names:
        assert re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", message), (name, message)
    assert game == before
    assert game.snapshot() == before.snapshot()


# ---------------------------------------------------------------- drawing and the tableau


def test_number_and_currency_cards_join_the_tableau():
    """Number and currency cards are laid in the tableau in the order drawn."""
    game = new_game(["B3", "$2", "G4", "O1", "O2"])
    assert game.snapshot()["tableau"] == ["B3"]
    play(game, "draw", "draw")
    snap = game.snapshot()
    assert snap["tableau"] == ["B3", "$2", "G4"]
    assert snap["deck_size"] == 2
    assert snap["phase"] == "draw" and snap["current_player"] == 0


def test_wildcard_goes_to_auction_not_tableau():
    """A drawn wildcard stays out of the tableau and is put up for auction at once."""
    game = new_game(["B3", "W5", "G1", "G2"])
    game.act("draw")
    snap = game.snapshot()
    assert snap["phase"] == "auction"
    assert snap["auction"] == {"card": "W5", "high_bid": 0, "high_bidder": None, "bids_left": 2}
    assert snap["tableau"] == ["B3"]
    assert snap["net_total"] == 3 and snap["currency_total"] == 0


@pytest.mark.parametrize(
    "deck, draws, net, currency",
    [
        (["B2", "G1", "O1", "O2"], 1, 3, 0),  # two numbers: 2 + 1
        (["B3", "$4", "O1", "O2"], 1, -1, 4),  # a number and a currency card: 3 - 4
        (["B3", "$4", "G7", "$2", "O1", "O2"], 3, 4, 6),  # 3 - 4 + 7 - 2
    ],
)
def test_net_total_is_numbers_minus_currency(deck, draws, net, currency):
    """The rulebook's tableau examples: numbers add, currency subtracts (and may go negative)."""
    game = new_game(deck)
    for _ in range(draws):
        game.act("draw")
    snap = game.snapshot()
    assert (snap["net_total"], snap["currency_total"]) == (net, currency)
    assert snap["phase"] == "draw" and game.bust_tokens == [0, 0]


@pytest.mark.parametrize(
    "card, busts",
    [("O7", True), ("O9", True), ("$5", True), ("O6", False), ("O1", False), ("$4", False)],
)
def test_tableau_example_next_card_busts_or_not(card, busts):
    """With net 4 and currency 6 in the tableau, a 7+ or a $5 busts; a 6 or a $4 does not."""
    game = new_game(["B3", "$4", "G7", "$2", card, "P1", "P2"])
    play(game, "draw", "draw", "draw")
    assert (game.net_total, game.currency_total) == (4, 6)
    game.act("draw")
    snap = game.snapshot()
    if busts:
        assert game.bust_tokens == [1, 0]
        assert snap["active_player"] == 1 and snap["tableau"] == ["P1"]
    else:
        assert game.bust_tokens == [0, 0]
        assert snap["active_player"] == 0 and snap["current_player"] == 0
        assert snap["tableau"] == ["B3", "$4", "G7", "$2", card]
        assert (snap["net_total"], snap["currency_total"]) == {"O6": (10, 6), "O1": (5, 6), "$4": (0, 10)}[card]


@pytest.mark.parametrize("card, kind", [("O7", "numbers"), ("O9", "numbers"), ("$5", "currency"), ("O6", None),
                                        ("O1", None), ("$4", None), ("W9", None), ("W#", None), ("B#", None)])
def test_bust_by_names_the_total_a_card_would_take_over(card, kind):
    """The same tableau (net 4, currency 6) through the rule's one function, which the engine,
    the search, the heuristic and game records all ask; a wildcard busts nobody."""
    assert bust_by(4, 6, C.parse(card)) == kind


def test_bust_by_checks_each_card_against_its_own_total():
    assert bust_by(10, 0, C.parse("$1")) is None  # currency lowers the net total: never a number bust
    assert bust_by(-5, 10, C.parse("O9")) is None  # a number card leaves the currency total alone
    assert bust_by(1, 10, C.parse("B9")) is None and bust_by(2, 10, C.parse("B9")) == "numbers"
    assert bust_by(0, 5, C.parse("$5")) is None and bust_by(0, 6, C.parse("$5")) == "currency"


# ---------------------------------------------------------------- busting


def test_bust_example_a_on_numbers():
    """Rulebook bust A (4 - 3 + 5 + 9 = 15): numbers to market, a token, the others paid, currency discarded."""
    game = new_game(["B4", "$3", "G5", "O9", "P1", "P2"])
    play(game, "draw", "draw")
    assert (game.net_total, game.currency_total) == (6, 3)
    game.act("draw")  # O9: net 15
    snap = game.snapshot()
    assert snap["market"] == ["B4", "G5", "O9"]
    assert snap["players"][0] == {"coins": 5, "bust_tokens": 1, "cards": [], "score": 0}
    assert snap["players"][1]["coins"] == 8  # paid the $3 shown in the tableau
    assert snap["discard"] == ["$3"]
    # the turn passed to the next player, whose first card is already drawn
    assert snap["active_player"] == 1 and snap["current_player"] == 1
    assert snap["tableau"] == ["P1"] and snap["turn"] == 2


def test_bust_example_b_on_currency():
    """Rulebook bust B (currency 3 + 4 + 5 = 12, net -5): a currency bust pays nobody."""
    game = new_game(["$3", "G7", "$4", "$5", "P1", "P2"])
    play(game, "draw", "draw")
    assert (game.net_total, game.currency_total) == (0, 7)
    game.act("draw")  # $5: currency 12, net -5
    snap = game.snapshot()
    assert snap["market"] == ["G7"]
    assert game.bust_tokens == [1, 0]
    assert game.coins == [5, 5]  # the other player gains nothing
    assert snap["discard"] == ["$3", "$4", "$5"]
    assert snap["active_player"] == 1 and snap["tableau"] == ["P1"]


def test_bust_resolution_steps_in_order():
    """A bust first moves the numbers to the market; only then come the token, the others' pay, the discard.

    The busting variant pauses between step 1 and step 2, which makes the order visible.
    """
    game = new_game(["B4", "$3", "G5", "O9", "P1", "P2"], bust_buy=True)
    play(game, "draw", "draw", "draw")
    snap = game.snapshot()
    assert snap["phase"] == "bust"
    assert snap["market"] == ["B4", "G5", "O9"]  # step 1 done
    assert snap["tableau"] == ["$3"]  # currency not yet discarded
    assert game.bust_tokens == [0, 0] and game.coins == [5, 5]  # steps 2 and 3 not yet
    game.act("pass")
    snap = game.snapshot()
    assert game.bust_tokens == [1, 0] and game.coins == [5, 8]
    assert snap["discard"] == ["$3"] and snap["active_player"] == 1


# ---------------------------------------------------------------- rewards


def test_taking_numbers():
    """Taking the numbers: the cards go to the player, the others gain the currency, which is discarded; a buy follows."""
    game = new_game(["O2", "$1", "B3", "$2", "G4", "P1", "P2"])
    play(game, "draw", "stop_currency")  # seat 0 puts O2 in the market
    assert game.snapshot()["tableau"] == ["B3"]
    play(game, "draw", "draw", "stop_numbers")
    snap = game.snapshot()
    assert snap["players"][1]["cards"] == ["B3", "G4"]
    assert game.coins == [6 + 2, 5]
    assert snap["discard"] == ["$1", "$2"]
    assert snap["tableau"] == [] and snap["market"] == ["O2"]
    assert snap["phase"] == "buy" and snap["current_player"] == 1
    assert legal(game) == ["pass", "buy_O2"]
    game.act("pass")
    assert game.snapshot()["active_player"] == 0 and game.snapshot()["tableau"] == ["P1"]


def test_taking_currency():
    """Taking the currency: the player gains it, the numbers go to the market, and no buy phase follows."""
    game = new_game(["B3", "$2", "G4", "$1", "P1", "P2"])
    play(game, "draw", "draw", "draw", "stop_currency")
    snap = game.snapshot()
    assert game.coins == [8, 5]
    assert snap["market"] == ["B3", "G4"]  # affordable, yet no buy phase
    assert snap["discard"] == ["$1", "$2"]
    assert snap["players"][0]["cards"] == []
    assert snap["phase"] == "draw" and snap["active_player"] == 1 and snap["tableau"] == ["P1"]


def test_rewards_need_a_card_of_their_kind():
    """stop_numbers needs a number card in the tableau, stop_currency a currency card; an empty tableau must draw."""
    only_currency = new_game(["$2", "B1", "B2"])
    assert legal(only_currency) == ["draw", "stop_currency"]
    assert_unchanged_error(only_currency, "stop_numbers", "draw", ["draw", "stop_currency"])

    only_numbers = new_game(["B2", "B1", "B3"])
    assert legal(only_numbers) == ["draw", "stop_numbers"]
    assert_unchanged_error(only_numbers, "stop_currency", "draw", ["draw", "stop_numbers"])

    # A wildcard as the turn's first card leaves the tableau empty: the next draw is forced.
    empty = new_game(["W3", "B2", "B1"])
    play(empty, "pass", "pass")
    assert empty.history[-1] == (0, empty.action_id("draw"), True)
    assert empty.snapshot()["tableau"] == ["B2"]



def test_every_other_player_is_paid_at_a_table_of_three():
    """Taking the numbers pays the tableau's currency to each other player, as does a bust on the
    net total; a bust on currency pays nobody."""
    game = new_game(["B1", "$3", "$2", "G9", "O5", "$4", "$5", "$2", "P1", "P2"], num_players=3)
    play(game, "draw", "stop_numbers")  # seat 0 takes B1 over $3: seats 1 and 2 gain 3 each
    snap = game.snapshot()
    assert game.coins == [5, 8, 8] and snap["discard"] == ["$3"] and cards(game, 0) == ["B1"]
    play(game, "draw", "draw")  # seat 1: $2, then G9 and O5 take the net total to 12
    snap = game.snapshot()
    assert game.coins == [7, 8, 10] and game.bust_tokens == [0, 1, 0]
    assert snap["market"] == ["G9", "O5"] and snap["discard"] == ["$2", "$3"]
    play(game, "draw", "draw")  # seat 2: $4, $5, then $2 takes the currency total to 11
    assert game.coins == [7, 8, 10] and game.bust_tokens == [0, 1, 1]
    assert game.snapshot()["discard"] == ["$2", "$2", "$3", "$4", "$5"]


# ---------------------------------------------------------------- coins and bust tokens


def test_coin_limit_when_taking_currency():
    """Coins above 10 are lost when taking the currency."""
    game = new_game(["$5", "$3", "B1", "B2"])
    play(game, "draw", "stop_currency")
    assert game.coins == [10, 5]


def test_coin_limit_when_paid_for_taken_numbers():
    """Coins above 10 are lost when another player's taken numbers pay you."""
    game = new_game(["$4", "B1", "$3", "G1", "G2"])
    play(game, "stop_currency")  # seat 0: 9 coins
    play(game, "draw", "stop_numbers")  # seat 1 takes B1: seat 0 gains 3, keeps 1
    assert game.coins == [10, 5]


def test_coin_limit_when_paid_for_a_number_bust():
    """Coins above 10 are lost when another player's number bust pays you."""
    game = new_game(["$4", "B9", "$3", "B5", "G1", "G2"])
    play(game, "stop_currency")  # seat 0: 9 coins
    play(game, "draw", "draw")  # seat 1: 9 - 3 + 5 = 11 busts
    assert game.bust_tokens == [0, 1]
    assert game.coins == [10, 5]


def test_bust_tokens_are_always_gained():
    """A player at 10 coins still gains a bust token on every bust."""
    game = new_game(["$5", "$3", "G1", "B9", "B5", "G2", "O9", "O5", "P1", "P2"])
    play(game, "draw", "stop_currency")  # seat 0: 10 coins
    play(game, "stop_numbers")  # seat 1 takes G1 (the market is empty)
    play(game, "draw")  # seat 0: B9 + B5 busts
    assert game.coins[0] == 10 and game.bust_tokens == [1, 0]
    play(game, "stop_numbers", "pass")  # seat 1 takes G2, declines to buy
    play(game, "draw")  # seat 0: O9 + O5 busts again
    assert game.coins[0] == 10 and game.bust_tokens == [2, 0]


def test_bust_tokens_do_not_count_towards_the_coin_limit():
    """A player holding a bust token may still fill up to 10 coins."""
    game = new_game(["B9", "B5", "G1", "$5", "$1", "P1", "P2"])
    play(game, "draw")  # seat 0 busts: one token
    play(game, "stop_numbers", "pass")  # seat 1 takes G1
    play(game, "draw", "stop_currency")  # seat 0: 5 + 6, capped
    assert game.bust_tokens == [1, 0]
    assert game.coins[0] == 10


# ---------------------------------------------------------------- buying


def test_buy_one_card_at_face_value_then_turn_ends():
    """A buy takes one market card for its face value; the turn then ends."""
    game = new_game(["B3", "G2", "$1", "O4", "B1", "P1", "P2", "P3"])
    play(game, "draw", "draw", "stop_currency")  # market B3 G2; seat 0: 6 coins
    play(game, "draw", "stop_numbers")  # seat 1 takes O4 B1
    assert game.snapshot()["phase"] == "buy"
    game.act("buy_B3")
    snap = game.snapshot()
    assert snap["players"][1]["cards"] == ["B1", "B3", "O4"]
    assert snap["players"][1]["coins"] == 2
    assert snap["market"] == ["G2"]
    assert snap["phase"] == "draw" and snap["active_player"] == 0  # one card per turn


def test_cannot_buy_a_card_identical_to_one_held():
    """A number card identical to one the buyer holds cannot be bought; same number or colour is fine."""
    game = new_game(["B3", "G3", "B4", "$1", "B3", "P1", "P2", "P3"])
    play(game, "draw", "draw", "draw", "stop_currency")  # market B3 B4 G3; seat 0: 6
    play(game, "stop_numbers")  # seat 1 takes its own B3
    assert legal(game) == ["pass", "buy_B4", "buy_G3"]
    assert_unchanged_error(game, "buy_B3", "buy", ["pass", "buy_B4", "buy_G3"])


def test_no_identical_card_in_a_final_buy_either():
    """The final buy is a buy: a number card the buyer holds is not offered there."""
    game = new_game(["B3", "O2", "$1", "G1", "B3"])
    play(game, "draw", "draw", "stop_currency")  # seat 0: B3 and O2 to the market, 6 coins
    play(game, "draw")  # seat 1: G1, then B3, the last card: the numbers are taken
    assert cards(game, 1) == ["B3", "G1"] and game.snapshot()["market"] == ["B3", "O2"]
    assert legal(game) == ["pass", "buy_O2"]  # seat 1's buy
    play(game, "pass")
    assert (game.phase, game.current_player, legal(game)) == ("final_buy", 0, ["pass", "buy_B3", "buy_O2"])
    play(game, "pass")
    assert (game.phase, game.current_player, legal(game)) == ("final_buy", 1, ["pass", "buy_O2"])
    assert_unchanged_error(game, "buy_B3", "final_buy", ["pass", "buy_O2"])


def test_no_identical_card_in_the_busting_variants_buy_either():
    """The busting variant's buy after a bust is a buy: a number card the buyer holds is not offered."""
    game = new_game(["G5", "$1", "G5", "$1", "P1", "B4", "O9", "P2", "P3"], bust_buy=True)
    play(game, "draw", "stop_currency")  # seat 0: G5 to the market, 6 coins
    play(game, "draw", "stop_numbers")  # seat 1 takes its own G5 (it cannot buy the other: its buy is skipped)
    play(game, "stop_numbers", "pass")  # seat 0 takes P1, buys nothing
    play(game, "draw")  # seat 1: B4, then O9 busts on numbers
    assert (game.phase, game.current_player) == ("bust", 1) and game.snapshot()["market"] == ["B4", "G5", "O9"]
    assert legal(game) == ["pass", "buy_B4"]  # G5 is held (O9 is beyond its 5 coins and 1 card)
    assert_unchanged_error(game, "buy_G5", "bust", ["pass", "buy_B4"])


def test_buy_affordability_counts_tokens_and_cards():
    """Coins, bust tokens at 3 and cards at 1 make up what a buyer can spend (5 + 3 + 1 = 9 here)."""
    game = new_game(["O9", "O8", "G1", "$1", "G2", "P1", "P2", "P3"])
    play(game, "draw")  # seat 0 busts (9 + 8): token; O8 O9 to the market
    play(game, "draw", "stop_currency")  # seat 1 takes $1, G1 to the market
    play(game, "stop_numbers")  # seat 0 takes G2
    assert legal(game) == ["pass", "buy_G1", "buy_O8", "buy_O9"]
    game.act("buy_O9")
    assert player(game, 0) == {"coins": 0, "bust_tokens": 0, "cards": ["O9"], "score": 1}
    assert game.snapshot()["discard"] == ["G2", "$1"]


def test_buy_affordability_excludes_dearer_cards():
    """A buyer cannot buy a card dearer than coins + 3 per token + 1 per card."""
    game = new_game(["O9", "$1", "O7", "$1", "G2", "P1", "P2", "P3"])
    play(game, "draw", "stop_currency")  # seat 0: O9 to the market, 6 coins
    play(game, "draw", "stop_currency")  # seat 1: O7 to the market
    play(game, "stop_numbers")  # seat 0 takes G2: 6 + 1 = 7 to spend
    assert legal(game) == ["pass", "buy_O7"]
    assert_unchanged_error(game, "buy_O9", "buy", ["pass", "buy_O7"])


# ---------------------------------------------------------------- auctions


def test_auction_order_starts_left_of_active_player():
    """Bidders go clockwise from the active player's left; the active player bids last."""
    game = new_game(["B1", "W2", "G1", "W3", "O1", "O2", "O3"], num_players=3)
    game.act("draw")  # seat 0 reveals W2
    order = []
    while game.snapshot()["phase"] == "auction":
        order.append(game.current_player)
        game.act("pass")
    assert order == [1, 2, 0]
    play(game, "stop_numbers")  # seat 0 takes B1; seat 1 starts with G1
    game.act("draw")  # seat 1 reveals W3
    order = []
    while game.snapshot()["phase"] == "auction":
        order.append(game.current_player)
        game.act("pass")
    assert order == [2, 0, 1]


def test_each_bid_must_beat_the_high_bid():
    """Every bid must be higher than the last one; the highest bidder pays and takes the wildcard."""
    game = new_game(["B1", "W2", "G1", "G2", "G3"], num_players=3)
    play(game, "draw", "bid_3")  # seat 1 bids 3
    assert game.current_player == 2 and bids(game) == [4, 5]
    assert_unchanged_error(game, "bid_3", "auction", ["pass", "bid_4", "bid_5"])
    assert_unchanged_error(game, "bid_2", "auction", ["pass", "bid_4", "bid_5"])
    game.act("bid_4")  # seat 2
    assert game.current_player == 0 and bids(game) == [5]
    game.act("pass")
    snap = game.snapshot()
    assert game.coins == [5, 5, 1]
    assert snap["players"][2]["cards"] == ["W2"]
    # the active player's turn resumes where it stopped
    assert snap["phase"] == "draw" and snap["current_player"] == 0 and snap["tableau"] == ["B1"]


def test_active_player_bids_last_and_can_win():
    """The active player has the last word and may win the auction of their own card."""
    game = new_game(["B1", "W2", "G1", "G2"])
    play(game, "draw", "bid_2")  # seat 1
    assert game.current_player == 0 and bids(game) == [3, 4, 5]
    game.act("bid_3")
    snap = game.snapshot()
    assert game.coins == [2, 5] and snap["players"][0]["cards"] == ["W2"]
    assert snap["phase"] == "draw" and snap["current_player"] == 0 and snap["tableau"] == ["B1"]


def test_all_pass_discards_the_wildcard():
    """When nobody bids the wildcard is discarded and the turn carries on."""
    game = new_game(["B1", "$1", "W2", "G1", "G2"])
    play(game, "draw", "draw", "pass", "pass")
    snap = game.snapshot()
    assert snap["discard"] == ["W2"]
    assert [p["cards"] for p in snap["players"]] == [[], []]
    assert game.coins == [5, 5]
    assert snap["phase"] == "draw" and snap["current_player"] == 0
    assert snap["tableau"] == ["B1", "$1"] and (snap["net_total"], snap["currency_total"]) == (0, 1)
    assert legal(game) == ["draw", "stop_numbers", "stop_currency"]


def test_bid_limit_counts_cards_and_tokens():
    """Nobody may bid more than coins + 3 per bust token + 1 per card."""
    game = new_game(["O1", "O2", "G9", "G5", "W3", "P1", "P2"])
    play(game, "draw", "stop_numbers")  # seat 0 takes O1 O2
    play(game, "draw")  # seat 1 busts (9 + 5): one token
    # seat 0 reveals W3; seat 1 bids first
    assert game.snapshot()["phase"] == "auction" and game.current_player == 1
    assert bids(game) == list(range(1, 9))  # 5 coins + 3 for the token
    assert_unchanged_error(game, "bid_9", "auction", ["pass"] + [f"bid_{n}" for n in range(1, 9)])
    game.act("pass")
    assert bids(game) == list(range(1, 8))  # 5 coins + 2 cards


def test_the_lowest_bid_is_one_at_a_normal_table():
    game = new_game(["B3", "W5", "G1", "G2"])
    game.act("draw")  # W5: seat 1 bids first
    assert legal(game)[:2] == ["pass", "bid_1"]
    with pytest.raises(ValueError, match=r"^unknown action 'bid_0'"):
        game.act("bid_0")


def test_bids_capped_at_max_bid():
    """Bids stop at Rules.max_bid even for a richer bidder, and JEN's bids obey the same cap."""
    game = new_game(["$3", "W2", "G1", "G2"], max_bid=5)
    play(game, "stop_currency")  # seat 0: 8 coins; seat 1 reveals W2
    assert game.current_player == 0 and bids(game) == [1, 2, 3, 4, 5]
    before = game.clone()
    with pytest.raises(ValueError, match=r"^unknown action 'bid_6' \(actions are .*bid_1\.\.bid_5,.* legal: pass, bid_1, "
                                         r"bid_2, bid_3, bid_4, bid_5$"):  # past max_bid, bid_6 is no action at all
        game.act("bid_6")
    assert game == before

    # JEN would bid the person's 8, but the cap holds her to 5.
    solo = new_game(["B1", "$3", "G4", "$3", "G5", "W#", "P1", "P2"], jen_level=4, max_bid=5)
    play(solo, "draw", "stop_numbers")  # JEN gains 3: 8 coins; then takes G4
    play(solo, "stop_currency")  # the person: 8 coins; JEN takes G5; the person reveals W#
    snap = solo.snapshot()
    assert snap["players"][1]["cards"] == ["G4", "G5", "W#"]
    assert snap["players"][1]["coins"] == 8 - 5
    assert snap["players"][0]["coins"] == 8


# ---------------------------------------------------------------- the end of the game


def test_last_card_ends_drawing():
    """Once the last card is drawn the active player may only take a reward."""
    game = new_game(["B1", "$2"])
    game.act("draw")
    assert game.snapshot()["deck_size"] == 0
    assert legal(game) == ["stop_numbers", "stop_currency"]
    game.act("stop_numbers")
    snap = game.snapshot()
    assert game.is_over and snap["phase"] == "over"
    assert snap["current_player"] is None and legal(game) == []
    assert game.coins == [5, 7] and snap["players"][0]["cards"] == ["B1"]


def test_final_buy_order():
    """The active player finishes the turn (buy included); then final buys run from their left round to them."""
    deck = ["B1", "B2", "$1", "G1", "G2", "$1", "O1", "O2", "$1", "P1", "P2"]
    game = new_game(deck, num_players=3)
    for _ in range(3):  # each seat puts two cards in the market
        play(game, "draw", "draw", "stop_currency")
    play(game, "stop_numbers", "pass")  # seat 0 takes P1, declines to buy
    # seat 1 draws P2, the last card, and must take it
    purchases = {("buy", 1): "buy_B1", ("final_buy", 2): "buy_G1",
                 ("final_buy", 0): "buy_O1", ("final_buy", 1): "buy_B2"}
    order = []
    while not game.is_over:
        step = (game.snapshot()["phase"], game.current_player)
        order.append(step)
        game.act(purchases[step])
    assert order == [("buy", 1), ("final_buy", 2), ("final_buy", 0), ("final_buy", 1)]
    snap = game.snapshot()
    assert [p["cards"] for p in snap["players"]] == [["O1", "P1"], ["B1", "B2", "P2"], ["G1"]]
    assert snap["market"] == ["G2", "O2"]


@pytest.mark.parametrize("num_players", [4, 5])
def test_final_buy_order_and_payment_at_larger_tables(num_players):
    """At 4 and 5 seats too: the last card's taker finishes the turn, then every seat has a final buy,
    from the taker's left round to the taker; each buy costs its price, no more (nobody holds a bust
    token, the one payment that can exceed a price)."""
    deck = []
    for colour, low in list(zip("BGOPB", (1, 1, 1, 1, 3)))[:num_players]:
        deck += [f"{colour}{low}", f"{colour}{low + 1}", "$1"]  # each seat: two cards to the market, 1 coin
    game = new_game(deck + ["G7", "O8"], num_players=num_players)
    for _ in range(num_players):
        play(game, "draw", "draw", "stop_currency")
    play(game, "stop_numbers", "pass")  # seat 0 takes G7; seat 1 reveals O8, the last card, and takes it
    order, bought, paid = [], [], []

    def wealth(seat):  # coins, tokens at 3 and cards at 1: what any payment draws on
        p = player(game, seat)
        return p["coins"] + 3 * p["bust_tokens"] + len(p["cards"])

    while not game.is_over:
        seat = game.current_player
        order.append((game.snapshot()["phase"], seat))
        buy = next((name for name in legal(game) if name.startswith("buy_")), "pass")
        before = wealth(seat)
        game.act(buy)
        bought.append(buy == "pass" or buy[4:] in player(game, seat)["cards"])
        if buy != "pass":  # the card bought counts 1 in wealth: paid = the fall in wealth + 1
            paid.append((int(buy[5:]), before - wealth(seat) + 1))
    later = [*range(2, num_players), 0, 1]
    assert order == [("buy", 1)] + [("final_buy", seat) for seat in later] and all(bought)
    assert len(paid) == len(order) and all(price == value for price, value in paid)


def test_bust_on_last_card_then_final_buys():
    """A bust on the last card ends the turn; the final buys then start left of the active player."""
    game = new_game(["B1", "$1", "G9", "G5"])
    play(game, "draw", "stop_currency")  # seat 0: B1 to the market
    game.act("draw")  # seat 1 busts on the last card
    snap = game.snapshot()
    assert game.bust_tokens == [0, 1]
    assert (snap["phase"], snap["current_player"]) == ("final_buy", 0)
    game.act("pass")
    assert (game.snapshot()["phase"], game.current_player) == ("final_buy", 1)
    game.act("buy_G5")
    assert game.is_over and cards(game, 1) == ["G5"]


def test_last_card_wildcard_on_empty_tableau():
    """A last card that is a wildcard on an empty tableau: auction, no reward, then the final buys."""
    game = new_game(["B3", "$1", "W5"])
    play(game, "draw", "stop_currency")  # seat 0: B3 to the market, 6 coins
    # seat 1 reveals W5, the last card; seat 0 bids first
    assert game.snapshot()["phase"] == "auction" and game.current_player == 0
    play(game, "bid_2", "pass")
    snap = game.snapshot()
    assert snap["players"][0]["cards"] == ["W5"] and game.coins == [4, 5]
    assert snap["players"][1]["cards"] == [] and snap["tableau"] == []
    assert (snap["phase"], snap["current_player"]) == ("final_buy", 0)
    game.act("pass")
    assert (game.snapshot()["phase"], game.current_player) == ("final_buy", 1)
    game.act("pass")
    assert game.is_over


def test_last_card_wildcard_then_reward():
    """A last card that is a wildcard on a non-empty tableau: auction, then the player must take a reward."""
    game = new_game(["B3", "$1", "G2", "$2", "W5"])
    play(game, "draw", "stop_currency")  # seat 0: B3 to the market, 6 coins
    play(game, "draw", "draw")  # seat 1: G2 $2, then reveals W5
    play(game, "pass", "pass")
    snap = game.snapshot()
    assert snap["discard"] == ["W5", "$1"]
    assert (snap["phase"], snap["current_player"]) == ("draw", 1)
    assert legal(game) == ["stop_numbers", "stop_currency"]
    game.act("stop_numbers")
    snap = game.snapshot()
    assert snap["players"][1]["cards"] == ["G2"] and game.coins == [8, 5]
    assert (snap["phase"], snap["current_player"]) == ("buy", 1)
    play(game, "pass")
    assert (game.snapshot()["phase"], game.current_player) == ("final_buy", 0)
    play(game, "pass", "pass")
    assert game.is_over


# ---------------------------------------------------------------- scoring and winners


def test_rulebook_scoring_example_is_24():
    """The rulebook's example: blue run of 6, complete green (10), pink run of 5, orange run of 3."""
    hand = ["B2", "B3", "B4", "B5", "B6", "B7",
            "G1", "G2", "G3", "G4", "G5", "G6", "G7", "G8", "G9",
            "P3", "P4", "P5", "P6", "P7",
            "O4", "O5", "O6"]
    assert score(hand) == 24
    assert score(hand + ["B9", "O1", "O2"]) == 24  # shorter runs beside the longest add nothing
    with_wilds = ["B2", "B3", "B#", "B5", "B6", "B7",
                  "G1", "G2", "G3", "G4", "W5", "G6", "G7", "G8", "G9",
                  "P3", "P4", "W#", "P6", "P7",
                  "O4", "O5", "O6"]
    assert score(with_wilds) == 24


@pytest.mark.parametrize(
    "hand, points",
    [
        (["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9"], 10),  # complete colour
        (["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8"], 8),
        (["B1", "B2", "B4", "B5", "B6"], 3),  # only the longest run counts
        (["B1", "B3", "G1", "G3", "W2"], 4),  # a wildcard fills one gap only
        (["G1", "G3", "B#"], 2),  # a colour wildcard stays in its colour
        (["G1", "G3", "W#"], 3),  # the super wildcard goes anywhere
        (["B1", "B2", "B3", "B4", "W5", "B6", "B7", "B8", "B#"], 10),
        ([], 0),
    ],
)
def test_score_longest_run_per_colour(hand, points):
    """Each colour scores its longest run, a complete 1-9 scores 10, each wildcard is used once."""
    assert score(hand) == points


def test_highest_score_wins_whatever_the_money():
    """The most points wins even against a richer player."""
    game = new_game(["B1", "B2", "$5", "$4"])
    play(game, "draw", "stop_numbers")
    play(game, "draw")  # seat 1 must take the currency of the last card
    assert game.is_over and game.coins == [5, 10] and game.scores() == [2, 0]
    assert game.winners() == [0]


def test_tie_on_points_goes_to_more_money_with_tokens_worth_3():
    """Equal points: more money wins, each bust token counting 3 (5 + 3 beats 7)."""
    game = new_game(["B9", "B5", "$2"])
    play(game, "draw")  # seat 0 busts: token
    # seat 1 takes the $2 of the last card; final buys follow
    play(game, "pass", "pass")
    assert game.is_over and game.scores() == [0, 0]
    assert game.coins == [5, 7] and game.bust_tokens == [1, 0]
    assert game.winners() == [0]


def test_tie_on_points_and_money_goes_to_fewer_cards():
    """Equal points and money: the player with fewer cards wins."""
    game = new_game(["B1", "B1", "G1"])
    play(game, "draw", "stop_numbers")
    assert game.is_over and game.scores() == [1, 1] and game.coins == [5, 5]
    assert game.winners() == [1]


def test_wildcards_count_among_the_cards_of_the_tie_break():
    """Equal points and money: a wildcard is one of the player's cards like any other, so B1 B2
    against G1 and G# is two cards each, a shared win (counting numbers only, G1 would win)."""
    game = new_game(["G#", "B1", "$1", "B2", "G1"])
    play(game, "bid_1", "pass")  # seat 1 wins G# for 1 coin
    play(game, "draw", "draw", "stop_numbers")  # seat 0 takes B1 B2 over $1: seat 1 is paid 1
    assert game.is_over and cards(game, 1) == ["G1", "G#"]  # seat 1 took G1, the last card
    assert game.scores() == [2, 2] and game.coins == [5, 5] and game.bust_tokens == [0, 0]
    assert game.winners() == [0, 1]


def test_full_tie_is_a_shared_win():
    """Equal points, money and card count: the tied leaders share the win."""
    game = new_game(["B1", "G1", "$1"], num_players=3)
    play(game, "stop_numbers", "stop_numbers")  # seats 0 and 1 take B1 and G1; seat 2 must take $1
    assert game.is_over and game.scores() == [1, 1, 0]
    assert game.winners() == [0, 1]


def test_winners_unknown_before_the_end():
    """Asking for the winners of an unfinished game is an error."""
    game = new_game(["B1", "G1", "O1"])
    with pytest.raises(ValueError, match=r"^the game is not over yet: winners\(\) is known only at the end$"):
        game.winners()


# ---------------------------------------------------------------- busting variant


def test_bust_buy_variant():
    """Busting variant: after the numbers reach the market the player may buy (even a card just busted) instead of the token."""
    game = new_game(["O1", "$1", "B4", "$3", "G5", "O9", "P1", "P2"], bust_buy=True)
    play(game, "draw", "stop_currency")  # seat 0: O1 to the market, 6 coins
    play(game, "draw", "draw", "draw")  # seat 1: 4 - 3 + 5 + 9 busts
    snap = game.snapshot()
    assert (snap["phase"], snap["current_player"]) == ("bust", 1)
    assert snap["market"] == ["B4", "G5", "O1", "O9"]
    assert legal(game) == ["pass", "buy_B4", "buy_G5", "buy_O1"]
    game.act("buy_G5")
    snap = game.snapshot()
    assert snap["players"][1] == {"coins": 0, "bust_tokens": 0, "cards": ["G5"], "score": 1}
    assert snap["players"][0]["coins"] == 9  # still paid: it was a bust on numbers
    assert snap["market"] == ["B4", "O1", "O9"]
    assert snap["discard"] == ["$1", "$3"]
    assert snap["active_player"] == 0 and snap["tableau"] == ["P1"]


def test_bust_buy_variant_pays_every_other_player_after_the_buy():
    """At a table of three, a bust on numbers under the busting variant pays the tableau's
    currency to both other players once the buy (or its refusal) is done."""
    game = new_game(["$2", "G9", "O5", "P1", "P2", "P3"], num_players=3, bust_buy=True)
    play(game, "draw", "draw")  # seat 0: $2, G9, then O5 takes the net total to 12
    assert (game.phase, game.current_player) == ("bust", 0) and game.coins == [5, 5, 5]
    play(game, "buy_O5")
    assert game.coins == [0, 7, 7] and cards(game, 0) == ["O5"] and game.bust_tokens == [0, 0, 0]
    assert (game.phase, game.active_player) == ("draw", 1)


def test_bust_buy_variant_on_currency():
    """Busting variant on a currency bust: the buy is offered and the other players are not paid."""
    game = new_game(["$3", "G4", "$4", "$5", "P1", "P2"], bust_buy=True)
    play(game, "draw", "draw", "draw")  # currency 3 + 4 + 5 = 12
    assert game.snapshot()["phase"] == "bust"
    assert legal(game) == ["pass", "buy_G4"]
    game.act("buy_G4")
    snap = game.snapshot()
    assert snap["players"][0] == {"coins": 1, "bust_tokens": 0, "cards": ["G4"], "score": 1}
    assert snap["players"][1]["coins"] == 5
    assert snap["discard"] == ["$3", "$4", "$5"] and snap["active_player"] == 1



def test_bust_buy_variant_with_nothing_affordable_takes_the_token():
    """Busting variant: when no market card is affordable the only move is to pass, which the
    engine takes: the player gains the bust token as in the plain game."""
    game = new_game(["B9", "O8", "G1", "G2"], bust_buy=True)
    game.act("draw")  # 9 + 8 busts; the market holds B9 and O8, seat 0 has 5 coins
    snap = game.snapshot()
    assert game.history[-2] == (0, game.action_id("pass"), True)
    assert game.bust_tokens == [1, 0] and snap["market"] == ["B9", "O8"]
    assert (snap["phase"], snap["active_player"], snap["tableau"]) == ("draw", 1, ["G1"])


def test_bust_buy_variant_on_the_last_card_then_final_buys():
    """A bust on the last card under the busting variant offers its buy first; the final buys then
    run from the left of the active player round to them."""
    game = new_game(["B1", "$1", "B4", "O7"], bust_buy=True)
    play(game, "draw", "stop_currency")  # seat 0: B1 to the market, 6 coins
    game.act("draw")  # seat 1: 4 + 7 busts on the last card
    snap = game.snapshot()
    assert (snap["phase"], snap["current_player"], snap["deck_size"]) == ("bust", 1, 0)
    assert legal(game) == ["pass", "buy_B1", "buy_B4"]
    game.act("buy_B4")
    assert (game.snapshot()["phase"], game.current_player) == ("final_buy", 0)
    assert game.coins == [6, 1] and game.bust_tokens == [0, 0]
    game.act("pass")
    assert (game.snapshot()["phase"], game.current_player) == ("final_buy", 1)
    game.act("buy_B1")
    # B1 pays with B4, not the coin: at the final buy a card the best arrangement leaves out goes
    # first (B1 and B4 score 1 either way), which keeps the money and holds one card fewer
    assert game.is_over and cards(game, 1) == ["B1"] and game.coins == [6, 1]


# ---------------------------------------------------------------- engine decisions


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_seat_0_starts(num_players):
    """Seat 0 takes the first turn unless told otherwise; play then goes round in seat order."""
    game = new_game(["B1", "G1", "O1", "P1", "B2", "G2"], num_players=num_players)
    snap = game.snapshot()
    assert snap["active_player"] == 0 and snap["current_player"] == 0 and snap["turn"] == 1
    assert game.history[0][0] == 0 and snap["tableau"] == ["B1"]
    game.act("stop_numbers")
    assert game.snapshot()["active_player"] == 1 and game.snapshot()["turn"] == 2


@pytest.mark.parametrize("num_players, start", [(2, 1), (3, 2), (5, 4), (4, 1)])
def test_the_chosen_seat_starts(num_players, start):
    """``start`` picks the first player; the turn then passes to the left, round the table."""
    game = Game(Rules(num_players=num_players), deck=["B1", "G1", "O1", "P1", "B2", "G2"], start=start)
    assert game.snapshot()["active_player"] == start == game.current_player
    assert game.history[0][0] == start and game.snapshot()["tableau"] == ["B1"]
    game.act("stop_numbers")
    assert game.snapshot()["active_player"] == (start + 1) % num_players
    # the auction after a wildcard starts left of the active player, so it follows the start too
    game = Game(Rules(num_players=num_players), deck=["W1", "B1", "G1"], start=start)
    assert game.snapshot()["phase"] == "auction" and game.current_player == (start + 1) % num_players


def test_start_takes_any_integer_type():
    assert Game(Rules(num_players=3), seed=0, start=np.int64(2)).current_player == 2
    with pytest.raises(ValueError, match=r"start must be a seat from 0 to 2, got array\(\[2\]\)"):
        Game(Rules(num_players=3), seed=0, start=np.array([2]))


@pytest.mark.parametrize("start", [-1, 5, 1.0, True, "0", None])
def test_a_bad_start_is_refused(start):
    with pytest.raises(ValueError, match=r"start must be a seat from 0 to 4, got"):
        Game(Rules(num_players=5), seed=0, start=start)


def test_the_person_starts_the_solitaire_game():
    with pytest.raises(ValueError, match=r"start must be 0 in the solitaire game \(the person starts\), got 1"):
        Game(Rules(jen_level=5), seed=0, start=1)
    assert Game(Rules(jen_level=5), seed=0, start=0).current_player == 0


def test_forced_moves_are_recorded():
    """Moves with a single legal choice are taken by the engine and marked as forced in the history."""
    game = new_game(["B1", "B2", "G1", "G2"])
    draw, stop, pass_ = (game.action_id(n) for n in ("draw", "stop_numbers", "pass"))
    assert game.history == [(0, draw, True)]
    game.act("draw")
    assert game.history[-1] == (0, draw, False)
    game.act("stop_numbers")  # the market is empty: the buy phase is a forced pass
    assert game.history[1:] == [(0, draw, False), (0, stop, False), (0, pass_, True), (1, draw, True)]
    assert game.current_player == 1


# ---------------------------------------------------------------- bad input


def _auction_game():
    """Seat 1 to bid on W5 with 5 coins: legal pass and bid_1..bid_5."""
    game = new_game(["B3", "W5", "G1", "G2"])
    game.act("draw")
    assert legal(game) == ["pass", "bid_1", "bid_2", "bid_3", "bid_4", "bid_5"]
    return game


AUCTION_LEGAL = ["pass", "bid_1", "bid_2", "bid_3", "bid_4", "bid_5"]


@pytest.mark.parametrize("action", ["stop_numbers", "draw", "bid_6", "buy_B3", "pay_coin"])
def test_illegal_action_name_is_refused(action):
    """An action that is not legal now raises ValueError naming it, the phase and the legal actions; nothing changes."""
    assert_unchanged_error(_auction_game(), action, "auction", AUCTION_LEGAL)


def test_illegal_action_id_is_refused():
    """An illegal action given by id is refused the same way, naming the action."""
    game = _auction_game()
    action = game.action_id("stop_currency")
    assert_unchanged_error(game, action, "auction", AUCTION_LEGAL)
    with pytest.raises(ValueError, match="stop_currency"):
        game.act(action)


@pytest.mark.parametrize("action", [np.array([1]), 1.0, True, None, [1]])
def test_what_is_not_one_action_id_is_refused(action):
    """A one-element array, a float, a bool, None or a list is not an action: ValueError, nothing changes."""
    game = _auction_game()
    before = game.clone()
    with pytest.raises(ValueError, match=r"is neither an int id nor a name for player \d in the auction phase; "
                                         r"legal: pass, bid_1"):
        game.act(action)
    assert game == before
    with pytest.raises(ValueError, match="action id must be an int"):
        game.action_name(action)


def test_a_numpy_integer_is_the_action_id_it_holds():
    passing = _auction_game().action_id("pass")
    for action in (np.int64(passing), np.array(passing), np.int16(passing)):
        game, plain = _auction_game(), _auction_game()
        game.act(action)
        plain.act(passing)
        assert game == plain and game.action_name(action) == "pass"


@pytest.mark.parametrize("action", ["fly", "bid_0", "buy_W3", ""])
def test_unknown_action_name_is_refused(action):
    """An unknown action name raises ValueError naming it, the phase and the legal actions; nothing changes."""
    game = _auction_game()
    before = game.clone()
    with pytest.raises(ValueError) as info:
        game.act(action)
    message = str(info.value)
    assert repr(action) in message
    assert "auction" in message
    for name in AUCTION_LEGAL:
        assert re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", message), (name, message)
    assert game == before


@pytest.mark.parametrize("action", [10_000, -1])
def test_out_of_range_action_id_is_refused(action):
    """An action id outside the table raises ValueError naming it, the phase and the legal actions; nothing changes."""
    assert_unchanged_error(_auction_game(), action, "auction", AUCTION_LEGAL)


@pytest.mark.parametrize("action", [None, 1.5, True])
def test_action_of_wrong_type_is_refused(action):
    """Something that is neither an action id nor a name raises ValueError; nothing changes."""
    game = _auction_game()
    before = game.clone()
    with pytest.raises(ValueError, match=rf"^action {re.escape(repr(action))} is neither an int id nor a name for "
                                         rf"player \d in the auction phase; legal: "):
        game.act(action)
    assert game == before


@pytest.mark.parametrize("action", ["draw", "pass", 0])
def test_acting_after_the_game_is_over(action):
    """Any action after the end raises ValueError naming it and the finished state; nothing changes."""
    game = new_game(["B1"])  # one card: the whole game plays itself
    assert game.is_over and legal(game) == []
    before = game.clone()
    with pytest.raises(ValueError) as info:
        game.act(action)
    assert str(info.value) == f"the game is over: no action is legal (got {action!r})"
    assert game == before


def test_clone_is_independent():
    """A clone compares equal, and acting on the original leaves the clone as it was."""
    game = new_game(["B1", "$2", "G1", "G2"])
    copy = game.clone()
    assert copy == game
    play(game, "draw", "stop_currency")
    assert copy != game
    assert copy.snapshot()["tableau"] == ["B1"] and copy.coins == [5, 5]


# ---------------------------------------------------------------- whole games


def test_every_card_is_always_in_exactly_one_place():
    """Through a whole random game every card of the deck sits in exactly one place and coins stay within 0-10."""
    deck = (["B1", "B2", "G3", "$2", "W4", "O5", "$1", "P6", "B#", "G7", "$3", "O1", "W#",
             "P2", "$5", "B3", "G4", "$4", "O8", "P9", "W1"] * 3)
    expected = Counter(C.parse(card) for card in deck)
    rng = random.Random(7)
    for num_players in (2, 3, 5):
        game = new_game(deck, num_players=num_players)
        while not game.is_over:
            game.act(rng.choice(game.legal_actions()))
            places = game.card_locations()
            totals = Counter()
            for counts in places.values():
                for card, k in enumerate(counts):
                    if k:
                        totals[card] += k
            assert totals == expected
            assert all(0 <= c <= 10 for c in game.coins)
        assert game.snapshot()["deck_size"] == 0
