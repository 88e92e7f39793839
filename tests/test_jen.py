"""The solitaire game against JEN, on stacked decks.

Seat 0 is the person and starts; seat 1 is JEN, whom the engine plays itself,
so after each of the person's actions JEN's whole turn has already happened.
"""

import random
import re

import pytest

import stacked
from stacked import legal, play, player
from ten_env import cards as C
from ten_env import payment as payment_rules


def new_game(deck, level=10, **rules):
    """A solitaire game at JEN level ``level`` on a stacked deck (top card first)."""
    return stacked.new_game(deck, jen_level=level, **rules)


def jen(game):
    return player(game, 1)


def person(game):
    return player(game, 0)


def jen_moves(game):
    """Names of the actions JEN took, in order."""
    return [game.action_name(a) for seat, a, _ in game.history if seat == 1]


# ---------------------------------------------------------------- her turn


@pytest.mark.parametrize(
    "level, drawn, kept",
    [
        (6, ["G2", "$1", "O1", "P3", "G1"], ["G1", "G2", "O1", "P3"]),  # 2, 1, 2, 5, 6: exactly her level
        (6, ["G5", "O4"], ["G5", "O4"]),  # 5, then 9: past her level
        (4, ["G4"], ["G4"]),
    ],
)
def test_jen_draws_until_her_level_then_takes_numbers(level, drawn, kept):
    """JEN draws until the net total reaches her level, then takes the numbers; the person gains the currency."""
    game = new_game(["B1", *drawn, "B2", "B3"], level=level)
    game.act("stop_numbers")
    snap = game.snapshot()
    assert jen(game)["cards"] == kept
    assert jen_moves(game) == ["draw"] * len(drawn) + ["stop_numbers", "pass"]  # no buy
    currency = sum(int(card[1]) for card in drawn if card.startswith("$"))
    assert person(game)["coins"] == 5 + currency
    assert (snap["active_player"], snap["current_player"], snap["tableau"]) == (0, 0, ["B2"])


def test_jen_takes_numbers_never_currency():
    """Even with more currency than numbers in her tableau, JEN takes the numbers."""
    game = new_game(["B1", "$5", "G4", "G5", "B2", "B3"], level=4)  # -5, -1, 4
    game.act("stop_numbers")
    assert jen(game) == {"coins": 5, "bust_tokens": 0, "cards": ["G4", "G5"], "score": 2}
    assert person(game)["coins"] == 10
    assert "stop_currency" not in jen_moves(game)


def test_jen_never_buys():
    """JEN passes her buy phase even when she could afford a market card."""
    game = new_game(["O1", "$1", "G4", "B1", "B2"], level=4)
    play(game, "draw", "stop_currency")  # the person: O1 to the market
    assert jen(game) == {"coins": 5, "bust_tokens": 0, "cards": ["G4"], "score": 1}
    assert game.snapshot()["market"] == ["O1"]
    assert jen_moves(game) == ["draw", "stop_numbers", "pass"]


def test_jen_never_buys_in_the_final_buy_phase_either():
    """At the end of the deck JEN passes her final buy though O1 costs 1 and she holds 5 coins."""
    game = new_game(["O1", "$1", "G4", "B1"], level=4)
    play(game, "draw", "stop_currency")  # the person: O1 to the market; JEN takes G4; the person B1, the last card
    assert (game.snapshot()["phase"], game.current_player) == ("buy", 0)
    game.act("pass")
    assert (game.snapshot()["phase"], game.current_player) == ("final_buy", 0)
    assert game.history[-1] == (1, game.action_id("pass"), True)  # her final buy, before the person's
    assert jen(game) == {"coins": 5, "bust_tokens": 0, "cards": ["G4"], "score": 1}
    assert game.snapshot()["market"] == ["O1"]

def test_jen_does_not_bust_on_numbers():
    """JEN's net total may pass 10 without a bust; she stops as soon as she reaches her level."""
    game = new_game(["B1", "G9", "O9", "B2", "B3"], level=10)
    game.act("stop_numbers")
    snap = game.snapshot()
    assert jen(game) == {"coins": 5, "bust_tokens": 0, "cards": ["G9", "O9"], "score": 2}
    assert snap["market"] == [] and game.bust_tokens == [0, 0]
    assert snap["tableau"] == ["B2"] and snap["current_player"] == 0


@pytest.mark.parametrize("bust_buy", [False, True])
def test_jen_currency_bust(bust_buy):
    """On a currency bust JEN keeps the numbers she drew and takes a token (never the variant's buy); nobody is paid."""
    deck = ["O1", "$1", "G2", "$5", "$4", "$3", "B1", "B2"]
    game = new_game(deck, level=10, bust_buy=bust_buy)
    play(game, "draw", "stop_currency")  # the person: 6 coins, O1 to the market
    snap = game.snapshot()
    assert jen(game) == {"coins": 5, "bust_tokens": 1, "cards": ["G2"], "score": 1}
    assert person(game)["coins"] == 6
    assert snap["market"] == ["O1"]  # her G2 did not go to the market
    assert snap["discard"] == ["$1", "$3", "$4", "$5"]
    assert (snap["active_player"], snap["tableau"]) == (0, ["B1"])
    assert jen_moves(game) == ["draw"] * 4


def test_jen_busts_on_currency_with_the_last_card():
    """Her token and her numbers are hers as on any currency bust; the final buys follow, the
    person's first (left of JEN), then hers, which she passes."""
    game = new_game(["O1", "$1", "G2", "$5", "$4", "$3"], level=10)
    play(game, "draw", "stop_currency")  # the person: 6 coins, O1 to the market; JEN busts on $3, the last card
    assert jen(game) == {"coins": 5, "bust_tokens": 1, "cards": ["G2"], "score": 1}
    assert (game.snapshot()["phase"], game.current_player) == ("final_buy", 0)
    game.act("buy_O1")
    assert game.is_over and person(game) == {"coins": 5, "bust_tokens": 0, "cards": ["O1"], "score": 1}
    assert game.history[-1] == (1, game.action_id("pass"), True)


def test_the_person_may_take_the_numbers_with_a_net_total_below_zero():
    """B1 and $5 make -4: the person takes B1, and JEN gains the $5, as the numbers' taker pays."""
    game = new_game(["B1", "$5", "G4", "G5", "B2"], level=4)
    game.act("draw")
    assert "stop_numbers" in legal(game)
    game.act("stop_numbers")
    assert person(game)["cards"] == ["B1"] and jen(game)["coins"] == 10
    assert game.snapshot()["discard"] == ["$5"]


def test_person_busting_variant_still_applies_in_solitaire():
    """The person may still take the busting variant's buy in a solitaire game."""
    game = new_game(["O9", "O5", "B1", "B2"], level=10, bust_buy=True)
    game.act("draw")
    assert game.snapshot()["phase"] == "bust"
    assert legal(game) == ["pass", "buy_O5"]
    game.act("buy_O5")  # instead of the token; JEN then takes B1 B2, the last cards
    assert person(game) == {"coins": 0, "bust_tokens": 0, "cards": ["O5"], "score": 1}
    assert game.is_over and game.snapshot()["market"] == ["O9"]


# ---------------------------------------------------------------- auctions


def test_solitaire_min_bid_is_5():
    """Nobody may bid under 5 in the solitaire game; when the person passes JEN bids exactly 5."""
    game = new_game(["B1", "W3", "G9", "G1", "B2", "B3"], level=10)
    game.act("stop_numbers")  # JEN reveals W3: the person bids first
    assert legal(game) == ["pass", "bid_5"]
    before = game.clone()
    with pytest.raises(ValueError, match=r"^action 'bid_4' \(id \d+\) is not legal for player 0 in the auction phase; "
                                         r"legal: pass, bid_5$"):
        game.act("bid_4")
    assert game == before
    game.act("pass")
    assert "bid_5" in jen_moves(game)
    assert jen(game) == {"coins": 0, "bust_tokens": 0, "cards": ["G1", "G9", "W3"], "score": 2}


def test_solitaire_auction_counts_only_duplicates():
    """In solitaire auctions only duplicate cards count as money (a W3 is no duplicate of a G3); buying counts every card."""
    deck = ["B1", "B1", "G3", "W3", "O9", "O1", "$5", "$2", "W4", "P9", "P1", "B9", "$1",
            "P8", "P2", "G1", "B2", "B3"]
    game = new_game(deck, level=10)
    play(game, "draw", "draw", "stop_numbers")  # the person: B1 B1 G3
    # JEN reveals W3: 5 coins + one duplicate B1 (not 5 + 3 cards)
    assert legal(game) == ["pass", "bid_5", "bid_6"]
    game.act("bid_6")  # JEN cannot pay 7 and passes
    assert person(game) == {"coins": 0, "bust_tokens": 0, "cards": ["B1", "G3", "W3"], "score": 3}
    assert game.snapshot()["discard"] == ["B1"]
    play(game, "draw", "stop_currency")  # the person: 7 coins; JEN reveals W4
    assert legal(game) == ["pass", "bid_5", "bid_6", "bid_7"]  # B1 G3 W3: no duplicate
    game.act("pass")  # JEN takes W4 for 5
    play(game, "draw", "stop_currency")  # B9 to the market, 8 coins
    play(game, "stop_numbers")  # the person takes G1
    # buying counts every card: 8 coins + 4 cards, no duplicate among them
    assert legal(game) == ["pass", "buy_B9"]


def test_solitaire_manual_payment_uses_only_duplicates():
    """With manual payment a solitaire auction may be paid only with coins, tokens and duplicates."""
    deck = ["B1", "B1", "G3", "W3", "O9", "O1", "B2", "B3"]
    game = new_game(deck, level=10, payment="manual")
    play(game, "draw", "draw", "stop_numbers", "bid_6")
    snap = game.snapshot()
    assert snap["phase"] == "pay" and snap["payment"]["duplicates_only"] is True
    assert legal(game) == ["pay_coin", "pay_B1"]
    game.act("pay_B1")  # then only coins are left: paid by the engine
    assert person(game) == {"coins": 0, "bust_tokens": 0, "cards": ["B1", "G3", "W3"], "score": 3}


@pytest.mark.parametrize("payment", ["auto", "manual"])
def test_solitaire_auction_never_spends_the_copy_of_the_card_won(payment):
    """Winning a W3 while holding one: the held W3 is a last copy, not money (the bid limit did not count
    it), so automatic payment may not spend it either, though with the card won it would be a duplicate."""
    deck = ["$3", "W3", "G5", "B1", "G1", "O1", "P1", "O5", "$4", "W3", "P5", "B2", "B3"]
    game = new_game(deck, level=4, payment=payment)
    play(game, "stop_currency", "bid_5")  # the person: 8 coins, wins the first W3 for 5
    play(game, "draw", "draw", "draw", "stop_numbers", "stop_currency")  # B1 G1 O1 P1, then 4 coins: 7
    assert person(game) == {"coins": 7, "bust_tokens": 0, "cards": ["B1", "G1", "O1", "P1", "W3"], "score": 4}
    assert legal(game) == ["pass", "bid_5", "bid_6", "bid_7"]  # JEN reveals the second W3: coins only
    game.act("bid_5")
    assert person(game) == {"coins": 2, "bust_tokens": 0, "cards": ["B1", "G1", "O1", "P1", "W3", "W3"],
                            "score": 4}
    w3 = C.parse("W3")
    hand = [0] * C.NUM_OWNABLE
    for card in ("B1", "G1", "O1", "P1", "W3"):
        hand[C.parse(card)] += 1
    assert payment_rules.automatic(hand, 5, 0, 5, w3, duplicates_only=True) == payment_rules.Payment(5, 0, ())
    # in a normal game every card is money, and the held W3, idle beside the one bought, goes first
    assert payment_rules.automatic(hand, 5, 0, 5, w3) == payment_rules.Payment(4, 0, (w3,))


def test_jen_first_bid_matches_person_money():
    """Bidding first, JEN bids the person's coins + 3 per token + duplicates (here 5 + 3 + 1 = 9)."""
    deck = ["B2", "B2", "$5", "G4", "B9", "B5", "O4", "W#", "P1", "P2"]
    game = new_game(deck, level=4)
    play(game, "draw", "draw", "stop_numbers")  # the person: B2 B2; JEN: 10 coins; JEN takes G4
    game.act("draw")  # the person busts on B9 + B5: a token; JEN takes O4; the person reveals W#
    assert person(game)["bust_tokens"] == 1
    # JEN bid 9; the person cannot beat it, so the engine passed for them
    assert jen_moves(game)[-1] == "bid_9"
    assert jen(game) == {"coins": 1, "bust_tokens": 0, "cards": ["G4", "O4", "W#"], "score": 3}
    assert game.snapshot()["tableau"] == ["P1"] and game.current_player == 0


def test_jen_first_bid_is_at_least_5():
    """Bidding first against a person with less than 5, JEN bids 5."""
    deck = ["O3", "$1", "G4", "B1", "O4", "W#", "P1", "P2"]
    game = new_game(deck, level=4)
    play(game, "draw", "stop_currency")  # the person: 6 coins, O3 to the market; JEN takes G4
    play(game, "stop_numbers", "buy_O3")  # the person: 3 coins, B1 O3; JEN takes O4; W# revealed
    assert person(game)["coins"] == 3
    assert jen_moves(game)[-1] == "bid_5"
    assert jen(game) == {"coins": 0, "bust_tokens": 0, "cards": ["G4", "O4", "W#"], "score": 3}


def test_jen_first_bid_limited_by_her_money():
    """Bidding first, JEN bids as close to the person's money as she can pay; the person may outbid her."""
    game = new_game(["$3", "G4", "W#", "P1", "P2"], level=4)
    game.act("stop_currency")  # the person: 8 coins; JEN takes G4; the person reveals W#
    assert jen_moves(game)[-1] == "bid_5"  # all she has
    assert legal(game) == ["pass", "bid_6", "bid_7", "bid_8"]
    game.act("bid_6")
    assert person(game) == {"coins": 2, "bust_tokens": 0, "cards": ["W#"], "score": 1}
    assert jen(game)["coins"] == 5


def test_jen_first_bid_passes_below_5():
    """JEN, unable to pay 5, passes; the person may then take the card for 5."""
    game = new_game(["W#", "B1", "G4", "W5", "P1", "P2"], level=4)
    # JEN took W# for 5 at once: she has nothing left
    assert jen(game) == {"coins": 0, "bust_tokens": 0, "cards": ["W#"], "score": 1}
    game.act("stop_numbers")  # JEN takes G4; the person reveals W5
    assert jen_moves(game)[-1] == "pass"
    assert legal(game) == ["pass", "bid_5"]
    game.act("bid_5")
    assert person(game) == {"coins": 0, "bust_tokens": 0, "cards": ["B1", "W5"], "score": 2}


def test_jen_second_bid_is_one_more():
    """Bidding second, JEN bids one more than the person if she can pay it."""
    game = new_game(["B1", "$2", "W#", "G9", "G1", "P1", "P2"], level=10)
    play(game, "draw", "stop_numbers")  # JEN: 7 coins; she reveals W#
    assert legal(game) == ["pass", "bid_5"]
    game.act("bid_5")
    assert jen_moves(game)[1] == "bid_6"
    assert jen(game) == {"coins": 1, "bust_tokens": 0, "cards": ["G1", "G9", "W#"], "score": 2}
    assert person(game)["coins"] == 5


def test_jen_second_bid_passes_when_she_cannot_pay():
    """Bidding second, JEN passes when one more than the person's bid is beyond her money."""
    game = new_game(["$3", "W#", "G9", "G1", "P1", "P2"], level=10)
    game.act("stop_currency")  # the person: 8 coins; JEN (5 coins) reveals W#
    game.act("bid_5")  # JEN would need 6
    assert jen_moves(game)[1] == "pass"
    assert person(game) == {"coins": 3, "bust_tokens": 0, "cards": ["W#"], "score": 1}


def test_jen_second_bid_after_a_pass_then_nobody_can_bid():
    """After the person passes JEN bids 5; once she cannot pay 5 and the person passes, the wildcard is discarded."""
    game = new_game(["B1", "W#", "W2", "G9", "G1", "P1", "P2"], level=10)
    game.act("stop_numbers")  # JEN reveals W#
    game.act("pass")  # JEN bids 5 and gets it; then she reveals W2
    assert jen(game)["cards"] == ["W#"] and jen(game)["coins"] == 0
    game.act("pass")  # JEN has nothing left to bid
    snap = game.snapshot()
    assert snap["discard"] == ["W2"]
    assert jen(game)["cards"] == ["G1", "G9", "W#"]


def test_jen_pays_coins_then_tokens_then_duplicates():
    """JEN pays with coins, then tokens, then duplicates, even when a token wastes money a duplicate would save."""
    # 6 to pay with 5 coins, a token and a duplicate: coins, then the token; the duplicate stays
    deck = ["$1", "G1", "G1", "$5", "$5", "$1", "W#", "B2", "B3"]
    game = new_game(deck, level=4)
    game.act("stop_currency")  # the person: 6 coins; JEN busts on currency; W# revealed
    assert jen_moves(game)[-1] == "bid_6"
    assert jen(game) == {"coins": 0, "bust_tokens": 0, "cards": ["G1", "G1", "W#"], "score": 2}

    # 9 to pay with 5 coins, a token and two duplicates: all coins, the token, one duplicate
    deck = ["B9", "B5", "G1", "G1", "G1", "$5", "$5", "$1", "B1", "W#", "G4", "P1", "P2"]
    game = new_game(deck, level=4)
    game.act("draw")  # the person busts: a token; JEN busts on currency with G1 G1 G1
    assert jen(game) == {"coins": 5, "bust_tokens": 1, "cards": ["G1", "G1", "G1"], "score": 1}
    play(game, "stop_numbers", "pass")  # the person takes B1; JEN reveals W#
    game.act("bid_8")  # all the person has: 5 coins + a token
    assert jen_moves(game)[-4:] == ["bid_9", "draw", "stop_numbers", "pass"]  # outbids, then plays on
    assert jen(game) == {"coins": 0, "bust_tokens": 0, "cards": ["G1", "G1", "G4", "W#"], "score": 2}
    assert game.snapshot()["discard"] == ["G1", "$1", "$5", "$5"]


# ---------------------------------------------------------------- the end of the game


@pytest.mark.parametrize(
    "jen_cards, kept",
    [(["G2", "$3"], ["G2"]), (["$3"], [])],
)
def test_jen_at_end_of_deck(jen_cards, kept):
    """When the deck runs out below her level JEN takes the numbers, even none; the person gains the currency."""
    game = new_game(["B1", *jen_cards], level=10)
    game.act("stop_numbers")
    assert game.is_over
    assert jen(game)["cards"] == kept
    assert game.coins == [8, 5]
    assert game.snapshot()["discard"] == ["$3"]
    assert "stop_numbers" in jen_moves(game)


def test_solitaire_tie_goes_to_jen():
    """On equal points JEN wins, whatever the money and the cards."""
    game = new_game(["$3", "G4", "B1"], level=4)
    game.act("stop_currency")  # the person: 8 coins; JEN takes G4; the person must take B1
    assert game.is_over
    assert game.scores() == [1, 1] and game.coins == [8, 5]
    assert game.winners() == [1]


def test_person_wins_with_more_points():
    """The person wins with more points than JEN."""
    game = new_game(["B1", "B2", "G4", "$1"], level=4)
    play(game, "draw", "stop_numbers")  # JEN takes G4; the person must take $1
    assert game.is_over and game.scores() == [2, 1]
    assert game.winners() == [0]


def test_jen_is_never_asked_to_act():
    """Through whole games the current player is always the person; every move of JEN's is the engine's."""
    deck = ["B1", "$2", "W4", "G3", "O5", "$1", "P6", "B#", "G7", "$3", "O1", "W#",
            "P2", "$5", "B3", "G4", "$4", "O8", "P9", "W1", "G2", "$2"] * 2
    rng = random.Random(3)
    for level in (4, 7, 10):
        game = new_game(deck, level=level)
        while not game.is_over:
            assert game.current_player == 0
            game.act(rng.choice(game.legal_actions()))
        assert all(forced for seat, _, forced in game.history if seat == 1)


def test_jen_as_an_agent_takes_a_whole_level_from_4_to_10():
    import numpy as np

    from agents import JenAgent

    assert (JenAgent(np.int64(7)).level, JenAgent(np.int64(7)).name) == (7, "jen:7")
    assert type(JenAgent(np.int64(7)).level) is int
    for bad in (7.0, True, 3, 11, "7", None):
        with pytest.raises(ValueError, match=rf"^JEN's level must be an integer from 4 to 10, got {re.escape(repr(bad))}$"):
            JenAgent(bad)
