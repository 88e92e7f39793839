"""The one interface every player implements, and helpers to read what it sees.

An agent sees what a PettingZoo agent sees: the observation dict
(``{"observation": vector, "action_mask": int8 mask}``) and the info dict, whose
``"snapshot"`` entry is :meth:`ten_env.Game.snapshot` (everything public, as
plain data). ``act`` returns one legal action id.
"""

from __future__ import annotations

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
    if not info or "snapshot" not in info:
        raise ValueError(
            "this agent needs info['snapshot'] (the engine's public state), as ten_env's "
            "environments provide; got info without it"
        )
    return info["snapshot"]


def hand_counts(player: dict) -> list[int]:
    """Counts per card id of a player's cards, from a snapshot's ``players`` entry."""
    counts = [0] * C.NUM_OWNABLE
    for name in player["cards"]:
        counts[C.parse(name)] += 1
    return counts


def wealth(player: dict, duplicates_only: bool = False) -> int:
    """What a player can pay (coins, tokens at 3, cards at 1; only duplicates if asked)."""
    return payment.wealth(player["coins"], player["bust_tokens"], hand_counts(player), duplicates_only)
