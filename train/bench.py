"""``ten bench``: how fast TEN runs, next to peers timed in the same run.

The machine may be shared and noisy, so every figure is a ratio to a peer, and the
rows of a group are timed in turns: in each of an even number of turns every row
plays for a slice of at most 0.5 s (at least one game), the order reversed from one
turn to the next, so that a slowdown of the machine falls on a row and its peer
alike. The ratio is over all turns; the range beside it is the lowest and highest of
the single turns' ratios.

Each row counts *decisions*, the moves chosen by a player with the legal moves before
it, and games. Its time holds all that random legal play needs besides: dealing or
``reset``, and in the PettingZoo envs the ``step(None)`` of each finished player,
which is not a decision (a two-player poker hand has about as many of those as of
decisions). A row's games go on from turn to turn with new deals and the same random
generators, so none is played twice; one untimed game first takes the costs of a first
call out of the figures. Only that game's reset is seeded: PettingZoo's RLCard games
build their whole environment again at every seeded reset, a cost no training loop pays
at every episode.

- engine: random legal play through ``Game.legal_actions`` + ``Game.act`` (no
  observation), 2 and 5 players, against RLCard's Leduc Hold'em game core;
- environment: random legal play through ``ten_env.env()`` with the standard
  wrappers, reading the observation and the action mask at every decision,
  against PettingZoo's ``leduc_holdem_v4`` driven the same way
  (``texas_holdem_no_limit_v6`` beside it, for scale);
- derived features: random legal play through ``SoloEnv`` wrapped in
  ``DerivedFeatures`` (what ``train.derived_features`` trains on), against the
  same env unwrapped.
"""

from __future__ import annotations

import itertools
import math
import random
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

import numpy as np

TURN = 0.5  # seconds: a row's slice of each turn, at most (short enough for many turns, long enough for games)
clock = time.perf_counter
INSTALL_PEERS = "not installed (pip install 'pettingzoo[classic]')"

if TYPE_CHECKING:
    import argparse

    from pettingzoo import AECEnv

    from ten_env.features import DerivedFeatures
    from ten_env.single_agent import SingleAgentEnv


@dataclass
class Row:
    """One thing timed: ``play`` plays one game and returns its decisions."""

    label: str
    play: Callable[[], int]
    close: Callable[[], None] = lambda: None
    seconds: float = 0.0
    decisions: int = 0
    games: int = 0
    turns: list = field(default_factory=list)  # decisions a second in each turn

    def run(self, seconds: float) -> None:
        """Play whole games for ``seconds`` (at least one game)."""
        decisions = games = 0
        start = clock()
        while True:
            decisions += self.play()
            games += 1
            elapsed = clock() - start
            if elapsed >= seconds:
                break
        self.seconds += elapsed
        self.decisions += decisions
        self.games += games
        self.turns.append(decisions / elapsed)

    @property
    def rate(self) -> float:
        return self.decisions / self.seconds

    def ratio(self, peer: Row) -> tuple[float, float, float]:
        """This row's decisions a second over the peer's: over all turns, and the lowest and
        highest of the single turns'."""
        each = [mine / theirs for mine, theirs in zip(self.turns, peer.turns)]
        return self.rate / peer.rate, min(each), max(each)


def measure(rows: list[Row], seconds: float, turn: float = TURN) -> None:
    """Time ``rows`` for about ``seconds`` each in an even number of turns of at most ``turn``
    (so each row plays first as often as last), after one untimed game each."""
    for row in rows:
        row.play()
    turns = 2 * math.ceil(seconds / (2 * turn))
    for k in range(turns):
        for row in rows if k % 2 == 0 else rows[::-1]:
            row.run(seconds / turns)
    for row in rows:
        row.close()


def engine(num_players: int) -> Callable[[], int]:
    """One game of random legal play in the engine a call, on a new deal each time."""
    from ten_env import Game, Rules

    rules, rng, seeds = Rules(num_players=num_players), random.Random(0), itertools.count()

    def play() -> int:
        game, decisions = Game(rules, seed=next(seeds)), 0
        while not game.is_over:
            game.act(rng.choice(game.legal_actions()))
            decisions += 1
        return decisions

    return play


def leduc_core() -> Callable[[], int] | None:
    """The same through RLCard's Leduc Hold'em game; ``None`` without RLCard."""
    try:
        from rlcard.games.leducholdem.game import LeducholdemGame
    except ImportError:
        return None
    game, rng = LeducholdemGame(), random.Random(0)
    game.np_random = np.random.RandomState(0)

    def play() -> int:
        game.init_game()
        decisions = 0
        while not game.is_over():
            game.step(rng.choice(game.get_legal_actions()))
            decisions += 1
        return decisions

    return play


def _first_seeded() -> Iterator[int | None]:
    """The seeds of an env's resets: 0, then none, so that the env's own generator deals on."""
    return itertools.chain([0], itertools.repeat(None))


def aec(make_env: Callable[[], AECEnv], quiet: bool = False) -> tuple[Callable[[], int], Callable[[], None]]:
    """One episode of random legal play a call through a PettingZoo AEC env, reading the
    observation and the mask at every decision; and the env's ``close``.

    ``quiet``: hide the warnings the environment gives when it is made (PettingZoo's
    poker envs warn about their observation spaces), so they do not break the table.
    """
    with warnings.catch_warnings():
        if quiet:
            warnings.simplefilter("ignore")
        env = make_env()
    rng, seeds = np.random.default_rng(0), _first_seeded()

    def play() -> int:
        env.reset(seed=next(seeds))
        decisions = 0
        for _ in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            if termination or truncation:
                env.step(None)  # a finished player leaves: not a decision
                continue
            mask = observation["action_mask"]
            _ = observation["observation"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
            decisions += 1
        return decisions

    return play, env.close


def gym(make_env: Callable[[], SingleAgentEnv | DerivedFeatures]) -> tuple[Callable[[], int], Callable[[], None]]:
    """One episode of random legal play a call through a Gymnasium env with ``action_masks()``."""
    env, rng, seeds = make_env(), np.random.default_rng(0), _first_seeded()

    def play() -> int:
        env.reset(seed=next(seeds))
        decisions = 0
        while True:
            _, _, termination, truncation, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            decisions += 1
            if termination or truncation:
                return decisions

    return play, env.close


def _peer(module: str) -> Callable[[], AECEnv] | None:
    try:
        with warnings.catch_warnings():  # a library's deprecation notices are not ours to print
            warnings.simplefilter("ignore")
            return __import__(f"pettingzoo.classic.{module}", fromlist=["env"]).env
    except ImportError:  # pettingzoo[classic] (rlcard) not installed
        return None


def _show(rows: list[Row], peer: Row | None, missing: list[str]) -> None:
    for row in rows:
        line = f"  {row.label:<26} {row.rate:>10,.0f} decisions/s {row.games / row.seconds:>9,.1f} games/s"
        if peer is not None and row is not peer:
            ratio, low, high = row.ratio(peer)
            line += f"  {ratio:5.2f}x {peer.label}" + (f" (turns {low:.2f}-{high:.2f})" if len(row.turns) > 1 else "")
        print(line)
    for label in missing:
        print(f"  {label:<26} {INSTALL_PEERS}")


def main(args: argparse.Namespace) -> int:
    import ten_env
    from ten_env.features import DerivedFeatures
    from ten_env.single_agent import SoloEnv

    seconds = args.seconds
    core = leduc_core()
    engine_rows = [Row("TEN, 2 players", engine(2)), Row("TEN, 5 players", engine(5))]
    if core is not None:
        engine_rows.append(Row("RLCard leduc core", core))
    env_rows, missing = [], []
    for label, make, quiet in [("ten_v0, 2 players", lambda: ten_env.env(num_players=2), False),
                               ("ten_v0, 5 players", lambda: ten_env.env(num_players=5), False),
                               ("ten_v0, solitaire", lambda: ten_env.env(jen_level=7), False),
                               ("leduc_holdem_v4", _peer("leduc_holdem_v4"), True),
                               ("texas_holdem_no_limit_v6", _peer("texas_holdem_no_limit_v6"), True)]:
        if make is None:
            missing.append(label)
        else:
            env_rows.append(Row(label, *aec(make, quiet)))
    feature_rows = [Row("DerivedFeatures(SoloEnv)", *gym(lambda: DerivedFeatures(SoloEnv(jen_level=8)))),
                    Row("SoloEnv", *gym(lambda: SoloEnv(jen_level=8)))]
    total = seconds * (len(engine_rows) + len(env_rows) + len(feature_rows))
    print(f"each row measured for {seconds:g} s, in turns of up to {TURN:g} s (about {total:,.0f} s in all); "
          f"a ratio is a row's decisions a second over its peer's, above 1 when the row is faster")

    print("engine: random legal play")
    measure(engine_rows, seconds)
    _show(engine_rows, engine_rows[-1] if core is not None else None, [] if core is not None else ["RLCard leduc core"])
    print("environment: env() with wrappers, observation and mask read at every decision")
    measure(env_rows, seconds)
    _show(env_rows, next((row for row in env_rows if row.label == "leduc_holdem_v4"), None), missing)
    print("derived features: SoloEnv (JEN 8), random legal play, mask read at every decision")
    measure(feature_rows, seconds)
    _show(feature_rows, feature_rows[1], [])
    return 0
