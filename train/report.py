"""The report of an evaluation: the table printed, ``report.json`` and the ladder plot ``ladder.png``."""

from __future__ import annotations

import json
from pathlib import Path

from ten_env import Rules
from ten_env.record import write_atomically
from ten_env.rules import JEN_LEVELS

from .stats import CONFIDENCE

#: The settings of the game measured that every matchup shares (``num_players`` is the table's).
BASE_RULES_KEYS = ("bust_buy", "payment", "max_bid", "deck_file")
#: Every file :func:`save_report` writes in its folder; nothing else there is ever touched.
REPORT_FILES = ("report.json", "ladder.png")


def _rules_note(rules: dict | None) -> str:
    """``"; rules: max_bid=20, bust_buy"`` for the settings that differ from the Rules defaults."""
    if not rules:
        return ""
    defaults = Rules()
    changed = []
    for key in BASE_RULES_KEYS:
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
    header = ("opponent", "games", "win %", "95% interval", "mean score agent / opp", "mean margin",
              "ms / decision")
    rows = []
    for m in report["matchups"]:
        timed = m.get("seconds_per_decision")  # reports from before 0.2 have none
        rows.append((
            m["opponent"],
            str(m["games"]),
            f"{100 * m['win_rate']:.1f}",
            f"{100 * m['ci_low']:.1f} - {100 * m['ci_high']:.1f}",
            f"{m['mean_score']:.1f} / {m['opponent_mean_score']:.1f}",
            f"{m['mean_margin']:+.1f}",
            f"{1000 * timed:.2f}" if timed is not None else "-",
        ))
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(row: tuple[str, ...]) -> str:
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


def save_report(report: dict, out_dir: str | Path) -> tuple[Path, Path | None]:
    """Write ``report.json`` and, for the ladder, ``ladder.png`` in ``out_dir``; their paths.

    A ``ladder.png`` left from an earlier report is removed when this report has no ladder.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path = out_dir / "report.json"
    text = json.dumps(report, indent=2) + "\n"
    write_atomically(json_path, lambda tmp: tmp.write_text(text))
    png_path = out_dir / "ladder.png"
    if report.get("mode") != "ladder":
        png_path.unlink(missing_ok=True)
        return json_path, None
    plot_ladder(report, png_path)
    return json_path, png_path


def plot_ladder(report: dict, path: str | Path) -> None:
    """The win rate against each JEN level of a ladder report, with its intervals, as a PNG."""
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
    ax.set_xticks(list(JEN_LEVELS))
    ax.set_xlim(JEN_LEVELS[0] - 0.5, JEN_LEVELS[-1] + 0.5)
    ax.set_ylim(0, 1)
    ax.set_xlabel("JEN level")
    ax.set_ylabel("win rate")
    rank = report.get("rank")
    title = f"{report['agent']} against JEN, {report['games']} games per level"
    ax.set_title(title + (f"\nrank: JEN {rank['level']}" if rank else "\nrank: none"), fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper right", fontsize=8)
    figure.tight_layout()
    write_atomically(path, lambda tmp: figure.savefig(tmp, dpi=120))
