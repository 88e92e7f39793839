"""Engine speed: random legal play through ``Game.legal_actions`` + ``Game.act``.

Prints decisions per second and full games per second for 2 and 5 players, and,
for scale, the same loop over RLCard's Leduc Hold'em game core (a small poker
engine, installed with pettingzoo[classic]) measured in the same run, since the
machine is shared and absolute numbers drift.

    python benchmarks/engine.py [--seconds 5]
"""

from __future__ import annotations

import argparse
import random
import time

from ten_env import Game, Rules


def ten_rate(num_players: int, seconds: float) -> tuple[float, float]:
    rules = Rules(num_players=num_players)
    rng = random.Random(0)
    decisions = games = 0
    start = time.perf_counter()
    seed = 0
    while time.perf_counter() - start < seconds:
        game = Game(rules, seed=seed)
        seed += 1
        while not game.is_over:
            game.act(rng.choice(game.legal_actions()))
            decisions += 1
        games += 1
    elapsed = time.perf_counter() - start
    return decisions / elapsed, games / elapsed


def leduc_rate(seconds: float) -> float | None:
    try:
        from rlcard.games.leducholdem.game import LeducholdemGame
    except ImportError:
        return None
    import numpy as np

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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    args = parser.parse_args()
    leduc = leduc_rate(args.seconds)
    print(f"{'engine':<28}{'decisions/s':>14}{'games/s':>10}{'vs leduc':>10}")
    for n in (2, 5):
        dps, gps = ten_rate(n, args.seconds)
        ratio = f"{dps / leduc:.2f}x" if leduc else "-"
        print(f"{f'TEN, {n} players':<28}{dps:>14,.0f}{gps:>10,.1f}{ratio:>10}")
    if leduc:
        print(f"{'RLCard leduc holdem core':<28}{leduc:>14,.0f}{'':>10}{'1.00x':>10}")


if __name__ == "__main__":
    main()
