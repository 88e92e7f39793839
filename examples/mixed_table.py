"""A 4-player game with mixed agents at one PettingZoo table.

Every agent in ``agents`` has the same interface, ``act(observation, info)``,
taking exactly what the PettingZoo env gives an agent (the observation dict with
its action mask, and the info dict with the public ``snapshot``). So one loop
can seat different kinds of players:

- ``HeuristicAgent()``: a competent scripted player;
- ``JenAgent(5)``: JEN, the rulebook's solitaire opponent, at level 5, in a normal seat;
- ``RandomAgent(seed)``: uniform over the legal actions;
- ``PolicyAgent.pretrained("ppo-jen")``: the shipped MaskablePPO model. It was
  trained in the solitaire game against JEN, but the observation has one size
  for 2-5 players, so it can sit at a 4-player table too (how well it plays
  there is another matter: it has never seen one). Needs the training extra;
  with ``--no-model`` a second heuristic player takes its seat.

Run it from the repository root (``pip install -e ".[train]"``)::

    python examples/mixed_table.py --seed 3
    python examples/mixed_table.py --games 20          # 20 games, seats rotated, wins tallied
"""

import argparse
from collections import Counter

import ten_env
from agents import HeuristicAgent, JenAgent, PolicyAgent, RandomAgent


def play_one(seated: list, seed: int) -> dict:
    """One game; ``seated[seat]`` is the agent in that seat. Returns the final info.

    The env draws the seat that starts from the reset seed (``start="random"``).
    """
    env = ten_env.env(num_players=len(seated))
    env.reset(seed=seed)
    players = dict(zip(env.possible_agents, seated))  # "player_0" -> agent, ...
    for seat, agent in enumerate(seated):
        agent.reset(seed=seed * 10 + seat)
    final = None
    for name in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
            final = info  # at the end every info holds "scores" and "winners" (seats)
        else:
            action = players[name].act(observation, info)
        env.step(action)
    env.close()
    return final


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="deck shuffle seed of the first game")
    parser.add_argument("--games", type=int, default=1,
                        help="games to play; game i rotates the seats by i (default 1)")
    parser.add_argument("--no-model", action="store_true",
                        help="seat a second heuristic player instead of the trained model (no torch needed)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")

    try:
        model = HeuristicAgent() if args.no_model else PolicyAgent.pretrained("ppo-jen")
    except ValueError as exc:  # the model needs the training extra: say so in one line
        raise SystemExit(f"mixed_table.py: {exc}; or run it with --no-model, a second heuristic in its seat")
    agents = [HeuristicAgent(), JenAgent(5), RandomAgent(seed=args.seed), model]
    labels = ["heuristic", "jen:5", "random", "heuristic-2" if args.no_model else "ppo-jen"]

    wins = Counter()
    for i in range(args.games):
        order = [(seat + i) % len(agents) for seat in range(len(agents))]  # order[seat] = agent index
        final = play_one([agents[a] for a in order], seed=args.seed + i)
        seat_labels = [labels[a] for a in order]
        scores, winners = final["scores"], final["winners"]
        for seat in winners:
            wins[order[seat]] += 1
        print(f"game {i + 1} (seed {args.seed + i}): "
              + ", ".join(f"{label} {score}" for label, score in zip(seat_labels, scores))
              + f"; winner(s): {', '.join(seat_labels[seat] for seat in winners)}")
    # The last game, seat by seat:
    print(f"seats: {' '.join(seat_labels)}")
    print(f"scores: {' '.join(str(s) for s in scores)}")
    print(f"winners: {' '.join(seat_labels[seat] for seat in winners)}")
    if args.games > 1:
        print("wins (a shared win counts for each winner): "
              + ", ".join(f"{label} {wins[a]}" for a, label in enumerate(labels)))

if __name__ == "__main__":
    main()
