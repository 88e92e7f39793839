"""How strong is an agent? The JEN ladder, or matchups in normal games, with honest statistics.

Two kinds of evaluation, from Python (:func:`evaluate`) or the command line
(``ten eval AGENT`` or ``python -m train.evaluate AGENT``):

- **The JEN ladder** (``--levels 4-10``, the default): for each level, ``--games``
  solitaire games of the agent against the engine's JEN at that level. The
  agent's **rank** is the highest level it beats more often than not *with 95%
  confidence* (the Wilson interval's lower bound above 50%), with a title in the
  spirit of the rulebook's; it has no rank when no level qualifies.
- **Normal games** (``--opponents heuristic,jen:5``): ``--games`` games of the
  agent against those opponents at a table of ``1 + len(opponents)`` players,
  seats rotated game by game so nobody keeps the first seat.

Both play the game of ``--max-bid``, ``--payment``, ``--bust-buy`` and
``--deck-file`` (``rules=`` in Python; the ``Rules`` defaults otherwise): a model
must be evaluated on the game it was trained for, its ``max_bid`` above all
(it fixes the number of actions). The report says which game was measured.

Game ``i`` of every matchup uses deck seed ``seed + i``: the numbers are the
same for the same seed whatever the number of worker processes (``--jobs``,
all cores by default), and two agents evaluated with the same seed meet the
same decks.

Reading the table::

    opponent   games  win %  95% interval  mean score agent / opp  mean margin
    JEN 4        200   64.5   57.6 - 70.8             21.3 / 18.9         +2.4

- ``win %``: the share of games the agent won outright. A shared win (a tie
  on score, money and cards in a normal game) is *not* counted as a win; the
  JSON report gives the shared wins apart. Against JEN every tie is JEN's.
- ``95% interval``: the Wilson score interval of the win rate. With 200
  games it is about +-7 points wide around 50%: two agents whose intervals
  overlap a lot are not shown to differ. More ``--games`` narrow it.
- ``mean score agent / opp``: the agent's mean final score, and the mean
  score of the best *other* player in each game: JEN's score on the ladder,
  the highest opponent score at the table in normal games.
- ``mean margin``: the mean of (agent's score - best other score) per game;
  positive when the agent usually finishes ahead.

The report is saved as ``report.json`` (every number above, per matchup) and,
for the ladder, ``ladder.png`` (win rate against JEN level with the intervals).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import signal
import sys
import tempfile
from collections.abc import Mapping
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path

from agents import Results, play_games
from agents.registry import NAMES_HELP, make_agent
from ten_env import Rules
from ten_env.actions import BID_BASE, num_actions
from ten_env.deck import load as load_deck

CONFIDENCE = 0.95
LADDER_LEVELS = tuple(range(4, 11))

#: Rank titles of the JEN ladder: what it says of a player to beat JEN at each level.
RANK_TITLES = {
    4: "Newcomer: the first rung is behind you",
    5: "Apprentice: the game is starting to click",
    6: "Adept: play that turns heads",
    7: "Virtuoso: fortune and cunning working as one",
    8: "Master: up there with the very best",
    9: "Grandmaster: a rare and striking feat",
    10: "Legend: nobody can quite say how it was done",
}

LEVELS_HELP = "JEN levels 4-10 as a range (4-10), a list (4,7,10) or one level (7)"

#: The keys of ``evaluate(rules=...)``: the fields of :class:`ten_env.Rules` but ``jen_level``.
RULES_KEYS = ("num_players", "bust_buy", "payment", "max_bid", "deck_file")
#: The fields every matchup shares, whatever the table: what a worker gets as a plain dict.
_BASE_KEYS = ("bust_buy", "payment", "max_bid", "deck_file")


# --------------------------------------------------------------------------- statistics


def wilson_interval(wins: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The Wilson score interval of a win rate of ``wins`` out of ``n``; ``(0.0, 1.0)`` for ``n = 0``."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}")
    if n < 0 or not 0 <= wins <= max(n, 0):
        raise ValueError(f"wilson_interval needs 0 <= wins <= n, got wins={wins}, n={n}")
    if n == 0:
        return 0.0, 1.0
    from scipy.stats import binomtest

    ci = binomtest(int(wins), int(n)).proportion_ci(confidence_level=confidence, method="wilson")
    return min(max(float(ci.low), 0.0), 1.0), min(max(float(ci.high), 0.0), 1.0)


def ladder_rank(matchups: list[dict]) -> dict | None:
    """The highest JEN level whose Wilson lower bound is above 50%, with its title; ``None`` if none is.

    ``matchups`` are the ladder entries of a report (each with ``level`` and ``ci_low``).
    """
    passed = [m["level"] for m in matchups if m.get("level") is not None and m["ci_low"] > 0.5]
    if not passed:
        return None
    level = max(passed)
    return {"level": level, "title": RANK_TITLES[level]}


# --------------------------------------------------------------------------- input checks


def parse_levels(text) -> list[int]:
    """JEN levels from ``"4-10"``, ``"4,7,10"`` or ``"7"`` (or an iterable of ints); sorted, no repeats."""
    if isinstance(text, str):
        levels = []
        for part in text.split(","):
            match = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
            if not match:
                raise ValueError(f"levels {text!r}: use {LEVELS_HELP}")
            lo, hi = int(match[1]), int(match[2] or match[1])
            if hi < lo:
                raise ValueError(f"levels {text!r}: the range {lo}-{hi} is empty; use {LEVELS_HELP}")
            levels += range(lo, hi + 1)
        bad = [level for level in levels if level not in LADDER_LEVELS]
        if bad:
            raise ValueError(f"levels {text!r}: JEN has no level {bad[0]}; use {LEVELS_HELP}")
        return sorted(set(levels))
    try:
        levels = list(text)
    except TypeError:
        raise ValueError(f"levels must be {LEVELS_HELP}, got {text!r}") from None
    if not levels or any(isinstance(v, bool) or not isinstance(v, int) or v not in LADDER_LEVELS for v in levels):
        raise ValueError(f"levels {levels!r}: use {LEVELS_HELP}")
    return sorted(set(levels))


def parse_opponents(text: str) -> list[str]:
    """Opponent specs from ``"heuristic,jen:5"``."""
    names = [name.strip() for name in str(text).split(",")]
    if not names or any(not name for name in names):
        raise ValueError(f"opponents {text!r}: give comma-separated agents ({NAMES_HELP})")
    return names


def check_rules(rules) -> dict:
    """The base game settings of ``evaluate(rules=...)`` as a new dict; ``ValueError`` on a bad key.

    Allowed keys are :data:`RULES_KEYS` (``jen_level`` is not one: the ladder sets it).
    The values are checked later, by :class:`ten_env.Rules`.
    """
    if rules is None:
        return {}
    if not isinstance(rules, Mapping):
        raise ValueError(f"rules must be a dict of Rules fields ({', '.join(RULES_KEYS)}), got {rules!r}")
    allowed = ", ".join(RULES_KEYS)
    for key in rules:
        if key == "jen_level":
            raise ValueError(f"rules key 'jen_level' is not allowed: the ladder sets it from levels "
                             f"(allowed keys: {allowed})")
        if key not in RULES_KEYS:
            raise ValueError(f"unknown rules key {key!r} (allowed keys: {allowed})")
    return dict(rules)


def agent_name(spec: str) -> str:
    """A short name for an agent spec, fit for a folder name (``jen:5`` -> ``jen-5``).

    A model path gives its file name without ``.zip``; a training run's
    ``<run>/model.zip`` gives the run's folder name.
    """
    spec = spec.strip()
    path = Path(spec)
    if spec.endswith(".zip") or len(path.parts) > 1:
        name = path.stem
        if name == "model" and path.parent.name:
            name = path.parent.name
    else:
        name = spec
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "agent"


# --------------------------------------------------------------------------- playing


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def _build(specs: tuple, cache: dict) -> list:
    """The agents for a table of ``specs``, one instance per seat, reused from ``cache``."""
    agents = []
    for position, spec in enumerate(specs):
        key = (position, spec)
        if key not in cache:
            cache[key] = make_agent(spec, seed=position)
        agents.append(cache[key])
    return agents


def _play_chunk(task: tuple, cache: dict) -> tuple[int, Results]:
    index, specs, rules, start, count = task
    if isinstance(rules, Mapping):  # Rules fields as a plain dict, as evaluate() sends them
        rules = Rules(**rules)
    return index, play_games(_build(specs, cache), rules, n=count, seed=start)


_WORKER_CACHE: dict = {}


def _worker_init() -> None:
    # The parent handles Ctrl-C; one thread per worker since the workers fill the cores.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(var, "1")


def _worker_chunk(task: tuple) -> tuple[int, Results]:
    result = _play_chunk(task, _WORKER_CACHE)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
    return result


def _chunks(matchups: list[tuple], games: int, seed: int, jobs: int) -> list[tuple]:
    """Tasks ``(matchup index, specs, rules, first seed, games)`` covering every game once.

    ``rules`` is whatever the matchup holds: a :class:`ten_env.Rules` or a dict of its fields.

    Each chunk starts at a multiple of the table size, so ``play_games`` rotates the
    seats exactly as one call for the whole matchup would.
    """
    per_matchup = max(1, math.ceil(max(8 * jobs, 4 * len(matchups)) / len(matchups)))
    tasks = []
    for index, (specs, rules) in enumerate(matchups):
        k = len(specs)
        size = max(k, math.ceil(math.ceil(games / per_matchup) / k) * k)
        for offset in range(0, games, size):
            tasks.append((index, specs, rules, seed + offset, min(size, games - offset)))
    return tasks


def _merge(total: Results | None, part: Results) -> Results:
    if total is None:
        return Results(part.games, list(part.wins), list(part.shared_wins),
                       list(part.total_scores), list(part.margins))
    total.games += part.games
    for name in ("wins", "shared_wins", "total_scores", "margins"):
        setattr(total, name, [a + b for a, b in zip(getattr(total, name), getattr(part, name))])
    return total


def _run_all(matchups: list[tuple], games: int, seed: int, jobs: int, progress: bool,
             cache: dict) -> list[Results]:
    tasks = _chunks(matchups, games, seed, jobs)
    totals: list[Results | None] = [None] * len(matchups)
    bar = None
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(total=len(matchups) * games, unit="game", file=sys.stderr, leave=False,
                       desc="evaluating", dynamic_ncols=True)
        except ImportError:  # pragma: no cover - tqdm comes with the training extra
            bar = None

    def done(index: int, part: Results):
        totals[index] = _merge(totals[index], part)
        if bar is not None:
            bar.update(part.games)

    try:
        if jobs == 1:
            for task in tasks:
                done(*_play_chunk(task, cache))
        else:
            import multiprocessing

            # spawn, not fork: a parent that has loaded torch must not be forked.
            context = multiprocessing.get_context("spawn")
            executor = ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), mp_context=context,
                                           initializer=_worker_init)
            try:
                pending = {executor.submit(_worker_chunk, task) for task in tasks}
                while pending:
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in finished:
                        done(*future.result())
            finally:
                executor.shutdown(wait=True, cancel_futures=True)
    finally:
        if bar is not None:
            bar.close()
    return totals


# --------------------------------------------------------------------------- evaluation


def _entry(result: Results, label: str) -> dict:
    n, wins = result.games, result.wins[0]
    low, high = wilson_interval(wins, n)
    mean_score = result.total_scores[0] / n
    mean_margin = result.margins[0] / n
    return {
        "opponent": label,
        "games": n,
        "wins": wins,
        "shared_wins": result.shared_wins[0],
        "win_rate": wins / n,
        "ci_low": low,
        "ci_high": high,
        "mean_score": mean_score,
        # the best other score of each game (JEN's on the ladder), averaged: score - margin
        "opponent_mean_score": mean_score - mean_margin,
        "mean_margin": mean_margin,
    }


def evaluate(agent_spec: str, *, levels=None, opponents=None, num_players: int | None = None,
             games: int = 200, seed: int = 0, jobs: int | None = None, progress: bool = False,
             rules: dict | None = None) -> dict:
    """Play the agent ``agent_spec`` through the JEN ladder or against opponents; a JSON-ready report.

    Args:
        agent_spec: as :func:`agents.registry.make_agent` takes it (``heuristic``,
            ``jen:7``, a pretrained name, a model ``.zip`` path, ...).
        levels: JEN levels 4-10 (ints, or a string such as ``"4-10"``): the ladder,
            ``games`` solitaire games per level.
        opponents: agent specs for a normal game of ``1 + len(opponents)`` players.
        num_players: for normal games only: the table size. With a single opponent
            spec, that opponent fills every other seat; otherwise it must be
            ``1 + len(opponents)``.
        games: games per matchup; game ``i`` uses deck seed ``seed + i``.
        jobs: worker processes (default: all cores); ``1`` plays in this process.
            The numbers do not depend on it.
        progress: show a progress bar on stderr.
        rules: the game to play, as :class:`ten_env.Rules` fields: any of
            ``bust_buy``, ``payment``, ``max_bid``, ``deck_file`` (the rest keep the
            ``Rules`` defaults), and ``num_players``, which must then be 2 on the
            ladder and the table size in normal games. Not ``jen_level``: the
            ladder plays ``Rules(**rules, num_players=2, jen_level=level)``, normal
            games ``Rules(**rules, num_players=1 + len(opponents))``. Evaluate a
            model on the game it was trained for (its ``max_bid`` above all).

    Returns:
        ``{"agent", "mode": "ladder" | "table", "num_players", "games", "seed",
        "confidence", "rules", "matchups": [...], "rank"}`` (``rank`` on the ladder
        only). ``rules`` is the game measured: ``num_players``, ``bust_buy``,
        ``payment``, ``max_bid`` and ``deck_file`` (the JEN level of the ladder is
        each matchup's ``level``).
        Each matchup has ``opponent`` (a label), ``games``, ``wins`` (sole wins),
        ``shared_wins``, ``win_rate`` (sole wins / games), ``ci_low`` / ``ci_high``
        (Wilson 95%), ``mean_score`` (the agent's), ``opponent_mean_score`` (the
        mean of the best other player's score: JEN's on the ladder) and
        ``mean_margin`` (agent minus best other); the ladder adds ``level``, normal
        games ``opponents`` and ``opponent_mean_scores`` (each opponent's mean score).

    Raises:
        ValueError: an unknown agent, a model made for other observations or
            another ``max_bid``, levels outside 4-10, both or neither of ``levels``
            and ``opponents``, a table size outside 2-5, ``games`` or ``jobs``
            below 1, a bad ``rules`` key or value, an unreadable deck file.
    """
    plan = _prepare(agent_spec, levels=levels, opponents=opponents, num_players=num_players,
                    games=games, seed=seed, jobs=jobs, rules=rules)
    return _execute(plan, progress=progress)


def _prepare(agent_spec, *, levels, opponents, num_players, games, seed, jobs, rules) -> dict:
    """Check every input of :func:`evaluate` (loading the agents once) and return what to play.

    Nothing is played: the command line calls this first, so that bad input fails
    before the output folder is made.
    """
    if not isinstance(agent_spec, str) or not agent_spec.strip():
        raise ValueError(f"agent must be a non-empty name; use {NAMES_HELP}")
    agent_spec = agent_spec.strip()
    if levels is not None and opponents is not None:
        raise ValueError("give levels (the JEN ladder) or opponents (a normal game), not both")
    if levels is None and opponents is None:
        raise ValueError("give levels (JEN levels 4-10, the ladder) or opponents (a normal game)")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a whole number of at least 1, got {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    jobs = default_jobs() if jobs is None else jobs
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a whole number of at least 1, got {jobs!r}")
    base = check_rules(rules)
    rules_players = base.pop("num_players", None)

    if levels is not None:
        levels = parse_levels(levels)
        if num_players not in (None, 2):
            raise ValueError(f"the JEN ladder is the solitaire game (2 seats: you and JEN), "
                             f"got num_players={num_players}")
        if rules_players is not None and rules_players != 2:
            raise ValueError(f"the JEN ladder is the solitaire game (2 seats: you and JEN), "
                             f"got rules num_players={rules_players!r}")
        mode, table_size = "ladder", 2
        tables = [((agent_spec,), level) for level in levels]
        labels = [f"JEN {level}" for level in levels]
    else:
        opponents = parse_opponents(opponents) if isinstance(opponents, str) else [str(o).strip() for o in opponents]
        if not opponents or any(not o for o in opponents):
            raise ValueError(f"opponents must be 1 to 4 agents ({NAMES_HELP}), got {opponents!r}")
        if num_players is not None:
            if len(opponents) == 1 and isinstance(num_players, int) and num_players in range(2, 6):
                opponents = opponents * (num_players - 1)
            elif num_players != 1 + len(opponents):
                raise ValueError(f"num_players={num_players} does not fit {len(opponents)} opponents "
                                 f"(a table of 2-5: you and 1-4 opponents)")
        table_size = 1 + len(opponents)
        if table_size not in range(2, 6):
            raise ValueError(f"a table has 2-5 players: give 1 to 4 opponents, got {len(opponents)}")
        if rules_players is not None and rules_players != table_size:
            raise ValueError(f"rules num_players={rules_players!r} does not fit {len(opponents)} opponents "
                             f"(a table of {table_size}: you and your opponents)")
        mode = "table"
        tables = [((agent_spec, *opponents), None)]
        labels = [", ".join(opponents)]

    # The values, checked by Rules itself; the workers get them back as a plain dict.
    try:
        checked = Rules(**base, num_players=table_size, jen_level=tables[0][1])
    except ValueError as exc:
        raise ValueError(f"rules: {exc}") from None
    base = {key: getattr(checked, key) for key in _BASE_KEYS}
    load_deck(base["deck_file"])  # an unreadable or wrong deck file fails here, with its reason
    matchups = [(specs, {**base, "num_players": table_size, "jen_level": level}) for specs, level in tables]

    # Check every name here, with a clear message, before any worker starts.
    cache: dict = {}
    _build(matchups[0][0], cache)
    _check_actions(cache.values(), base["max_bid"])
    if jobs > 1:
        cache.clear()  # the workers build their own; a model need not stay loaded here
    return {"agent": agent_spec, "mode": mode, "table_size": table_size, "games": games, "seed": seed,
            "jobs": jobs, "rules": {"num_players": table_size, **base}, "matchups": matchups,
            "labels": labels, "cache": cache}


def _check_actions(agents, max_bid: int) -> None:
    """A model trained for another ``max_bid`` (another number of actions) fails here, saying which."""
    expected = num_actions(max_bid)
    for agent in agents:
        space = getattr(getattr(agent, "model", None), "action_space", None)
        n = getattr(space, "n", None)
        if n is None or int(n) == expected:
            continue
        name = getattr(agent, "name", None) or repr(agent)
        made_for = int(n) - BID_BASE - 1
        hint = (f": evaluate it with rules max_bid={made_for} (--max-bid {made_for})"
                if made_for in range(5, 201) else "")
        raise ValueError(f"model {name!r} has {int(n)} actions but the game has {expected} "
                         f"(max_bid={max_bid}){hint}")


def _execute(plan: dict, progress: bool = False) -> dict:
    """Play what :func:`_prepare` checked; the report of :func:`evaluate`."""
    matchups, mode = plan["matchups"], plan["mode"]
    results = _run_all(matchups, plan["games"], plan["seed"], plan["jobs"], progress, plan["cache"])

    entries = []
    for (specs, rules), label, result in zip(matchups, plan["labels"], results):
        entry = _entry(result, label)
        if mode == "ladder":
            entry = {"level": rules["jen_level"], **entry}
        else:
            entry = {**entry, "opponents": list(specs[1:]),
                     "opponent_mean_scores": [s / result.games for s in result.total_scores[1:]]}
        entries.append(entry)
    report = {
        "agent": plan["agent"],
        "mode": mode,
        "num_players": plan["table_size"],
        "games": plan["games"],
        "seed": plan["seed"],
        "confidence": CONFIDENCE,
        "rules": dict(plan["rules"]),
        "matchups": entries,
    }
    if mode == "ladder":
        report["rank"] = ladder_rank(entries)
    return report


# --------------------------------------------------------------------------- output


def _rules_note(rules) -> str:
    """``"; rules: max_bid=20, bust_buy"`` for the settings that differ from the Rules defaults."""
    if not rules:
        return ""
    defaults = Rules()
    changed = []
    for key in _BASE_KEYS:
        value = rules.get(key, getattr(defaults, key))
        if value != getattr(defaults, key):
            changed.append(key if value is True else f"{key}={value}")
    return f"; rules: {', '.join(changed)}" if changed else ""


def format_table(report: dict) -> str:
    """The report as an aligned text table, one row per matchup (and the rank on the ladder)."""
    ladder = report.get("mode") == "ladder"
    kind = "against the JEN ladder" if ladder else f"in normal games of {report.get('num_players', '?')} players"
    lines = [f"{report['agent']} {kind}, seeds from {report.get('seed', 0)}, "
             f"sole wins with {round(100 * report.get('confidence', CONFIDENCE))}% Wilson intervals"
             + _rules_note(report.get("rules"))]
    header = ("opponent", "games", "win %", "95% interval", "mean score agent / opp", "mean margin")
    rows = []
    for m in report["matchups"]:
        rows.append((
            m["opponent"],
            str(m["games"]),
            f"{100 * m['win_rate']:.1f}",
            f"{100 * m['ci_low']:.1f} - {100 * m['ci_high']:.1f}",
            f"{m['mean_score']:.1f} / {m['opponent_mean_score']:.1f}",
            f"{m['mean_margin']:+.1f}",
        ))
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(row):
        cells = [row[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in zip(row[1:], widths[1:])]
        return "  ".join(cells).rstrip()

    lines += [line(header), line(tuple("-" * w for w in widths))] + [line(row) for row in rows]
    shared = sum(m.get("shared_wins", 0) for m in report["matchups"])
    if shared:
        lines.append(f"({shared} shared wins not counted as wins)")
    if ladder:
        rank = report.get("rank")
        if rank:
            lines.append(f"rank: JEN {rank['level']}, {rank['title']} "
                         f"(the highest level beaten in over 50% of games, with 95% confidence)")
        else:
            lines.append("rank: none yet (no level beaten in over 50% of games with 95% confidence)")
    return "\n".join(lines)


def save_report(report: dict, out_dir) -> tuple[Path, Path | None]:
    """Write ``report.json`` and, for the ladder, ``ladder.png`` in ``out_dir``; their paths."""
    import json

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path = out_dir / "report.json"
    json_path.write_text(json.dumps(report, indent=2) + "\n")
    if report.get("mode") != "ladder":
        return json_path, None

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    matchups = sorted(report["matchups"], key=lambda m: m["level"])
    levels = [m["level"] for m in matchups]
    rates = [m["win_rate"] for m in matchups]
    below = [m["win_rate"] - m["ci_low"] for m in matchups]
    above = [m["ci_high"] - m["win_rate"] for m in matchups]
    figure = Figure(figsize=(6.4, 4.2))
    FigureCanvasAgg(figure)
    ax = figure.add_subplot()
    ax.errorbar(levels, rates, yerr=[below, above], fmt="o-", capsize=4, label="win rate (95% Wilson)")
    ax.axhline(0.5, linestyle="--", color="grey", linewidth=1, label="50%")
    ax.set_xticks(list(LADDER_LEVELS))
    ax.set_xlim(LADDER_LEVELS[0] - 0.5, LADDER_LEVELS[-1] + 0.5)
    ax.set_ylim(0, 1)
    ax.set_xlabel("JEN level")
    ax.set_ylabel("win rate")
    rank = report.get("rank")
    title = f"{report['agent']} against JEN, {report['games']} games per level"
    ax.set_title(title + (f"\nrank: JEN {rank['level']}" if rank else "\nrank: none"), fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper right", fontsize=8)
    figure.tight_layout()
    png_path = out_dir / "ladder.png"
    figure.savefig(png_path, dpi=120)
    return json_path, png_path


# --------------------------------------------------------------------------- command line


def int_range(low: int, high: int | None, flag: str):
    """An argparse ``type``: a whole number from ``low`` to ``high`` (no upper bound for ``None``)."""
    allowed = f"from {low} to {high}" if high is not None else f"of at least {low}"

    # argparse prints "argument FLAG: " before the message
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number {allowed}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be a whole number {allowed}, got {value}")
        return value

    parse.__name__ = flag.lstrip("-").replace("-", "_")
    return parse


def at_least(low: int, flag: str):
    return int_range(low, None, flag)


def rules_from_args(args) -> dict:
    """The ``rules`` of :func:`evaluate` from the command line: every base field, defaults included."""
    defaults = Rules()
    return {
        "bust_buy": bool(getattr(args, "bust_buy", defaults.bust_buy)),
        "payment": getattr(args, "payment", defaults.payment),
        "max_bid": getattr(args, "max_bid", defaults.max_bid),
        "deck_file": getattr(args, "deck_file", defaults.deck_file),
    }


def prepare_out_dir(out_dir) -> Path:
    """Make ``out_dir`` and check a file can be written in it; ``ValueError`` saying why not."""
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"--out {str(out_dir)!r} is a file, not a folder")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out_dir):
            pass
    except OSError as exc:
        raise ValueError(f"cannot write to {str(out_dir)!r}: {exc.strerror or exc}") from None
    return out_dir


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``ten eval`` / ``python -m train.evaluate``."""
    parser.add_argument("agent", help=f"the agent to evaluate: {NAMES_HELP}")
    parser.add_argument("--levels", metavar="LEVELS",
                        help="JEN levels to play: a range (4-10), a list (4,7,10) or one (7); "
                             "default 4-10 when --opponents is not given")
    parser.add_argument("--opponents", metavar="A,B,...",
                        help="normal games against these comma-separated agents instead of the ladder")
    parser.add_argument("--players", type=int, metavar="N",
                        help="with one --opponents agent: the table size, that agent in every other seat")
    parser.add_argument("--games", type=at_least(1, "--games"), default=200, metavar="N",
                        help="games per matchup (default 200)")
    parser.add_argument("--seed", type=at_least(0, "--seed"), default=0, metavar="N",
                        help="game i uses deck seed SEED+i (default 0)")
    parser.add_argument("--jobs", type=at_least(1, "--jobs"), default=None, metavar="N",
                        help="worker processes (default: all cores; the results do not depend on it)")
    defaults = Rules()
    parser.add_argument("--bust-buy", action="store_true",
                        help="the busting variant (evaluate a model on the rules it was trained with)")
    parser.add_argument("--payment", choices=("auto", "manual"), default=defaults.payment,
                        help=f"how prices and bids are paid (default {defaults.payment})")
    parser.add_argument("--max-bid", type=int_range(5, 200, "--max-bid"), default=defaults.max_bid,
                        metavar="N", help=f"the highest bid, 5-200 (default {defaults.max_bid}); "
                                          f"a model needs the max_bid it was trained with")
    parser.add_argument("--deck-file", metavar="PATH", default=defaults.deck_file,
                        help="a deck file instead of the bundled deck")
    parser.add_argument("--out", metavar="DIR", help="where to save report.json / ladder.png "
                                                      "(default runs/eval/<agent name>)")


def run(args) -> int:
    """Evaluate as ``args`` say, print the table, save the report; 0. ``ValueError`` on bad input."""
    if args.levels is not None and args.opponents is not None:
        raise ValueError("give --levels (the JEN ladder) or --opponents (normal games), not both")
    if args.players is not None and args.opponents is None:
        raise ValueError("--players sets the table size of normal games: give --opponents too")
    if args.opponents is not None:
        levels, opponents = None, parse_opponents(args.opponents)
    else:
        levels, opponents = parse_levels(args.levels if args.levels is not None else "4-10"), None
    out_dir = Path(args.out) if args.out else Path("runs") / "eval" / agent_name(args.agent)
    # Every input first (agents loaded, rules and deck checked), then the folder, then the games:
    # a mistake or an unwritable --out fails at once, not after the last game.
    plan = _prepare(args.agent, levels=levels, opponents=opponents, num_players=args.players,
                    games=args.games, seed=args.seed, jobs=args.jobs, rules=rules_from_args(args))
    prepare_out_dir(out_dir)
    report = _execute(plan, progress=True)
    print(format_table(report))
    try:
        json_path, png_path = save_report(report, out_dir)
    except OSError as exc:
        raise ValueError(f"cannot save the report in {str(out_dir)!r}: {exc.strerror or exc}") from None
    print(f"saved {json_path}" + (f" and {png_path}" if png_path else ""))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m train.evaluate",
        description="Evaluate an agent against the JEN ladder or chosen opponents, "
                    "with 95%% Wilson intervals (the same as `ten eval`).")
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except ValueError as exc:  # a mistake in the input: one line, no traceback
        print(f"{parser.prog}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\n{parser.prog}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
