"""``play_games``: seeded games between agents, seats rotated, results tallied."""

from __future__ import annotations

from dataclasses import dataclass, field

from ten_env import Game, Rules
from ten_env.game import score_margin
from ten_env import observation as O


@dataclass
class Results:
    """Per-agent tallies over the games played (index = position in the agents list)."""

    games: int = 0
    wins: list = field(default_factory=list)  # sole wins
    shared_wins: list = field(default_factory=list)
    total_scores: list = field(default_factory=list)
    margins: list = field(default_factory=list)  # summed: own score - best other score

    @property
    def mean_scores(self) -> list[float]:
        return [s / self.games for s in self.total_scores] if self.games else []

    @property
    def win_rates(self) -> list[float]:
        return [w / self.games for w in self.wins] if self.games else []

    @property
    def mean_margins(self) -> list[float]:
        return [m / self.games for m in self.margins] if self.games else []

    def merge(self, other: "Results") -> "Results":
        """Both tallies together, as a new ``Results`` (neither is changed).

        The tallies one ``play_games`` run over the games of both would give, for the
        same agents in the same order; ``Results()`` (nothing played yet) merges as nothing.
        """
        parts = [r for r in (self, other) if r.games or r.wins]
        if len(parts) == 2 and len(self.wins) != len(other.wins):
            raise ValueError(f"cannot merge the results of {len(self.wins)} and {len(other.wins)} agents")

        def total(name: str) -> list:
            return [sum(values) for values in zip(*(getattr(r, name) for r in parts))]

        return Results(sum(r.games for r in parts), total("wins"), total("shared_wins"),
                       total("total_scores"), total("margins"))


def player_view(game: Game, seat: int, player) -> tuple[dict, dict]:
    """(observation, info) for ``player`` in ``seat``: what a PettingZoo agent sees; an agent
    whose ``sees_deck_order`` is true (:class:`agents.OracleAgent`, which cheats on
    purpose) also gets the game itself as ``info["game"]``."""
    observation, info = O.agent_view(game, seat)
    if getattr(player, "sees_deck_order", False):
        info["game"] = game
    return observation, info


def play_game(game: Game, players: list) -> None:
    """Play ``game`` to the end; ``players[seat]`` is a policy (callable or agent) that
    sees :func:`player_view`."""
    while not game.is_over:
        seat = game.current_player
        player = players[seat]
        act = player.act if hasattr(player, "act") else player
        game.act(act(*player_view(game, seat, player)))


def seeded_games(agents: list, rules: Rules, n: int, seed: int):
    """Play ``n`` games, yielding each finished one as ``(game, order)``: game ``i`` uses deck
    seed ``seed + i`` and seats rotated by ``i`` (``order[seat]`` is the index of the agent
    in that seat); every agent is reset with a seed of its own before each game."""
    k = len(agents)
    for i in range(n):
        order = [(j + i) % k for j in range(k)]
        for j, agent in enumerate(agents):
            if hasattr(agent, "reset"):
                agent.reset(seed=seed + i + 1000003 * j)
        game = Game(rules, seed=seed + i)
        play_game(game, [agents[a] for a in order])
        yield game, order


def play_games(agents: list, rules: Rules | None = None, n: int = 100, seed: int = 0) -> Results:
    """Play ``n`` games; game ``i`` uses deck seed ``seed + i`` and seats rotated by ``i``.

    ``agents`` has one agent per seat (``num_players`` of them), or exactly one in
    the solitaire game (it plays seat 0 against the engine's JEN; JEN's results
    are then not tallied).
    """
    rules = Rules() if rules is None else rules
    seats = rules.num_agents
    if len(agents) != seats:
        raise ValueError(f"play_games needs {seats} agent(s) for these rules, got {len(agents)}")
    k = len(agents)
    results = Results(wins=[0] * k, shared_wins=[0] * k, total_scores=[0] * k, margins=[0] * k)
    for game, order in seeded_games(agents, rules, n, seed):
        scores, winners = game.scores(), game.winners()
        for seat, a in enumerate(order):
            if seat in winners:
                if len(winners) == 1:
                    results.wins[a] += 1
                else:
                    results.shared_wins[a] += 1
            results.total_scores[a] += scores[seat]
            results.margins[a] += score_margin(scores, seat)
        results.games += 1
    return results
