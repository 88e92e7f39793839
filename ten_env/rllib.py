"""TEN as a Ray RLlib ``MultiAgentEnv``: :class:`TenMultiAgentEnv`.

Needs the ``rllib`` extra (:func:`ten_env.extras.install_hint`); ``import ten_env``
never imports Ray, only ``import ten_env.rllib`` does::

    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ten_env.rllib import TenMultiAgentEnv
    from train.rllib_module import MaskedPPOModule

    config = (PPOConfig()
              .environment(TenMultiAgentEnv, env_config={"num_players": 4})
              .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
              .rl_module(rl_module_spec=RLModuleSpec(module_class=MaskedPPOModule)))

(without ``.multi_agent`` RLlib takes it for a single-agent env, and its
default module has no encoder for the dict observation).

Every configuration of :func:`ten_env.env` works: 2-5 players, the busting
variant, the solitaire game against JEN (one agent, ``player_0``; the engine
plays JEN). ``env_config`` takes exactly ``ten_env.env()``'s arguments
(``num_players``, ``bust_buy``, ``jen_level``, ``payment``, ``max_bid``,
``deck_file``, ``reward``, ``start``, ``render_mode``); anything else is a
``ValueError``. ``render_mode="human"`` prints the table after every ``reset``
and ``step``; ``"ansi"`` returns it from ``render()``.

Turn-based, in the pattern of RLlib's own turn-based examples (``TicTacToe``,
the connect-four and action-masking envs):

- agents ``player_0 .. player_{n-1}``, one per seat;
- ``reset`` and every ``step`` return an observation only for the seat to act,
  ``{"observations": vector, "action_mask": mask}``: the 463-float vector and
  the ``int8`` mask of the PettingZoo env (``ten_env.observation``); ``step``
  takes ``{that agent: action}``;
- rewards are 0 until the game ends (0.0 entries for the mover and the next
  seat at every step: RLlib wants a reward with each observation); the step
  that ends the game gives *every* seat its own final observation (mask all
  zeros: nothing left to choose) and its own reward (``reward="win"``,
  ``"margin"`` or ``"outcome"``, as :func:`ten_env.env.final_rewards`), once, with
  ``terminateds`` true for every agent and ``"__all__"``. (RLlib's generic
  ``PettingZooEnv`` wrapper around ``ten_env.env()`` plays the same games, but
  keeps PettingZoo's ``observation`` key, where RLlib's masking modules read
  ``observations``, and cannot play seats inside the env.)
- every game ends, so nothing is ever truncated. An illegal action (a masked
  policy never sends one; RLlib's env check sends random ones) ends the game as
  ``ten_env.env()``'s wrapper does: -1 for the mover, 0 for the others, and
  ``info["illegal_action"]`` for the mover. What is not in the action space at all
  (a float, a bool, a one-element array, an id out of range) is refused with a
  ``ValueError``, the game unchanged, as ``env()`` refuses it.

``reset(seed=..., options={"deck": [...]})`` stacks the deck as in the PettingZoo
env; a stacked deck that ends the game before anybody chooses is refused (RLlib
needs a first observation), and so is a subclass whose scripted seats play every seat
(a shuffled deck always gives a seat RLlib plays a move). ``info`` of the final
step holds ``scores`` and ``winners`` (seats) for every agent.

Subclasses can play some seats inside the env (:meth:`TenMultiAgentEnv.scripted_seat`,
as ``ten train``'s training table does with scripted opponents): RLlib then never
sees those seats. Train it with the masked module of :mod:`train.rllib_module` (``ten train`` with
``backend: rllib``, see :mod:`train.rllib_trainer`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from gymnasium import spaces

from . import observation as O
from .actions import as_action_id
from .env import (ENV_OPTIONS, check_kwargs, check_render_mode, check_reset_options, check_reward, check_seed,
                  check_start, draw_start, final_rewards, spaces_for, with_jen_level)
from .extras import install_hint
from .game import Game, stacked_deck
from .render import render
from .rules import Rules

if TYPE_CHECKING:
    from .single_agent import Policy

#: How to install Ray RLlib: the one hint every "needs Ray RLlib" error of the project gives
#: (the error below carries it as ``.install``).
INSTALL = install_hint("rllib")

try:
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
except ImportError:  # one line that says what to do, wherever it is caught
    _error = ModuleNotFoundError(f"ten_env.rllib needs Ray RLlib: {INSTALL}", name="ray")
    setattr(_error, "install", INSTALL)  # an attribute of our own on a built-in exception
    raise _error from None


class TenMultiAgentEnv(MultiAgentEnv):
    """TEN for RLlib: one agent per seat, observations only for the seat to act (module doc).

    Args:
        config: ``ten_env.env()``'s keyword arguments as a dict (RLlib passes its
            ``env_config`` here, as an ``EnvContext``); ``None`` for the defaults.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(self, config: dict | None = None):
        super().__init__()
        if config is not None and not isinstance(config, Mapping):
            raise ValueError(f"config must be a dict of Rules fields and {', '.join(ENV_OPTIONS)}, got {config!r}")
        config = dict(config or {})  # an EnvContext is a dict with worker attributes
        check_kwargs(config)
        reward = check_reward(config.pop("reward", "win"))
        start = config.pop("start", "random")
        self.render_mode = check_render_mode(config.pop("render_mode", None))
        self.rules = Rules(**config)
        self.start = check_start(start, self.rules)
        self.reward = reward
        self.possible_agents = [f"player_{i}" for i in range(self.rules.num_agents)]
        self.agents = self.possible_agents[:]
        observation, _, mask = spaces_for(self.rules)
        space = spaces.Dict({"observations": observation, "action_mask": mask})
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: spaces_for(self.rules)[1] for a in self.possible_agents}  # each its own
        # RLlib's MultiAgentEnv declares action_spaces as dict[AgentID, gym.Space]: these are Discrete
        self.num_actions = int(cast(spaces.Discrete, self.action_spaces[self.possible_agents[0]]).n)
        self.game: Game | None = None
        self._ended = False

    # ------------------------------------------------------------------ RLlib API

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        deck = check_reset_options(options)
        if deck is not None:
            stacked_deck(deck)  # a bad deck raises here, before anything changes
        # Gymnasium's np_random (and np_random_seed), as RLlib's MultiAgentEnv.reset sets it: the
        # stream that deals the games (a subclass may keep streams of its own, as ten train's table does).
        super().reset(seed=check_seed(seed))
        game_seed = int(self.np_random.integers(2**63 - 1))
        start = draw_start(self.np_random, self.start, self.rules)
        game = Game(self.rules, seed=game_seed, deck=deck, start=start)
        self.game = game
        self._play_scripted()
        if game.is_over:  # a seat RLlib plays has a move in its first turn, unless no seat is RLlib's
            if deck is not None:
                raise ValueError("this stacked deck ends the game before anybody has a choice; "
                                 "an RLlib episode needs a first observation")
            raise ValueError("the game ended inside reset(): scripted_seat plays every seat, and an RLlib "
                             "episode needs a seat RLlib plays (scripted_seat returning None for it)")
        self._ended = False
        seat = self._seat_to_act(game)
        agent = self.possible_agents[seat]
        self._show()
        return {agent: self._observe(seat)}, {agent: {}}

    # type: ignore: gymnasium.Env's single-agent step, which MultiAgentEnv's dicts replace
    def step(self, action_dict: dict) -> tuple[dict, dict, dict, dict, dict]:  # type: ignore[override]
        stepped = self._step(action_dict)
        self._show()
        return stepped

    def _show(self) -> None:
        """Gymnasium's human mode: the table printed after every ``reset`` and ``step``."""
        if self.render_mode == "human":
            self.render()

    def _step(self, action_dict: dict) -> tuple[dict, dict, dict, dict, dict]:
        game = self.game
        if game is None or self._ended:
            raise ValueError("step() needs a game in progress: call reset() first")
        agent = self.possible_agents[self._seat_to_act(game)]
        if not isinstance(action_dict, Mapping):
            raise ValueError(f"step() takes a dict {{agent: action}}, here {{{agent!r}: action}}, got {action_dict!r}")
        if set(action_dict) != {agent}:
            raise ValueError(f"step() takes an action for {agent} only (the seat to act), "
                             f"got actions for {sorted(action_dict)}")
        action = action_dict[agent]
        index = as_action_id(action, self.num_actions)
        if index is None:  # not a move at all (0.0, True, a one-element array): a bug, not a lost game
            raise ValueError(f"action {action!r} for {agent} is not in the action space: an int id from 0 to "
                             f"{self.num_actions - 1} whose action_mask entry is 1")
        action = index
        if action not in game.legal_actions():
            return self._final_step(illegal=(self._seat_to_act(game), action))
        game.act(action)
        self._play_scripted()
        if game.is_over:
            return self._final_step()
        # RLlib wants a reward with every observation of an agent that has acted before.
        seat = self._seat_to_act(game)
        mover, agent = agent, self.possible_agents[seat]
        return ({agent: self._observe(seat)}, {mover: 0.0, agent: 0.0}, {"__all__": False},
                {"__all__": False}, {})

    def render(self) -> str | None:  # type: ignore[override]  # a str for "ansi", else None (gymnasium: frames)
        return render(self.render_mode, self.game)

    def set_jen_level(self, level: int) -> None:
        """Play the following games of the solitaire game against JEN at ``level`` (for curricula)."""
        self.rules = with_jen_level(self.rules, level)

    # ------------------------------------------------------------------ helpers

    def scripted_seat(self, seat: int) -> Policy | None:
        """The policy ``(observation, info) -> action`` that plays ``seat`` inside the env, or
        ``None`` (RLlib plays it). None here; subclasses put opponents in the env this way,
        e.g. agents that read ``info["snapshot"]``, which an RLModule never sees."""
        return None

    @staticmethod
    def _seat_to_act(game: Game) -> int:
        seat = game.current_player
        assert seat is not None, "the game is over"
        return seat

    def _play_scripted(self) -> None:
        game = self.game
        assert game is not None  # called by reset() and step() only
        while not game.is_over:
            seat = self._seat_to_act(game)
            policy = self.scripted_seat(seat)
            if policy is None:
                return
            game.act(policy(*O.agent_view(game, seat)))

    def _observe(self, seat: int) -> dict:
        return {"observations": O.encode(self.game, seat),  # type: ignore[arg-type]  # only after reset(): a game
                "action_mask": O.action_mask(self.game, seat)}  # type: ignore[arg-type]  # as above

    def _final_step(self, illegal: tuple[int, int] | None = None) -> tuple[dict, dict, dict, dict, dict]:
        """Every seat played by RLlib gets its final observation and its reward, once; after
        an ``illegal`` ``(seat, action)``, -1 for that seat and 0 for the others."""
        game = self.game
        assert game is not None  # called by step() only
        seats = [seat for seat in range(self.rules.num_agents) if self.scripted_seat(seat) is None]
        agents = [self.possible_agents[seat] for seat in seats]
        observations = {a: self._observe(seat) for a, seat in zip(agents, seats)}
        if illegal is not None:  # the game ends here, unfinished: nothing is left to choose
            for observation in observations.values():
                observation["action_mask"] = np.zeros_like(observation["action_mask"])
        if illegal is None:
            rewards = {a: final_rewards(game, seat, self.reward) for a, seat in zip(agents, seats)}
            end: dict[str, Any] = {"scores": game.scores(), "winners": game.winners()}
            infos = {a: dict(end) for a in agents}
        else:
            rewards = {a: -1.0 if seat == illegal[0] else 0.0 for a, seat in zip(agents, seats)}
            infos = {a: {} for a in agents}
            infos[self.possible_agents[illegal[0]]]["illegal_action"] = illegal[1]
        self._ended = True
        terminateds = dict.fromkeys(agents, True)
        terminateds["__all__"] = True
        return observations, rewards, terminateds, {"__all__": False}, infos
