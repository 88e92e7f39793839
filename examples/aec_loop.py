"""The PettingZoo AEC loop: random legal play at a 3-player table, then the final table.

This is the README's PettingZoo snippet, with a random policy that only picks
legal actions (from the action mask). At the end every agent's ``info`` holds
the final ``scores`` and ``winners`` (seats), and ``render()`` returns the
table as text (``render_mode="ansi"``).

Run it from the repository root (after ``pip install -e .``)::

    python examples/aec_loop.py --seed 42
    python examples/aec_loop.py --players 5 --seed 1
"""

import argparse

import numpy as np

import ten_env


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=42, help="deck shuffle and policy seed")
    parser.add_argument("--players", type=int, default=3, choices=range(2, 6), metavar="{2-5}",
                        help="2-5 players (default 3)")
    args = parser.parse_args(argv)

    env = ten_env.env(num_players=args.players, render_mode="ansi")  # PettingZoo AEC, standard wrappers
    env.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    decisions = 0
    final = None
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None  # a finished agent steps with None
            final = info
        else:
            mask = observation["action_mask"]  # int8, 1 = legal
            action = int(rng.choice(np.flatnonzero(mask)))  # your policy here
            decisions += 1
        env.step(action)

    print(env.render())
    print(f"decisions: {decisions}")
    print(f"scores: {' '.join(str(s) for s in final['scores'])}")
    print(f"winners: {' '.join(env.possible_agents[seat] for seat in final['winners'])}")
    env.close()


if __name__ == "__main__":
    main()
