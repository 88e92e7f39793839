"""The derived features (ten_env.features): what a player works out from the observation."""

import random

import numpy as np
import pytest

import ten_env
from ten_env import Game, Rules, SoloEnv
from ten_env import cards as C
from ten_env import features as F
from ten_env import observation as O
from ten_env.scoring import score_counts

from stacked import new_game, play


def _derived(game, seat=0):
    return F.derive(O.encode(game, seat))


def test_a_stacked_tableau_of_eight_gives_the_odds_by_hand():
    # B5 is drawn to start the turn, G3 by the draw: 8 on the tableau, B3 G2 $1 W# left.
    game = play(new_game(["B5", "G3", "B3", "G2", "$1", "W#"]), "draw")
    assert game.net_total == 8 and game.phase == "draw"
    f = _derived(game)
    assert f[F.piece("bust_numbers")] == pytest.approx(1 / 4)  # B3 makes 11
    assert f[F.piece("bust_currency")] == 0
    assert f[F.piece("wildcard")] == pytest.approx(1 / 4)
    assert f[F.piece("safe")] == pytest.approx(2 / 4)  # G2 (10) and $1 (7)
    # G2 then B3 busts; $1 then anything of B3, G2 stays at 10 or under
    assert f[F.piece("bust_second")] == pytest.approx(1 / 4 * 1 / 3)
    assert f[F.piece("take_gain")] == pytest.approx(2 / F.GAIN_SCALE)  # B5 and G3: two runs of one


def test_taking_a_tableau_can_add_more_than_one_card_can_and_stays_in_the_space():
    # B5 and G5 on the tableau complete two colours at once: 8 -> 20, a take_gain of 1.2, which
    # the space must hold (the bound is a tableau completing all four colours, 40 points).
    game = new_game(["B5", "G5", "B3", "G2", "$1", "O4"])
    for card in ("B1", "B2", "B3", "B4", "B6", "B7", "B8", "B9", "G1", "G2", "G3", "G4", "G6", "G7", "G8", "G9"):
        game.hands[0][C.parse(card)] += 1
    play(game, "draw")
    assert game.net_total == 10 and game.legal_action_names() == ["draw", "stop_numbers"]
    f = _derived(game)
    assert f[F.piece("take_gain")] == pytest.approx(12 / F.GAIN_SCALE)
    low, high = F.space_bounds()
    extended = np.concatenate([O.encode(game, 0), f])
    assert np.all(low <= extended) and np.all(extended <= high)
    assert high[O.SIZE + F.OFFSET["take_gain"]] == 4 * 10 / F.GAIN_SCALE
    assert score_counts(game.hands[0]) == 8 and play(game, "stop_numbers").snapshot()["players"][0]["score"] == 20


def test_currency_busts_count_the_currency_total():
    # $5 starts the turn, $4 by the draw: 9 of currency; a $2 would make 11
    game = play(new_game(["$5", "$4", "$2", "$1", "B1"]), "draw")
    assert game.currency_total == 9
    f = _derived(game)
    assert f[F.piece("bust_currency")] == pytest.approx(1 / 3)
    assert f[F.piece("bust_numbers")] == 0 and f[F.piece("take_gain")] == 0  # no number card to take
    # $1 (10 of currency) then $2, or B1 (still 9) then $2: half of what is left either way
    assert f[F.piece("bust_second")] == pytest.approx(1 / 3 * 1 / 2 + 1 / 3 * 1 / 2)


def test_gains_are_what_one_more_card_adds_to_each_score():
    # Seat 0 takes B5 G3; seat 1's turn starts with B4
    game = play(new_game(["B5", "G3", "B4", "P9", "O1"]), "draw", "stop_numbers")
    f = _derived(game)
    gain = f[F.piece("gain")] * F.GAIN_SCALE
    assert gain[C.parse("B4")] == 1 and gain[C.parse("B6")] == 1 and gain[C.parse("B7")] == 0
    assert gain[C.parse("P1")] == 1  # a new colour's run of one
    rival = f[F.piece("rival_gain")] * F.GAIN_SCALE  # seat 1 holds nothing yet: any number card adds 1
    assert all(rival[card] == 1 for card in range(C.NUM_NUMBER_CARDS))


def test_the_features_agree_with_the_engine_on_random_games():
    """Bust odds against the engine's own chance outcomes, gains against the scoring of each seat's cards."""
    rng = random.Random(3)
    checked = 0
    for seed in range(12):
        game = Game(Rules(jen_level=8), seed=seed)
        while game.phase != "over":
            if game.decider == 0:
                f = _derived(game)
                if game.phase == "draw" and game.deck:
                    bust = 0.0
                    for card, p in game.chance_outcomes():
                        after = game.clone()
                        after.act("draw", next_card=card)
                        bust += p * (after.bust_tokens[0] > game.bust_tokens[0])
                    assert f[F.piece("bust_numbers")] + f[F.piece("bust_currency")] == pytest.approx(bust, abs=1e-6)
                for seat, name in ((0, "gain"), (1, "rival_gain")):
                    counts = [0] * C.NUM_OWNABLE
                    for card in game.snapshot()["players"][seat]["cards"]:
                        counts[C.parse(card)] += 1
                    base = score_counts(counts)
                    for card in range(C.NUM_OWNABLE):
                        counts[card] += 1
                        assert f[F.piece(name)][card] * F.GAIN_SCALE == pytest.approx(score_counts(counts) - base)
                        counts[card] -= 1
                checked += 1
            game.act(rng.choice(game.legal_actions()))
    assert checked > 300


def test_derive_takes_one_observation_or_a_batch_and_refuses_other_shapes():
    game = Game(Rules(jen_level=8), seed=1)
    obs = O.encode(game, 0)
    one = F.derive(obs)
    assert one.shape == (F.SIZE,)
    np.testing.assert_array_equal(F.derive(np.stack([obs, obs]))[1], one)
    extended = F.extend(obs)
    assert extended.shape == (F.EXTENDED_SIZE,) and np.array_equal(extended[:O.SIZE], obs)
    low, high = F.space_bounds()
    assert low.shape == high.shape == (F.EXTENDED_SIZE,) and (extended >= low).all() and (extended <= high).all()
    with pytest.raises(ValueError, match=f"derive takes observations of {O.SIZE} floats, one or a batch, "
                                         r"got shape \(5,\)"):
        F.derive(np.zeros(5))
    # the AEC env's observation dict, as a PettingZoo loop has it (it was a TypeError from NumPy)
    as_dict = {"observation": obs, "action_mask": np.ones(4, dtype=np.int8)}
    np.testing.assert_array_equal(F.extend(as_dict), extended)
    np.testing.assert_array_equal(F.derive(as_dict), one)
    with pytest.raises(ValueError, match=r"^extend takes observation vectors or the AEC env's observation dict, "
                                         r"got a dict with keys \['action_mask'\]$"):
        F.extend({"action_mask": 1})
    with pytest.raises(ValueError, match=f"^extend takes observations of {O.SIZE} floats, one or a batch, got str$"):
        F.extend("obs")


def test_the_wrapper_gives_an_env_the_derived_features():
    env = F.DerivedFeatures(SoloEnv(jen_level=7))
    obs, _ = env.reset(seed=4)
    assert env.observation_space.shape == (F.EXTENDED_SIZE,) and env.observation_space.contains(obs)
    plain = SoloEnv(jen_level=7)
    plain_obs, _ = plain.reset(seed=4)
    np.testing.assert_array_equal(obs, F.extend(plain_obs))
    np.testing.assert_array_equal(env.action_masks(), plain.action_masks())
    action = int(np.flatnonzero(env.action_masks())[0])
    obs, *_ = env.step(action)
    plain_obs, *_ = plain.step(action)
    np.testing.assert_array_equal(obs, F.extend(plain_obs))
    with pytest.raises(ValueError, match="DerivedFeatures wraps an env with ten_env's observations"):
        F.DerivedFeatures(env)
    for not_gymnasium, kind in (("x", "str"), (ten_env.env(), "OrderEnforcingWrapper")):  # the PettingZoo env
        with pytest.raises(ValueError, match=rf"^DerivedFeatures wraps a Gymnasium env \(ten_env.SoloEnv, "
                                             rf"SingleAgentEnv\), got a {kind}$"):
            F.DerivedFeatures(not_gymnasium)


def test_the_wrapper_keeps_the_mask_of_a_wrapper_in_between():
    """sb3-contrib asks the outermost env for ``action_masks()``: a mask narrowed by a wrapper
    under DerivedFeatures (here sb3-contrib's ActionMasker, drawing only) must come through."""
    from sb3_contrib.common.wrappers import ActionMasker

    def draw_only(env):
        mask = env.unwrapped.action_masks().copy()
        mask[1:] = False
        return mask

    env = F.DerivedFeatures(ActionMasker(SoloEnv(jen_level=5), draw_only))
    env.reset(seed=3)
    assert env.unwrapped.action_masks().sum() > 1  # more than drawing is legal here
    np.testing.assert_array_equal(np.flatnonzero(env.action_masks()), [0])


def test_the_module_docstring_tables_every_piece():
    for name, size, meaning, _ in F.PIECES:
        assert f"{F.OFFSET[name]}" in F.__doc__ and meaning[:40] in " ".join(F.__doc__.split())
    assert sum(size for _, size, *_ in F.PIECES) == F.SIZE == F.EXTENDED_SIZE - O.SIZE
