"""Property tests: random legal play in every configuration keeps the game consistent.

Hypothesis draws the deck shuffle seed and the seed of the random action choices;
after every action the invariants below are checked. A plain seeded loop adds bulk
(thousands of games) with the same checks, minus the costly "try every legal
action" one.
"""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ten_env import Game, Rules, score
from ten_env import cards as C

CONFIGS = {
    **{f"{n}p": Rules(num_players=n) for n in range(2, 6)},
    **{f"{n}p-bust-buy": Rules(num_players=n, bust_buy=True) for n in range(2, 6)},
    **{f"{n}p-manual": Rules(num_players=n, payment="manual") for n in range(2, 6)},
    "3p-bust-buy-manual": Rules(num_players=3, bust_buy=True, payment="manual"),
    "2p-max-bid-5": Rules(num_players=2, max_bid=5),
    **{f"jen{level}": Rules(jen_level=level) for level in range(4, 11)},
    "jen7-bust-buy-manual": Rules(jen_level=7, bust_buy=True, payment="manual"),
    "jen5-manual": Rules(jen_level=5, payment="manual"),
}
CONFIG_IDS = list(CONFIGS)

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
HYPOTHESIS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------- helpers


def totals(game: Game) -> list[int]:
    """Copies of each card id over all the places a card can be."""
    places = game.card_locations()
    return [sum(counts[c] for counts in places.values()) for c in range(C.NUM_CARD_TYPES)]


def check_invariants(game: Game, expected_totals: list[int]) -> None:
    rules, n = game.rules, game.rules.num_players
    places = game.card_locations()
    assert set(places) == {"deck", "tableau", "market", "discard", "out_of_game", "auction"} | {
        f"player_{s}" for s in range(n)
    }
    for where, counts in places.items():
        assert len(counts) == C.NUM_CARD_TYPES, where
        assert min(counts) >= 0, where
    # every card in exactly one place: nothing created, nothing lost
    assert [sum(counts[c] for counts in places.values()) for c in range(C.NUM_CARD_TYPES)] == expected_totals
    # where each kind of card may be
    assert not any(places["market"][C.NUM_NUMBER_CARDS:])  # only number cards
    for s in range(n):
        assert not any(places[f"player_{s}"][C.FIRST_CURRENCY:])  # nobody holds currency
    assert all(not C.is_wild(card) for card in game.tableau)  # wildcards are auctioned at once
    assert sum(places["auction"]) == (0 if game.auction_card is None else 1)
    # the tableau's totals are what its cards say
    currency = sum(C.currency_value(c) for c in game.tableau if C.is_currency(c))
    assert game.currency_total == currency
    assert game.net_total == sum(C.NET_VALUE[c] for c in game.tableau)
    # money
    assert len(game.coins) == len(game.bust_tokens) == n
    assert all(0 <= coins <= 10 for coins in game.coins), game.coins
    assert all(tokens >= 0 for tokens in game.bust_tokens), game.bust_tokens
    # whose turn
    legal = game.legal_actions()
    if game.is_over:
        assert game.current_player is None
        assert legal == []
        assert not game.deck and not game.tableau and game.auction_card is None
    else:
        assert game.current_player is not None
        assert game.current_player in range(n)
        if rules.jen_level is not None:
            assert game.current_player == 0  # the engine plays JEN itself
        assert legal, "no legal action in a game that is not over"
        assert legal == sorted(set(legal))
        assert all(0 <= a < game.num_actions for a in legal)
        # a decision with a single option is taken by the engine (README: the current
        # player always has a real choice)
        assert len(legal) >= 2, game.legal_action_names()
        if game.phase == "draw":
            assert game.current_player == game.active_player
            assert game.currency_total <= 10 and game.net_total <= 10  # else it was a bust


def check_end(game: Game) -> None:
    n = game.rules.num_players
    winners = game.winners()
    assert winners and winners == sorted(set(winners))
    assert set(winners) <= set(range(n))
    scores = game.scores()
    assert len(scores) == n
    assert all(0 <= s <= 40 for s in scores), scores
    # the scores are those of the cards the players hold
    snap = game.snapshot()
    assert [score(p["cards"]) for p in snap["players"]] == scores
    if game.rules.jen_level is not None:
        # the person wins only with more points than JEN; every tie goes to JEN
        assert winners == ([0] if scores[0] > scores[1] else [1])
    else:
        # highest score, then most money (coins + 3 per bust token), then fewest cards;
        # whoever is still tied shares the win
        def rank(seat):
            money = snap["players"][seat]["coins"] + 3 * snap["players"][seat]["bust_tokens"]
            return (scores[seat], money, -len(snap["players"][seat]["cards"]))

        best = max(rank(s) for s in range(n))
        assert winners == [s for s in range(n) if rank(s) == best]


def choose(game: Game, rng: random.Random):
    """A random legal action, sometimes given by name (both forms are accepted)."""
    action = rng.choice(game.legal_actions())
    return game.action_name(action) if rng.random() < 0.25 else action


def play(rules: Rules, deck_seed: int, action_seed: int, each_step=None) -> Game:
    game = Game(rules, seed=deck_seed)
    rng = random.Random(action_seed)
    while not game.is_over:
        game.act(choose(game, rng))
        if each_step:
            each_step(game)
        assert len(game.history) <= game.max_decisions  # the declared limit holds
    return game


# ---------------------------------------------------------------- invariants


@pytest.mark.parametrize("config", CONFIG_IDS)
@settings(max_examples=12, **HYPOTHESIS)
@given(deck_seed=SEEDS, action_seed=SEEDS)
def test_invariants_after_every_action(config, deck_seed, action_seed):
    rules = CONFIGS[config]
    game = Game(rules, seed=deck_seed)
    expected = totals(game)
    assert sum(expected) == 129  # the whole box: cards in play plus those out of the game
    check_invariants(game, expected)
    rng = random.Random(action_seed)
    steps = 0
    while not game.is_over:
        legal = game.legal_actions()
        # every legal action is accepted (on a copy), and leaves a consistent game
        for action in legal:
            trial = game.clone()
            trial.act(action)
            assert totals(trial) == expected
        # an illegal action is refused and changes nothing
        illegal = [a for a in range(game.num_actions) if a not in legal]
        if illegal:
            before = game.clone()
            with pytest.raises(ValueError, match=r"^action .* \(id \d+\) is not legal for player \d in the "):
                game.act(rng.choice(illegal))
            assert game == before
        game.act(choose(game, rng))
        check_invariants(game, expected)
        json.dumps(game.snapshot())  # the snapshot is JSON-ready at every step
        steps += 1
        assert len(game.history) <= game.max_decisions
    check_end(game)
    with pytest.raises(ValueError, match=r"^the game is over: no action is legal \(got 0\)$"):
        game.act(0)


CARD_NAMES = st.sampled_from(C.NAMES)


@pytest.mark.parametrize("config", ["2p", "3p-bust-buy-manual", "5p", "jen4", "jen7-bust-buy-manual"])
@settings(max_examples=40, **HYPOTHESIS)
@given(deck=st.lists(CARD_NAMES, min_size=1, max_size=40), action_seed=SEEDS)
def test_invariants_with_stacked_decks(config, deck, action_seed):
    # Short hand-stacked decks reach the edge cases random shuffles rarely do: a deck of
    # wildcards only, the last card a wildcard, currency busts, one-card decks.
    rules = CONFIGS[config]
    game = Game(rules, deck=deck)
    expected = [deck.count(name) for name in C.NAMES]
    check_invariants(game, expected)
    rng = random.Random(action_seed)
    while not game.is_over:
        game.act(choose(game, rng))
        check_invariants(game, expected)
        assert len(game.history) <= game.max_decisions
    check_end(game)


@pytest.mark.parametrize("config", CONFIG_IDS)
def test_bulk_random_games(config):
    # Plain seeded loop: many more games, every invariant but the "try every action" one.
    rules = CONFIGS[config]
    games = 60 if rules.jen_level is None else 90
    for i in range(games):
        expected = totals(Game(rules, seed=1000 + i))

        def each_step(g, expected=expected):
            check_invariants(g, expected)

        game = play(rules, 1000 + i, 7 * i + 1, each_step=each_step)
        check_end(game)


# ---------------------------------------------------------------- determinism


@settings(max_examples=60, **HYPOTHESIS)
@given(config=st.sampled_from(CONFIG_IDS), deck_seed=SEEDS, action_seed=SEEDS)
def test_same_rules_seed_and_actions_give_the_same_game(config, deck_seed, action_seed):
    rules = CONFIGS[config]
    # equal, not identical, Rules objects: nothing may depend on object identity
    first = Game(rules, seed=deck_seed)
    second = Game(Rules(**{f: getattr(rules, f) for f in Rules.field_names()}), seed=deck_seed)
    assert first == second and first.snapshot() == second.snapshot()
    rng_first, rng_second = random.Random(action_seed), random.Random(action_seed)
    while not first.is_over:
        assert not second.is_over
        first.act(choose(first, rng_first))
        second.act(choose(second, rng_second))
        assert first == second
        assert first.snapshot() == second.snapshot()
    assert second.is_over
    assert first.history == second.history
    assert first.scores() == second.scores() and first.winners() == second.winners()


@settings(max_examples=40, **HYPOTHESIS)
@given(config=st.sampled_from(CONFIG_IDS), deck_seed=SEEDS)
def test_the_seed_decides_the_shuffle(config, deck_seed):
    rules = CONFIGS[config]
    assert Game(rules, seed=deck_seed).deck == Game(rules, seed=deck_seed).deck
    # another seed gives another order (two shuffles of 91+ cards agreeing is not a
    # coincidence that can happen in practice)
    assert Game(rules, seed=deck_seed).deck != Game(rules, seed=deck_seed + 1).deck


# ---------------------------------------------------------------- clone


@settings(max_examples=60, **HYPOTHESIS)
@given(
    config=st.sampled_from(CONFIG_IDS),
    deck_seed=SEEDS,
    action_seed=SEEDS,
    cut=st.floats(min_value=0.0, max_value=1.0),
)
def test_clone_is_an_independent_copy(config, deck_seed, action_seed, cut):
    rules = CONFIGS[config]
    length = len(play(rules, deck_seed, action_seed).history)
    # replay up to a point somewhere in the game
    game = Game(rules, seed=deck_seed)
    rng = random.Random(action_seed)
    while not game.is_over and len(game.history) < cut * length:
        game.act(choose(game, rng))

    copy_ = game.clone()
    assert copy_ == game and copy_ is not game
    assert copy_.snapshot() == game.snapshot()
    saved, saved_snapshot = copy.deepcopy(game), game.snapshot()

    # acting on the clone leaves the original as it was
    clone_rng = random.Random(deck_seed ^ action_seed)
    while not copy_.is_over:
        copy_.act(choose(copy_, clone_rng))
    assert game == saved
    assert game.snapshot() == saved_snapshot
    assert game.legal_actions() == saved.legal_actions()

    # and acting on the original leaves a clone as it was
    other = game.clone()
    other_saved = copy.deepcopy(other)
    while not game.is_over:
        game.act(choose(game, rng))
    assert other == other_saved
    check_end(game)

    # a clone continues exactly as the original would
    replay = other.clone()
    replay_rng = random.Random(1)
    again = other
    again_rng = random.Random(1)
    while not replay.is_over:
        replay.act(choose(replay, replay_rng))
        again.act(choose(again, again_rng))
        assert replay == again
    assert again.is_over
