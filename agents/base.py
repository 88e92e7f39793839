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

import inspect
import os
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FunctionType, MethodType
from typing import Protocol

import numpy as np

from ten_env import cards as C
from ten_env import payment
from ten_env.actions import BID_BASE, FIRST_PAY_CARD, PAY_BUST, PAY_COIN, action_names, is_index
from ten_env.single_agent import Policy


class SupportsAct(Protocol):
    """Anything with ``act(observation, info) -> action``: an :class:`Agent`, or your own object."""

    def act(self, observation: dict, info: dict) -> int: ...


Player = SupportsAct | Policy


class Agent:
    """Base class: subclasses set ``name`` and implement :meth:`act`."""

    name = "agent"

    def act(self, observation: dict, info: dict) -> int:  # pragma: no cover - interface
        raise NotImplementedError

    def reset(self, seed: int | None = None) -> None:
        """Called before each game; stateless agents ignore it."""

    def __call__(self, observation: dict, info: dict) -> int:
        return self.act(observation, info)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def snapshot_of(info: dict | None) -> dict:
    """The engine snapshot from an info dict, or a clear error if it is missing."""
    if not isinstance(info, dict) or "snapshot" not in info:
        raise ValueError(
            "this agent needs info['snapshot'] (the engine's public state), which ten_env.env() gives "
            "and the Gymnasium views do not; got info without it"
        )
    return info["snapshot"]


def observation_parts(observation: dict | np.ndarray, info: dict | None,
                      agent: str = "an agent") -> tuple[np.ndarray, np.ndarray]:
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


def bid_range(mask: np.ndarray) -> tuple[int, int]:
    """The lowest and the highest bid an action mask allows; ``(1, 0)``, none, when it allows no
    bid. The bids allowed run without a gap (``Game._bid_range``), so the two ends say it all."""
    bids = np.flatnonzero(mask[BID_BASE + 1 :])
    return (int(bids[0]) + 1, int(bids[-1]) + 1) if bids.size else (1, 0)


def automatic_payment_move(hand: list[int], coins: int, bust_tokens: int, owed: int, card: int,
                           duplicates_only: bool, final_buy: bool) -> int:
    """The next move of a manual payment made as automatic payment would make it
    (:func:`ten_env.payment.automatic`, for what is still ``owed`` for ``card``): a bust token
    first (the plan has counted its waste), then cards, then coins."""
    plan = payment.automatic(hand, coins, bust_tokens, owed, card, duplicates_only, last=final_buy)
    if plan.bust_tokens:
        return PAY_BUST
    if plan.cards:
        return FIRST_PAY_CARD + plan.cards[0]
    return PAY_COIN


def agent_label(agent: object) -> str:
    """How an agent object is named to a person: its ``name``, but not the ``"agent"`` every
    :class:`Agent` inherits (two bots would read as one), else its class's or its function's."""
    name = getattr(agent, "name", None)
    if isinstance(name, str) and name.strip() and name != Agent.name:
        return name
    return getattr(agent, "__name__", None) or type(agent).__name__


class AgentFailed(RuntimeError):
    """Your agent's code raised while choosing a move, or it chose a move the game refuses: said in
    one line that names the agent and the line of its code that raised (``ten`` prints it, no
    traceback). This project's own agents are not yours: their errors keep their traceback."""

    @classmethod
    def choosing(cls, agent: object, seat: int | None, exc: Exception,
                 call: str | None = None) -> "AgentFailed | None":
        """The failure of ``agent``'s code (in its ``call``, if not its move), or ``None`` for one of
        this project's agents."""
        if _is_ours(agent):
            return None
        frames = traceback.extract_tb(exc.__traceback__)
        source = _source_file(agent)
        mine = [frame for frame in frames if source and os.path.realpath(frame.filename) == source]
        where = (mine or frames)[-1:]
        message = " ".join(str(exc).split())
        return cls(f"the agent {agent_label(agent)}{f' (seat {seat})' if seat is not None else ''} raised "
                   f"{type(exc).__name__}{f' in {call}()' if call else ''}{': ' + message if message else ''}"
                   + "".join(f" ({_place(frame.filename)}, line {frame.lineno})" for frame in where))

    @classmethod
    def refused(cls, agent: object, seat: int, exc: ValueError) -> "AgentFailed | None":
        """``agent``'s move refused by the game (``exc``), or ``None`` for one of this project's agents."""
        if _is_ours(agent):
            return None
        return cls(f"the agent {agent_label(agent)} (seat {seat}) chose a move the game refuses: {exc}")


def move_of(agent: Player, seat: int, observation: dict, info: dict) -> int:
    """``agent``'s move (its ``act``, or the policy function itself) in ``seat``; where your agent's
    code raises, :class:`AgentFailed` saying so in one line, the error as its cause."""
    act = agent.act if hasattr(agent, "act") else agent
    with failures_of(agent, seat):
        return act(observation, info)


@contextmanager
def failures_of(agent: object, seat: int | None, call: str | None = None) -> Iterator[None]:
    """Around a call of ``agent``'s code (its move, or ``call``): an error your agent's code raises
    as :class:`AgentFailed`, the error as its cause."""
    try:
        yield
    except Exception as exc:
        failed = AgentFailed.choosing(agent, seat, exc, call)
        if failed is None:
            raise
        raise failed from exc


@contextmanager
def refusals_of(agent: object, seat: int) -> Iterator[None]:
    """Around the game's ``act`` with ``agent``'s move: the engine's refusal of it (a ``ValueError``,
    the game unchanged) as :class:`AgentFailed` where the agent is yours."""
    try:
        yield
    except ValueError as exc:
        failed = AgentFailed.refused(agent, seat, exc)
        if failed is None:
            raise
        raise failed from exc


def checked_move(agent: Player, observation: dict, info: dict) -> int:
    """:func:`move_of` for a seat whose moves a caller plays without the engine's refusal reaching
    the person (a training env's opponents, on SB3's worker processes): a move of your agent's that
    the mask does not allow is :class:`AgentFailed` here, before the game sees it."""
    snapshot = info["snapshot"]
    seat = snapshot["current_player"]
    action = move_of(agent, seat, observation, info)
    mask = np.asarray(observation["action_mask"])
    if not (is_index(action) and 0 <= int(action) < len(mask) and mask[int(action)]):
        legal = ", ".join(snapshot["legal_actions"])
        name = (f" ({action_names(snapshot['rules']['max_bid'])[int(action)]})"
                if is_index(action) and 0 <= int(action) < len(mask) else "")
        with refusals_of(agent, seat):
            raise ValueError(f"{action!r}{name} is not one of its moves in the {snapshot['phase']} phase; "
                             f"legal: {legal}")
    return action


class CheckedAgent(Agent):
    """``agent``, for a seat that a training env plays itself: its moves are checked
    (:func:`checked_move`), so that an error in your agent's code, or a move the game refuses, stops
    the run in one line (:class:`AgentFailed`)."""

    def __init__(self, agent: Player) -> None:
        self.agent, self.name = agent, agent_label(agent)

    def reset(self, seed: int | None = None) -> None:
        if hasattr(self.agent, "reset"):
            with failures_of(self.agent, None, "reset"):
                self.agent.reset(seed=seed)

    def act(self, observation: dict, info: dict) -> int:
        return checked_move(self.agent, observation, info)


def _defined_by(agent: object) -> FunctionType | MethodType | type:
    """The class or function whose code ``agent`` runs."""
    return agent if inspect.isfunction(agent) or inspect.ismethod(agent) else type(agent)


def _is_ours(agent: object) -> bool:
    """Whether ``agent`` is one of this project's (defined in ``ten_env``, ``agents`` or ``train``)."""
    return (getattr(_defined_by(agent), "__module__", None) or "").partition(".")[0] in ("ten_env", "agents",
                                                                                          "train")


def _place(filename: str) -> str:
    """A file of code as a person knows it: its name, or "a notebook cell" for the temporary file
    (``ipykernel_<pid>/<hash>.py``) that Jupyter compiles a cell from."""
    path = Path(filename)
    return "a notebook cell" if path.parent.name.startswith("ipykernel_") else path.name


def _source_file(agent: object) -> str | None:
    try:
        file = inspect.getsourcefile(_defined_by(agent))
    except (TypeError, OSError):  # a built-in, or a class made at the prompt
        return None
    return os.path.realpath(file) if file else None
