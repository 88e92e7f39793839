"""Train MaskablePPO (sb3-contrib) against JEN with ``ten_env.SoloEnv``, then measure its win rate.

``SoloEnv`` is the solitaire game as a single-agent Gymnasium env: you against
JEN, the rulebook's scripted opponent, at a level from 4 to 10. It exposes
``action_masks()``, which MaskablePPO uses so that the policy only ever picks
legal actions. Training uses the score margin as reward (denser than win/lose);
the evaluation plays fresh seeded games with the deterministic policy and
counts sole wins (a tie is JEN's win).

The default 30,000 steps took under a minute on a 2-core CPU and won 2 of 20
games against JEN 4 (random play wins about 1.5%, ``HeuristicAgent`` about 70%):
a start, not a strong player. ``ten train configs/quick.yaml`` is the full recipe
(300k steps, 4 environments, the evaluation ladder) and wins 75% at JEN 4.

Needs the training extra (``pip install -e ".[train]"``). From the repository root::

    python examples/train_sb3.py                                # 30,000 steps against JEN 4
    python examples/train_sb3.py --steps 512 --games 3 --seed 1 # a smoke test, seconds
    python examples/train_sb3.py --level 5 --out runs/example_model.zip
"""

import argparse
import time
from pathlib import Path

import numpy as np

import ten_env

try:
    import torch
    from sb3_contrib import MaskablePPO
except ModuleNotFoundError as missing:  # without the training extra: one line, not a traceback
    raise SystemExit(f"train_sb3.py needs the training extra (no module {missing.name!r}): pip install -e "
                     f"'.[train]', after a CPU build of torch on a machine without a GPU (README, Set-up)") from None


def evaluate(model, level: int, games: int, seed: int) -> dict:
    """Play ``games`` seeded solitaire games with the deterministic policy; count sole wins."""
    env = ten_env.SoloEnv(jen_level=level, reward="win")
    wins, margins = 0, []
    for i in range(games):
        obs, info = env.reset(seed=seed + i)
        terminated = truncated = False
        while not (terminated or truncated):
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, reward, terminated, truncated, info = env.step(int(action))
        wins += reward > 0
        mine, jen = info["scores"]
        margins.append(mine - jen)
    env.close()
    return {"games": games, "wins": int(wins), "win_rate": wins / games, "mean_margin": float(np.mean(margins))}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30_000, help="training steps (default 30,000)")
    parser.add_argument("--level", type=int, default=4, choices=range(4, 11), metavar="{4-10}",
                        help="JEN's level, 4-10 (default 4)")
    parser.add_argument("--games", type=int, default=20, help="evaluation games (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="training and evaluation seed")
    parser.add_argument("--out", type=Path, default=None, help="save the model to this .zip file")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.games < 1:
        parser.error("--steps and --games must be at least 1")

    torch.set_num_threads(1)  # a small MLP: more threads cost more than they give on a CPU
    env = ten_env.SoloEnv(jen_level=args.level, reward="margin")
    env.reset(seed=args.seed)
    n_steps = min(512, max(64, args.steps))
    model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=min(128, n_steps), n_epochs=5,
                        gamma=1.0, ent_coef=0.01, seed=args.seed, device="cpu", verbose=0)
    start = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    print(f"trained {model.num_timesteps} steps against JEN {args.level} in {time.perf_counter() - start:.1f} s")

    result = evaluate(model, args.level, args.games, seed=10_000 + args.seed)
    print(f"win rate against JEN {args.level}: {result['win_rate']:.3f} "
          f"({result['wins']}/{result['games']} games, mean margin {result['mean_margin']:+.2f})")

    if args.out is not None:
        out = args.out if args.out.suffix == ".zip" else args.out.with_name(args.out.name + ".zip")
        out.parent.mkdir(parents=True, exist_ok=True)
        model.save(out)  # load it with MaskablePPO.load(out) or agents.PolicyAgent
        print(f"model saved to {out}")


if __name__ == "__main__":
    main()
