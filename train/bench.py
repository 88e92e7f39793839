"""``ten bench``: how fast TEN runs, next to peers measured in the same run.

The machine may be shared and noisy, so every figure comes with a ratio to a
peer timed in the same process:

- engine: random legal play through ``Game.legal_actions`` + ``Game.act`` (no
  observation), 2 and 5 players, against RLCard's Leduc Hold'em game core;
- environment: random legal play through ``ten_env.env()`` with the standard
  wrappers, reading the observation and the action mask at every step, against
  PettingZoo's ``leduc_holdem_v4`` and ``texas_holdem_no_limit_v6`` driven the
  same way;
- derived features: random legal play through ``SoloEnv`` wrapped in
  ``DerivedFeatures`` (what ``train.derived_features`` trains on), against the
  same env unwrapped.
"""

from __future__ import annotations

import random
import time
import warnings

import numpy as np


def engine_rate(num_players: int, seconds: float) -> tuple[float, float]:
    """(decisions per second, games per second) of random legal play in the engine."""
    from ten_env import Game, Rules

    rules = Rules(num_players=num_players)
    rng = random.Random(0)
    decisions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = Game(rules, seed=games)
        while not game.is_over:
            game.act(rng.choice(game.legal_actions()))
            decisions += 1
        games += 1
    elapsed = time.perf_counter() - start
    return decisions / elapsed, games / elapsed


def leduc_core_rate(seconds: float) -> float | None:
    try:
        from rlcard.games.leducholdem.game import LeducholdemGame
    except ImportError:
        return None
    game = LeducholdemGame()
    game.np_random = np.random.RandomState(0)
    rng = random.Random(0)
    decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game.init_game()
        while not game.is_over():
            game.step(rng.choice(game.get_legal_actions()))
            decisions += 1
    return decisions / (time.perf_counter() - start)


def aec_rate(make_env, seconds: float, quiet: bool = False) -> float:
    """Steps per second of random legal play, reading observation and mask every step.

    ``quiet``: hide the warnings the environment gives when it is made (PettingZoo's
    poker envs warn about their observation spaces), so they do not break the table.
    """
    if quiet:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            env = make_env()
    else:
        env = make_env()
    rng = np.random.default_rng(0)
    steps = episode = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=episode)
        episode += 1
        for agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                mask = observation["action_mask"]
                _ = observation["observation"]
                action = int(rng.choice(np.flatnonzero(mask)))
            env.step(action)
            steps += 1
    env.close()
    return steps / (time.perf_counter() - start)


def gym_rate(make_env, seconds: float) -> float:
    """Steps per second of random legal play through a Gymnasium env with ``action_masks()``."""
    env, rng = make_env(), np.random.default_rng(0)
    steps, episode = 0, 0
    env.reset(seed=episode)
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, _, termination, truncation, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        steps += 1
        if termination or truncation:
            episode += 1
            env.reset(seed=episode)
    return steps / (time.perf_counter() - start)


def _peer(module: str):
    try:
        with warnings.catch_warnings():  # a library's deprecation notices are not ours to print
            warnings.simplefilter("ignore")
            return __import__(f"pettingzoo.classic.{module}", fromlist=["env"]).env
    except ImportError:  # pettingzoo[classic] (rlcard) not installed
        return None


def main(args) -> int:
    import ten_env

    seconds = args.seconds
    print(f"engine: random legal play, {seconds:g} s each")
    leduc = leduc_core_rate(seconds)
    for n in (2, 5):
        dps, gps = engine_rate(n, seconds)
        ratio = f"  {dps / leduc:5.2f}x leduc core" if leduc else ""
        print(f"  TEN {n} players        {dps:>10,.0f} decisions/s {gps:>8,.1f} games/s{ratio}")
    if leduc:
        print(f"  RLCard leduc core    {leduc:>10,.0f} decisions/s")
    print("environment: env() with wrappers, observation and mask read every step")
    rates = {}
    for label, make, peer in [
        ("ten_v0, 2 players", lambda: ten_env.env(num_players=2), False),
        ("ten_v0, 5 players", lambda: ten_env.env(num_players=5), False),
        ("ten_v0, solitaire", lambda: ten_env.env(jen_level=7), False),
        ("leduc_holdem_v4", _peer("leduc_holdem_v4"), True),
        ("texas_holdem_no_limit_v6", _peer("texas_holdem_no_limit_v6"), True),
    ]:
        if make is None:
            print(f"  {label:<26} not installed (pip install 'pettingzoo[classic]')")
            continue
        rates[label] = aec_rate(make, seconds, quiet=peer)
    leduc_env = rates.get("leduc_holdem_v4")
    for label, rate in rates.items():
        ratio = f"  {rate / leduc_env:5.2f}x leduc_holdem_v4" if leduc_env else ""
        print(f"  {label:<26} {rate:>10,.0f} steps/s{ratio}")
    from ten_env.features import DerivedFeatures
    from ten_env.single_agent import SoloEnv

    print("derived features: SoloEnv (JEN 8), random legal play, mask read every step")
    plain = gym_rate(lambda: SoloEnv(jen_level=8), seconds)
    extended = gym_rate(lambda: DerivedFeatures(SoloEnv(jen_level=8)), seconds)
    print(f"  {'DerivedFeatures(SoloEnv)':<26} {extended:>10,.0f} steps/s  {extended / plain:5.2f}x SoloEnv")
    print(f"  {'SoloEnv':<26} {plain:>10,.0f} steps/s")
    return 0
