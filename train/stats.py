"""The numbers of an evaluation: win rates with Wilson intervals, the rank on the JEN ladder, and
two agents compared on the same deals."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import SupportsInt

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


def design_effect(wins_per_deal: Iterable[SupportsInt], games_per_deal: Iterable[SupportsInt]) -> float:
    """How many times the variance of a win count exceeds a binomial's when games come in clusters
    (the games of one deal played at several tables), estimated from the clusters; at least 1.

    ``wins_per_deal[i]`` wins in ``games_per_deal[i]`` games of deal ``i``. The win count's
    variance is estimated by the spread of the deals' wins around their expected share (the
    usual cluster-robust estimate, ``D / (D - 1)`` times the sum of squares over ``D`` deals) and
    divided by the binomial's, ``n / (n - 1)`` times ``n p (1 - p)``, estimated alike: so with one
    game a deal it is exactly 1. Below 1 (games of one deal less alike than chance) it is taken as
    1, so an interval is never made narrower than the independent games would give.
    """
    wins = [int(w) for w in wins_per_deal]
    games = [int(g) for g in games_per_deal]
    deals, n = len(games), sum(games)
    if deals < 2 or not 0 < sum(wins) < n or max(games) <= 1:  # one game a deal: independent, exactly
        return 1.0
    p = sum(wins) / n
    spread = deals / (deals - 1) * sum((w - g * p) ** 2 for w, g in zip(wins, games))
    return max(1.0, spread / (n / (n - 1) * n * p * (1 - p)))


def clustered_wilson_interval(wins_per_deal: Collection[SupportsInt], games_per_deal: Collection[SupportsInt],
                              confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """The Wilson interval of a win rate whose games come in clusters, over the effective number of
    games (the games divided by :func:`design_effect`, Kish's effective sample size); and that
    design effect. With one game a deal it is :func:`wilson_interval`."""
    effect = design_effect(wins_per_deal, games_per_deal)
    wins, games = sum(int(w) for w in wins_per_deal), sum(int(g) for g in games_per_deal)
    low, high = wilson_interval(round(wins / effect), round(games / effect), confidence)
    return low, high, effect


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
    mean_score, mean_margin = result.mean_scores[0], result.mean_margins[0]
    return {
        "opponent": label,
        "games": n,
        "wins": wins,
        "shared_wins": result.shared_wins[0],
        "win_rate": result.win_rates[0],
        "ci_low": low,
        "ci_high": high,
        "mean_score": mean_score,
        # the best other score of each game (JEN's on the ladder), averaged: score - margin
        "opponent_mean_score": mean_score - mean_margin,
        "mean_margin": mean_margin,
        # wall-clock time of the agent's act() per decision, on a core of the machine it ran on
        "seconds_per_decision": result.seconds_per_decision[0] if result.decisions else None,
        "per_game": per_game_entry(result.per_game),
    }


def per_game_entry(games: list) -> dict:
    """The agent's (position 0's) games of a matchup as a report keeps them: ``deck_seeds`` (first
    and last; the games are those of every seed between), ``outcomes`` (a string, one letter a
    game: ``W`` sole win, ``T`` shared win, ``L``) and ``margins`` (own score - best other)."""
    seeds = [seed for seed, _, _ in games]
    if seeds and seeds != list(range(seeds[0], seeds[0] + len(seeds))):
        raise ValueError("per_game_entry needs the games of consecutive deck seeds")
    return {"deck_seeds": [seeds[0], seeds[-1]] if seeds else [],
            "outcomes": "".join(outcomes[0] for _, outcomes, _ in games),
            "margins": [margins[0] for _, _, margins in games]}


def paired_comparison(first: dict, second: dict, confidence: float = CONFIDENCE) -> dict:
    """Two agents compared on the deals both played: ``first`` and ``second`` map a deck seed to
    ``(outcome, margin)`` of that agent (outcome ``W``, ``T`` or ``L``; a win is a sole win).

    Returns ``deals`` (how many both played), ``first_rate`` / ``second_rate`` (their win
    rates on those deals), ``difference`` (second - first) with ``ci_low`` / ``ci_high``
    (the paired t interval of the per-deal differences: the Wald interval of a paired
    difference of proportions, for the hundreds of deals an evaluation plays; cut to [-1, 1]),
    ``first_only`` / ``second_only`` (deals only one of them won) and ``p_value`` (McNemar's
    exact test: were the deals only one of them won as likely to go either way?), and
    ``margin_difference`` with ``margin_ci_low`` / ``margin_ci_high`` (the same for the
    score margins). Playing both on the same deals removes the luck of the deal from the
    difference, so it is measured more tightly than by two win rates' intervals.
    """
    from scipy.stats import binomtest, ttest_rel

    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}")
    deals = sorted(set(first) & set(second))
    if len(deals) < 2:
        raise ValueError(f"a paired comparison needs at least 2 deals both agents played, got {len(deals)}")
    a = [int(first[seed][0] == "W") for seed in deals]
    b = [int(second[seed][0] == "W") for seed in deals]
    first_only = sum(x > y for x, y in zip(a, b))
    second_only = sum(y > x for x, y in zip(a, b))
    n = len(deals)

    def interval(x: list, y: list) -> tuple[float, float, float]:
        mean = (sum(y) - sum(x)) / n
        if len({q - p for p, q in zip(x, y)}) == 1:
            return mean, mean, mean  # no spread in the differences: the interval is the point
        ci = ttest_rel(y, x).confidence_interval(confidence_level=confidence)
        return mean, float(ci.low), float(ci.high)

    difference, low, high = interval(a, b)
    low, high = max(low, -1.0), min(high, 1.0)  # a difference of two win rates lies in [-1, 1]
    margin, margin_low, margin_high = interval([first[s][1] for s in deals], [second[s][1] for s in deals])
    discordant = first_only + second_only
    return {"deals": n, "first_rate": sum(a) / n, "second_rate": sum(b) / n,
            "difference": difference, "ci_low": low, "ci_high": high,
            "first_only": first_only, "second_only": second_only,
            "p_value": float(binomtest(second_only, discordant).pvalue) if discordant else 1.0,
            "margin_difference": margin, "margin_ci_low": margin_low, "margin_ci_high": margin_high}
