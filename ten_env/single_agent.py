"""Single-agent Gymnasium views of TEN, for training with stable-baselines3 and friends.

- :class:`SingleAgentEnv`: one seat learns; every other seat is played by a
  policy you pass in (a callable or an object with ``act(observation, info)``,
  seeing what a PettingZoo agent sees). The learning seat is drawn at random
  each episode unless fixed with ``seat=``.
- :class:`SoloEnv` (registered as ``ten_env/TenSolo-v0``): the solitaire game
  against JEN at ``jen_level`` 4-10; the engine plays JEN. After ``import
  ten_env``, ``gymnasium.make("ten_env/TenSolo-v0", jen_level=7)`` and
  stable-baselines3's ``make_vec_env("ten_env/TenSolo-v0", n_envs=4,
  env_kwargs={"jen_level": 7})`` work; the id ``"ten_env:ten_env/TenSolo-v0"``
  imports the package itself.

Observations are the vector of :mod:`ten_env.observation` (a ``Box``); the legal
actions come from :meth:`action_masks` (``bool``, what sb3-contrib's MaskablePPO
calls) and as ``info["action_mask"]`` (``int8``, what Gymnasium's
``action_space.sample(mask)`` takes). The reward is 0 until the game ends,
then as in :func:`ten_env.env.final_rewards`: -1, 0 (a shared win) or +1 with
``reward="win"``, the clipped score margin in [-1, 1] with ``"margin"``, the
two averaged with ``"outcome"`` (the search's own scale); so an
episode's return is in [-1, 1]. An illegal action (an id the mask rules out) ends
the episode with reward -1 (or, with ``illegal="raise"``, raises ``ValueError`` and
changes nothing). What is not in the action space at all (a float, a bool, a
one-element array, an id out of range) raises ``ValueError`` either way, the game
unchanged: it is a bug in the caller, not a move.
Every game ends, so episodes are never truncated.

**The mask at the end of an episode** (the game is over, or an illegal action
ended it) allows *every* action. There is nothing left to choose, and in a
Gymnasium vector env (``SyncVectorEnv`` / ``make_vec``, autoreset mode
``NEXT_STEP``) the step that follows is a reset whose action is ignored, so the
usual masked loop (``rng.choice(np.flatnonzero(info["action_mask"][i]))``) always
has an action to pick. :meth:`action_masks` says the same. Stepping the ended env
itself raises ``ValueError`` (call ``reset()``). stable-baselines3's vector envs
reset at once and show the next game's mask. (With autoreset ``DISABLED`` and a
partial ``reset(options={"reset_mask": ...})``, Gymnasium builds the infos of the
envs it reset only: the others' ``info["action_mask"]`` is all zeros there, and
``venv.call("action_masks")`` gives every env's mask.)

**Who starts**: ``start="random"`` (default) draws the first seat of every game
from the reset seed's generator, as the rulebook deals it (the same
``reset(seed=s)`` gives the same game); ``start=<seat>`` fixes it. It is a seat
number, not relative to the learner; with ``seat=None`` the learner's seat is
drawn too. :class:`SoloEnv`: the person always starts (``start`` may only be
``"random"`` or 0).

``render_mode="human"`` prints the table after every ``reset`` and ``step``, as
Gymnasium's human mode does; ``"ansi"`` returns it from ``render()``. A
``render_mode`` other than ``None``, ``"ansi"`` and ``"human"`` (``make_vec_env``
passes ``"rgb_array"``) is accepted with a warning, as Gymnasium's ``make`` does;
the env then has ``render_mode = None`` and ``render()`` returns ``None``.
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Mapping, Sequence, SupportsIndex

import gymnasium
import numpy as np

from . import observation as O
from .actions import as_action_id, is_index
from .env import (RENDER_MODES, check_render_mode, check_reward, check_reset_options, check_seed, check_start,
                  draw_start, final_rewards, spaces_for, with_jen_level)
from .game import Game, stacked_deck
from .render import render
from .rules import JEN_LEVELS, Rules, as_rules, is_jen_level

Policy = Callable[[dict, dict], int]


def as_policy(opponent: object) -> Policy:
    """A callable ``(observation, info) -> action`` from an agent object or a callable."""
    if hasattr(opponent, "act"):
        return opponent.act
    if callable(opponent):
        return opponent
    raise ValueError(
        f"an opponent must be a callable (observation, info) -> action or have an act() method, "
        f"got {type(opponent).__name__}"
    )


ILLEGAL_ACTION_WARNING = ("an illegal action ends the episode with reward -1 (info['illegal_action'] holds it; "
                          "action_masks() and info['action_mask'] give the legal ones)")


class SingleAgentEnv(gymnasium.Env):
    """One learning seat in a game of TEN; the other seats play ``opponents``.

    Args:
        rules: a :class:`~ten_env.Rules` or a dict of its fields.
        opponents: one policy per other seat (``num_players - 1`` of them), in seat
            order after the learner's; none for the solitaire game.
        seat: the learner's seat, or ``None`` to draw it at random each episode.
        reward: ``"win"``, ``"margin"`` or ``"outcome"`` (:func:`ten_env.env.final_rewards`).
        start: the seat that takes the first turn: ``"random"`` (default; drawn
            each episode from the reset seed's generator) or a seat number.
        render_mode: ``None``, ``"ansi"`` or ``"human"`` (others: a warning, no rendering).
        illegal: what an illegal action does: ``"terminate"`` (default; the episode
            ends with reward -1 and ``info["illegal_action"]``, as PettingZoo's
            ``env()`` does) or ``"raise"`` (``ValueError``, the game unchanged).
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(self, rules: Rules | Mapping[str, Any] | None = None, opponents: Sequence = (),
                 seat: int | None = None, reward: str = "win", render_mode: str | None = None,
                 illegal: str = "terminate", start: int | str | np.integer = "random") -> None:
        self.rules = as_rules(rules)
        seats = self.rules.num_agents
        if opponents is None or isinstance(opponents, (str, bytes)) or not hasattr(opponents, "__len__"):
            raise ValueError(f"opponents must be a list of policies, got {opponents!r}")
        if len(opponents) != seats - 1:
            raise ValueError(
                f"opponents: {seats - 1} needed for {self.rules.num_players} players"
                + (" in the solitaire game (the engine plays JEN)" if self.rules.solitaire else "")
                + f", got {len(opponents)}"
            )
        self.opponent_agents = list(opponents)
        self.opponents = [as_policy(o) for o in opponents]
        if seat is not None and not (is_index(seat) and int(seat) in range(seats)):  # not 1.0
            raise ValueError(f"seat must be None or an integer from 0 to {seats - 1}, got {seat!r}")
        seat = None if seat is None else int(seat)
        check_reward(reward)
        if illegal not in ("terminate", "raise"):
            raise ValueError(f"illegal must be 'terminate' or 'raise', got {illegal!r}")
        self.start = check_start(start, self.rules)
        self.render_mode = check_render_mode(render_mode)
        self.fixed_seat, self.reward, self.illegal = seat, reward, illegal
        self.observation_space, self.action_space, _ = spaces_for(self.rules)
        self.num_actions = int(self.action_space.n)
        self.game: Game | None = None
        self.seat = 0 if seat is None else seat
        self._ended = False

    # ------------------------------------------------------------------ gymnasium API

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        deck = check_reset_options(options)
        if deck is not None:
            stacked_deck(deck)  # a bad deck raises here, before anything changes
        seed = check_seed(seed)  # Gymnasium's own check raises its Error, and takes True
        # A stacked deck that ends the game before the learner's first choice is found only by
        # dealing it; the generator then goes back to where it was, so the next reset deals as if
        # this one had not been tried (and resets the opponents again, from that generator).
        before = copy.deepcopy((self._np_random, self._np_random_seed)) if deck is not None else None
        super().reset(seed=seed)
        for agent in self.opponent_agents:
            if hasattr(agent, "reset"):  # e.g. to pick a new policy from a pool for this game
                agent.reset(seed=int(self.np_random.integers(2**31)))
        seats = self.rules.num_agents
        while True:
            seat = self.fixed_seat if self.fixed_seat is not None else int(self.np_random.integers(seats))
            game_seed = int(self.np_random.integers(2**63 - 1))
            start = draw_start(self.np_random, self.start, self.rules)
            game = Game(self.rules, seed=game_seed, deck=deck, start=start)
            self._play_opponents(game, seat)
            if not game.is_over:
                break
            if deck is not None:
                assert before is not None  # copied above whenever deck is given
                self._np_random, self._np_random_seed = before
                raise ValueError(
                    "this stacked deck ends the game before the learning seat has a single choice; "
                    "a Gymnasium episode needs at least one step"
                )
            # a shuffled game that ends before the learner's first choice is dealt again
        self.game, self.seat, self._ended = game, seat, False
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action: SupportsIndex) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self.game is None or self._ended:
            raise ValueError("step() needs a game in progress: call reset() first")
        if isinstance(action, str) and action in self.game._ids:
            action = self.game.action_id(action)
        elif (index := as_action_id(action, self.num_actions)) is None:
            # Not a move at all (a float, a bool, a one-element array): a bug in the caller, as a
            # Gymnasium env's action-space assertion has it, not a lost game to learn from.
            raise ValueError(f"action {action!r} is not in the action space: an int id from 0 to "
                             f"{self.num_actions - 1} (or an action's name) whose action mask entry is 1")
        else:
            action = index  # NumPy's integers and 0-d arrays, as a policy or action_space.sample() gives
        if self.illegal == "terminate" and action not in self._legal_ids():
            # Like PettingZoo's TerminateIllegalWrapper: the episode ends, the mover loses. One text
            # whatever the action, so that Python shows it once, not at every step of an unmasked policy.
            gymnasium.logger.warn(ILLEGAL_ACTION_WARNING)
            self._ended = True
            info = self._info()
            info["illegal_action"] = action
            return self._observation(), -1.0, True, False, info
        self.game.act(action)  # with illegal="raise": ValueError, nothing changed
        try:
            self._play_opponents(self.game, self.seat)
        except BaseException:
            self._ended = True  # the learner's move stands and an opponent failed: this game cannot go on
            raise
        terminated = self._ended = self.game.is_over
        reward = final_rewards(self.game, self.seat, self.reward) if terminated else 0.0
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, False, self._info()

    def _legal_ids(self) -> Sequence[int]:
        game = self._live_game()
        return game.legal_actions() if game.current_player == self.seat else ()

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions; all True once the episode has
        ended (see the module docstring: the next step of a vector env is a reset)."""
        if self.game is None:
            raise ValueError("action_masks() needs a game: call reset() first")
        return self._mask().astype(bool)

    def _mask(self) -> np.ndarray:
        if self._ended:
            return np.ones(self.num_actions, dtype=np.int8)
        return O.action_mask(self.game, self.seat)  # type: ignore[arg-type]  # only after reset(): a game

    def render(self) -> str | None:  # type: ignore[override]  # a str for "ansi", else None (gymnasium: frames)
        return render(self.render_mode, self.game, me=self.seat)

    def set_jen_level(self, level: int) -> None:
        """Play the following games of the solitaire game against JEN at ``level`` (for curricula)."""
        self.rules = with_jen_level(self.rules, level)

    # ------------------------------------------------------------------ helpers

    def _live_game(self) -> Game:
        if self.game is None:
            raise ValueError("no game yet: call reset() first")
        return self.game

    def _play_opponents(self, game: Game, me: int) -> None:
        while not game.is_over and game.current_player != me:
            seat = game.current_player
            assert seat is not None  # the game is not over
            policy = self.opponents[(seat - me - 1) % game.num_players]
            action = policy(*O.agent_view(game, seat))
            try:
                game.act(action)
            except ValueError as refusal:  # a user's policy: say whose move it was
                raise ValueError(f"the opponent at seat {seat} chose {action!r}, which the game refuses: "
                                 f"{refusal}") from None

    def _observation(self) -> np.ndarray:
        return O.encode(self.game, self.seat)  # type: ignore[arg-type]  # only after reset(): a game

    def _info(self) -> dict:
        info = {"action_mask": self._mask(), "seat": self.seat}
        game = self._live_game()
        if game.is_over:
            info["scores"] = game.scores()
            info["winners"] = game.winners()
        return info


class SoloEnv(SingleAgentEnv):
    """The solitaire game against JEN as a single-agent Gymnasium env.

    Args:
        jen_level: JEN's level, 4-10.
        bust_buy, payment, max_bid, deck_file: the other :class:`~ten_env.Rules` fields.
        reward: ``"win"`` (+1 beat JEN, -1 otherwise; ties are JEN's), ``"margin"`` or
            ``"outcome"`` (the two averaged).
        render_mode: ``None``, ``"ansi"`` or ``"human"`` (others: a warning, no rendering).
        illegal: ``"terminate"`` or ``"raise"``, as for :class:`SingleAgentEnv`.
        start: the person always starts the solitaire game: ``"random"`` (the
            default, meaning 0 here) or 0; anything else is a ``ValueError``.
    """

    def __init__(self, jen_level: int = 4, reward: str = "win", render_mode: str | None = None,
                 illegal: str = "terminate", start: int | str | np.integer = "random", **rules: Any) -> None:
        if "num_players" in rules or "jen_level" in rules:
            raise ValueError("SoloEnv is always 2 players (you and JEN); set the level with jen_level=")
        if not is_jen_level(jen_level):  # Rules would take None, a normal game, which needs opponents
            raise ValueError(f"SoloEnv plays against JEN: jen_level must be an integer from {JEN_LEVELS[0]} to "
                             f"{JEN_LEVELS[-1]}, got {jen_level!r}"
                             + (" (SingleAgentEnv plays a normal game)" if jen_level is None else ""))
        allowed = set(Rules.field_names()) - {"num_players", "jen_level"}
        unknown = sorted(set(rules) - allowed)
        if unknown:
            raise ValueError(
                f"unknown argument(s) {', '.join(unknown)}; allowed: jen_level, reward, render_mode, illegal, start, "
                + ", ".join(sorted(allowed))
            )
        super().__init__(Rules(num_players=2, jen_level=jen_level, **rules), opponents=(), seat=0,
                         reward=reward, render_mode=render_mode, illegal=illegal, start=start)
