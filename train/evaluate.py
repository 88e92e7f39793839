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

    heuristic against the JEN ladder, seeds from 0, sole wins with 95% Wilson intervals
    opponent  games  win %  95% interval  mean score agent / opp  mean margin  ms / decision
    --------  -----  -----  ------------  ----------------------  -----------  -------------
    JEN 4      1000   70.6   67.7 - 73.3             21.5 / 18.5         +3.0           0.44

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
- ``ms / decision``: the agent's mean thinking time per decision, in milliseconds
  of wall-clock time (it depends on the machine and on what else runs on it).

The report is saved as ``report.json`` (every number above, per matchup, and
each game's outcome and margin, ``per_game``, for ``ten compare --paired``) and,
for the ladder, ``ladder.png`` (win rate against JEN level with the intervals), in
``--out`` (default ``runs/eval/<agent name>``). While it plays, the folder holds
``progress.jsonl``, the games played so far (:mod:`train.journal`), removed once the
report is saved; if the run stops first, the same command with ``--resume`` plays
only the rest and saves the report. A folder that already holds a report, or an
unfinished evaluation, is refused unless ``--overwrite`` is given (or ``--resume``,
for an unfinished one); then only the evaluator's own files are replaced.
``--trust-model`` lets model files be loaded that can only be loaded by
unpickling (which runs code from the file). ``--save-games N`` also writes the
first N games of each matchup as game records in ``<out>/games`` (``game0.json``
..., on the ladder ``jen7-game0.json`` ...), for ``ten view``.

Where the parts live: the statistics in :mod:`train.stats`, playing the games
on worker processes in :mod:`train.runner`, the journal for ``--resume`` in
:mod:`train.journal`, the table and the files in
:mod:`train.report`, the options in :mod:`train.options`; this module checks the
input, puts the report together and is the command line.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from agents.base import agent_label
from agents.registry import NAMES_HELP, as_agent
from agents.tournament import AGENT_SEEDS
from ten_env import Rules
from ten_env.deck import load as load_deck
from ten_env.rules import JEN_LEVELS, PLAYER_COUNTS

from .options import (MAX_GAMES, OPPONENT_COUNTS, PLAYERS_HELP, TABLE_HELP, Parser, add_eval_arguments, agent_name,
                      check_max_bid, need_training_extra, parse_levels, parse_opponents, prepare_out_dir,
                      rules_from_args, run_command, span, whole_number)
from .report import BASE_RULES_KEYS, REPORT_FILES, format_table, save_report
from .journal import Journal, Resumable, code_digest, file_digests, identity
from .runner import chunks, default_jobs, play_matchups, seat_agents
from .stats import CONFIDENCE, ladder_rank, matchup_stats

if TYPE_CHECKING:
    import argparse

#: The keys of ``evaluate(rules=...)``: the fields of :class:`ten_env.Rules` but ``jen_level``.
RULES_KEYS = ("num_players", *BASE_RULES_KEYS)


def check_rules(rules: object) -> dict:
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


def evaluate(agent_spec: object, *, levels: str | Iterable[int] | None = None,
             opponents: str | Iterable[str] | None = None, num_players: int | None = None,
             games: int = 200, seed: int = 0, jobs: int | None = None, progress: bool = False,
             rules: dict | None = None, trust: bool = False) -> dict:
    """Play the agent ``agent_spec`` through the JEN ladder or against opponents; a JSON-ready report.

    Args:
        agent_spec: as :func:`agents.registry.make_agent` takes it (``heuristic``,
            ``jen:7``, a pretrained name, a model ``.zip`` path, your own ``bots:Greedy``,
            ...), or an agent itself (anything with ``act(observation, info)``, a class of
            one, made with no arguments, or a policy function), which plays in this process
            (``jobs`` 1, its default then) and is named in the report by its ``name``, else
            its class's or its function's (not the ``"agent"`` every ``Agent`` inherits).
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
        trust: let model files that can only be loaded by unpickling be loaded
            (``make_agent(..., trust=True)``, in every worker too). Unpickling runs
            code from the file: only for files you trust.

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
        ``mean_margin`` (agent minus best other), ``seconds_per_decision`` and
        ``per_game`` (each game's outcome and margin, for comparing agents deal by deal:
        :func:`train.stats.per_game_entry`, ``ten compare --paired``); the ladder adds
        ``level``, normal games ``opponents`` and ``opponent_mean_scores`` (each
        opponent's mean score).

    Raises:
        ValueError: an unknown agent, a model made for other observations or
            another ``max_bid``, levels outside 4-10, both or neither of ``levels``
            and ``opponents``, a table size outside 2-5, ``games`` or ``jobs``
            below 1, a bad ``rules`` key or value, an unreadable deck file; the training
            extra not installed (the intervals need scipy), said before any game.
    """
    need_training_extra("evaluate()", "scipy")  # the intervals: say so before the games, not after
    plan = _prepare(agent_spec, levels=levels, opponents=opponents, num_players=num_players,
                    games=games, seed=seed, jobs=jobs, rules=rules, trust=trust)
    return _execute(plan, progress=progress)


def _prepare(agent_spec: object, *, levels: str | Iterable[int] | None, opponents: str | Iterable[str] | None,
             num_players: int | None, games: int, seed: int, jobs: int | None, rules: dict | None,
             trust: bool = False) -> dict:
    """Check every input of :func:`evaluate` (loading the agents once) and return what to play.

    Nothing is played: the command line calls this first, so that bad input fails
    before the output folder is made.
    """
    given = None  # an agent object, played as it is
    if not isinstance(agent_spec, str) and (hasattr(agent_spec, "act") or callable(agent_spec)):
        if jobs not in (None, 1):
            raise ValueError(f"an agent given as an object plays in this process: jobs must be 1, got {jobs!r} "
                             f"(name it as <module>:<name> for worker processes to load it)")
        jobs = 1
        what = getattr(agent_spec, "__name__", None) or type(agent_spec).__name__
        try:
            given = as_agent(agent_spec, what)  # a class made, a factory called, as a name of one would be
        except ValueError as exc:
            raise ValueError(f"agent {what}: {exc}") from None
        agent_spec = agent_label(given)
    if not isinstance(agent_spec, str) or not agent_spec.strip():
        raise ValueError(f"agent must be a non-empty name or an agent (something with act(observation, info)); "
                         f"use {NAMES_HELP}")
    agent_spec = agent_spec.strip()
    if levels is not None and opponents is not None:
        raise ValueError("give levels (the JEN ladder) or opponents (a normal game), not both")
    if levels is None and opponents is None:
        raise ValueError(f"give levels (JEN levels {span(JEN_LEVELS)}, the ladder) or opponents (a normal game)")
    whole_number("games", games, 1, MAX_GAMES)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    jobs = whole_number("jobs", default_jobs() if jobs is None else jobs, 1)
    if not isinstance(trust, bool):
        raise ValueError(f"trust must be True or False, got {trust!r}")
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
        tables: list[tuple[tuple[str, ...], int | None]] = [((agent_spec,), level) for level in levels]
        labels = [f"JEN {level}" for level in levels]
    else:
        opponents = (parse_opponents(opponents) if isinstance(opponents, str) else
                     [str(o).strip() for o in opponents])  # type: ignore[union-attr]  # levels is None: it is given
        if not opponents or any(not o for o in opponents):
            raise ValueError(f"opponents must be {span(OPPONENT_COUNTS)} agents ({NAMES_HELP}), "
                             f"got {opponents!r}")
        if num_players is not None:
            if isinstance(num_players, bool) or not isinstance(num_players, int) or num_players not in PLAYER_COUNTS:
                raise ValueError(f"num_players must be {PLAYERS_HELP}, got {num_players!r}")
            if len(opponents) == 1:
                opponents = opponents * (num_players - 1)
            elif num_players != 1 + len(opponents):
                raise ValueError(f"num_players={num_players} does not fit {len(opponents)} opponents "
                                 f"({TABLE_HELP})")
        table_size = 1 + len(opponents)
        if table_size not in PLAYER_COUNTS:
            raise ValueError(f"give {span(OPPONENT_COUNTS)} opponents ({TABLE_HELP}), got {len(opponents)}")
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
    base = {key: getattr(checked, key) for key in BASE_RULES_KEYS}
    load_deck(base["deck_file"])  # an unreadable or wrong deck file fails here, with its reason
    matchups = [(specs, {**base, "num_players": table_size, "jen_level": level}) for specs, level in tables]

    # Check every name here, with a clear message, before any worker starts.
    cache: dict = {} if given is None else {(0, agent_spec, trust): given}
    seat_agents(matchups[0][0], cache, trust)
    for agent in cache.values():
        check_max_bid(agent, base["max_bid"])
    files = file_digests(cache.values(), base["deck_file"], matchups[0][0])  # what it reads, for --resume
    if jobs > 1:
        cache.clear()  # the workers build their own; a model need not stay loaded here
    return {"agent": agent_spec, "mode": mode, "table_size": table_size, "games": games, "seed": seed,
            "jobs": jobs, "rules": {"num_players": table_size, **base}, "matchups": matchups,
            "labels": labels, "cache": cache, "trust": trust, "files": files}


def _execute(plan: dict, progress: bool = False, journal: Journal | None = None) -> dict:
    """Play what :func:`_prepare` checked (the chunks ``journal`` lacks, recording each there);
    the report of :func:`evaluate`."""
    matchups, mode = plan["matchups"], plan["mode"]
    results = play_matchups(matchups, plan["games"], plan["seed"], plan["jobs"], progress, plan["cache"],
                            trust=plan["trust"], journal=journal)

    entries = []
    for (specs, rules), label, result in zip(matchups, plan["labels"], results):
        entry = matchup_stats(result, label)
        if mode == "ladder":
            entry = {"level": rules["jen_level"], **entry}
        else:
            entry = {**entry, "opponents": list(specs[1:]),
                     "opponent_mean_scores": result.mean_scores[1:]}
        entries.append(entry)
    report = {
        "agent": plan["agent"],
        "mode": mode,
        "num_players": plan["table_size"],
        "games": plan["games"],
        "seed": plan["seed"],
        "agent_seeds": AGENT_SEEDS,  # how the agents were seeded (agents.tournament.agent_seed)
        "code": code_digest(),  # which code played the games (train.journal.code_digests)
        "confidence": CONFIDENCE,
        "rules": dict(plan["rules"]),
        "matchups": entries,
    }
    if mode == "ladder":
        report["rank"] = ladder_rank(entries)
    return report


# --------------------------------------------------------------------------- command line


def run(args: argparse.Namespace) -> int:
    """Evaluate as ``args`` say, print the table, save the report; 0. ``ValueError`` on bad input."""
    need_training_extra("ten eval", "scipy", "matplotlib")  # the intervals, the plot
    if args.levels is not None and args.opponents is not None:
        raise ValueError("give --levels (the JEN ladder) or --opponents (normal games), not both")
    if args.players is not None and args.opponents is None:
        raise ValueError("--players sets the table size of normal games: give --opponents too")
    if args.opponents is not None:
        levels, opponents = None, parse_opponents(args.opponents)
        if args.players is not None and len(opponents) > 1 and args.players != 1 + len(opponents):
            raise ValueError(f"--players {args.players} does not fit --opponents {args.opponents} "
                             f"({len(opponents)} agents, a table of {1 + len(opponents)}): give one "
                             f"--opponents agent to fill every other seat, or leave out --players")
    else:
        levels = parse_levels(args.levels) if args.levels is not None else list(JEN_LEVELS)
        opponents = None
    if args.out is not None and not args.out.strip():
        raise ValueError("--out is empty: give a folder for report.json / ladder.png")
    out_dir = Path(args.out) if args.out is not None else Path("runs") / "eval" / agent_name(args.agent)
    run = Resumable(out_dir, args.resume, args.overwrite, what="evaluation", of=f"in {str(out_dir)!r}",
                    place=f"--out {str(out_dir)!r}", option="--out", same="the same agent and options",
                    product="the report", finished=out_dir / "report.json", save_errors=(OSError,))
    # Every input first (agents loaded, rules and deck checked), then the folder, then the games:
    # a mistake or an unwritable --out fails at once, not after the last game.
    plan = _prepare(args.agent, levels=levels, opponents=opponents, num_players=args.players,
                    games=args.games, seed=args.seed, jobs=args.jobs, rules=rules_from_args(args),
                    trust=args.trust_model)
    # A resumed run replaces the report an earlier one may have left.
    journal = run.open(identity(plan), plan, chunks(plan["matchups"], plan["games"], plan["seed"], plan["jobs"],
                                                    plan["trust"]),
                       prepare=lambda: _prepare_folder(out_dir, args))
    with run.playing():
        report = _execute(plan, progress=not args.no_progress, journal=journal)
    print(format_table(report))
    with run.saving():
        json_path, png_path = save_report(report, out_dir)
    journal.finish()
    print(f"saved {json_path}" + (f" and {png_path}" if png_path else ""))
    if getattr(args, "save_games", 0):
        save_games(plan, out_dir / "games", args.save_games)
    return 0


def _prepare_folder(out_dir: Path, args: argparse.Namespace) -> None:
    """The ``--out`` folder made ready for the run (see :func:`prepare_out_dir`); with ``--overwrite``
    the game records of the report it replaces go too (not at the end: a run begun with
    ``--overwrite`` may be finished by ``--resume``)."""
    prepare_out_dir(out_dir, () if args.resume else REPORT_FILES, args.overwrite)
    if args.overwrite:
        try:
            remove_games(out_dir / "games")
        except OSError as exc:
            raise ValueError(f"cannot remove the earlier game records in {str(out_dir / 'games')!r}: "
                             f"{exc.strerror or exc}") from None


GAME_FILE = re.compile(r"(jen\d+-)?game\d+\.json")  # the names save_games writes


def remove_games(folder: Path) -> None:
    """The game records :func:`save_games` wrote in ``folder`` (only files named as it writes them)."""
    if folder.is_dir():
        for old in folder.iterdir():
            if GAME_FILE.fullmatch(old.name) and old.is_file():
                old.unlink()


def save_games(plan: dict, folder: Path, n: int) -> None:
    """Write the first ``n`` games of each matchup of ``plan`` as game records in ``folder``
    (played again here, exactly as the evaluation played them: :mod:`train.record`).
    The game records of an earlier run in ``folder`` are removed first (only files named
    as this writes them), so that none is left over from a larger run."""
    from ten_env.record import save_record

    from .record import record_seeded_games

    try:
        folder.mkdir(exist_ok=True)
        remove_games(folder)
    except OSError as exc:
        raise ValueError(f"cannot write the game records in {str(folder)!r}: {exc.strerror or exc}") from None
    saved = []
    for specs, rules in plan["matchups"]:
        agents = seat_agents(specs, {}, plan["trust"])
        names = [agent_label(agent) for agent in agents]
        prefix = f"jen{rules['jen_level']}-" if rules["jen_level"] is not None else ""
        for i, rec in enumerate(record_seeded_games(agents, names, Rules(**rules), min(n, plan["games"]),
                                                    plan["seed"])):
            saved.append(save_record(rec.to_dict(), folder / f"{prefix}game{i}.json"))
    print(f"saved {len(saved)} game records in {folder}" + (f" (see one with: ten view {saved[0]})" if saved else ""))


def main(argv: list[str] | None = None) -> int:
    parser = Parser(
        prog="python -m train.evaluate",
        description="Evaluate an agent against the JEN ladder or chosen opponents, "
                    "with 95%% Wilson intervals (the same as `ten eval`).")
    add_eval_arguments(parser)
    return run_command(parser.prog, run, parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
