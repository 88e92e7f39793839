"""The one interface every player implements, and helpers to read what it sees.

An agent sees what a PettingZoo agent sees: the observation dict
(``{"observation": vector, "action_mask": int8 mask}``) and the info dict, whose
``"snapshot"`` entry is :meth:`ten_env.Game.snapshot` (everything public, as
plain data). ``act`` returns one legal action id.

Agents that need only the vector and the mask (:class:`RandomAgent`,
:class:`PolicyAgent`, :class:`RLlibPolicyAgent`) also take what the Gymnasium
views give: the vector as the observation and the mask in ``info["action_mask"]``.
Those views hand out no snapshot (SB3's vector envs deep-copy every info, and
building one each step would slow training), so the agents that read the
snapshot (the heuristic, JEN, the search) play through ``ten_env.env()`` or as
the opponents of a Gymnasium view, which are shown the PettingZoo view.
"""

from __future__ import annotations

import numpy as np

from ten_env import cards as C
from ten_env import payment


class Agent:
    """Base class: subclasses set ``name`` and implement :meth:`act`."""

    name = "agent"

    def act(self, observation: dict, info: dict) -> int:  # pragma: no cover - interface
        raise NotImplementedError

    def reset(self, seed: int | None = None) -> None:
        """Called before each game; stateless agents ignore it."""

    def __call__(self, observation: dict, info: dict) -> int:
        return self.act(observation, info)

    def __repr__(self):
        return f"{type(self).__name__}()"


def snapshot_of(info: dict | None) -> dict:
    """The engine snapshot from an info dict, or a clear error if it is missing."""
    if not isinstance(info, dict) or "snapshot" not in info:
        raise ValueError(
            "this agent needs info['snapshot'] (the engine's public state), which ten_env.env() gives "
            "and the Gymnasium views do not; got info without it"
        )
    return info["snapshot"]


def observation_parts(observation, info: dict | None, agent: str = "an agent") -> tuple[np.ndarray, np.ndarray]:
    """The observation vector and the action mask, from either environment's view, for ``agent``
    (its name, in the errors) to choose a move from: a mask with no legal action is refused, as
    ``observe()`` gives it to a seat whose turn it is not.

    ``observation`` is the PettingZoo env's dict (``"observation"``, ``"action_mask"``)
    or a Gymnasium view's vector, whose mask is ``info["action_mask"]``.
    """
    if isinstance(observation, dict):
        if "observation" not in observation or "action_mask" not in observation:
            raise ValueError(f"an observation dict needs 'observation' and 'action_mask'; got keys "
                             f"{sorted(map(str, observation))}")
        parts = np.asarray(observation["observation"]), np.asarray(observation["action_mask"])
    elif isinstance(info, dict) and "action_mask" in info:
        parts = np.asarray(observation), np.asarray(info["action_mask"])
    else:
        parts = None
    if parts is not None:
        if not parts[1].any():
            raise ValueError(f"{agent}: the action mask has no legal action (an agent acts on its own turn)")
        return parts
    raise ValueError(f"an agent takes the PettingZoo env's observation dict, or a Gymnasium view's "
                     f"observation with info['action_mask']; got {type(observation).__name__} "
                     f"and info without 'action_mask'")


def hand_counts(player: dict) -> list[int]:
    """Counts per card id of a player's cards, from a snapshot's ``players`` entry."""
    counts = [0] * C.NUM_OWNABLE
    for name in player["cards"]:
        counts[C.parse(name)] += 1
    return counts


def wealth(player: dict, duplicates_only: bool = False) -> int:
    """What a player can pay (coins, tokens at 3, cards at 1; only duplicates if asked)."""
    return payment.wealth(player["coins"], player["bust_tokens"], hand_counts(player), duplicates_only)
