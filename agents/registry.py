"""Agents by name, as the command line spells them: ``random``, ``heuristic``,
``jen:7``, a pretrained model's name (``ppo-jen``) or a model file path."""

from __future__ import annotations

from pathlib import Path

from .heuristic import HeuristicAgent
from .jen import JenAgent
from .policy import PRETRAINED_DIR, PolicyAgent
from .random_agent import RandomAgent

NAMES_HELP = "random, heuristic, jen:4 .. jen:10, a pretrained model name, or a model .zip path"


def make_agent(spec: str, seed: int | None = None, trust: bool = False):
    """The agent named by ``spec``; ``ValueError`` naming the allowed forms otherwise.

    ``trust=True`` lets a model file that only unpickling can load be loaded that way
    (running any code it holds; see :class:`agents.policy.PolicyAgent`).
    """
    spec = spec.strip() if isinstance(spec, str) else ""
    if not spec:
        raise ValueError(f"an agent name is empty; use {NAMES_HELP}")
    if spec == "random":
        return RandomAgent(seed)
    if spec == "heuristic":
        return HeuristicAgent()
    if spec == "jen" or spec.startswith("jen:"):
        level = spec.partition(":")[2]
        if not level.isdigit() or int(level) not in range(4, 11):
            raise ValueError(f"agent {spec!r}: JEN needs a level from 4 to 10, as in jen:7")
        return JenAgent(int(level))
    if (PRETRAINED_DIR / f"{spec}.zip").is_file():
        return PolicyAgent.pretrained(spec, trust=trust)
    if spec.endswith(".zip") or Path(spec).exists():
        return PolicyAgent(spec, trust=trust)
    raise ValueError(f"unknown agent {spec!r}; use {NAMES_HELP}")
