"""``play_games``: seeded games between agents, seats rotated, results tallied."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ten_env import Game, Rules
from ten_env import observation as O
from ten_env.game import score_margin
from ten_env.rules import as_rules

from .base import move_of, refusals_of


@dataclass
class Results:
    """Per-agent tallies over the games played (index = position in the agents list)."""

    games: int = 0
    wins: list = field(default_factory=list)  # sole wins
    shared_wins: list = field(default_factory=list)
    total_scores: list = field(default_factory=list)
    margins: list = field(default_factory=list)  # summed: own score - best other score
    decisions: list = field(default_factory=list)  # actions chosen (the engine's JEN not counted)
    seconds: list = field(default_factory=list, compare=False)  # time spent choosing them (varies run to run)
    #: Each game, in deck-seed order, as ``(deck_seed, outcomes, margins)``: per agent, ``"W"``
    #: (sole win), ``"T"`` (a win shared in a tie) or ``"L"``, and own score - best other score.
    #: Two agents played on the same deck seeds can so be compared deal by deal.
    per_game: list = field(default_factory=list)

    @property
    def seconds_per_decision(self) -> list[float]:
        return [t / d if d else 0.0 for t, d in zip(self.seconds, self.decisions)]

    @property
    def mean_scores(self) -> list[float]:
        return [s / self.games for s in self.total_scores] if self.games else []

    @property
    def win_rates(self) -> list[float]:
        return [w / self.games for w in self.wins] if self.games else []

    @property
    def mean_margins(self) -> list[float]:
        return [m / self.games for m in self.margins] if self.games else []

    def merge(self, *others: "Results") -> "Results":
        """These tallies and ``others`` together, as a new ``Results`` (none is changed).

        The tallies one ``play_games`` run over the games of all would give, for the
        same agents in the same order; ``Results()`` (nothing played yet) merges as nothing.
        """
        parts = [r for r in (self, *others) if r.games or r.wins]
        if len({len(r.wins) for r in parts}) > 1:
            raise ValueError(f"cannot merge the results of {' and '.join(str(len(r.wins)) for r in parts)} agents")

        def total(name: str) -> list:
            return [sum(values) for values in zip(*(getattr(r, name) for r in parts))]

        return Results(sum(r.games for r in parts), total("wins"), total("shared_wins"),
                       total("total_scores"), total("margins"), total("decisions"), total("seconds"),
                       sorted(game for r in parts for game in r.per_game))


def player_view(game: Game, seat: int, player: object) -> tuple[dict, dict]:
    """(observation, info) for ``player`` in ``seat``: what a PettingZoo agent sees; an agent
    whose ``sees_deck_order`` is true (:class:`agents.OracleAgent`, which cheats on
    purpose) also gets the game itself as ``info["game"]``."""
    observation, info = O.agent_view(game, seat)
    if getattr(player, "sees_deck_order", False):
        info["game"] = game
    return observation, info


def play_game(game: Game, players: list, clock: list | None = None) -> None:
    """Play ``game`` to the end; ``players[seat]`` is a policy (callable or agent) that
    sees :func:`player_view`. ``clock``, if given, holds ``[decisions, seconds]`` per seat
    and is added to: how many actions each seat chose and how long it took."""
    while not game.is_over:
        seat = game.current_player
        assert seat is not None  # the game is not over
        player = players[seat]
        view = player_view(game, seat, player)
        start = time.perf_counter()
        action = move_of(player, seat, *view)
        if clock is not None:
            clock[seat][0] += 1
            clock[seat][1] += time.perf_counter() - start
        with refusals_of(player, seat):
            game.act(action)


#: How :func:`agent_seed` makes agents' seeds; a journal of ``ten eval``, ``ten league`` or
#: ``ten distill`` records it, so that a run begun with other seeds is not finished with these.
#: 1: ``deck seed + 1000003 * position`` (to commit ed8c282), which gave the only agent of a
#: solitaire game its deck's own seed; 2: a hash of the two, below.
AGENT_SEEDS = 2


def agent_seed(deck_seed: int, position: int) -> int:
    """The seed the agent at ``position`` in the list is reset with before the game dealt by
    ``deck_seed``: a hash of the two (NumPy's ``SeedSequence``), not the deck seed itself, which
    would let an agent deal itself the deck (``Game(rules, seed=...)``) and see its order.

    No seeded benchmark can hide the deck from an agent bent on finding it (deck seeds are small
    numbers, and trying them against the first cards drawn would find one); this keeps an honest
    agent's own random numbers, such as a search's sampled decks, apart from the true order."""
    return int(np.random.SeedSequence([deck_seed, position, 0x7E4]).generate_state(1)[0] >> 1)


def seeded_games(agents: list, rules: Rules, n: int, seed: int, clock: list | None = None,
                 play: Callable[[int, list[int]], Any] | None = None) -> Iterator[tuple[Any, list[int]]]:
    """Play ``n`` games, yielding each finished one as ``(game, order)``: game ``i`` uses deck
    seed ``seed + i`` and seats rotated by ``i`` (``order[seat]`` is the index of the agent
    in that seat); every agent is reset with a seed of its own before each game
    (:func:`agent_seed`). ``clock``,
    if given, holds ``[decisions, seconds]`` per agent and is added to (see :func:`play_game`).

    ``play``, if given, plays each game instead of :func:`play_game`: ``play(deck_seed,
    order)`` is called after the resets and what it returns is yielded in place of the game
    (``train.record`` records the evaluation's games this way); ``clock`` is then not kept.
    """
    if play is not None and clock is not None:
        raise ValueError("seeded_games keeps a clock only for the games play_game plays: give clock or play")
    k = len(agents)
    for i in range(n):
        order = [(j + i) % k for j in range(k)]
        for j, agent in enumerate(agents):
            if hasattr(agent, "reset"):
                agent.reset(seed=agent_seed(seed + i, j))
        if play is not None:
            yield play(seed + i, order), order
            continue
        game = Game(rules, seed=seed + i)
        seats = [[0, 0.0] for _ in order]
        play_game(game, [agents[a] for a in order], seats)
        if clock is not None:
            for seat, a in enumerate(order):
                clock[a][0] += seats[seat][0]
                clock[a][1] += seats[seat][1]
        yield game, order


def play_games(agents: list, rules: Rules | Mapping[str, Any] | None = None, n: int = 100, seed: int = 0) -> Results:
    """Play ``n`` games; game ``i`` uses deck seed ``seed + i`` and seats rotated by ``i``.

    ``agents`` has one agent per seat (``num_players`` of them), or exactly one in
    the solitaire game (it plays seat 0 against the engine's JEN; JEN's results
    are then not tallied). ``rules``: a :class:`~ten_env.Rules`, a dict of its fields or
    ``None`` (the defaults). ``n`` is at least 1; ``seed`` a non-negative integer.
    """
    rules = as_rules(rules)
    seats = rules.num_agents
    if isinstance(agents, (str, bytes)) or not hasattr(agents, "__len__"):
        raise ValueError(f"play_games needs a list of {seats} agent(s), got {agents!r}")
    if len(agents) != seats:
        raise ValueError(f"play_games needs {seats} agent(s) for these rules, got {len(agents)}")
    for i, agent in enumerate(agents):
        if not (hasattr(agent, "act") or callable(agent)):
            hint = f" (agents.make_agent({agent!r}) makes one by name)" if isinstance(agent, str) else ""
            raise ValueError(f"play_games: agent {i} is {agent!r}, not an agent (something with act() or a "
                             f"callable policy){hint}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"play_games: n must be a whole number of games, at least 1, got {n!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"play_games: seed must be a non-negative integer, got {seed!r}")
    n, seed = int(n), int(seed)
    k = len(agents)
    results = Results(wins=[0] * k, shared_wins=[0] * k, total_scores=[0] * k, margins=[0] * k)
    clock = [[0, 0.0] for _ in range(k)]
    for i, (game, order) in enumerate(seeded_games(agents, rules, n, seed, clock)):
        scores, winners = game.scores(), game.winners()
        outcomes, margins = [""] * k, [0] * k
        for seat, a in enumerate(order):
            outcomes[a] = "L" if seat not in winners else "W" if len(winners) == 1 else "T"
            margins[a] = score_margin(scores, seat)
            if outcomes[a] == "W":
                results.wins[a] += 1
            elif outcomes[a] == "T":
                results.shared_wins[a] += 1
            results.total_scores[a] += scores[seat]
            results.margins[a] += margins[a]
        results.per_game.append((seed + i, tuple(outcomes), tuple(margins)))
        results.games += 1
    results.decisions = [decisions for decisions, _ in clock]
    results.seconds = [seconds for _, seconds in clock]
    return results
