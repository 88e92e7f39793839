"""``ten compare REPORT.json ... [-o ladder.png] [--markdown] [--paired [--confidence C]]``: JEN ladders side by side.

Reads the ``report.json`` files that ``ten eval`` writes for the JEN ladder and shows
every agent's win rate at each level, with its 95% Wilson interval, in one table and
(with ``-o``) in one plot. Reports of the same agent under the same rules whose games
do not overlap (``--seed 0 --games 500`` and ``--seed 500 --games 500``, say, run on
two machines) are combined into one: their games, wins and means add up, and the
intervals and the rank are computed afresh, as one run over all those games would.
Two reports of one agent that share a deck seed at some level are refused: counting
a game twice would narrow the interval without measuring anything.

``--paired`` also compares every other agent with the first, deal by deal: at each level,
on the deck seeds both played under the same rules, the deals only one of them won, the
difference of their win rates with its 95% interval (``--confidence`` sets another level),
McNemar's exact p-value and the difference of their mean margins
(:func:`train.stats.paired_comparison`), and a row ``all`` with the deals of every level
pooled. The same deal played by both agents cancels the part of the noise that is the deal's
luck (about a third of it at JEN 9, the README says), so the difference is measured more
tightly than by two unpaired intervals. It needs the reports'
``per_game`` entries, which ``ten eval`` writes (reports from before it did are left out,
and said so). A combined matchup keeps its parts' ``per_game`` entries as a list.

``--markdown`` prints the tables as Markdown (the README's ladder is made this way).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from ten_env.record import write_atomically
from ten_env.rules import JEN_LEVELS
from ten_env.scoring import run_score

from .options import check_output, is_whole, make_writable, need_training_extra, real_number
from .stats import ladder_rank, paired_comparison, wilson_interval

_SUMMED = ("games", "wins", "shared_wins")
_AVERAGED = ("mean_score", "opponent_mean_score", "mean_margin", "seconds_per_decision")
ROUGH = 25  # deals won by one agent only, below which the paired t interval is rough (McNemar's rule of thumb)


def load_report(path: str | Path) -> dict:
    """A ladder report from ``path`` (a ``report.json``, or the ``--out`` folder of ``ten eval`` that
    holds one), or ValueError saying what is wrong with the file."""
    if not str(path):  # Path("") is the current folder
        raise ValueError("a report's name is empty: give ten eval's report.json, or the --out folder that holds it")
    path = Path(path)
    if path.is_dir():
        if not (path / "report.json").is_file():
            raise ValueError(f"{str(path)!r} is a folder without a report.json: give ten eval's report.json, or "
                             f"the --out folder of ten eval that holds it")
        path = path / "report.json"
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{str(path)!r} is not a report.json of ten eval ({exc})") from None
    except RecursionError:
        raise ValueError(f"{str(path)!r} is not a report.json of ten eval (its JSON is nested too deeply)") from None
    if (not isinstance(report, dict) or not isinstance(report.get("matchups"), list)
            or not isinstance(report.get("agent"), str)):
        raise ValueError(f"{str(path)!r} is not a report.json of ten eval (no agent name and matchups)")
    if report.get("mode") != "ladder":
        raise ValueError(f"{str(path)!r} is a report of normal games, not of the JEN ladder: "
                         f"ten compare takes ladder reports (ten eval AGENT --levels ...)")
    if not report["matchups"]:
        raise ValueError(f"{str(path)!r} has no matchups: it is not a report.json of ten eval")
    for m in report["matchups"]:
        problem = _matchup_problem(m)
        if problem:
            level = m.get("level") if isinstance(m, dict) else None
            raise ValueError(f"{str(path)!r}: its matchup{'' if level is None else f' at JEN {level}'} is not "
                             f"ten eval's: {problem}")
        try:
            deal_results(m)  # checked here, where the file can be named
        except ValueError as exc:
            raise ValueError(f"{str(path)!r}: {exc}") from None
    seed = report.get("seed", 0)
    if not is_whole(seed) or seed < 0:
        raise ValueError(f"{str(path)!r}: its seed is {json.dumps(seed)}, not ten eval's (a whole number, 0 or more)")
    rank = report.get("rank")
    if rank is not None and not (isinstance(rank, dict) and is_whole(rank.get("level"))
                                 and rank["level"] in JEN_LEVELS):
        raise ValueError(f"{str(path)!r}: its rank is {json.dumps(rank)}, not ten eval's (null, or "
                         f"{{\"level\": {JEN_LEVELS[0]}-{JEN_LEVELS[-1]}, ...}}, the level the agent reaches)")
    return report


def _number(value: object) -> bool:
    """A finite JSON number (Python's json reads NaN and Infinity too)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


MAX_MARGIN = 4 * run_score(9)  # a player's score is at most every colour's run of 1-9


def _matchup_problem(m: object) -> str | None:
    """What keeps ``m`` from being one of ten eval's matchups, or ``None``."""
    if not isinstance(m, dict):
        return f"it is {json.dumps(m)}, not an object"
    if m.get("level") not in JEN_LEVELS:
        return f"its level is {json.dumps(m.get('level'))}, not {JEN_LEVELS[0]}-{JEN_LEVELS[-1]}"
    if "opponent" not in m:
        return "it names no opponent"
    if not is_whole(m.get("games")) or m["games"] < 1:
        return f"games is {json.dumps(m.get('games'))}, not a whole number, 1 or more"
    for key in ("wins", "shared_wins"):
        value = m.get(key, 0 if key == "shared_wins" else None)
        if not is_whole(value) or not 0 <= value <= m["games"]:
            return f"{key} is {json.dumps(value)}, not a whole number from 0 to its {m['games']} games"
    for key in ("win_rate", "ci_low", "ci_high"):
        if not _number(m.get(key)):
            return f"{key} is {json.dumps(m.get(key))}, not a number"
    for key in _AVERAGED:
        if m.get(key) is not None and not _number(m[key]):
            return f"{key} is {json.dumps(m[key])}, not a number or null"
    return None


def combine(reports: list[dict]) -> list[dict]:
    """One report per agent and rules, in the order each first appears (see the module docstring)."""
    groups: dict[str, list[dict]] = {}
    for report in reports:
        key = json.dumps([report["agent"], report.get("rules")], sort_keys=True)
        groups.setdefault(key, []).append(report)
    return [_combined(group) for group in groups.values()]


def _combined(group: list[dict]) -> dict:
    if len(group) == 1:
        return group[0]
    by_level: dict[int, list[tuple[int, dict]]] = {}
    for report in group:
        for m in report["matchups"]:
            by_level.setdefault(m["level"], []).append((report.get("seed", 0), m))
    matchups = []
    for level in sorted(by_level):
        parts = sorted(by_level[level], key=lambda part: part[0])
        for (seed, m), (next_seed, _) in zip(parts, parts[1:]):
            if seed + m["games"] > next_seed:
                raise ValueError(f"two reports of {group[0]['agent']} share deck seeds at JEN {level} "
                                 f"(one has seeds {seed}-{seed + m['games'] - 1}, another from {next_seed}): "
                                 f"combine only reports of different games")
        matchups.append(_merged_matchup([m for _, m in parts]))
    first = group[0]
    seeds = sorted(report.get("seed", 0) for report in group)
    combined = {**first, "seed": seeds[0], "games": max(m["games"] for m in matchups), "matchups": matchups,
                "rank": ladder_rank(matchups), "combined_from": len(group)}
    # Reports of agents seeded two ways are still fair samples of disjoint deals; no one commit
    # replays them all, so the combined report names every seeding (a report without one: the first).
    seedings = sorted({report.get("agent_seeds", 1) for report in group})
    combined["agent_seeds"] = seedings[0] if len(seedings) == 1 else seedings
    # So with the code that played them (train.journal.code_digest; none before it was kept).
    codes = sorted({report.get("code") for report in group}, key=str)
    combined.pop("code", None)
    if codes != [None]:
        combined["code"] = codes[0] if len(codes) == 1 else codes
    return combined


def _merged_matchup(parts: list[dict]) -> dict:
    merged = {"level": parts[0]["level"], "opponent": parts[0]["opponent"]}
    for key in _SUMMED:
        merged[key] = sum(m.get(key, 0) for m in parts)
    for key in _AVERAGED:
        timed = [m for m in parts if m.get(key) is not None]
        games = sum(m["games"] for m in timed)
        merged[key] = sum(m[key] * m["games"] for m in timed) / games if games else None
    merged["win_rate"] = merged["wins"] / merged["games"]
    merged["ci_low"], merged["ci_high"] = wilson_interval(merged["wins"], merged["games"])
    if all(m.get("per_game") for m in parts):
        merged["per_game"] = [entry for m in parts for entry in _entries(m["per_game"])]
    return merged


def _entries(per_game: object) -> list:
    return per_game if isinstance(per_game, list) else [per_game]


def deal_results(matchup: dict) -> dict | None:
    """``{deck seed: (outcome, margin)}`` of the agent's games in ``matchup``; ``None`` if its
    report kept no per-game results (``ten eval`` reports from before it did)."""
    if not matchup.get("per_game"):
        return None
    deals = {}
    for entry in _entries(matchup["per_game"]):
        try:
            first, last = entry["deck_seeds"]
            outcomes, margins = entry["outcomes"], entry["margins"]
            ok = (is_whole(first) and len(outcomes) == len(margins) == last - first + 1
                  and set(outcomes) <= set("WTL")
                  and all(_number(margin) and abs(margin) <= MAX_MARGIN for margin in margins))
        except (KeyError, TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError(f"the per_game entry of JEN {matchup.get('level')} is not ten eval's "
                             f"(deck_seeds [first, last], one outcome W/T/L and one margin a game, "
                             f"from -{MAX_MARGIN} to {MAX_MARGIN})")
        deals.update({first + i: (o, m) for i, (o, m) in enumerate(zip(outcomes, margins))})
    counted = [sum(o == kind for o, _ in deals.values()) for kind in "WT"]
    if (len(deals), *counted) != (matchup.get("games"), matchup.get("wins"), matchup.get("shared_wins", 0)):
        raise ValueError(f"the per_game entry of JEN {matchup.get('level')} does not add up to its matchup: "
                         f"{len(deals)} deals, {counted[0]} W and {counted[1]} T, against {matchup.get('games')} "
                         f"games, {matchup.get('wins')} wins and {matchup.get('shared_wins', 0)} shared")
    return deals


def _cell(m: dict | None) -> str:
    if m is None:
        return ""
    return f"{100 * m['win_rate']:.1f}% ({100 * m['ci_low']:.1f}-{100 * m['ci_high']:.1f})"


def _games(report: dict) -> str:
    counts = sorted({m["games"] for m in report["matchups"]})
    return str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"


def _ms(report: dict) -> str:
    """The mean time a decision over the report's levels, each level's weighted by its games (a
    report keeps no count of decisions)."""
    timed = [m for m in report["matchups"] if m.get("seconds_per_decision") is not None]
    if not timed:
        return "-"
    games = sum(m["games"] for m in timed)
    return f"{1000 * sum(m['seconds_per_decision'] * m['games'] for m in timed) / games:.1f}"


def table_rows(reports: list[dict]) -> tuple[list[str], list[list[str]]]:
    """The header and one row per agent: games per level, ms per decision, each level, rank."""
    levels = sorted({m["level"] for r in reports for m in r["matchups"]})
    header = ["agent", "games / level", "ms / decision"] + [f"JEN {level}" for level in levels] + ["rank"]
    rows = []
    for report in reports:
        at = {m["level"]: m for m in report["matchups"]}
        rank = report.get("rank")
        rows.append([report["agent"], _games(report), _ms(report)] + [_cell(at.get(level)) for level in levels]
                    + [f"JEN {rank['level']}" if rank else "none"])
    return header, rows


def format_text(reports: list[dict]) -> str:
    return _text(*table_rows(reports))


def format_markdown(reports: list[dict]) -> str:
    return _markdown(*table_rows(reports))


def _text(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def _markdown(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table, the first column (agent names) as code."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(f"`{row[0]}`" if i == 0 else cell for i, cell in enumerate(row)) + " |"
              for row in rows]
    return "\n".join(lines)


def paired_header(confidence: float = 0.95) -> list[str]:
    """The columns of the ``--paired`` table, its intervals at ``confidence``."""
    ci = f"{100 * confidence:.10g}% CI"
    return ["agent", "level", "deals", "win rates (first -> agent)", "won by one only (first / agent)",
            f"difference, points ({ci})",
            "McNemar p", f"margin difference ({ci})"]


def paired_rows(reports: list[dict], confidence: float = 0.95) -> tuple[list[list[str]], list[str]]:
    """Every other agent against the first, level by level, on the deals both played: the rows
    (see :func:`paired_header`; the win rates and the deals won by one only are the first agent's,
    then this one's; the intervals at ``confidence``), with a row ``all`` pooling the deals of
    every level where an agent pairs at more than one, and a note for each level that could not
    be paired, saying why."""
    if len(reports) < 2:
        raise ValueError("--paired compares every other agent with the first: give two agents' reports or more")
    base, rows, notes = reports[0], [], []
    base_at = {m["level"]: m for m in base["matchups"]}
    for other in reports[1:]:
        name = other["agent"]
        if other.get("rules") != base.get("rules"):
            notes.append(f"{name}: played under other rules than {base['agent']}, not paired")
            continue
        pooled_mine, pooled_theirs, levels = {}, {}, 0
        for m in sorted(other["matchups"], key=lambda m: m["level"]):
            level = m["level"]
            if level not in base_at:
                notes.append(f"{name} at JEN {level}: {base['agent']} has no games there, not paired")
                continue
            mine, theirs = deal_results(base_at[level]), deal_results(m)
            if mine is None or theirs is None:
                lacking = [agent for agent, deals in ((base["agent"], mine), (name, theirs)) if deals is None]
                whose = (f"the reports of {lacking[0]} and {lacking[1]} have" if len(lacking) == 2
                         else f"the report of {lacking[0]} has")
                notes.append(f"{name} at JEN {level}: {whose} no per-game results, not paired")
                continue
            shared = len(set(mine) & set(theirs))
            if shared < 2:
                notes.append(f"{name} at JEN {level}: {shared} deals in common with {base['agent']}, not paired")
                continue
            c = paired_comparison(mine, theirs, confidence)
            rows.append(_paired_row(name, f"JEN {level}", c))
            notes += _rough(f"{name} at JEN {level}", c)
            pooled_mine.update({(level, seed): result for seed, result in mine.items()})
            pooled_theirs.update({(level, seed): result for seed, result in theirs.items()})
            levels += 1
        if levels > 1:
            c = paired_comparison(pooled_mine, pooled_theirs, confidence)
            rows.append(_paired_row(name, "all", c))
            notes += _rough(f"{name} at all levels", c)
    return rows, notes


def _rough(where: str, c: dict) -> list[str]:
    """The note for a paired interval made from too few deals won by one agent only, if it is."""
    decided = c["first_only"] + c["second_only"]
    if decided >= ROUGH:
        return []
    deals = "deal" if decided == 1 else "deals"
    return [f"{where}: {decided} {deals} won by one only: the interval is rough (made for {ROUGH} or more)"]


def _paired_row(name: str, level: str, c: dict) -> list[str]:
    return [name, level, str(c["deals"]),
            f"{100 * c['first_rate']:.1f}% -> {100 * c['second_rate']:.1f}%",
            f"{c['first_only']} / {c['second_only']}",
            f"{100 * c['difference']:+.1f} ({100 * c['ci_low']:+.1f} to {100 * c['ci_high']:+.1f})",
            f"{c['p_value']:.3g}",
            f"{c['margin_difference']:+.2f} ({c['margin_ci_low']:+.2f} to {c['margin_ci_high']:+.2f})"]


def format_paired(reports: list[dict], markdown: bool = False, confidence: float = 0.95) -> str:
    """The ``--paired`` section: a title, the table (text or Markdown) and the notes."""
    rows, notes = paired_rows(reports, confidence)
    title = f"paired with {reports[0]['agent']}, on the deals both played (difference = agent - {reports[0]['agent']}):"
    if not rows:
        table = "no level to pair"
    elif markdown:
        table = _markdown(paired_header(confidence), rows)
    else:
        table = _text(paired_header(confidence), rows)
    return "\n".join([title, table, *notes])


LINE_STYLES = (("o", "-"), ("s", "--"), ("^", ":"))  # (marker, line) for agents 1-10, 11-20, 21-30


def line_look(i: int) -> tuple:
    """(colour, marker, line style) of the ``i``-th agent's line: ten colours, and past ten
    agents another marker and line style, so that no two of the first thirty look alike."""
    import matplotlib

    colours = matplotlib.colormaps["tab10"].colors  # type: ignore[attr-defined]  # tab10 is a ListedColormap
    marker, line = LINE_STYLES[i // len(colours) % len(LINE_STYLES)]
    return colours[i % len(colours)], marker, line


def plot(reports: list[dict], path: str | Path) -> None:
    """Every agent's win rate against each JEN level with its 95% interval, in one PNG."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10.0, 5.0))
    FigureCanvasAgg(figure)
    ax = figure.add_subplot()
    count = len(reports)
    # Side by side, so that the intervals stay readable, and all within half a level of their own.
    step = min(0.06, 0.8 / max(count - 1, 1))
    for i, report in enumerate(reports):
        matchups = sorted(report["matchups"], key=lambda m: m["level"])
        shift = (i - (count - 1) / 2) * step
        colour, marker, line = line_look(i)
        ax.errorbar([m["level"] + shift for m in matchups], [m["win_rate"] for m in matchups],
                    yerr=[[m["win_rate"] - m["ci_low"] for m in matchups],
                          [m["ci_high"] - m["win_rate"] for m in matchups]],
                    color=colour, marker=marker, linestyle=line, capsize=3,
                    markersize=4, linewidth=1.2, label=f"{report['agent']} ({_games(report)} games / level)")
    ax.axhline(0.5, linestyle="--", color="grey", linewidth=1)
    ax.set_xticks(list(JEN_LEVELS))
    ax.set_xlim(JEN_LEVELS[0] - 0.5, JEN_LEVELS[-1] + 0.5)
    ax.set_ylim(0, 1)
    ax.set_xlabel("JEN level")
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_title("Win rate against JEN, the solitaire opponent", fontsize=11)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)  # outside: no curve hidden
    figure.tight_layout()
    write_atomically(path, lambda tmp: figure.savefig(tmp, dpi=120))


_confidence = real_number("--confidence", "a number between 0 and 1, such as 0.95", lambda value: 0 < value < 1)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("reports", nargs="+", metavar="REPORT",
                        help="report.json files of ten eval's ladder, or the --out folders that hold them")
    parser.add_argument("-o", "--out", metavar="PNG", help="also draw every agent's ladder in this PNG file")
    parser.add_argument("--overwrite", action="store_true", help="-o may replace an existing file")
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    parser.add_argument("--paired", action="store_true",
                        help="also compare every other agent with the first, deal by deal, on the deck seeds "
                             "both played: the win-rate difference with its 95%% interval, McNemar's p, the margin")
    parser.add_argument("--confidence", type=_confidence, default=0.95, metavar="C",
                        help="--paired: the confidence of its intervals, between 0 and 1 (default 0.95; e.g. "
                             "0.983625 for the first look of a sequential test that spends 0.016375 there)")


def run(args: argparse.Namespace) -> int:
    if args.overwrite and args.out is None:
        raise ValueError("--overwrite lets -o replace a file: give -o too")
    if args.out is not None:
        out = check_output(args.out, ".png", "the plot", overwrite=args.overwrite)
        need_training_extra("ten compare -o", "matplotlib")
    if args.paired:
        need_training_extra("ten compare --paired", "scipy")
    elif args.confidence != 0.95:
        raise ValueError("--confidence sets the intervals of --paired: give --paired too")
    reports = combine([load_report(path) for path in args.reports])
    paired = format_paired(reports, args.markdown, args.confidence) if args.paired else None  # its errors before any output
    if args.out is not None:
        make_writable(out.parent)  # after the reports are read: a refusal makes no folder
    print(format_markdown(reports) if args.markdown else format_text(reports))
    if paired is not None:
        print()
        print(paired)
    if args.out is not None:
        try:
            plot(reports, args.out)
        except OSError as exc:
            raise ValueError(f"cannot write -o {args.out!r}: {exc.strerror or exc}") from None
        print(f"saved {args.out}")
    return 0
