"""``ten compare REPORT.json ... [-o ladder.png] [--markdown]``: JEN ladders side by side.

Reads the ``report.json`` files that ``ten eval`` writes for the JEN ladder and shows
every agent's win rate at each level, with its 95% Wilson interval, in one table and
(with ``-o``) in one plot. Reports of the same agent under the same rules whose games
do not overlap (``--seed 0 --games 500`` and ``--seed 500 --games 500``, say, run on
two machines) are combined into one: their games, wins and means add up, and the
intervals and the rank are computed afresh, as one run over all those games would.
Two reports of one agent that share a deck seed at some level are refused: counting
a game twice would narrow the interval without measuring anything.

``--markdown`` prints the table as Markdown (the README's ladder is made this way).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ten_env.rules import JEN_LEVELS

from .stats import ladder_rank, wilson_interval

_SUMMED = ("games", "wins", "shared_wins")
_AVERAGED = ("mean_score", "opponent_mean_score", "mean_margin", "seconds_per_decision")


def load_report(path) -> dict:
    """A ladder report from ``path``, or ValueError saying what is wrong with the file."""
    path = Path(path)
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{str(path)!r} is not a report.json of ten eval ({exc})") from None
    if not isinstance(report, dict) or not isinstance(report.get("matchups"), list) or "agent" not in report:
        raise ValueError(f"{str(path)!r} is not a report.json of ten eval (no agent and matchups)")
    if report.get("mode") != "ladder":
        raise ValueError(f"{str(path)!r} is a report of normal games, not of the JEN ladder: "
                         f"ten compare takes ladder reports (ten eval AGENT --levels ...)")
    return report


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
                                 f"(seeds {seed}-{seed + m['games'] - 1} and from {next_seed}): "
                                 f"combine only reports of different games")
        matchups.append(_merged_matchup([m for _, m in parts]))
    first = group[0]
    seeds = sorted(report.get("seed", 0) for report in group)
    return {**first, "seed": seeds[0], "games": max(m["games"] for m in matchups), "matchups": matchups,
            "rank": ladder_rank(matchups), "combined_from": len(group)}


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
    return merged


def _cell(m: dict | None) -> str:
    if m is None:
        return ""
    return f"{100 * m['win_rate']:.1f}% ({100 * m['ci_low']:.1f}-{100 * m['ci_high']:.1f})"


def _games(report: dict) -> str:
    counts = sorted({m["games"] for m in report["matchups"]})
    return str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"


def _ms(report: dict) -> str:
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
    header, rows = table_rows(reports)
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def format_markdown(reports: list[dict]) -> str:
    header, rows = table_rows(reports)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(f"`{row[0]}`" if i == 0 else cell for i, cell in enumerate(row)) + " |"
              for row in rows]
    return "\n".join(lines)


LINE_STYLES = (("o", "-"), ("s", "--"), ("^", ":"))  # (marker, line) for agents 1-10, 11-20, 21-30


def line_look(i: int) -> tuple:
    """(colour, marker, line style) of the ``i``-th agent's line: ten colours, and past ten
    agents another marker and line style, so that no two of the first thirty look alike."""
    import matplotlib

    colours = matplotlib.colormaps["tab10"].colors
    marker, line = LINE_STYLES[i // len(colours) % len(LINE_STYLES)]
    return colours[i % len(colours)], marker, line


def plot(reports: list[dict], path) -> None:
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
    figure.savefig(path, dpi=120)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("reports", nargs="+", metavar="REPORT", help="report.json files of ten eval's ladder")
    parser.add_argument("-o", "--out", metavar="PNG", help="also draw every agent's ladder in this PNG file")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")


def run(args) -> int:
    if args.out is not None and Path(args.out).suffix.lower() != ".png":
        raise ValueError(f"-o {args.out!r}: the plot is a .png file")
    reports = combine([load_report(path) for path in args.reports])
    print(format_markdown(reports) if args.markdown else format_text(reports))
    if args.out is not None:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        plot(reports, args.out)
        print(f"saved {args.out}")
    return 0
