# noqa: D212, D415
"""
# TEN

| Creation           | `ten_env.env(num_players=3)` or `make("aec", "ten_env/ten-v0")`   |
|--------------------|-------------------------------------------------------------------|
| Actions            | Discrete                                                          |
| Parallel API       | No                                                                |
| Agents             | `['player_0', ..., 'player_{n-1}']`; solitaire: `['player_0']`   |
| Number of agents   | 2-5 (1 in the solitaire game: JEN is played by the engine)        |
| Action values      | Discrete(92 + max_bid) = Discrete(132) by default                 |
| Observation shape  | (463,) float32, plus an int8 action mask                          |

TEN is a push-your-luck card game: draw cards into a shared tableau without the
net total going over ten, stop to take either its number cards or its currency,
bid for wildcards as they come up, buy from the market, and build the longest
run of numbers in each of four colours. The rules are in RULES.md; the engine
is :class:`ten_env.Game`.

## Arguments

``env(num_players=2, bust_buy=False, jen_level=None, payment="auto", max_bid=40,
deck_file=None, reward="win", start="random", render_mode=None)``

- ``num_players``, ``bust_buy``, ``jen_level``, ``payment``, ``max_bid``,
  ``deck_file``: the :class:`ten_env.Rules` fields. With ``jen_level`` (4-10) the
  game is the solitaire game: one agent, ``player_0``, against JEN.
- ``reward``: ``"win"`` (default), ``"margin"`` or ``"outcome"``, see Rewards.
- ``start``: the seat that takes the first turn. ``"random"`` (default, as the
  rulebook deals it) draws it at every ``reset`` from the reset seed's generator,
  so ``reset(seed=s)`` always gives the same game, starting player included; an
  integer ``0 .. num_players - 1`` fixes it. In the solitaire game the person
  (``player_0``) always starts: ``"random"`` means 0 there and any other seat is
  an error.
- ``render_mode``: ``None``, ``"ansi"`` (``render()`` returns the table as text) or
  ``"human"`` (``render()`` prints it). Any other mode (stable-baselines3's
  ``make_vec_env`` passes ``"rgb_array"``) is accepted with a warning, as
  Gymnasium does: the env then has ``render_mode = None`` and ``render()`` warns
  and returns ``None``.

Unknown arguments or invalid values raise ``ValueError`` naming the argument and
what is allowed. ``reset(seed=..., options={"deck": ["B3", "$2", ...]})`` stacks
the deck (top first) instead of shuffling it (the starting player is still drawn
or fixed as above). Any other option key raises ``ValueError``, except
``"options"``, which is ignored: PettingZoo's ``api_test`` probes ``reset`` with
``options={"options": 1}``. ``step``, ``observe`` and ``last`` before the first
``reset`` raise ``ValueError`` (``env()``'s order-enforcing wrapper answers first
with PettingZoo's own error), and so do ``raw_env``'s ``step`` and ``last`` once
every agent has stepped out of a finished game.

``copy.deepcopy(env)`` and ``pickle`` copy the game in progress: the copy plays on
alone, as the original would (for search; :meth:`ten_env.Game.clone` copies only
the engine's state, far faster).

## Observation space

Each agent observes ``{"observation": Box(463,), "action_mask": Box(132,) int8}``.
The mask is all zeros for an agent whose turn it is not. The vector holds
everything public, from the observer's seat (it comes first, then the others in
turn order): each seat's cards, coins, bust tokens and current score; the market;
the tableau and its totals; the exact count of every card left in the deck; the
phase, the auction and the game's settings. Its size does not depend on the
player count (absent seats are zeros and flagged absent). The table of every
index is in :mod:`ten_env.observation`.

``infos[agent]["snapshot"]`` is :meth:`ten_env.Game.snapshot` of that moment, the
same public state as plain data, for agents that prefer it: a read-only ``dict``
(:class:`ten_env.snapshot.LazySnapshot`) built only when read, that
``json.dumps``, ``==``, ``dict()``, ``copy.deepcopy`` and ``pickle`` treat as the
plain dict (the copies are plain dicts);
``infos[agent]["legal_actions"]`` lists the legal action names of the agent to act;
at the end of the game every agent's info also has ``scores`` and ``winners`` (seats).

## Action space

One id per action, the same in every state (full table in :mod:`ten_env.actions`):

| id         | name                         | when                                        |
|------------|------------------------------|---------------------------------------------|
| 0          | `draw`                       | draw phase                                  |
| 1          | `stop_numbers`               | draw phase: take the tableau's number cards |
| 2          | `stop_currency`              | draw phase: take the tableau's currency     |
| 3          | `pass`                       | decline a bid or a buy; after a bust in the busting variant, take the token |
| 4-39       | `buy_B1` .. `buy_P9`         | buy phases                                  |
| 40, 41     | `pay_coin`, `pay_bust`       | manual payment                              |
| 42-91      | `pay_B1` .. `pay_W#`         | manual payment with a card                  |
| 92-131     | `bid_1` .. `bid_40`          | auctions (up to `max_bid`)                  |

``env.unwrapped.action_name(id)`` and ``env.unwrapped.action_id(name)`` translate.
A decision with only one legal action is taken by the engine, so every agent
turn is a real choice.

## Rewards

At the end of the game only (0 before). ``reward="win"``: +1 to a sole winner,
-1 to every other player; when the tie-breaks still leave several winners, they
get 0 (the game is shared) and the others -1. In the solitaire game a tie is
JEN's win. ``reward="margin"``: (own score - best score among the others) / 20,
clipped to [-1, 1]. ``reward="outcome"``: the two averaged, (win + margin) / 2,
what :class:`agents.SearchAgent` counts a finished game as worth, so a network
trained on it has a value on the search's own scale (among equally likely wins,
the wider is worth more; a one-point win is worth 0.525). So a game's return is
always one of -1, 0, +1 (``"win"``) or in [-1, 1] (``"margin"``, ``"outcome"``);
with ``env()``'s wrapper an illegal action ends the game with -1 for the mover
(and 0 for the others), and what is not an action id at all (out of range, a name, a
float, a bool, ``None`` for a live agent) raises a one-line ``ValueError`` and
changes nothing. ``raw_env`` hands what it is given to the engine, which raises
for an illegal action too and also takes an action's name (``"draw"``).

Every game ends (each turn starts by drawing from a finite deck), so the env
never truncates a game it plays to the end. The one exception is PettingZoo's
own: when ``env()``'s ``TerminateIllegalWrapper`` ends a game on an illegal
action it marks every agent terminated *and* truncated, and leaves their infos
as they were before that move (no ``scores`` / ``winners``: no game was finished
to score).

## Version history

* v0: first release (ten-env 0.1.0)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any, SupportsIndex

import gymnasium
import operator

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import observation as O
from .actions import as_action_id, num_actions
from .game import Game, deck_for, score_margin
from .render import render
from .rules import JEN_LEVELS, Rules, is_jen_level

REWARDS = ("win", "margin", "outcome")
RENDER_MODES = ("ansi", "human")
MARGIN_SCALE = 20
RESET_OPTIONS = ("deck",)
# PettingZoo's api_test calls reset(options={"options": 1}) to see that the argument exists.
IGNORED_RESET_OPTIONS = ("options",)


def env(**kwargs: Any) -> AECEnv:
    """The TEN AEC environment with PettingZoo's standard classic-game wrappers."""
    wrapped = raw_env(**kwargs)
    wrapped = TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = AssertOutOfBoundsWrapper(wrapped)
    wrapped = OrderEnforcingWrapper(wrapped)
    return wrapped


# The attributes read at every step. PettingZoo's wrappers forward attributes from
# ``__getattr__``, which Python reaches only after a failed lookup: through three
# wrappers that is a good part of a step. The subclasses below forward these few
# through a descriptor instead; everything else, errors included, is PettingZoo's.
_PER_STEP = ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos",
             "_cumulative_rewards")
# What OrderEnforcingWrapper refuses to read before reset().
_BEFORE_RESET = {"rewards", "terminations", "truncations", "infos", "agent_selection", "agents"}


class _Forwarded:
    """Reads ``env.<name>`` of the wrapper. A non-data descriptor: a value set on the
    wrapper itself still wins, as it does with PettingZoo's own wrappers."""

    def __init__(self, name: str, guarded: bool):
        self.name, self.guarded = name, guarded
        self.read = operator.attrgetter("env." + name)

    def __get__(self, wrapper: wrappers.BaseWrapper | None, owner: type | None = None) -> Any:
        if wrapper is None:
            return self
        if self.guarded and not wrapper._has_reset:
            raise AttributeError(f"{self.name} cannot be accessed before reset")
        return self.read(wrapper)


def _forward_per_step(cls: type, guarded: bool = False) -> type:
    for name in _PER_STEP:
        setattr(cls, name, _Forwarded(name, guarded and name in _BEFORE_RESET))
    return cls


@_forward_per_step
class TerminateIllegalWrapper(wrappers.TerminateIllegalWrapper):
    __doc__ = wrappers.TerminateIllegalWrapper.__doc__


@_forward_per_step
class AssertOutOfBoundsWrapper(wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's check that an action lies in the action space, refusing with a one-line
    ``ValueError`` that names the allowed ids. PettingZoo's own asserts "action is not in action
    space", which ``python -O`` drops (-1 would then index the mask from its end), and lets
    ``True`` through as an int, on which the illegal-move check fails with numpy's error."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._num_actions = env.action_space(env.possible_agents[0]).n  # every seat's is the same

    def step(self, action: object) -> None:
        if not (type(action) is int and 0 <= action < self._num_actions):  # a plain id passes at once
            agent = self.agent_selection
            done = self.terminations.get(agent, True) or self.truncations.get(agent, True)
            if action is None and done:
                pass  # the step(None) of a seat that is done
            elif done:  # the mask's hint would send it to a move that is refused too
                raise ValueError(f"{agent} is done: its only action is None (step(None)), got {action!r}")
            elif (index := as_action_id(action, self._num_actions)) is None:
                raise ValueError(f"action {action!r} is not in {agent}'s action space: an int id from 0 "
                                 f"to {self._num_actions - 1} whose action_mask entry is 1")
            else:
                action = index
        self.env.step(action)  # past PettingZoo's assert, which this check replaces


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    __doc__ = wrappers.OrderEnforcingWrapper.__doc__

    def __str__(self) -> str:
        return str(self.env)  # as PettingZoo's prints its own outermost wrapper: the env's name


_forward_per_step(OrderEnforcingWrapper, guarded=True)


ENV_OPTIONS = ("reward", "start", "render_mode")  # what env() and the RLlib env take beside the Rules fields


def check_kwargs(kwargs: dict) -> None:
    """Reject unknown keyword arguments (neither a Rules field nor one of ``ENV_OPTIONS``) with the
    list of allowed ones."""
    allowed = Rules.field_names() + ENV_OPTIONS
    unknown = sorted(set(kwargs) - set(allowed))
    if unknown:
        raise ValueError(f"unknown argument(s) {', '.join(unknown)}; allowed: {', '.join(allowed)}")


def check_reward(reward: str) -> str:
    """``reward`` if it names a reward scheme (see Rewards), else the one-line error every env gives."""
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
    return reward


def with_jen_level(rules: Rules, level: int) -> Rules:
    """``rules`` with JEN at ``level``, for the envs' ``set_jen_level`` (curricula): only the
    solitaire game has JEN, and it stays the solitaire game."""
    if not rules.solitaire:
        raise ValueError("set_jen_level: this env plays a normal game, not the solitaire game")
    if not is_jen_level(level):
        raise ValueError(f"set_jen_level: the level must be an integer from {JEN_LEVELS[0]} to {JEN_LEVELS[-1]}, "
                         f"got {level!r}")
    return dataclasses.replace(rules, jen_level=int(level))


def spaces_for(rules: Rules) -> tuple[spaces.Box, spaces.Discrete, spaces.Box]:
    """New observation, action and action-mask spaces for an env of ``rules``; every env
    builds its spaces here, so all of them agree.

    It reads the deck of ``rules`` first, so a deck file that cannot be used is refused
    when an env is made, not at its first reset.
    """
    deck_for(rules)
    low, high = O.space_bounds()
    n_actions = num_actions(rules.max_bid)
    return (spaces.Box(low=low, high=high, dtype=np.float32), spaces.Discrete(n_actions),
            spaces.Box(low=0, high=1, shape=(n_actions,), dtype=np.int8))


def check_seed(seed: object) -> int | None:
    """``seed`` as given to ``reset`` or an agent: ``None`` or a non-negative int (a NumPy integer
    becomes the plain int, which Python's ``random.Random`` needs); one-line errors."""
    if seed is None:
        return None
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0:
        return int(seed)
    raise ValueError(f"seed must be None or a non-negative integer, got {seed!r}")


def check_render_mode(render_mode: str | None) -> str | None:
    """The render mode an env uses for the ``render_mode`` it was given.

    ``None``, ``"ansi"`` and ``"human"`` are themselves. Any other string is
    accepted the way Gymnasium's ``make`` accepts a mode an env does not list: with
    a warning; the env then renders nothing (``None``). Gymnasium's env checker
    requires ``render_mode`` to be ``None`` or a listed mode, so ``None`` it is.
    """
    if render_mode is None or render_mode in RENDER_MODES:
        return render_mode
    if not isinstance(render_mode, str):
        raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
    gymnasium.logger.warn(
        f"render_mode {render_mode!r} is not supported (only 'ansi' and 'human'): "
        "render() will return None"
    )
    return None


def check_start(start: int | str | np.integer, rules: Rules) -> int | str:
    """``start`` as given to an env: ``"random"`` or a seat (an ``int``); one-line errors."""
    if isinstance(start, str) and start == "random":
        return start
    n = rules.num_players
    if isinstance(start, np.integer):
        start = int(start)
    is_seat = isinstance(start, int) and not isinstance(start, bool)
    if rules.solitaire and not (is_seat and start == 0):  # of its two seats only the person's may start
        raise ValueError(f"start must be 'random' or 0 in the solitaire game (the person starts), got {start!r}")
    if not is_seat or start not in range(n):
        raise ValueError(f"start must be 'random' or a seat from 0 to {n - 1}, got {start!r}")
    return start


def draw_start(rng: np.random.Generator, start: int | str, rules: Rules) -> int:
    """The first seat of a new game: ``start``, or drawn from ``rng`` for ``"random"``.

    A seat is drawn in every case, so the same generator deals the same decks
    whatever ``start`` is; the solitaire game always starts with the person (0).
    """
    drawn = int(rng.integers(rules.num_players))
    if start != "random":
        return start  # type: ignore[return-value]  # check_start leaves a seat (an int) or "random"
    return 0 if rules.solitaire else drawn


def check_reset_options(options: Mapping[str, Any] | None) -> list | None:
    """The stacked deck in ``reset``'s ``options`` (or ``None``); unknown keys are refused."""
    if options is None:
        return None
    if not isinstance(options, Mapping):
        raise ValueError(f"reset options must be a dict (allowed key: deck), got {type(options).__name__}")
    unknown = sorted(str(k) for k in options if k not in RESET_OPTIONS and k not in IGNORED_RESET_OPTIONS)
    if unknown:
        raise ValueError(f"unknown reset option(s) {', '.join(unknown)}; allowed: {', '.join(RESET_OPTIONS)}")
    deck = options.get("deck")
    if deck is not None and not isinstance(deck, str) and hasattr(deck, "__iter__"):
        deck = list(deck)  # read once, whatever iterable it is
    return deck


def final_rewards(game: Game, seat: int, reward: str) -> float:
    """The end-of-game reward of ``seat`` under the ``reward`` scheme (see the module doc)."""
    if reward == "margin":
        return _margin(game, seat)
    winners = game.winners()
    win = (1.0 if len(winners) == 1 else 0.0) if seat in winners else -1.0
    return (win + _margin(game, seat)) / 2 if reward == "outcome" else win


def _margin(game: Game, seat: int) -> float:
    return max(-1.0, min(1.0, score_margin(game.scores(), seat) / MARGIN_SCALE))


_NOT_RESET = "call reset() first: there is no game yet"


class raw_env(AECEnv):
    """TEN as a PettingZoo AEC environment (see the module docstring).

    ``copy.deepcopy`` and ``pickle`` copy it with its game in progress, its random stream and its
    spaces: the copy plays on, alone, as the original would. (PettingZoo's classic envs, with
    gymnasium's ``EzPickle``, give a fresh env of the same arguments, which ``env()``'s wrapper
    then takes for one already reset.) For search, :meth:`ten_env.Game.clone` copies far less.
    """

    metadata = {
        "render_modes": list(RENDER_MODES),
        "name": "ten_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, render_mode: str | None = None, reward: str = "win", start: int | str | np.integer = "random",
                 **rules: Any) -> None:
        super().__init__()
        check_kwargs(rules)
        check_reward(reward)
        self.rules = Rules(**rules)
        self.start = check_start(start, self.rules)
        self.render_mode = check_render_mode(render_mode)
        self.reward = reward
        seats = self.rules.num_agents
        self.possible_agents = [f"player_{i}" for i in range(seats)]
        self.agents = self.possible_agents[:]
        self.game: Game | None = None
        self.observation_spaces: dict[str, spaces.Dict] = {}
        self.action_spaces: dict[str, spaces.Discrete] = {}
        for a in self.possible_agents:  # each seat its own space objects, each seeded on its own
            observation, action, mask = spaces_for(self.rules)
            self.observation_spaces[a] = spaces.Dict({"observation": observation, "action_mask": mask})
            self.action_spaces[a] = action
        self._seed_rng = np.random.default_rng()

    # --------------------------------------------------------------- spaces and names

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def action_name(self, action: int) -> str:
        return self._any_game().action_name(action)

    def action_id(self, name: str) -> int:
        return self._any_game().action_id(name)

    def _any_game(self) -> Game:
        return self.game if self.game is not None else Game(self.rules, seed=0)

    # --------------------------------------------------------------- AEC API

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        deck = check_reset_options(options)
        rng = self._seed_rng if check_seed(seed) is None else np.random.default_rng(seed)
        state = rng.bit_generator.state
        try:
            game_seed = int(rng.integers(2**63 - 1))
            start = draw_start(rng, self.start, self.rules)
            game = Game(self.rules, seed=game_seed, deck=deck, start=start)
        except BaseException:
            rng.bit_generator.state = state  # a bad deck changes nothing
            raise
        self._seed_rng = rng
        self.game = game
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._after_move()
        self._accumulate_rewards()  # a stacked deck can end the game before anyone chooses

    def observe(self, agent: str) -> dict:
        if agent not in self.possible_agents:
            raise ValueError(f"observe: no agent {agent!r} at this table; its agents are "
                             f"{', '.join(self.possible_agents)}")
        seat = self.possible_agents.index(agent)
        game = self.game
        try:
            return {"observation": O.encode(game, seat),  # type: ignore[arg-type]  # None before reset(): see below
                    "action_mask": O.action_mask(game, seat)}  # type: ignore[arg-type]  # as above
        except Exception:  # a try costs nothing per step; the check only runs on failure
            if game is None:
                raise ValueError(f"observe() before reset(): {_NOT_RESET}") from None
            raise

    def last(self, observe: bool = True) -> tuple[dict | None, float, bool, bool, dict]:
        agent = self._selected("last")
        observation = self.observe(agent) if observe else None
        return (observation, self._cumulative_rewards[agent], self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def agent_iter(self, max_iter: int = 2**63) -> Iterable[str]:
        if self.game is None:
            raise ValueError(f"agent_iter() before reset(): {_NOT_RESET}")
        return super().agent_iter(max_iter)

    def step(self, action: SupportsIndex | None) -> None:
        agent = self._selected("step")
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        assert self.game is not None  # _selected() refuses a step before reset()
        # an illegal action (None too, for a seat still playing) raises ValueError and changes nothing
        self.game.act(action)  # type: ignore[arg-type]
        self._clear_rewards()
        self._after_move()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _selected(self, call: str) -> str:
        """The agent to act, or ``ValueError`` before the first game or after the last step(None)."""
        try:
            agent = self.agent_selection
        except AttributeError:
            raise ValueError(f"{call}() before reset(): {_NOT_RESET}") from None
        if agent not in self.terminations:  # every agent has stepped out: PettingZoo removed them
            raise ValueError(f"{call}() after the game ended and every agent stepped out: call reset() for "
                             "another game")
        return agent

    def _after_move(self) -> None:
        game = self.game
        assert game is not None  # called by reset() and step() only
        snapshot = game.lazy_snapshot()
        self.infos = {a: {"snapshot": snapshot, "legal_actions": []} for a in self.agents}
        if game.is_over:
            scores, winners = game.scores(), game.winners()
            for seat, agent in enumerate(self.agents):
                self.rewards[agent] = final_rewards(game, seat, self.reward)
                self.infos[agent].update(scores=scores, winners=winners)
            self.terminations = dict.fromkeys(self.agents, True)
            if getattr(self, "agent_selection", None) not in self.agents:
                self.agent_selection = self.agents[0]
        else:
            to_act = game.current_player
            assert to_act is not None  # the game is not over
            self.agent_selection = self.possible_agents[to_act]
            self.infos[self.agent_selection]["legal_actions"] = game.legal_action_names()

    def render(self) -> str | None:
        return render(self.render_mode, self.game)

    def close(self) -> None:
        pass
