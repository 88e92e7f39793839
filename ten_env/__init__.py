"""ten-env: the card game TEN as a reinforcement-learning environment.

The rules core: :class:`Rules` (which game), :class:`Game` (one game: state,
legal actions, acting, scores), :func:`score` (a collection's points) and
:func:`parse_card` (a card's name, such as ``"B5"``, ``"W#"`` or ``"$2"``, to its id).
The environments: :func:`env` / :func:`raw_env` (PettingZoo AEC, all seats),
:class:`SingleAgentEnv` (one learning seat against given policies) and
:class:`SoloEnv` (the solitaire game against JEN), both Gymnasium envs.
The observation's pieces are in :mod:`ten_env.observation`; facts derived from it
for a network to take beside it (bust odds, what each card would add to a score) in
:mod:`ten_env.features`.
"""

import gymnasium
import pettingzoo

from .cards import parse as parse_card
from .env import env, raw_env
from .game import Game
from .rules import Rules
from .scoring import score
from .single_agent import SingleAgentEnv, SoloEnv

__version__ = "0.1.0"

__all__ = ["Game", "Rules", "score", "parse_card", "env", "raw_env", "SingleAgentEnv", "SoloEnv",
           "__version__"]

# Registered like the built-in environments: make("aec", "ten_env/ten-v0") and
# gymnasium.make("ten_env/TenSolo-v0", jen_level=7) once ten_env is imported
# ("ten_env:ten_env/TenSolo-v0" imports it first, e.g. for make_vec_env).
if "ten_env/ten-v0" not in pettingzoo.aec_registry:  # PettingZoo's registry came in 1.27
    pettingzoo.register("aec", "ten_env/ten-v0", entry_point="ten_env.env:env")
if "ten_env/TenSolo-v0" not in gymnasium.registry:
    gymnasium.register(id="ten_env/TenSolo-v0", entry_point="ten_env.single_agent:SoloEnv")
