"""A league: every agent against the others at tables of N players, and a rating for each.

``ten league AGENT AGENT ... --players N --games G`` (or :func:`league` from Python).

**Schedule.** With ``A`` agents (at least ``N``, each named once) every combination
of ``N`` of them sits at one table: ``C(A, N)`` tables (two agents at 2 players: one
table; five agents at 4 players: five). Each table plays ``G`` games; game ``i`` of
*every* table uses deck seed ``seed + i`` and the seats rotate game by game as in
:func:`agents.play_games` (game ``i`` puts the table's agent ``j`` in seat
``(j - i) mod N``), so every agent meets the same decks, and every seat equally
often when ``G`` is a multiple of ``N`` (otherwise the first ``G mod N`` seats of the rotation
once more: 34, 33 and 33 starts in 100 games at 3 players). The games are cut into chunks on worker processes by :mod:`train.runner`
(``--jobs``, all cores by default); the results do not depend on the number of jobs.

**Ratings.** A Bradley-Terry model fitted to pairwise outcomes: each game of
``N`` players gives ``N(N-1)/2`` pairwise results, from the players' final
order (score, then money, then fewest cards: the rulebook's order for the
winner); a full tie counts half to each. The strengths are fitted by maximum
likelihood (Newton's method) with a weak Gaussian prior (sd :data:`PRIOR_SD` on the log
strength) that keeps a rating finite when an agent wins or loses every
comparison, and shown on the Elo scale: mean :data:`MEAN_RATING`, and a
difference of 400 points means odds of 10 to 1 in a pairwise comparison. The 95%
interval of each rating is a percentile bootstrap (:data:`BOOTSTRAP` refits),
resampling the deals with replacement, seeded by ``--seed``, each drawn deal taken
at every table. Neither the pairwise outcomes within one game nor one deal's games
at different tables are independent (a deal kind to an agent is kind to it at each of
its tables); resampling whole deals accounts for both. The win rate's Wilson
interval is taken over the games divided by their design effect (:func:`train.stats.design_effect`,
reported per agent), for the same reason: in the README's leagues of nine agents, 1.00 to 1.03
at 2 players and 1.18 to 2.13 at 4, where an interval is up to 1.46 times as wide as one that
counts every game as independent. The bootstrap only sees what was played: when an agent won
every comparison (a few games, or a far stronger agent) its interval is narrow
and its rating rests on the prior; the win rate's Wilson interval is then the
honest measure, and more ``--games`` the cure.

**Report.** A table (agent, games, sole wins, win rate with its Wilson interval,
mean score, rating with its interval), ``league.json`` (everything, per table
too) and ``league.png`` (the ratings with their intervals) in ``--out``
(default ``runs/league``). A folder that already holds a league report is refused
unless ``--overwrite`` is given; then only those two files are replaced.

**Resume.** As ``ten eval`` does (:mod:`train.journal`), a league keeps the games it has
played in ``progress.jsonl`` in ``--out`` until its report is saved; one that stops
(Ctrl-C, a closed terminal) goes on with the same command and ``--resume`` (``--jobs`` may
differ) to the report an unbroken league would have written.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from agents.registry import NAMES_HELP, is_entry_point, network_of
from agents.tournament import AGENT_SEEDS, seeded_games
from ten_env import Rules
from ten_env.deck import load as load_deck
from ten_env.record import write_atomically
from ten_env.rules import PLAYER_COUNTS, as_rules

from .options import (Parser, add_jobs_argument, add_progress_argument, add_rules_arguments, add_trust_argument,
                      MAX_GAMES, at_least, check_max_bid, int_range, is_whole, need_training_extra, prepare_out_dir,
                      rules_from_args, run_command, span, whole_number, within)
from .journal import Codec, Journal, Resumable, code_digest, file_digests, with_rules_and_files
from .report import BASE_RULES_KEYS
from .runner import Chunk, chunks, default_jobs, run_chunks, seat_agents
from .stats import CONFIDENCE, clustered_wilson_interval

#: Every file :func:`save_league` writes in its folder; nothing else there is ever touched.
LEAGUE_FILES = ("league.json", "league.png")
DEFAULT_OUT = Path("runs") / "league"
#: Bootstrap refits behind each rating's interval.
BOOTSTRAP = 200
#: The standard deviation of the Gaussian prior on each log strength (natural log units).
PRIOR_SD = 5.0
#: The mean rating; ratings are on the Elo scale (400 points: odds of 10 to 1).
MEAN_RATING = 1500.0
ELO_SCALE = 400.0 / math.log(10.0)


# --------------------------------------------------------------------------- playing


def play_table(agents: list, rules: Rules, n: int, seed: int) -> list[tuple]:
    """``n`` games of ``agents`` (one per seat), seeds and seats as :func:`agents.play_games`.

    One record per game: ``(scores, keys, winners)``, each indexed by the agent's
    position in ``agents``: its score, its finishing key (:meth:`ten_env.Game.standing`)
    (higher is better), and the positions of the winners.
    """
    k = len(agents)
    records = []
    for game, order in seeded_games(agents, rules, n, seed):
        scores, by_agent_score, by_agent_key = game.scores(), [0] * k, [None] * k
        for seat, a in enumerate(order):
            by_agent_score[a] = scores[seat]
            by_agent_key[a] = game.standing(seat)
        records.append((tuple(by_agent_score), tuple(by_agent_key), tuple(sorted(order[s] for s in game.winners()))))
    return records


def _play_chunk(chunk: Chunk, cache: dict) -> tuple[int, int, list]:
    rules = as_rules(chunk.rules)
    agents = seat_agents(chunk.specs, cache, chunk.trust)
    return chunk.index, chunk.first_seed, play_table(agents, rules, chunk.games, chunk.first_seed)


def play_tables(tables: list[tuple], games: int, seed: int, jobs: int, cache: dict | None = None,
                trust: bool = False, progress: bool = False, journal: Journal | None = None) -> list[list]:
    """The game records of every table (``(specs, rules dict)``), in game order, whatever ``jobs``;
    with a ``journal``, its chunks but those it holds are played, each recorded as it ends."""
    parts: list[dict] = [{} for _ in tables]

    def done(task: Chunk, result: tuple[int, int, list]) -> None:
        index, first_seed, records = result
        parts[index][first_seed] = records

    run_chunks(chunks(tables, games, seed, jobs, trust), _play_chunk, jobs, {} if cache is None else cache,
               done, progress, desc="league", journal=journal)
    return [[record for first in sorted(part) for record in part[first]] for part in parts]


def _records_back(entry: dict) -> tuple[int, int, list]:
    """A chunk's result as :func:`_play_chunk` gave it, from its journal line (JSON's lists made tuples)."""
    index, first_seed, _ = entry["chunk"]
    return index, first_seed, [(tuple(scores), tuple(tuple(key) for key in keys), tuple(winners))
                               for scores, keys, winners in entry["records"]]


def _records_fit(chunk: Chunk, result: tuple) -> bool:
    """Whether a chunk's records read back are what its games give: one a game, each with a score
    and a standing ((score, money, -cards): whole numbers) per agent, the winners those standing
    highest."""
    index, first_seed, records = result
    k = len(chunk.specs)
    return index == chunk.index and first_seed == chunk.first_seed and len(records) == chunk.games and all(
        len(scores) == k and all(map(is_whole, scores)) and len(keys) == k
        and all(len(key) == 3 and all(map(is_whole, key)) for key in keys)
        and [key[0] for key in keys] == list(scores)
        and winners == tuple(a for a in range(k) if keys[a] == max(keys)) for scores, keys, winners in records)


#: How a league's chunks are kept in its journal: each game's record on the chunk's line.
RECORDS = Codec(lambda chunk, result: {"records": result[2]}, _records_back, _records_fit)


def league_identity(plan: dict) -> dict:
    """What makes two leagues the same one: the agents, table size, games, seed, rules and files."""
    return with_rules_and_files({"agents": plan["agents"], "num_players": plan["num_players"],
                                 "games": plan["games"], "seed": plan["seed"]}, _journal_plan(plan))


def _journal_plan(plan: dict) -> dict:
    """``plan`` as :mod:`train.journal` reads a run's: its tables are the matchups."""
    return {**plan, "matchups": plan["tables"]}


# --------------------------------------------------------------------------- ratings


def pairwise_matrices(records: list[tuple], k: int) -> np.ndarray:
    """``(games, k, k)``: entry ``[g, a, b]`` is 1 when ``a`` finished ahead of ``b`` in game ``g``, 0.5 on a tie."""
    out = np.zeros((len(records), k, k))
    for g, (_, keys, _) in enumerate(records):
        for a, b in itertools.combinations(range(k), 2):
            if keys[a] > keys[b]:
                out[g, a, b] = 1.0
            elif keys[a] < keys[b]:
                out[g, b, a] = 1.0
            else:
                out[g, a, b] = out[g, b, a] = 0.5
    return out


def bradley_terry(wins: np.ndarray, prior_sd: float = PRIOR_SD) -> np.ndarray:
    """Log strengths (mean 0) fitted to ``wins[i, j]`` (times ``i`` finished ahead of ``j``).

    The maximum of the likelihood of ``P(i ahead of j) = sigmoid(s_i - s_j)`` times a
    Gaussian prior of sd ``prior_sd`` on each ``s_i``: a strictly convex problem,
    solved by Newton's method with a backtracking line search.
    """
    from scipy.special import expit, log_expit

    wins = np.asarray(wins, dtype=float)
    k = wins.shape[0]
    precision = 1.0 / prior_sd ** 2

    def loss(s: np.ndarray) -> float:
        return -np.sum(wins * log_expit(s[:, None] - s[None, :])) + precision * np.sum(s * s) / 2

    s = np.zeros(k)
    value = loss(s)
    for _ in range(100):
        d = s[:, None] - s[None, :]
        g = wins * expit(-d)
        grad = -g.sum(axis=1) + g.sum(axis=0) + precision * s
        curvature = (wins + wins.T) * expit(d) * expit(-d)
        hessian = np.diag(curvature.sum(axis=1) + precision) - curvature
        step = np.linalg.solve(hessian, grad)
        t = 1.0
        while True:
            candidate = s - t * step
            new_value = loss(candidate)
            if new_value <= value - 1e-4 * t * float(grad @ step) or t < 1e-8:
                break
            t /= 2
        s, improvement, value = candidate, value - new_value, new_value
        if np.max(np.abs(t * step)) < 1e-10 or improvement < 1e-12:
            break
    return s - s.mean()


def to_rating(strengths: np.ndarray) -> np.ndarray:
    return MEAN_RATING + ELO_SCALE * np.asarray(strengths)


def fit_ratings(tables: list[tuple[list[int], np.ndarray]], k: int, seed: int,
                bootstrap: int = BOOTSTRAP) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(ratings, low, high, wins)`` for ``k`` agents from each table's ``(agent indices, pairwise matrices)``.

    Every table plays the same deals in the same order (game ``i`` on deck seed ``seed + i``).
    The interval resamples the deals with replacement, ``bootstrap`` times, each drawn deal
    taken at every table: one deal's games at different tables are alike (a deal kind to an
    agent is kind to it at each of its tables), so resampling each table on its own would
    count them as independent and narrow the interval.
    """
    sizes = {len(per_game) for _, per_game in tables}
    if len(sizes) > 1:
        raise ValueError(f"every table must play the same deals; got tables of {sorted(sizes)} games")
    deals = sizes.pop() if sizes else 0

    def total(weights: list[np.ndarray]) -> np.ndarray:
        wins = np.zeros((k, k))
        for (members, per_game), w in zip(tables, weights):
            idx = np.asarray(members)
            wins[np.ix_(idx, idx)] += np.tensordot(w, per_game, axes=1)
        return wins

    wins = total([np.ones(len(per_game)) for _, per_game in tables])
    ratings = to_rating(bradley_terry(wins))
    rng = np.random.default_rng(seed)
    samples = []
    for _ in range(bootstrap if deals else 0):  # no deals, nothing to resample
        drawn = rng.multinomial(deals, np.full(deals, 1 / deals))
        samples.append(to_rating(bradley_terry(total([drawn] * len(tables)))))
    if samples:
        tail = 100 * (1 - CONFIDENCE) / 2
        low, high = np.percentile(np.array(samples), [tail, 100 - tail], axis=0)
    else:
        low, high = ratings.copy(), ratings.copy()
    return ratings, low, high, wins


# --------------------------------------------------------------------------- the league


def _check_agents(agents: str | Iterable[str], num_players: int) -> list[str]:
    if isinstance(agents, str):
        agents = [agents]
    try:
        specs = [a.strip() for a in agents]
    except (TypeError, AttributeError):
        raise ValueError(f"agents must be a list of names ({NAMES_HELP}), got {agents!r}") from None
    if any(not s for s in specs):
        raise ValueError(f"an agent name is empty; use {NAMES_HELP}")
    if len(specs) < 2:
        raise ValueError(f"a league needs at least two agents ({NAMES_HELP}), got {len(specs)}")
    repeated = sorted({s for s in specs if specs.count(s) > 1})
    if repeated:
        raise ValueError(f"agent {repeated[0]!r} is named more than once: name each agent once")
    if isinstance(num_players, bool) or not isinstance(num_players, int) or num_players not in PLAYER_COUNTS:
        raise ValueError(f"players must be a whole number from {PLAYER_COUNTS[0]} to {PLAYER_COUNTS[-1]}, "
                         f"got {num_players!r}")
    if num_players > len(specs):
        raise ValueError(f"tables of {num_players} players need at least {num_players} agents, got "
                         f"{len(specs)}: give more agents or --players {_up_to(len(specs))}")
    return specs


def _identity(agent: object, spec: str) -> str:
    """What an agent is, whatever name gave it (``jen:7`` and ``jen:07``; a model's file by its
    shipped name, a relative or an absolute path): a network by its file, a search by its budget
    and options and its network's file; your own agent by its name (two of your classes may print
    alike)."""
    if is_entry_point(spec):
        return f"your own {spec.strip()}"
    network = network_of(agent)
    path = getattr(network, "path", None)
    if path is None:
        return repr(agent)
    file = str(Path(path).resolve())
    return f"{type(agent).__name__}({file!r})" if network is agent else f"{agent!r} over {file!r}"


def _up_to(count: int) -> str:
    """The table sizes ``count`` agents can fill, as words: ``2``, ``2 or 3``, ``2 to 4``."""
    sizes = [n for n in PLAYER_COUNTS if n <= count]
    return str(sizes[0]) if len(sizes) == 1 else " or ".join(map(str, sizes)) if len(sizes) == 2 else \
        f"{sizes[0]} to {sizes[-1]}"


def prepare(agents: str | Iterable[str], *, num_players: int = 2, games: int = 100, seed: int = 0,
            jobs: int | None = None, rules: dict | None = None, trust: bool = False) -> dict:
    """Check every input of :func:`league` (loading each agent once); nothing is played."""
    specs = _check_agents(agents, num_players)
    whole_number("games", games, 1, MAX_GAMES)
    whole_number("seed", seed, 0)
    jobs = whole_number("jobs", default_jobs() if jobs is None else jobs, 1)
    base = dict(rules or {})
    unknown = [key for key in base if key not in BASE_RULES_KEYS]
    if unknown:
        raise ValueError(f"unknown rules key {unknown[0]!r} (allowed keys: {', '.join(BASE_RULES_KEYS)})")
    try:
        checked = Rules(**base, num_players=num_players)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"rules: {exc}") from None
    base = {key: getattr(checked, key) for key in BASE_RULES_KEYS}
    load_deck(base["deck_file"])

    cache: dict = {}
    seen: dict = {}  # what each agent is, by the name that first gave it
    loaded = []
    for spec in specs:  # every name checked here, once, before any worker starts
        try:
            agent = seat_agents((spec,), {}, trust)[0]
        except ValueError as exc:
            message = str(exc)
            raise ValueError(message if spec in message else f"agent {spec!r}: {message}") from None
        loaded.append(agent)
        same = seen.setdefault(_identity(agent, spec), spec)
        if same != spec:
            raise ValueError(f"agents {same!r} and {spec!r} are the same agent ({agent!r}): name each agent once")
        try:
            check_max_bid(agent, base["max_bid"])
        except ValueError as exc:
            raise ValueError(f"agent {spec!r} cannot sit at this table: {exc}") from None
    rules_dict = {**base, "num_players": num_players, "jen_level": None}
    tables = [(combo, rules_dict) for combo in itertools.combinations(specs, num_players)]
    return {"agents": specs, "num_players": num_players, "games": games, "seed": seed, "jobs": jobs,
            "rules": {"num_players": num_players, **base}, "tables": tables, "cache": cache, "trust": trust,
            "files": file_digests(loaded, base["deck_file"], specs)}  # what the league reads, for --resume


def execute(plan: dict, progress: bool = False, bootstrap: int = BOOTSTRAP, journal: Journal | None = None) -> dict:
    """Play what :func:`prepare` checked (the chunks ``journal`` lacks, recording each there); the
    league report."""
    specs, tables = plan["agents"], plan["tables"]
    index = {spec: i for i, spec in enumerate(specs)}
    k = len(specs)
    records = play_tables(tables, plan["games"], plan["seed"], plan["jobs"], plan["cache"], plan["trust"],
                          progress, journal)
    games, wins, shared, score = [0] * k, [0] * k, [0] * k, [0] * k
    deal_wins, deal_games = np.zeros((k, plan["games"]), dtype=np.int64), np.zeros((k, plan["games"]), dtype=np.int64)
    table_entries, fit_input = [], []
    for (combo, _), table_records in zip(tables, records):
        members = [index[s] for s in combo]
        n = len(combo)
        t_wins, t_shared, t_score = [0] * n, [0] * n, [0] * n
        for deal, (scores, _, winners) in enumerate(table_records):
            deal_games[members, deal] += 1
            for a in range(n):
                t_score[a] += scores[a]
            for a in winners:
                if len(winners) == 1:
                    t_wins[a] += 1
                    deal_wins[members[a], deal] += 1
                else:
                    t_shared[a] += 1
        for a, m in enumerate(members):
            games[m] += len(table_records)
            wins[m] += t_wins[a]
            shared[m] += t_shared[a]
            score[m] += t_score[a]
        table_entries.append({"agents": list(combo), "games": len(table_records), "wins": t_wins,
                              "shared_wins": t_shared,
                              "mean_scores": [s / len(table_records) for s in t_score]})
        fit_input.append((members, pairwise_matrices(table_records, n)))
    ratings, low, high, pair_wins = fit_ratings(fit_input, k, plan["seed"], bootstrap)
    standings = []
    for m, spec in enumerate(specs):
        w_low, w_high, effect = clustered_wilson_interval(deal_wins[m], deal_games[m])
        standings.append({
            "agent": spec, "games": games[m], "wins": wins[m], "shared_wins": shared[m],
            "win_rate": wins[m] / games[m], "win_ci_low": w_low, "win_ci_high": w_high, "design_effect": effect,
            "mean_score": score[m] / games[m],
            "rating": float(ratings[m]), "rating_low": float(low[m]), "rating_high": float(high[m]),
        })
    standings.sort(key=lambda row: (-row["rating"], row["agent"]))
    return {
        "mode": "league",
        "agents": list(specs),
        "num_players": plan["num_players"],
        "games_per_table": plan["games"],
        "seed": plan["seed"],
        "agent_seeds": AGENT_SEEDS,  # how the agents were seeded (agents.tournament.agent_seed)
        "code": code_digest(),  # which code played the games (train.journal.code_digests)
        "confidence": CONFIDENCE,
        "rules": dict(plan["rules"]),
        "schedule": f"every combination of {plan['num_players']} of the {k} agents, {len(tables)} tables; "
                    f"game i of every table on deck seed seed+i, seats rotated game by game",
        "rating_method": {"model": "Bradley-Terry on pairwise finishing order (ties count half)",
                          "scale": f"Elo: mean {MEAN_RATING:g}, 400 points = 10:1 odds",
                          "prior_sd": PRIOR_SD,
                          "interval": "percentile bootstrap over deals, each drawn deal taken at every table",
                          "bootstrap": bootstrap},
        "win_interval": "Wilson over the games divided by the design effect of the deals (each deal is "
                        "played at every table of an agent)",
        "standings": standings,
        "pairwise_wins": {"agents": list(specs), "wins": pair_wins.tolist()},
        "tables": table_entries,
    }


def league(agents: str | Iterable[str], *, num_players: int = 2, games: int = 100, seed: int = 0,
           jobs: int | None = None, rules: dict | None = None, trust: bool = False, progress: bool = False,
           bootstrap: int = BOOTSTRAP) -> dict:
    """Play a league of ``agents`` at tables of ``num_players``; the JSON-ready report.

    ``games`` per table; ``rules``: any of ``bust_buy``, ``payment``, ``max_bid``,
    ``deck_file``. ``ValueError`` on bad input: an unknown agent, fewer than two, one
    named twice, ``num_players`` outside 2-5 or above the number of agents, a model
    made for another game, the training extra not installed (the ratings need scipy).
    """
    need_training_extra("league()", "scipy")  # the ratings: say so before the games, not after
    plan = prepare(agents, num_players=num_players, games=games, seed=seed, jobs=jobs, rules=rules, trust=trust)
    return execute(plan, progress=progress, bootstrap=bootstrap)


# --------------------------------------------------------------------------- report


def format_league(report: dict) -> str:
    """The standings as an aligned text table, best rating first."""
    pct = round(100 * report.get("confidence", CONFIDENCE))
    lines = [(f"league of {len(report['agents'])} agents at tables of {report['num_players']} players, "
             f"{len(report['tables'])} table{'s' if len(report['tables']) != 1 else ''} of "
             f"{report['games_per_table']} games, seeds from {report['seed']}; "
             f"Bradley-Terry ratings (Elo scale) with {pct}% bootstrap intervals")]
    header = ("agent", "games", "wins", "win %", f"{pct}% interval", "mean score", "rating", f"{pct}% interval")
    rows = [(r["agent"], str(r["games"]), str(r["wins"]), f"{100 * r['win_rate']:.1f}",
             f"{100 * r['win_ci_low']:.1f} - {100 * r['win_ci_high']:.1f}", f"{r['mean_score']:.1f}",
             f"{r['rating']:.0f}", f"{r['rating_low']:.0f} - {r['rating_high']:.0f}")
            for r in report["standings"]]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(row: tuple[str, ...]) -> str:
        cells = [row[0].ljust(widths[0])] + [cell.rjust(w) for cell, w in zip(row[1:], widths[1:])]
        return "  ".join(cells).rstrip()

    lines += [line(header), line(tuple("-" * w for w in widths))] + [line(row) for row in rows]
    lines.append(f"(win %: sole wins, a fair share is {100 / report['num_players']:.0f}%)")
    effects = [r["design_effect"] for r in report["standings"] if "design_effect" in r]
    if effects and round(max(effects), 2) > 1:
        lines.append(f"(win intervals over games / design effect, {min(effects):.2f} to {max(effects):.2f}: "
                     f"each deal is played at every table)")
    shared = sum(r["shared_wins"] for r in report["standings"])
    if shared:
        lines.append(f"({shared} shared wins not counted as wins)")
    return "\n".join(lines)


def save_league(report: dict, out_dir: str | Path) -> tuple[Path, Path]:
    """Write ``league.json`` and ``league.png`` in ``out_dir``; their paths."""
    import json

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, png_path = out_dir / LEAGUE_FILES[0], out_dir / LEAGUE_FILES[1]
    text = json.dumps(report, indent=2) + "\n"
    write_atomically(json_path, lambda tmp: tmp.write_text(text))
    plot_league(report, png_path)
    return json_path, png_path


def plot_league(report: dict, path: str | Path) -> None:
    """The ratings with their intervals, best at the top, as a PNG."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = report["standings"]
    y = list(range(len(rows)))[::-1]
    figure = Figure(figsize=(6.4, 1.2 + 0.45 * len(rows)))
    FigureCanvasAgg(figure)
    ax = figure.add_subplot()
    ax.errorbar([r["rating"] for r in rows], y,
                xerr=[[r["rating"] - r["rating_low"] for r in rows], [r["rating_high"] - r["rating"] for r in rows]],
                fmt="o", capsize=4)
    ax.axvline(MEAN_RATING, linestyle="--", color="grey", linewidth=1)
    ax.set_yticks(y)
    ax.set_yticklabels([r["agent"] for r in rows])
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlabel(f"rating (Elo scale), {round(100 * report.get('confidence', CONFIDENCE))}% bootstrap interval")
    ax.set_title(f"league at {report['num_players']} players, {report['games_per_table']} games per table",
                 fontsize=10)
    ax.grid(alpha=0.3, axis="x")
    figure.tight_layout()
    write_atomically(path, lambda tmp: figure.savefig(tmp, dpi=120))


# --------------------------------------------------------------------------- command line


def add_league_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("agents", nargs="+", metavar="AGENT", help=f"two or more agents: {NAMES_HELP}")
    parser.add_argument("--players", type=within(PLAYER_COUNTS, "--players"), default=2, metavar="N",
                        help=f"players at each table, {span(PLAYER_COUNTS)}, at most the number of agents "
                             f"(default 2); every combination of N agents plays")
    parser.add_argument("--games", type=int_range(1, MAX_GAMES, "--games"), default=100, metavar="G",
                        help="games per table (default 100)")
    parser.add_argument("--seed", type=at_least(0, "--seed"), default=0, metavar="S",
                        help="game i of every table uses deck seed S+i; also seeds the bootstrap (default 0)")
    add_jobs_argument(parser, metavar="J")
    add_progress_argument(parser)
    add_rules_arguments(parser)
    parser.add_argument("--out", metavar="DIR", help=f"where to save league.json / league.png "
                                                      f"(default {DEFAULT_OUT})")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace the league report already in --out (or start an unfinished league there again)")
    parser.add_argument("--resume", action="store_true",
                        help="go on with an interrupted league in the --out folder (its progress.jsonl): give the "
                             "same agents and options; --jobs may differ")
    add_trust_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Play the league ``args`` describe, print the table, save the report; 0. ``ValueError`` on bad input."""
    need_training_extra("ten league", "scipy", "matplotlib")  # the ratings' intervals, the plot
    if args.out is not None and not args.out.strip():
        raise ValueError("--out is empty: give a folder for league.json / league.png")
    out_dir = Path(args.out) if args.out is not None else DEFAULT_OUT
    run = Resumable(out_dir, args.resume, args.overwrite, what="league", of=f"in {str(out_dir)!r}",
                    place=f"--out {str(out_dir)!r}", option="--out", same="the same agents and options",
                    product="the league report", finished=out_dir / LEAGUE_FILES[0], save_errors=(OSError,))
    plan = prepare(args.agents, num_players=args.players, games=args.games, seed=args.seed, jobs=args.jobs,
                   rules=rules_from_args(args), trust=args.trust_model)
    journal = run.open(league_identity(plan), _journal_plan(plan),
                       chunks(plan["tables"], plan["games"], plan["seed"], plan["jobs"], plan["trust"]), RECORDS,
                       prepare=lambda: prepare_out_dir(out_dir, () if args.resume else LEAGUE_FILES, args.overwrite,
                                                       what="a league report"))
    with run.playing():
        report = execute(plan, progress=not args.no_progress, journal=journal)
    print(format_league(report))
    with run.saving():
        json_path, png_path = save_league(report, out_dir)
    journal.finish()
    print(f"saved {json_path} and {png_path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m train.league",
                    description="A league of agents at N-player tables, with ratings (the same as `ten league`).")
    add_league_arguments(parser)
    return run_command(parser.prog, run, parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
