"""The PettingZoo AEC environment: PettingZoo's own checks, the observation table,
rewards, bad input."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import ten_env
from ten_env import Game, Rules
from ten_env import cards as C
from ten_env import observation as O
from ten_env.rules import PLAYER_COUNTS

CONFIGS = [
    dict(num_players=2),
    dict(num_players=3),
    dict(num_players=4),
    dict(num_players=5),
    dict(num_players=3, bust_buy=True),
    dict(num_players=4, payment="manual"),
    dict(jen_level=4),
    dict(jen_level=10, payment="manual", bust_buy=True),
]


@pytest.mark.parametrize("kwargs", CONFIGS, ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()))
def test_pettingzoo_api_seed_and_render(kwargs, capsys):
    api_test(ten_env.env(**kwargs), num_cycles=1000, verbose_progress=False)
    seed_test(lambda **extra: ten_env.env(**kwargs, **extra), num_cycles=200)
    render_test(lambda render_mode=None: ten_env.env(render_mode=render_mode, **kwargs))


def test_agents_and_spaces():
    env = ten_env.env(num_players=4)
    env.reset(seed=0)
    assert env.agents == ["player_0", "player_1", "player_2", "player_3"]
    solo = ten_env.env(jen_level=7)
    solo.reset(seed=0)
    assert solo.agents == ["player_0"]
    space = env.observation_space("player_0")
    assert space["observation"].shape == (O.SIZE,) == solo.observation_space("player_0")["observation"].shape
    assert env.action_space("player_0").n == 132
    assert env.unwrapped.metadata["name"] == "ten_v0"
    assert env.unwrapped.metadata["is_parallelizable"] is False


def test_registered_with_pettingzoo_and_gymnasium():
    import gymnasium
    from pettingzoo import make

    env = make("aec", "ten_env/ten-v0", num_players=3)
    env.reset(seed=1)
    assert env.agents == ["player_0", "player_1", "player_2"]
    solo = gymnasium.make("ten_env/TenSolo-v0", jen_level=6)
    obs, info = solo.reset(seed=1)
    assert obs.shape == (O.SIZE,) and info["action_mask"].any()


def test_action_table_round_trip():
    env = ten_env.env(num_players=2)
    raw = env.unwrapped
    for action in range(raw.action_space("player_0").n):
        assert raw.action_id(raw.action_name(action)) == action
    assert raw.action_name(0) == "draw"
    assert raw.action_id("buy_G3") == 4 + C.parse("G3")
    assert raw.action_id("bid_1") == 92


def test_stacked_deck_through_reset_options():
    env = ten_env.raw_env(num_players=2)
    env.reset(seed=0, options={"deck": ["B3", "$2", "G4", "O5", "P6", "B7"]})
    snapshot = env.infos["player_0"]["snapshot"]
    assert snapshot["tableau"] == ["B3"]  # the first draw is forced
    assert snapshot["deck_size"] == 5


def test_raw_env_rejects_an_illegal_action_and_changes_nothing():
    env = ten_env.raw_env(num_players=2)
    env.reset(seed=3, options={"deck": ["B3", "$2", "G4", "O5", "P6", "B7"]})
    before = env.game.clone()
    seen = (env.agent_selection, dict(env.rewards), dict(env._cumulative_rewards),
            dict(env.terminations), dict(env.truncations), repr(env.infos))
    with pytest.raises(ValueError, match=r"buy_G3.*draw phase.*legal: draw, stop_numbers"):
        env.step(env.unwrapped.action_id("buy_G3"))
    assert env.game == before
    with pytest.raises(ValueError, match="out of range"):
        env.step(500)
    assert env.game == before
    assert (env.agent_selection, env.rewards, env._cumulative_rewards,
            env.terminations, env.truncations, repr(env.infos)) == seen


def test_wrapped_env_terminates_on_an_illegal_action():
    env = ten_env.env(num_players=2, start=0)  # player_0 moves first, and illegally
    env.reset(seed=3, options={"deck": ["B3", "$2", "G4", "O5", "P6", "B7"]})
    before = {agent: dict(info) for agent, info in env.infos.items()}
    env.step(env.unwrapped.action_id("buy_G3"))  # PettingZoo logs a warning and ends the game
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1, "player_1": 0}
    # PettingZoo's wrapper, not ours: truncated as well, infos as before the move (the module docstring says so)
    assert all(env.truncations.values())
    assert env.infos == before and not any("scores" in info for info in env.infos.values())


@pytest.mark.parametrize("action", [132, -1, np.int64(-1), "draw", 1.5, None, True, np.bool_(False), np.array([0]),
                                    10**20, 2**63, np.array(0.0)])
def test_wrapped_env_refuses_what_is_not_an_action_id_and_changes_nothing(action):
    # One line naming the ids, under python -O too: PettingZoo's own check is an assert, and a bool passed it
    env = ten_env.env(num_players=3, start=0)
    env.reset(seed=3)
    before = env.unwrapped.game.clone()
    with pytest.raises(ValueError, match=r"^action .* is not in player_0's action space: an int id from 0 to 131 "
                                         r"whose action_mask entry is 1$"):
        env.step(action)
    assert env.unwrapped.game == before and env.agent_selection == "player_0"
    assert not any(env.terminations.values()) and set(env.rewards.values()) == {0}


def test_wrapped_env_takes_numpy_ids():
    for action in (np.int64, np.array):
        env = ten_env.env(num_players=2, start=0)
        env.reset(seed=3, options={"deck": ["B3", "$2", "G4", "O5", "P6", "B7"]})
        env.step(action(env.unwrapped.action_id("draw")))
        assert env.infos["player_0"]["snapshot"]["tableau"] == ["B3", "$2"] and not any(env.terminations.values())


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(num_players=6), "num_players must be an integer from 2 to 5"),
        (dict(players=3), "unknown argument.*players.*allowed: num_players"),
        (dict(reward="points"), "reward must be one of win, margin, outcome, got 'points'"),
        (dict(render_mode=3), "render_mode must be None, 'ansi' or 'human'"),
        (dict(jen_level=11), "jen_level must be None or an integer from 4 to 10"),
        (dict(num_players=3, start=3), r"start must be 'random' or a seat from 0 to 2, got 3$"),
        (dict(num_players=3, start="first"), r"start must be 'random' or a seat from 0 to 2, got 'first'"),
        (dict(num_players=3, start=True), r"start must be 'random' or a seat from 0 to 2, got True"),
        (dict(num_players=3, start=1.0), r"start must be 'random' or a seat from 0 to 2, got 1.0"),
        (dict(jen_level=5, start=1), r"start must be 'random' or 0 in the solitaire game"),
        (dict(jen_level=5, start=9), r"start must be 'random' or 0 in the solitaire game .*, got 9$"),
        (dict(jen_level=5, start=0.0), r"start must be 'random' or 0 in the solitaire game .*, got 0.0$"),
    ],
)
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ten_env.env(**kwargs)


def _play_randomly(env, seed) -> dict:
    """Random legal play to the end of the game; the reward each agent sees at its end."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    finals = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            finals[agent] = reward
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return finals


def test_win_rewards_sum_sensibly():
    for seed in range(10):
        env = ten_env.raw_env(num_players=3)
        game_rewards = _play_randomly(env, seed)
        winners = env.game.winners()
        for seat in range(3):
            expected = (1.0 if len(winners) == 1 else 0.0) if seat in winners else -1.0
            assert game_rewards[f"player_{seat}"] == expected


@pytest.mark.parametrize("kwargs", [dict(num_players=2), dict(num_players=4, reward="margin"),
                                    dict(jen_level=6), dict(jen_level=6, reward="margin"),
                                    dict(num_players=3, reward="outcome"), dict(jen_level=6, reward="outcome")])
def test_rewards_are_the_documented_functions_of_the_final_scores(kwargs):
    """win: 1 for a sole winner, 0 for a shared win, -1 for a loss (JEN's seat counts as a rival);
    margin: (own score - best other score) / 20, cut to [-1, 1]; outcome: their mean."""
    kind, seen = kwargs.get("reward", "win"), set()
    for seed in range(8):
        env = ten_env.raw_env(**kwargs)
        finals = _play_randomly(env, seed)
        assert set(finals) == {f"player_{i}" for i in range(kwargs.get("num_players", 1))}
        scores, winners = env.game.scores(), env.game.winners()
        for agent, reward in finals.items():
            seat = int(agent.split("_")[1])
            win = (1.0 if len(winners) == 1 else 0.0) if seat in winners else -1.0
            best_other = max(s for other, s in enumerate(scores) if other != seat)
            margin = min(1.0, max(-1.0, (scores[seat] - best_other) / 20))
            assert reward == pytest.approx({"win": win, "margin": margin, "outcome": (win + margin) / 2}[kind])
            assert -1.0 <= reward <= 1.0
            seen.add(reward)
    if "num_players" in kwargs or "reward" in kwargs:
        assert len(seen) > 1
    else:  # the win reward against JEN 6: a random player never beats her
        assert seen == {-1.0}


def test_margin_rewards_are_scaled_score_differences():
    env = ten_env.raw_env(num_players=2, reward="margin")
    finals = _play_randomly(env, 5)
    s0, s1 = env.game.scores()
    assert finals["player_0"] == pytest.approx(np.clip((s0 - s1) / 20, -1, 1))
    assert finals["player_1"] == pytest.approx(np.clip((s1 - s0) / 20, -1, 1))


def test_outcome_rewards_average_the_win_and_the_margin():
    """reward="outcome" is (win + margin) / 2 for every seat, winners and losers: the searching
    agent's value of a finished game (agents.search.outcome_value is this)."""
    wins, differs_from_win, differs_from_margin = set(), False, False
    for seed in range(30):
        env = ten_env.raw_env(num_players=3, reward="outcome")
        finals = _play_randomly(env, seed)
        game = env.game
        winners, scores = game.winners(), game.scores()
        for seat in range(3):
            win = (1.0 if len(winners) == 1 else 0.0) if seat in winners else -1.0
            margin = np.clip((scores[seat] - max(s for k, s in enumerate(scores) if k != seat)) / 20, -1, 1)
            reward = finals[f"player_{seat}"]
            assert reward == pytest.approx((win + margin) / 2)
            wins.add(win)
            differs_from_win |= reward != win
            differs_from_margin |= reward != pytest.approx(margin)
    assert wins >= {1.0, -1.0} and differs_from_win and differs_from_margin


def _check_observation(game: Game, seat: int):
    """Every piece of the observation (``O.PIECES``, ``O.SEAT_PIECES``) against the snapshot."""
    obs = O.encode(game, seat)
    snap = game.snapshot()
    n = snap["num_players"]
    rules = snap["rules"]
    assert obs.shape == (O.SIZE,) and obs.dtype == np.float32
    low, high = O.space_bounds()
    assert np.all(obs >= low) and np.all(obs <= high)

    def counts(names, universe):
        return [names.count(name) for name in universe]

    for k in range(O.MAX_SEATS):
        block = obs[O.seat_block(k)]
        if k >= n:
            assert not block.any()
            continue
        s = (seat + k) % n
        player = snap["players"][s]
        seat_values = {
            "present": [1],
            "active": [s == snap["active_player"]],
            "to_act": [s == snap["current_player"]],
            "jen": [snap["jen_level"] is not None and s == 1],
            "coins": [player["coins"] / 10],
            "bust_tokens": [player["bust_tokens"] / 3],
            "score": [player["score"] / 40],
            "cards_held": [len(player["cards"]) / 20],
            "hand": counts(player["cards"], C.NAMES[: C.NUM_OWNABLE]),
        }
        assert list(seat_values) == [name for name, *_ in O.SEAT_PIECES]
        for name, size, *_ in O.SEAT_PIECES:
            assert block[O.SEAT[name] : O.SEAT[name] + size] == pytest.approx([float(v) for v in seat_values[name]], abs=1e-6), name
    auction = snap["auction"]
    phases = ["draw", "auction", "buy", "bust", "final_buy", "pay", "over"]
    wilds = C.NAMES[C.NUM_NUMBER_CARDS : C.FIRST_CURRENCY]
    high_bidder = [0] * O.MAX_SEATS
    if auction and auction["high_bidder"] is not None:
        high_bidder[(auction["high_bidder"] - seat) % n] = 1
    paying = snap["payment"]
    values = {
        "market": counts(snap["market"], C.NAMES[: C.NUM_NUMBER_CARDS]),
        "tableau": counts(snap["tableau"], C.NAMES[: C.NUM_NUMBER_CARDS]),
        "tableau_currency": counts(snap["tableau"], C.NAMES[C.FIRST_CURRENCY :]),
        "net_total": [snap["net_total"] / 10],
        "currency_total": [snap["currency_total"] / 10],
        "deck": [snap["deck"].get(name, 0) for name in C.NAMES],
        "deck_size": [snap["deck_size"] / O.FULL_DECK],
        "phase": [p == snap["phase"] for p in phases],
        "auction_card": [bool(auction) and auction["card"] == w for w in wilds],
        "high_bid": [auction["high_bid"] / rules["max_bid"] if auction else 0],
        "high_bidder": high_bidder,
        "pay_remaining": [paying["remaining"] / max(rules["max_bid"], 9) if paying else 0],
        "pay_duplicates_only": [bool(paying) and paying["duplicates_only"]],
        "deck_empty": [snap["deck_size"] == 0],
        "player_count": [n == count for count in PLAYER_COUNTS],
        "solitaire": [snap["jen_level"] is not None],
        "jen_level": [(snap["jen_level"] or 0) / 10],
        "bust_buy": [rules["bust_buy"]],
        "manual_payment": [rules["payment"] == "manual"],
    }
    assert list(values) == [name for name, *_ in O.PIECES][1:]  # every piece but the seat blocks
    for name in values:
        assert obs[O.piece(name)] == pytest.approx([float(v) for v in values[name]], abs=1e-6), name


def test_observation_pieces_tile_the_vector():
    ends = [O.piece(name) for name, *_ in O.PIECES]
    assert ends[0].start == 0 and ends[-1].stop == O.SIZE
    assert all(a.stop == b.start for a, b in zip(ends, ends[1:]))
    assert O.piece("seats") == slice(0, O.MAX_SEATS * O.SEAT_SIZE)
    for name, *_ in O.PIECES:
        assert f"{O.OFFSET[name]} " in O.__doc__ or name == "seats"  # the docstring table is generated


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_observation_matches_snapshot_on_random_states(kwargs):
    """Every state of a manual payment is checked (its pieces are 0 in every other phase)."""
    rules = Rules(**kwargs)
    rng = random.Random(1)
    checked = paying = 0
    for seed in range(6):
        game = Game(rules, seed=seed)
        while not game.is_over:
            if game.phase == "pay" or rng.random() < 0.2:
                paying += game.phase == "pay"
                for seat in range(game.num_players):
                    _check_observation(game, seat)
                    checked += 1
            game.act(rng.choice(game.legal_actions()))
        _check_observation(game, 0)
    assert checked > 50 and (paying > 10) == (rules.payment == "manual")


def test_mask_is_zero_for_agents_not_to_act():
    env = ten_env.raw_env(num_players=3)
    env.reset(seed=2)
    for agent in env.agents:
        mask = env.observe(agent)["action_mask"]
        if agent == env.agent_selection:
            assert mask.sum() == len(env.game.legal_actions()) > 1
        else:
            assert not mask.any()


def test_infos_carry_the_snapshot_of_that_moment():
    env = ten_env.raw_env(num_players=2)
    env.reset(seed=4)
    info = env.infos[env.agent_selection]
    expected = env.game.snapshot()
    env.step(env.game.legal_actions()[0])  # the game moves on; the old snapshot must not
    assert dict(info["snapshot"]) == expected
    assert info["legal_actions"] == expected["legal_actions"]


def test_ansi_render_shows_the_table():
    env = ten_env.raw_env(num_players=2, render_mode="ansi", start=0)
    env.reset(seed=0, options={"deck": ["B3", "G4", "$2", "O5", "P6", "B7"]})
    text = env.render()
    assert "tableau: B3" in text and "deck 5" in text and "player 1" in text
    assert "to act: player 0" in text


def test_observation_stays_in_bounds_in_the_bust_phase():
    """Just after a currency bust in the busting variant, the tableau still shows 13 currency."""
    game = Game(Rules(num_players=2, bust_buy=True), deck=["B1", "$5", "$5", "$3", "B2", "B3", "B4"])
    game.act("draw")
    game.act("draw")
    game.act("draw")  # $3: currency 13 > 10
    assert game.phase == "bust"
    obs = O.encode(game, 0)
    low, high = O.space_bounds()
    assert obs[O.CURRENCY_TOTAL] == pytest.approx(1.3)
    assert np.all(obs >= low) and np.all(obs <= high)


@pytest.mark.parametrize("start", [0, 1])
def test_reset_that_ends_the_game_delivers_rewards(start):
    """The only card, $1, is drawn by force and taken: 0 points each, and the extra coin wins."""
    env = ten_env.raw_env(num_players=2, start=start)
    env.reset(seed=0, options={"deck": ["$1"]})
    assert env.game.is_over and all(env.terminations.values())
    assert env.game.coins == ([6, 5] if start == 0 else [5, 6])
    assert env.rewards == {f"player_{start}": 1.0, f"player_{1 - start}": -1.0}
    assert env.last()[1] == env.rewards[env.agent_selection]
    assert env.infos["player_0"]["scores"] == [0, 0] and env.infos["player_0"]["winners"] == [start]


# ------------------------------------------------------------------ render modes, options, order


def test_an_unsupported_render_mode_warns_and_renders_nothing():
    with pytest.warns(UserWarning, match="render_mode 'rgb_array' is not supported"):
        env = ten_env.env(num_players=2, render_mode="rgb_array")
    assert env.unwrapped.render_mode is None
    env.reset(seed=0)
    with pytest.warns(UserWarning, match=r"render\(\) renders nothing: the env was made with no render_mode, "
                                         r"or one it does not support"):
        assert env.render() is None
    with pytest.warns(UserWarning, match="not supported"):
        raw = ten_env.raw_env(num_players=3, render_mode="rgb_array_list")
    raw.reset(seed=1)
    assert raw.render_mode is None and raw.game is not None


def test_unknown_reset_options_are_refused_and_change_nothing():
    env = ten_env.env(num_players=2)
    env.reset(seed=0)
    raw = env.unwrapped
    before, rng_state = raw.game.clone(), raw._seed_rng.bit_generator.state
    with pytest.raises(ValueError, match=r"^unknown reset option\(s\) dek; allowed: deck$"):
        env.reset(seed=1, options={"dek": ["B3", "$2"]})
    with pytest.raises(ValueError, match=r"^unknown reset option\(s\) deck_file, shuffle; allowed: deck$"):
        env.reset(options={"deck_file": "x.json", "shuffle": True, "deck": ["B3"]})
    with pytest.raises(ValueError, match=r"^reset options must be a dict \(allowed key: deck\), got list$"):
        env.reset(options=["deck"])
    with pytest.raises(ValueError, match="Q3"):  # a bad stacked deck, from the engine
        env.reset(options={"deck": ["B3", "Q3"]})
    for seed in ("x", -1, 1.5, True):
        with pytest.raises(ValueError, match=r"^seed must be None or a non-negative integer, got "):
            env.reset(seed=seed)
    assert raw.game == before and raw._seed_rng.bit_generator.state == rng_state
    # PettingZoo's api_test probes reset with options={"options": 1}: accepted, ignored.
    env.reset(seed=5, options={"options": 1})
    other = ten_env.env(num_players=2)
    other.reset(seed=5)
    assert env.unwrapped.game == other.unwrapped.game
    env.reset(seed=0, options={"deck": (c for c in ["B3", "$2", "G4"])})  # any iterable, read once
    assert env.unwrapped.game.snapshot()["tableau"] == ["B3"]


@pytest.mark.parametrize("call, name", [
    (lambda env: env.step(0), "step"),
    (lambda env: env.observe("player_0"), "observe"),
    (lambda env: env.last(), "last"),
    (lambda env: next(iter(env.agent_iter())), "agent_iter"),
])
def test_raw_env_before_reset_says_to_call_reset(call, name):
    env = ten_env.raw_env(num_players=2)
    with pytest.raises(ValueError, match=rf"^{name}\(\) before reset\(\): call reset\(\) first"):
        call(env)
    env.reset(seed=0)
    call(env)  # fine afterwards


def test_raw_env_after_every_agent_stepped_out_says_to_call_reset():
    """It raised a bare KeyError('player_0'): PettingZoo removes the agents as they step out."""
    env = ten_env.raw_env(num_players=2)
    env.reset(seed=0)
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(np.flatnonzero(observation["action_mask"])[0]))
    for call, name in ((lambda: env.step(0), "step"), (lambda: env.last(), "last")):
        with pytest.raises(ValueError, match=rf"^{name}\(\) after the game ended and every agent stepped out: "
                                             r"call reset\(\) for another game$"):
            call()


def test_a_seat_that_is_done_is_told_its_only_action_is_none():
    """An id out of range was answered with the mask's hint, "an int id ... whose action_mask entry is 1",
    which PettingZoo then refuses for a seat that is done."""
    env = ten_env.env(num_players=2)
    env.reset(seed=0)
    while not any(env.terminations.values()):
        observation, *_ = env.last()
        env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    agent = env.agent_selection
    with pytest.raises(ValueError, match=rf"^{agent} is done: its only action is None \(step\(None\)\), got 132$"):
        env.step(132)
    env.step(None)  # and that is taken
    assert env.agent_selection != agent


def test_wrapped_env_before_reset_answers_with_pettingzoos_error():
    env = ten_env.env(num_players=2)
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)


# ------------------------------------------------------------------ the starting player


def _first_seat(env) -> int:
    return env.unwrapped.game.history[0][0]  # the forced first draw of the first turn


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_the_starting_player_is_drawn_from_the_reset_seed(num_players):
    env = ten_env.env(num_players=num_players)
    firsts = set()
    for seed in range(12 * num_players):
        env.reset(seed=seed)
        first, game = _first_seat(env), env.unwrapped.game.clone()
        firsts.add(first)
        again = ten_env.env(num_players=num_players)
        again.reset(seed=seed)
        assert _first_seat(again) == first and again.unwrapped.game == game  # same seed, same game
    assert firsts == set(range(num_players))


def test_unseeded_resets_follow_the_first_seed():
    """The same games after the same seed, each new, and others after another seed."""
    a, b, c = (ten_env.raw_env(num_players=4) for _ in range(3))
    a.reset(seed=9)
    b.reset(seed=9)
    c.reset(seed=10)
    decks, others = [tuple(a.game.deck)], []
    for _ in range(6):
        a.reset()
        b.reset()
        c.reset()
        assert a.game == b.game
        decks.append(tuple(a.game.deck))
        others.append(tuple(c.game.deck))
    assert len(set(decks)) == 7 and not set(decks) & set(others)


def test_a_fixed_start_and_the_same_deck():
    for seed in range(6):
        fixed = ten_env.raw_env(num_players=4, start=2)
        fixed.reset(seed=seed)
        assert _first_seat(fixed) == 2
        drawn = ten_env.raw_env(num_players=4)
        drawn.reset(seed=seed)
        assert fixed.game.deck == drawn.game.deck  # the start does not change the deal
    numpy_seat = ten_env.raw_env(num_players=3, start=np.int64(1))
    numpy_seat.reset(seed=0)
    assert _first_seat(numpy_seat) == 1


def test_the_person_always_starts_the_solitaire_game():
    for start in ("random", 0):
        env = ten_env.env(jen_level=6, start=start)
        for seed in range(10):
            env.reset(seed=seed)
            assert _first_seat(env) == 0


def test_the_wrapped_env_pickles_prints_and_takes_attributes_like_pettingzoos():
    import pickle

    from pettingzoo.utils import wrappers

    env = ten_env.env(num_players=3)
    assert isinstance(env, wrappers.OrderEnforcingWrapper) and str(env) == "ten_v0"
    with pytest.raises(AttributeError, match="agents cannot be accessed before reset"):
        env.agents
    env.reset(seed=4)
    again = pickle.loads(pickle.dumps(env))
    assert again.agent_selection == env.agent_selection and again.agents == env.agents
    env.agents = ["mine"]  # set on the wrapper, as with PettingZoo's own wrappers
    assert env.agents == ["mine"] and env.unwrapped.agents == ["player_0", "player_1", "player_2"]


@pytest.mark.parametrize("copy_of", ["deepcopy", "pickle"])
@pytest.mark.parametrize("make", [lambda: ten_env.env(num_players=3), lambda: ten_env.raw_env(jen_level=9)])
def test_a_copy_mid_game_plays_on_alone_as_the_original_would(copy_of, make):
    """With gymnasium's EzPickle, as PettingZoo's classic envs, a copy was a fresh env of the same
    arguments, never reset: env()'s copy then failed with a bare AttributeError."""
    import copy
    import pickle

    def play(env, moves):  # the lowest legal move, then a new game from the env's own stream
        seen = []
        for _ in range(moves):
            observation, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                if not env.agents:
                    env.reset()
                continue
            seen.append((env.agent_selection, reward, observation["observation"].tobytes()))
            env.step(int(np.flatnonzero(observation["action_mask"])[0]))
        return seen, env.unwrapped.game.snapshot()

    env = make()
    env.reset(seed=11)
    play(env, 20)
    twin = copy.deepcopy(env) if copy_of == "deepcopy" else pickle.loads(pickle.dumps(env))
    assert twin.unwrapped.game == env.unwrapped.game and twin.unwrapped.game is not env.unwrapped.game
    assert play(twin, 400) == play(env, 400)  # past the end of the game, into the next deal


def test_the_action_count_gives_back_the_max_bid():
    from ten_env.actions import action_names, max_bid_for, num_actions
    from ten_env.rules import MAX_BIDS

    for max_bid in MAX_BIDS:
        assert len(action_names(max_bid)) == num_actions(max_bid) == Game(Rules(max_bid=max_bid), seed=0).num_actions
        assert max_bid_for(num_actions(max_bid)) == max_bid


@pytest.mark.parametrize("agent", ["player_9", "player_2", 0, None])
def test_observe_names_the_agents_of_the_table(agent):
    env = ten_env.env(num_players=2)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=rf"^observe: no agent {re.escape(repr(agent))} at this table; its agents are "
                                         r"player_0, player_1$"):
        env.observe(agent)
    assert env.observe("player_1")["action_mask"].shape == (132,)
