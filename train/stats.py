"""The numbers of an evaluation: win rates with Wilson intervals, and the rank on the JEN ladder."""

from __future__ import annotations

from agents import Results

CONFIDENCE = 0.95

#: Rank titles of the JEN ladder (one per level of ``ten_env.rules.JEN_LEVELS``): what it says
#: of a player to beat JEN at each level.
RANK_TITLES = {
    4: "Newcomer: the first rung is behind you",
    5: "Apprentice: the game is starting to click",
    6: "Adept: play that turns heads",
    7: "Virtuoso: fortune and cunning working as one",
    8: "Master: up there with the very best",
    9: "Grandmaster: a rare and striking feat",
    10: "Legend: nobody can quite say how it was done",
}


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


def matchup_stats(result: Results, label: str) -> dict:
    """One matchup of a report: the agent's (position 0's) games, sole wins, interval, means."""
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
        # wall-clock time of the agent's act() per decision, on a core of the machine it ran on
        "seconds_per_decision": result.seconds_per_decision[0] if result.decisions else None,
    }
