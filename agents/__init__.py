"""Players for TEN, all behind one interface (:class:`agents.base.Agent`).

- :class:`RandomAgent`: uniform over the legal actions.
- :class:`JenAgent`: JEN, the rulebook's solitaire opponent, for any seat.
- :class:`HeuristicAgent`: a competent scripted player (the yardstick above JEN).
- :class:`PolicyAgent`: a trained MaskablePPO model (needs the ``train`` extra), loaded
  without unpickling anything (:mod:`agents.safe_load`; ``trust=True`` for files that
  only unpickling can load).
- :class:`SearchAgent`: Monte Carlo tree search with chance nodes over what a player sees
  (rollouts, or a trained model's value and policy); :class:`OracleAgent`, the same
  search on the true deck order (it cheats: a ceiling, not a player).
- :func:`play_games`: seeded games between agents, seats rotated; it returns their tallies,
  :class:`Results` (games, wins, shared wins, scores, margins, decisions and time, per agent).
- :func:`make_agent`: any of them by the name ``ten`` takes (``"heuristic"``, ``"jen:7"``,
  ``"ppo-jen"``, ``"search:ppo-jen:64"``; :mod:`agents.registry`).
"""

from .base import Agent
from .heuristic import HeuristicAgent
from .jen import JenAgent
from .policy import PolicyAgent
from .random_agent import RandomAgent
from .registry import make_agent
from .search import OracleAgent, SearchAgent
from .tournament import Results, play_games

__all__ = ["Agent", "RandomAgent", "JenAgent", "HeuristicAgent", "PolicyAgent", "SearchAgent", "OracleAgent",
           "play_games", "Results", "make_agent"]
