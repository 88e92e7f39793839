"""The chance API: what the next card can be, choosing it, and games rebuilt from public state.

A searching agent needs chance nodes: :meth:`Game.unseen` and
:meth:`Game.chance_outcomes` give the next card's distribution,
``act(..., next_card=)`` picks an outcome, ``clone(shuffle_unseen=)`` and
:meth:`Game.from_snapshot` give games that carry no knowledge of the true order.
"""

import json
import random
import re
from collections import Counter

import pytest

from stacked import new_game
from ten_env import Game, Rules
from ten_env import cards as C
from ten_env.game import PHASES, max_decisions

CONFIGS = {
    **{f"{n}p": Rules(num_players=n) for n in range(2, 6)},
    **{f"{n}p-bust-buy": Rules(num_players=n, bust_buy=True) for n in (2, 4)},
    **{f"{n}p-manual": Rules(num_players=n, payment="manual") for n in (2, 5)},
    "solitaire-7": Rules(jen_level=7),
    "solitaire-4-manual-bust-buy": Rules(jen_level=4, payment="manual", bust_buy=True),
}


def _random_play(game, rng, stop_after=None):
    """Play random legal actions; yields the game before every decision."""
    steps = 0
    while not game.is_over and (stop_after is None or steps < stop_after):
        yield game
        game.act(rng.choice(game.legal_actions()))
        steps += 1


def _played(rules, deck_seed, action_seed, steps):
    """A game of ``rules`` after ``steps`` random legal actions."""
    game = Game(rules, seed=deck_seed)
    for _ in _random_play(game, random.Random(action_seed), stop_after=steps):
        pass
    return game


# ---------------------------------------------------------------- unseen and chance_outcomes


def test_unseen_is_the_deck_contents_and_nothing_else():
    game = Game(Rules(num_players=3), seed=5)
    assert game.unseen() == dict(Counter(C.NAMES[c] for c in game.deck))
    assert sum(game.unseen().values()) == len(game.deck) == game.snapshot()["deck_size"]
    assert list(game.unseen()) == sorted(game.unseen(), key=C.parse)  # card order


def test_chance_outcomes_are_counts_over_deck_size():
    game = Game(Rules(num_players=2), seed=11)
    outcomes = game.chance_outcomes()
    size = len(game.deck)
    assert [card for card, _ in outcomes] == list(game.unseen())
    for card, p in outcomes:
        assert p == game.unseen()[card] / size
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)


def test_chance_outcomes_of_an_empty_deck_is_an_error():
    game = new_game(["B1"])
    assert game.is_over and not game.deck
    assert game.unseen() == {}
    with pytest.raises(ValueError, match="deck is empty"):
        game.chance_outcomes()


def test_reshuffled_clones_draw_next_cards_as_chance_outcomes_say():
    game = _played(Rules(num_players=4), 3, 0, 40)
    outcomes = dict(game.chance_outcomes())
    trials = 6000
    rng = random.Random(99)
    seen = Counter(C.NAMES[game.clone(shuffle_unseen=rng).deck[-1]] for _ in range(trials))
    assert set(seen) <= set(outcomes)
    for card, p in outcomes.items():
        sigma = (trials * p * (1 - p)) ** 0.5
        assert abs(seen[card] - trials * p) < 4.5 * sigma + 1, card


def test_reshuffled_clone_has_the_same_public_state():
    game = _played(Rules(num_players=3, bust_buy=True), 8, 1, 60)
    copy = game.clone(shuffle_unseen=5)
    assert copy.snapshot() == game.snapshot()
    assert copy.deck != game.deck  # a new order (a 1 in 10^100 chance of the same one)
    assert sorted(copy.deck) == sorted(game.deck)
    assert game.clone() == game  # the plain clone keeps the true order
    assert game.clone(shuffle_unseen=random.Random(5)).deck == copy.deck


def test_shuffle_unseen_must_be_a_seed_or_a_random():
    game = Game(seed=1)
    before = game.clone()
    with pytest.raises(ValueError, match=r"^shuffle_unseen must be an int seed, a random.Random or None, got 'abc'$"):
        game.clone(shuffle_unseen="abc")
    with pytest.raises(ValueError, match=r"^shuffle_unseen must be an int seed, a random.Random or None, got 1.5$"):
        Game.from_snapshot(game.snapshot(), shuffle_unseen=1.5)
    assert game == before


# ---------------------------------------------------------------- act(next_card=)


def test_a_chosen_draw_is_the_same_as_drawing_that_card():
    base = new_game(["B2", "G5", "$3", "O4", "B7", "P1", "P2"])
    for card in base.unseen():
        chosen = base.clone()
        chosen.act("draw", next_card=card)
        natural = base.clone()
        order = natural.deck
        i = max(k for k, c in enumerate(order) if C.NAMES[c] == card)
        order[i], order[-1] = order[-1], order[i]  # that card on top, the same swap by hand
        natural.act("draw")
        assert chosen == natural
        assert chosen.snapshot()["tableau"][-1] == card


def test_next_card_applies_to_the_forced_first_draw_of_the_next_turn():
    game = new_game(["B2", "G5", "$3", "O4", "B7", "P1", "P2"])
    assert game.snapshot()["tableau"] == ["B2"]
    game.act("stop_numbers", next_card="P2")  # seat 0 ends its turn; seat 1's first draw is forced
    assert game.current_player == 1
    assert game.snapshot()["tableau"] == ["P2"]


def test_next_card_accepts_ids_and_names():
    game = new_game(["B2", "G5", "$3", "O4"])
    game.act("draw", next_card=C.parse("O4"))
    assert game.snapshot()["tableau"] == ["B2", "O4"]


@pytest.mark.parametrize("bad", ["B9", "X1", 99, -1, 3.5, True, C.parse("G5") + 0.0])
def test_a_next_card_that_is_not_unseen_is_refused_and_nothing_changes(bad):
    game = new_game(["B2", "G5", "$3", "O4"])
    before = game.clone()
    with pytest.raises(ValueError, match=r"next_card .* is not an unseen card; unseen: G5, O4, \$3"):
        game.act("draw", next_card=bad)
    assert game == before


def test_an_illegal_action_with_a_next_card_changes_nothing():
    game = new_game(["B2", "G5", "$3", "O4"])
    before = game.clone()
    with pytest.raises(ValueError, match="not legal"):
        game.act("stop_currency", next_card="G5")
    assert game == before


# ---------------------------------------------------------------- from_snapshot


def _snapshots_in_every_phase(rules, games=6, seed=0):
    rng = random.Random(seed)
    found = []
    for g in range(games):
        game = Game(rules, seed=seed * 1000 + g)
        for state in _random_play(game, rng):
            found.append((state.snapshot(), state.clone()))
        found.append((game.snapshot(), game.clone()))
    return found


@pytest.mark.parametrize("name", list(CONFIGS))
def test_from_snapshot_rebuilds_the_public_state_in_every_phase(name):
    rules = CONFIGS[name]
    phases = set()
    rng = random.Random(7)
    for i, (snap, original) in enumerate(_snapshots_in_every_phase(rules)):
        phases.add(snap["phase"])
        rebuilt = Game.from_snapshot(json.loads(json.dumps(snap)), shuffle_unseen=i)
        assert rebuilt.snapshot() == snap
        assert rebuilt.legal_actions() == original.legal_actions()
        assert rebuilt.card_locations() == original.card_locations()
        # with the true order put back, the rebuilt game is the original (bar its history)
        same = rebuilt.clone()
        same.deck = list(original.deck)
        assert same == original.clone(history=False)
        if i % 7 == 0:  # and it plays on to a legal end
            steps = 0
            while not rebuilt.is_over:
                rebuilt.act(rng.choice(rebuilt.legal_actions()))
                steps += 1
            assert steps <= max_decisions(rules)
            assert rebuilt.winners()
    expected = {"draw", "auction", "buy", "final_buy", "over"}
    if rules.bust_buy:
        expected.add("bust")
    if rules.payment == "manual":
        expected.add("pay")
    assert expected <= phases <= set(PHASES)


def test_from_snapshot_does_not_depend_on_the_true_deck_order():
    """Two games with the same public state and different deck orders rebuild identically."""
    game = _played(Rules(num_players=3), 21, 4, 30)
    other = game.clone(shuffle_unseen=123)
    assert other.deck != game.deck
    a = Game.from_snapshot(game.snapshot(), shuffle_unseen=9)
    b = Game.from_snapshot(other.snapshot(), shuffle_unseen=9)
    assert a == b


def test_a_reshuffled_clone_does_not_depend_on_the_true_deck_order():
    """The same seed gives the same order to two games differing only in their deck orders: a
    shuffle of the true order, its seed known, would tell that order."""
    game = _played(Rules(num_players=3), 21, 4, 30)
    other = game.clone(shuffle_unseen=123)
    assert other.deck != game.deck
    assert game.clone(shuffle_unseen=7) == other.clone(shuffle_unseen=7)
    assert game.clone(shuffle_unseen=7).deck == Game.from_snapshot(game.snapshot(), shuffle_unseen=7).deck


def test_an_unread_environment_snapshot_holds_no_deck_order():
    """Whatever info["snapshot"] keeps inside, read or not, is the same for any deck order."""
    game = _played(Rules(num_players=3), 21, 4, 30)
    other = game.clone(shuffle_unseen=5)
    assert other.deck != game.deck
    mine, theirs = game.lazy_snapshot(), other.lazy_snapshot()
    assert mine._game == theirs._game  # the copies they hold are the same game, deck included
    assert dict(mine) == dict(theirs) == game.snapshot()


def test_from_snapshot_reads_an_environment_snapshot():
    import ten_env

    env = ten_env.env(num_players=3)
    env.reset(seed=2)
    _, _, _, _, info = env.last()
    game = Game.from_snapshot(info["snapshot"], shuffle_unseen=0)
    assert game.snapshot() == dict(info["snapshot"])


@pytest.mark.parametrize("bad", [{}, {"rules": {}}, "snapshot", None, {"rules": {"num_players": 9}}])
def test_from_snapshot_refuses_what_is_not_a_snapshot(bad):
    with pytest.raises(ValueError, match=r"^not a game snapshot \(.+\); pass Game.snapshot\(\) or info\['snapshot'\]$"):
        Game.from_snapshot(bad, shuffle_unseen=0)


def _edited(snapshot, **changes):
    edited = json.loads(json.dumps(snapshot))
    for path, value in changes.items():
        place = edited
        *keys, last = path.split("__")
        for key in keys:
            place = place[int(key)] if key.isdigit() else place[key]
        place[int(last) if last.isdigit() else last] = value
    return edited


@pytest.mark.parametrize("changes", [
    {"players__0__cards": ["B1", "$3"]},  # currency in a hand
    {"market": ["W3"]},  # a wildcard in the market
    {"deck": {"B1": 2, "X9": 1}},  # no such card
    {"current_player": 7},  # no such seat
    {"phase": "pay"},  # a payment without its details
    {"net_total": 99},  # totals that do not follow from the tableau
    {"players__0__coins": None},  # fields of the wrong kind, or beyond what the game allows
    {"players__1__coins": 99},
    {"players__2__bust_tokens": "x"},
    {"turn": None},
    {"final_buyers": [7]},
    {"players__0__coins": True},
    {"active_player": 1.0},
])
def test_from_snapshot_refuses_a_snapshot_that_does_not_hold_together(changes):
    game = _played(Rules(num_players=3), 4, 2, 20)
    with pytest.raises(ValueError, match="not a game snapshot"):
        Game.from_snapshot(_edited(game.snapshot(), **changes), shuffle_unseen=0)


def test_from_snapshot_refuses_a_phase_without_what_it_holds_or_with_what_it_cannot():
    """An auction, a payment and a bust each belong to their phases; a snapshot that puts them
    elsewhere would be a game that cannot go on (an auction phase with no auction never ends)."""
    by_phase = {}
    for snap, _ in _snapshots_in_every_phase(Rules(num_players=3, payment="manual", bust_buy=True), games=8):
        key = (snap["phase"], (snap["payment"] or {}).get("for"))
        by_phase.setdefault(key, snap)
    auction, paying = by_phase[("auction", None)], by_phase[("pay", "auction")]
    draw, bust, paying_bust = by_phase[("draw", None)], by_phase[("bust", None)], by_phase[("pay", "bust")]
    for snap, changes, message in [
        (auction, {"auction": None}, "auction None in the auction phase"),
        (auction, {"auction__bids_left": 0}, "in the auction phase"),  # bidding with nobody left to bid
        (paying, {"auction__bids_left": 1}, "in the pay phase"),  # its winner pays while bids are open
        (draw, {"auction": auction["auction"]}, "in the draw phase"),
        (draw, {"payment": paying["payment"]}, "in the draw phase"),
        (draw, {"bust_kind": "numbers"}, "bust_kind 'numbers' in the draw phase"),
        (bust, {"bust_kind": None}, "bust_kind None in the bust phase"),
        (paying_bust, {"bust_kind": None}, "bust_kind None in the pay phase"),
    ]:
        Game.from_snapshot(snap, shuffle_unseen=0)  # as play left it
        with pytest.raises(ValueError, match=rf"^not a game snapshot \(KeyError: .*{re.escape(message)}"):
            Game.from_snapshot(_edited(snap, **changes), shuffle_unseen=0)


def test_from_snapshot_refuses_cards_and_turns_that_play_cannot_reach():
    """Each was taken: an auction of a currency card, or a payment for a card the market lacks, then
    failed in act() with an IndexError; a wildcard in the tableau vanished from the game; a payment
    for another card than the auction's made the auction's vanish; a game not over with no move
    for the player to act, or JEN to act in the solitaire game, could not go on."""
    by_phase = {}
    for snap, _ in _snapshots_in_every_phase(Rules(num_players=3, payment="manual", bust_buy=True), games=8):
        by_phase.setdefault((snap["phase"], (snap["payment"] or {}).get("for")), snap)
    auction, draw = by_phase[("auction", None)], by_phase[("draw", None)]
    paying_auction, paying_buy = by_phase[("pay", "auction")], by_phase[("pay", "buy")]
    other_wild = "W1" if paying_auction["auction"]["card"] != "W1" else "W2"
    missing = next(name for name in C.NAMES[:C.NUM_NUMBER_CARDS] if name not in paying_buy["market"])
    solo = _played(Rules(jen_level=6), 3, 1, 6).snapshot()
    assert solo["phase"] != "over" and solo["current_player"] == 0
    for snap, changes, message in [
        (auction, {"auction__card": "$3"}, "an auction of $3: only wildcards are auctioned"),
        (auction, {"auction__card": "B3"}, "an auction of B3: only wildcards are auctioned"),
        (draw, {"tableau": draw["tableau"] + ["W3"]}, "a wildcard in the tableau"),
        (paying_auction, {"payment__card": other_wild}, f"a payment for {other_wild} (auction)"),
        (paying_buy, {"payment__card": "W#"}, "a payment for W# (buy)"),
        (paying_buy, {"payment__card": missing}, f"a payment for {missing} (buy)"),
        (solo, {"active_player": 1, "current_player": 1}, "JEN to act"),
        (draw, {"deck": {}, "deck_size": 0, "tableau": [], "net_total": 0, "currency_total": 0},
         "nothing to do for the player to act in the draw phase"),
    ]:
        Game.from_snapshot(snap, shuffle_unseen=0)  # as play left it
        with pytest.raises(ValueError, match=rf"^not a game snapshot \(KeyError: .*{re.escape(message)}"):
            Game.from_snapshot(_edited(snap, **changes), shuffle_unseen=0)


def test_from_snapshot_takes_numpy_whole_numbers_as_the_engine_does():
    import numpy as np

    game = _played(Rules(num_players=3), 4, 2, 20)
    snapshot = game.snapshot()
    edited = _edited(snapshot)
    edited["players"][0]["coins"] = np.int64(edited["players"][0]["coins"])
    edited["turn"], edited["active_player"] = np.int64(edited["turn"]), np.int32(edited["active_player"])
    rebuilt = Game.from_snapshot(edited, shuffle_unseen=0)
    assert rebuilt.snapshot() == snapshot and type(rebuilt.coins[0]) is int and type(rebuilt.turn) is int


# ---------------------------------------------------------------- declared limits


@pytest.mark.parametrize("name", list(CONFIGS))
def test_max_decisions_bounds_real_games(name):
    rules = CONFIGS[name]
    bound = max_decisions(rules)
    assert bound == Game(rules, seed=0).max_decisions
    rng = random.Random(3)
    longest = 0
    for g in range(15):
        game = Game(rules, seed=g)
        for _ in _random_play(game, rng):
            pass
        longest = max(longest, len(game.history))
    assert longest <= bound
    # a bound, not a guess far too high. Measured on these 15 games a configuration (deck seeds
    # 0-14, actions from random.Random(3)): bound / longest is 1.40-1.61 with automatic payment
    # and 4.13-6.39 with manual payment, whose bound allows up to 9 payments a buy and max_bid
    # a wildcard, which random play seldom makes; the factors leave a quarter's room above that
    assert bound < (8 if rules.payment == "manual" else 2) * longest, (bound, longest)
