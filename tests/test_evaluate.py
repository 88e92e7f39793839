"""``ten eval``: Wilson intervals and ranks (``train.stats``), games on all cores (``train.runner``),
the table and files (``train.report``), the options (``train.options``) and ``train.evaluate`` itself."""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import subprocess
import sys
import time
from statistics import NormalDist

import numpy as np
import pytest

from interrupt import interrupt_after
from models import save_model_for_other_observations

from agents import HeuristicAgent, Results, play_games
from agents.registry import make_agent
from agents.tournament import play_game
from ten_env import Game, Rules
from ten_env.rules import JEN_LEVELS
from train import evaluate as E
from train import options, report as R, runner, stats


def wilson_by_hand(wins, n, confidence=0.95):
    """The Wilson score interval, straight from its formula."""
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize("wins, n", [(0, 10), (10, 10), (5, 10), (81, 263), (1, 1), (199, 200)])
def test_wilson_interval_matches_the_formula(wins, n):
    low, high = stats.wilson_interval(wins, n)
    expected_low, expected_high = wilson_by_hand(wins, n)
    assert low == pytest.approx(expected_low, abs=1e-9)
    assert high == pytest.approx(expected_high, abs=1e-9)
    assert 0.0 <= low <= wins / n <= high <= 1.0


def test_wilson_interval_known_numbers_and_edges():
    # z = 1.95996...: 0 of 10 reaches up to z^2 / (10 + z^2); 5 of 10 is the textbook 23.7%-76.3%.
    assert stats.wilson_interval(0, 10) == pytest.approx((0.0, 0.27753), abs=1e-5)
    assert stats.wilson_interval(10, 10) == pytest.approx((0.72247, 1.0), abs=1e-5)
    assert stats.wilson_interval(5, 10) == pytest.approx((0.23659, 0.76341), abs=1e-5)
    assert stats.wilson_interval(0, 0) == (0.0, 1.0)
    low90, high90 = stats.wilson_interval(81, 263, confidence=0.90)
    low95, high95 = stats.wilson_interval(81, 263)
    assert low95 < low90 < high90 < high95  # more confidence, wider interval
    for bad in [(11, 10), (-1, 10), (3, -2)]:
        with pytest.raises(ValueError, match=rf"^wilson_interval needs 0 <= wins <= n, got wins={bad[0]}, n={bad[1]}$"):
            stats.wilson_interval(*bad)
    with pytest.raises(ValueError, match="confidence"):
        stats.wilson_interval(3, 10, confidence=1.5)


def test_paired_comparison_matches_the_textbook_numbers():
    # Ten deals: the first agent wins deals 0-3, the second 2-7. Deals 0-1 only the first won,
    # 4-7 only the second: McNemar's exact p is P(at most 2 of 6 fair coins, or at least 4) = 44/64.
    first = {seed: ("W" if seed < 4 else "L", 1) for seed in range(10)}
    second = {seed: ("W" if 2 <= seed < 8 else "T" if seed == 9 else "L", 3) for seed in range(10)}
    second[10] = ("W", 3)  # a deal only the second played is not compared
    c = stats.paired_comparison(first, second)
    assert (c["deals"], c["first_rate"], c["second_rate"]) == (10, 0.4, 0.6)  # a shared win is no win
    assert (c["first_only"], c["second_only"]) == (2, 4)
    assert c["p_value"] == pytest.approx(44 / 64)
    d = [-1, -1, 0, 0, 1, 1, 1, 1, 0, 0]
    mean = sum(d) / 10
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / 9)
    from scipy.stats import t

    half = t.ppf(0.975, 9) * sd / math.sqrt(10)
    assert c["difference"] == pytest.approx(0.2)
    assert (c["ci_low"], c["ci_high"]) == pytest.approx((0.2 - half, 0.2 + half))
    # every margin 2 higher: no spread, so the interval is the point itself
    assert (c["margin_difference"], c["margin_ci_low"], c["margin_ci_high"]) == (2.0, 2.0, 2.0)
    same = stats.paired_comparison(first, first)
    assert (same["difference"], same["ci_low"], same["ci_high"], same["p_value"]) == (0.0, 0.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="at least 2 deals both agents played, got 1"):
        stats.paired_comparison(first, {9: ("W", 0), 20: ("L", 0)})


def test_per_game_results_are_each_games_own():
    from agents.tournament import seeded_games
    from ten_env.game import score_margin

    agents = [HeuristicAgent(), make_agent("jen:5"), make_agent("random")]
    rules = Rules(num_players=3)
    results = play_games(agents, rules, n=9, seed=40)
    expected = []
    for i, (game, order) in enumerate(seeded_games(agents, rules, 9, 40)):
        winners, scores = game.winners(), game.scores()
        outcomes, margins = [""] * 3, [0] * 3
        for seat, a in enumerate(order):
            outcomes[a] = "L" if seat not in winners else "W" if len(winners) == 1 else "T"
            margins[a] = score_margin(scores, seat)
        expected.append((40 + i, tuple(outcomes), tuple(margins)))
    assert results.per_game == expected
    for a in range(3):
        assert sum(outcomes[a] == "W" for _, outcomes, _ in expected) == results.wins[a]
        assert sum(outcomes[a] == "T" for _, outcomes, _ in expected) == results.shared_wins[a]
        assert sum(margins[a] for _, _, margins in expected) == results.margins[a]


def test_a_report_keeps_each_games_outcome_and_margin():
    report = E.evaluate("heuristic", levels=[4, 10], games=12, seed=30, jobs=1)
    for m in report["matchups"]:
        entry = m["per_game"]
        assert entry["deck_seeds"] == [30, 41]
        assert len(entry["outcomes"]) == len(entry["margins"]) == 12 and set(entry["outcomes"]) <= {"W", "L"}
        assert entry["outcomes"].count("W") == m["wins"]
        assert sum(entry["margins"]) / 12 == pytest.approx(m["mean_margin"])
    assert any(m["wins"] for m in report["matchups"])
    with pytest.raises(ValueError, match="consecutive deck seeds"):
        stats.per_game_entry([(3, ("W",), (1,)), (5, ("L",), (-1,))])


def test_rank_is_the_highest_level_with_a_lower_bound_above_half():
    def ladder(*lows):
        return [{"level": level, "ci_low": low} for level, low in zip(JEN_LEVELS, lows)]

    assert stats.ladder_rank(ladder(0.49, 0.3, 0.1, 0.0, 0.0, 0.0, 0.0)) is None
    assert stats.ladder_rank(ladder(0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5)) is None  # must be *above* 50%
    assert stats.ladder_rank(ladder(0.8, 0.6, 0.45, 0.51, 0.2, 0.0, 0.0)) == {"level": 7, "title": stats.RANK_TITLES[7]}
    assert stats.ladder_rank(ladder(*[0.9] * 7))["level"] == 10
    assert stats.ladder_rank([{"level": 5, "ci_low": 0.7}]) == {"level": 5, "title": stats.RANK_TITLES[5]}
    assert sorted(stats.RANK_TITLES) == list(JEN_LEVELS) == list(range(4, 11))
    assert len(set(stats.RANK_TITLES.values())) == 7


def test_parse_levels():
    assert options.parse_levels("4-10") == list(range(4, 11))
    assert options.parse_levels("4,7,10") == [4, 7, 10]
    assert options.parse_levels("7") == [7]
    assert options.parse_levels(" 9, 5 - 6,6 ") == [5, 6, 9]
    assert options.parse_levels([10, 4, 4]) == [4, 10]
    for bad in ["3-12", "x", "10-4", "", "4,,5", "4-", "11", [3], [], [True], 7]:
        with pytest.raises(ValueError, match="4-10"):
            options.parse_levels(bad)


def test_chunks_cover_every_game_once_starting_on_whole_seat_rotations():
    matchups = [(("a", "b", "c"), Rules(num_players=3)), (("a", "b"), Rules(num_players=2))]
    tasks = runner.chunks(matchups, games=50, seed=100, jobs=3)
    for index, (specs, _) in enumerate(matchups):
        mine = sorted((c.first_seed, c.games) for c in tasks if c.index == index)
        assert all((start - 100) % len(specs) == 0 for start, _ in mine)
        seeds = [s for start, count in mine for s in range(start, start + count)]
        assert seeds == list(range(100, 150))
    assert len(tasks) > 3 * 2  # enough chunks to keep three workers busy

    # long runs are cut small: a stopped evaluation loses one chunk a worker at most
    five = [(("a",) * 5, Rules(num_players=5))]
    for table, limit in ((matchups, runner.MAX_CHUNK_GAMES), (five, 20)):
        tasks = runner.chunks(table, games=1000, seed=0, jobs=1)
        assert max(c.games for c in tasks) == limit
        assert sum(c.games for c in tasks) == 1000 * len(table)


def test_ladder_report_table_and_files(tmp_path):
    report = E.evaluate("heuristic", levels=[4, 10], games=20, seed=0, jobs=1)
    assert report["mode"] == "ladder" and report["agent"] == "heuristic" and report["games"] == 20
    assert [m["level"] for m in report["matchups"]] == [4, 10]
    assert [m["opponent"] for m in report["matchups"]] == ["JEN 4", "JEN 10"]

    # the numbers are those of play_games, and the opponent's mean score is JEN's
    for m in report["matchups"]:
        direct = play_games([HeuristicAgent()], Rules(jen_level=m["level"]), n=20, seed=0)
        assert (m["games"], m["wins"], m["shared_wins"]) == (20, direct.wins[0], 0)
        assert m["win_rate"] == direct.win_rates[0]
        assert m["mean_score"] == pytest.approx(direct.mean_scores[0])
        assert m["mean_margin"] == pytest.approx(direct.mean_margins[0])
        assert (m["ci_low"], m["ci_high"]) == pytest.approx(stats.wilson_interval(m["wins"], 20))
        jen_scores = []
        for i in range(20):
            game = Game(Rules(jen_level=m["level"]), seed=i)
            play_game(game, [HeuristicAgent()])
            jen_scores.append(game.scores()[1])
        assert m["opponent_mean_score"] == pytest.approx(np.mean(jen_scores))
    # the heuristic beats JEN 4 far more often than JEN 10
    assert report["matchups"][0]["wins"] > report["matchups"][1]["wins"]
    assert report["rank"] == stats.ladder_rank(report["matchups"])

    table = R.format_table(report)
    lines = table.splitlines()
    assert lines[1].split()[:3] == ["opponent", "games", "win"]
    row4 = next(line for line in lines if line.startswith("JEN 4 "))
    m4 = report["matchups"][0]
    assert f"{100 * m4['win_rate']:.1f}" in row4 and f"{m4['mean_margin']:+.1f}" in row4
    assert f"{100 * m4['ci_low']:.1f} - {100 * m4['ci_high']:.1f}" in row4
    assert any(line.startswith("JEN 10 ") for line in lines)
    assert lines[-1].startswith("rank:")

    json_path, png_path = R.save_report(report, tmp_path / "out")
    assert json_path == tmp_path / "out" / "report.json" and png_path == tmp_path / "out" / "ladder.png"
    saved = json.loads(json_path.read_text())
    assert saved == report
    for field in ("opponent", "games", "wins", "shared_wins", "win_rate", "ci_low", "ci_high",
                  "mean_score", "opponent_mean_score", "mean_margin", "level"):
        assert field in saved["matchups"][0]
    assert png_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png_path.stat().st_size > 5000


def test_rank_line_names_the_title():
    report = {"agent": "x", "mode": "ladder", "games": 10, "seed": 0, "confidence": 0.95, "rank": None,
              "matchups": [{"level": 6, "opponent": "JEN 6", "games": 10, "wins": 9, "shared_wins": 0,
                            "win_rate": 0.9, "ci_low": 0.6, "ci_high": 0.98, "mean_score": 20.0,
                            "opponent_mean_score": 15.0, "mean_margin": 5.0}]}
    assert "rank: none" in R.format_table(report)
    report["rank"] = stats.ladder_rank(report["matchups"])
    assert stats.RANK_TITLES[6] in R.format_table(report).splitlines()[-1]


def _untimed(report: dict) -> dict:
    """The report without its timings (wall-clock time differs from run to run), which must be there."""
    matchups = []
    for m in report["matchups"]:
        assert m["seconds_per_decision"] > 0
        matchups.append({k: v for k, v in m.items() if k != "seconds_per_decision"})
    return {**report, "matchups": matchups}


def test_results_do_not_depend_on_the_number_of_jobs():
    ladder = dict(levels=[4, 10], games=20, seed=3)
    assert _untimed(E.evaluate("heuristic", jobs=1, **ladder)) == _untimed(E.evaluate("heuristic", jobs=2, **ladder))
    # three seats and an odd number of games: chunks must keep the seat rotation of one long run
    table = dict(opponents=["jen:5", "random"], games=25, seed=7)
    one, two = E.evaluate("heuristic", jobs=1, **table), E.evaluate("heuristic", jobs=2, **table)
    assert _untimed(one) == _untimed(two)
    agents = [make_agent("heuristic"), make_agent("jen:5"), make_agent("random")]
    direct = play_games(agents, Rules(num_players=3), n=25, seed=7)
    m = one["matchups"][0]
    assert (m["wins"], m["shared_wins"]) == (direct.wins[0], direct.shared_wins[0])
    assert m["opponent_mean_scores"] == pytest.approx(direct.mean_scores[1:])


def test_normal_games_report(tmp_path):
    report = E.evaluate("random", opponents=["jen:5"], games=20, seed=0, jobs=2)
    assert report["mode"] == "table" and report["num_players"] == 2 and "rank" not in report
    m = report["matchups"][0]
    assert m["opponent"] == "jen:5" and m["opponents"] == ["jen:5"] and m["games"] == 20
    direct = play_games([make_agent("random"), make_agent("jen:5")], Rules(num_players=2), n=20, seed=0)
    assert m["wins"] == direct.wins[0] and m["shared_wins"] == direct.shared_wins[0]
    assert m["mean_score"] == pytest.approx(direct.mean_scores[0])
    # with one opponent, the best other score is that opponent's
    assert m["opponent_mean_score"] == pytest.approx(direct.mean_scores[1]) == m["opponent_mean_scores"][0]
    assert m["mean_margin"] == pytest.approx(direct.mean_margins[0])

    assert "jen:5" in R.format_table(report).splitlines()[3]
    json_path, png_path = R.save_report(report, tmp_path)
    assert png_path is None and not (tmp_path / "ladder.png").exists()
    assert json.loads(json_path.read_text())["matchups"][0]["opponents"] == ["jen:5"]

    # one opponent spec and a table size: that opponent in every other seat
    wide = E.evaluate("heuristic", opponents=["random"], num_players=4, games=4, jobs=1)
    assert wide["num_players"] == 4 and wide["matchups"][0]["opponent"] == "random, random, random"


@pytest.mark.parametrize("kwargs, message", [
    (dict(levels=[4], opponents=["random"]), "not both"),
    (dict(), "levels"),
    (dict(levels=[3, 4]), "4-10"),
    (dict(levels="4-12"), "no level 11"),
    (dict(opponents=["random", "random"], num_players=4), "num_players=4"),
    (dict(opponents=["random"] * 5), "2-5 players"),
    (dict(opponents=["nobody"]), "unknown agent 'nobody'"),
    (dict(levels=[4], games=0), "games"),
    (dict(levels=[4], games=10**8), r"^games must be a whole number from 1 to 10,000,000, got 100000000$"),
    (dict(levels=[4], jobs=0), "jobs"),
])
def test_bad_input_is_a_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        E.evaluate("random", **kwargs)
    with pytest.raises(ValueError, match="unknown agent"):
        E.evaluate("no-such-agent", levels=[4])


def test_models_are_loaded_by_each_worker_and_checked(tmp_path):
    import sb3_contrib

    import ten_env

    sb3_contrib.MaskablePPO("MlpPolicy", ten_env.SoloEnv(jen_level=4), n_steps=64, batch_size=32).save(
        tmp_path / "tiny.zip")
    spec = str(tmp_path / "tiny.zip")
    report = E.evaluate(spec, levels=[4], games=6, jobs=2)
    assert report["matchups"][0]["games"] == 6
    assert _untimed(report) == _untimed(E.evaluate(spec, levels=[4], games=6, jobs=1))
    assert options.agent_name(spec) == "tiny" and options.agent_name("runs/ppo-jen/model.zip") == "ppo-jen"
    assert options.agent_name("jen:5") == "jen-5"
    # a search over a model path never takes the folder of the model played alone
    assert options.agent_name("search:runs/m/model.zip:64") == "search-m-64"
    assert options.agent_name("oracle:runs/m/model.zip") == "oracle-m" != options.agent_name("runs/m/model.zip")
    assert options.agent_name("search:ppo-jen:64:chance=stratified") == "search-ppo-jen-64-chance-stratified"

    save_model_for_other_observations(tmp_path / "other.zip")
    with pytest.raises(ValueError, match=r"shape \(10,\).*another"):
        E.evaluate(str(tmp_path / "other.zip"), levels=[4], games=2, jobs=2)


def test_cli_runs_prints_and_saves(tmp_path, capsys):
    out = tmp_path / "eval"
    assert E.main(["heuristic", "--levels", "4,5", "--games", "6", "--jobs", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "JEN 4" in printed and "JEN 5" in printed and "rank:" in printed
    assert f"saved {out / 'report.json'} and {out / 'ladder.png'}" in printed
    assert json.loads((out / "report.json").read_text())["games"] == 6

    assert E.main(["random", "--opponents", "heuristic,jen:5", "--games", "3", "--jobs", "1",
                   "--out", str(tmp_path / "table")]) == 0
    printed = capsys.readouterr().out
    assert "heuristic, jen:5" in printed and not (tmp_path / "table" / "ladder.png").exists()

    for argv, message in [
        (["heuristic", "--levels", "4", "--opponents", "random"], "not both"),
        (["heuristic", "--levels", "x"], "levels 'x'"),
        (["heuristic", "--players", "3"], "--opponents"),
        (["nobody"], "unknown agent 'nobody'"),
        (["heuristic", "--opponents", "random,random", "--players", "4"],
         "--players 4 does not fit --opponents random,random (2 agents, a table of 3)"),
    ]:
        assert E.main(argv + ["--out", str(tmp_path / "never")]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1 and err.startswith("python -m train.evaluate: error:")
    assert not (tmp_path / "never").exists()
    assert E.main(["heuristic", "--out", " "]) == 2
    assert capsys.readouterr().err == ("python -m train.evaluate: error: --out is empty: "
                                       "give a folder for report.json / ladder.png\n")


@pytest.mark.parametrize("command", [["-m", "train.evaluate"], ["-m", "train.cli", "eval"]])
def test_cli_bad_levels_exit_2_with_one_line(command, tmp_path):
    run = subprocess.run([sys.executable, *command, "heuristic", "--levels", "3-12"],
                         capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert "error: levels '3-12'" in run.stderr and "4-10" in run.stderr


# --------------------------------------------------------------------------- the game evaluated: rules


def test_a_model_is_evaluated_on_the_rules_it_was_trained_for(tmp_path):
    from sb3_contrib import MaskablePPO
    import ten_env

    path = tmp_path / "bid20.zip"
    MaskablePPO("MlpPolicy", ten_env.SoloEnv(jen_level=4, max_bid=20), n_steps=64, batch_size=32).save(path)
    report = E.evaluate(str(path), levels=[4], games=4, jobs=1, rules={"max_bid": 20})
    assert report["matchups"][0]["games"] == 4
    assert report["rules"] == {"num_players": 2, "bust_buy": False, "payment": "auto", "max_bid": 20,
                               "deck_file": None}
    assert "max_bid=20" in R.format_table(report).splitlines()[0]
    # on the default game (max_bid 40) it fails at once, saying which max_bid it needs
    with pytest.raises(ValueError, match=r"112 actions but the game has 132.*max_bid=20"):
        E.evaluate(str(path), levels=[4], games=4, jobs=1)
    # and so does a search that uses it as its network, before any game is played
    with pytest.raises(ValueError, match=r"model 'bid20' has 112 actions but the game has 132.*max_bid=20"):
        E.evaluate(f"search:{path}:2", levels=[4], games=4, jobs=1)
    report = E.evaluate(f"search:{path}:2", levels=[4], games=2, jobs=1, rules={"max_bid": 20})
    assert report["matchups"][0]["games"] == 2


def test_rules_reach_every_game_whatever_the_jobs():
    rules = {"bust_buy": True}
    one = E.evaluate("heuristic", levels=[4, 7], games=12, seed=5, jobs=1, rules=rules)
    assert one["rules"]["bust_buy"] is True and one["rules"]["max_bid"] == 40
    for m in one["matchups"]:
        direct = play_games([HeuristicAgent()], Rules(jen_level=m["level"], bust_buy=True), n=12, seed=5)
        assert (m["wins"], m["shared_wins"]) == (direct.wins[0], direct.shared_wins[0])
        assert m["mean_score"] == pytest.approx(direct.mean_scores[0])
        assert m["mean_margin"] == pytest.approx(direct.mean_margins[0])

    # normal games: the table size comes from the opponents; workers get the same game
    table = dict(opponents=["random"], games=9, seed=2,
                 rules={"num_players": 2, "payment": "manual", "bust_buy": True, "max_bid": 30})
    serial, parallel = E.evaluate("heuristic", jobs=1, **table), E.evaluate("heuristic", jobs=2, **table)
    assert _untimed(serial) == _untimed(parallel)
    assert serial["rules"] == {"num_players": 2, "bust_buy": True, "payment": "manual", "max_bid": 30,
                               "deck_file": None}
    agents = [make_agent("heuristic"), make_agent("random", seed=1)]
    direct = play_games(agents, Rules(num_players=2, payment="manual", bust_buy=True, max_bid=30), n=9, seed=2)
    assert serial["matchups"][0]["wins"] == direct.wins[0]
    assert serial["matchups"][0]["mean_score"] == pytest.approx(direct.mean_scores[0])


@pytest.mark.parametrize("kwargs, message", [
    (dict(levels=[4], rules={"jen_level": 5}), r"'jen_level' is not allowed.*allowed keys: num_players"),
    (dict(levels=[4], rules={"colour": 1}), r"unknown rules key 'colour' \(allowed keys: num_players, bust_buy"),
    (dict(levels=[4], rules={"num_players": 3}), "rules num_players=3"),
    (dict(opponents=["random"], rules={"num_players": 3}), "rules num_players=3 does not fit 1 opponents"),
    (dict(opponents=["random"], num_players=3, rules={"num_players": 4}), "rules num_players=4"),
    (dict(levels=[4], rules={"max_bid": 3}), "rules: max_bid must be an integer from 5 to 200"),
    (dict(levels=[4], rules={"payment": "cash"}), "rules: payment"),
    (dict(levels=[4], rules=[("max_bid", 20)]), "rules must be a dict"),
    (dict(levels=[4], rules={"deck_file": "/no/such/deck.json"}), "cannot be read"),
])
def test_bad_rules_are_a_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message) as info:
        E.evaluate("random", games=2, jobs=1, **kwargs)
    assert "\n" not in str(info.value)


def test_rules_that_agree_are_accepted():
    report = E.evaluate("random", opponents=["random"], num_players=3, games=3, jobs=1, rules={"num_players": 3})
    assert report["num_players"] == 3 == report["rules"]["num_players"]


def test_cli_rules_options_reach_the_report(tmp_path, capsys):
    out = tmp_path / "eval"
    assert E.main(["heuristic", "--levels", "4", "--games", "3", "--jobs", "1", "--max-bid", "25",
                   "--bust-buy", "--payment", "manual", "--out", str(out)]) == 0
    assert "rules: bust_buy, payment=manual, max_bid=25" in capsys.readouterr().out
    rules = json.loads((out / "report.json").read_text())["rules"]
    assert rules == {"num_players": 2, "bust_buy": True, "payment": "manual", "max_bid": 25, "deck_file": None}


def test_cli_unwritable_out_fails_before_playing(tmp_path, capsys, monkeypatch):
    def no_games(*args, **kwargs):
        raise AssertionError("played games before checking --out")

    monkeypatch.setattr(E, "play_matchups", no_games)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    for out in (blocker / "eval", blocker):
        assert E.main(["heuristic", "--levels", "4", "--games", "5", "--jobs", "1", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("python -m train.evaluate: error:")
        assert str(out) in err
    with pytest.raises(ValueError, match=r"^cannot write to '.*a-file/eval': '.*a-file' is a file, not a folder$"):
        options.prepare_out_dir(blocker / "eval")
    assert options.prepare_out_dir(tmp_path / "new" / "deep") == tmp_path / "new" / "deep"
    assert (tmp_path / "new" / "deep").is_dir() and not list((tmp_path / "new" / "deep").iterdir())


@pytest.mark.parametrize("argv, flag", [
    (["--seed", "-1"], "--seed"),
    (["--games", "-3"], "--games"),
    (["--games", "0"], "--games"),
    (["--jobs", "0"], "--jobs"),
    (["--jobs", "two"], "--jobs"),
    (["--max-bid", "4"], "--max-bid"),
    (["--max-bid", "201"], "--max-bid"),
    (["--payment", "cash"], "--payment"),
])
def test_cli_bad_numbers_are_refused_while_parsing(argv, flag, capsys):
    with pytest.raises(SystemExit) as info:
        E.main(["heuristic", *argv])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"error: argument {flag}:" in err and "Traceback" not in err


def test_ten_eval_unwritable_out_exits_2_at_once(tmp_path):
    (tmp_path / "a-file").write_text("")
    run = subprocess.run([sys.executable, "-m", "train.cli", "eval", "heuristic", "--games", "100000",
                          "--out", str(tmp_path / "a-file" / "eval")],
                         capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert run.stderr == (f"ten: error: cannot write to {str(tmp_path / 'a-file' / 'eval')!r}: "
                          f"{str(tmp_path / 'a-file')!r} is a file, not a folder\n")


# --------------------------------------------------------------------------- merging, trust, --overwrite, --players


def test_merged_results_are_those_of_one_long_run():
    agents = [HeuristicAgent(), make_agent("jen:5")]
    first = play_games(agents, Rules(num_players=2), n=6, seed=10)
    second = play_games(agents, Rules(num_players=2), n=4, seed=16)
    before = (first.games, list(first.wins), second.games, list(second.wins))
    merged = first.merge(second)
    assert merged == play_games(agents, Rules(num_players=2), n=10, seed=10)  # the timings aside
    assert second.merge(first) == merged  # each game's results in deck-seed order, whichever comes first
    assert [seed for seed, _, _ in merged.per_game] == list(range(10, 20))
    assert merged.decisions[0] == first.decisions[0] + second.decisions[0] > 0
    assert merged.seconds[0] == first.seconds[0] + second.seconds[0] > 0
    assert (first.games, first.wins, second.games, second.wins) == before  # neither is changed
    assert Results().merge(first) == first == first.merge(Results())
    third = play_games(agents, Rules(num_players=2), n=2, seed=20)
    assert third.merge(first, second) == merged.merge(third) == play_games(agents, Rules(num_players=2), n=12, seed=10)
    with pytest.raises(ValueError, match="cannot merge the results of 2 and 3 agents"):
        first.merge(play_games(agents + [make_agent("random")], Rules(num_players=3), n=1, seed=0))


def _recording_make_agent(monkeypatch):
    """Every make_agent call of the runner, as (spec, keyword arguments); the agents are the real ones."""
    calls = []

    def record(spec, seed=None, **kwargs):
        calls.append((spec, kwargs))
        return make_agent(spec, seed=seed)

    monkeypatch.setattr(runner, "make_agent", record)
    return calls


def test_trust_reaches_make_agent_in_this_process(monkeypatch):
    calls = _recording_make_agent(monkeypatch)
    trusted = E.evaluate("heuristic", opponents=["jen:5"], games=4, jobs=1, trust=True)
    assert calls and all(kwargs == {"trust": True} for _, kwargs in calls)
    assert {spec for spec, _ in calls} == {"heuristic", "jen:5"}
    calls.clear()
    plain = E.evaluate("heuristic", opponents=["jen:5"], games=4, jobs=1)
    assert calls and all(kwargs == {} for _, kwargs in calls)  # no trust keyword unless asked for
    assert _untimed(trusted) == _untimed(plain)
    with pytest.raises(ValueError, match="trust must be True or False"):
        E.evaluate("heuristic", levels=[4], games=1, jobs=1, trust="yes")


def test_trust_travels_to_the_workers_in_each_chunk(monkeypatch):
    import pickle

    tasks = runner.chunks([(("heuristic",), {"jen_level": 4})], games=12, seed=0, jobs=2, trust=True)
    assert tasks and all(pickle.loads(pickle.dumps(task)).trust is True for task in tasks)
    assert not any(task.trust for task in runner.chunks([(("heuristic",), {"jen_level": 4})], 12, 0, 2))

    # what a worker does with a chunk it receives
    calls = _recording_make_agent(monkeypatch)
    monkeypatch.setattr(runner, "_WORKER_CACHE", {})
    index, result = runner._play_in_worker(runner.play_chunk, pickle.loads(pickle.dumps(tasks[0])))
    assert index == 0 and result.games == tasks[0].games
    assert calls == [("heuristic", {"trust": True})]

    # evaluate() hands trust to the runner whatever the number of jobs
    seen = {}

    def capture(*args, trust=False, **kwargs):
        seen["trust"] = trust
        raise KeyboardInterrupt  # stop before any game

    monkeypatch.setattr(E, "play_matchups", capture)
    with pytest.raises(KeyboardInterrupt):
        E.evaluate("heuristic", levels=[4], games=4, jobs=2, trust=True)
    assert seen == {"trust": True}


def test_trusted_evaluation_on_worker_processes_gives_the_same_numbers():
    ladder = dict(levels=[4], games=8, seed=1)
    assert _untimed(E.evaluate("heuristic", jobs=2, trust=True, **ladder)) == \
        _untimed(E.evaluate("heuristic", jobs=1, **ladder))


def test_a_worker_does_not_repeat_the_trusted_checkpoint_warning():
    """The parent warns once when it loads the agents to check them; each worker loads them again."""
    script = ("import warnings\n"
              "from train.runner import _worker_init\n"
              "from agents.rllib_policy import TRUSTED_WARNING\n"
              "_worker_init()\n"
              "warnings.warn(f\"{TRUSTED_WARNING} 'runs/x/checkpoint' (trusted)\")\n"
              "warnings.warn('another warning')\n")
    err = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60).stderr
    assert "another warning" in err and "(trusted)" not in err


def test_cli_trust_model_flag(tmp_path, monkeypatch, capsys):
    calls = _recording_make_agent(monkeypatch)
    assert E.main(["heuristic", "--levels", "4", "--games", "2", "--jobs", "1", "--trust-model",
                   "--out", str(tmp_path / "out")]) == 0
    assert calls == [("heuristic", {"trust": True})]
    parser_help = subprocess.run([sys.executable, "-m", "train.cli", "eval", "--help"],
                                 capture_output=True, text=True, timeout=60).stdout
    assert "--trust-model" in parser_help and "only for files you trust" in " ".join(parser_help.split())


def test_cli_refuses_a_folder_that_holds_a_report(tmp_path, capsys, monkeypatch):
    out = tmp_path / "eval"
    assert E.main(["heuristic", "--levels", "4", "--games", "2", "--jobs", "1", "--out", str(out)]) == 0
    capsys.readouterr()
    first = (out / "report.json").read_text()
    assert (out / "ladder.png").exists()
    (out / "notes.txt").write_text("mine")

    def no_games(*args, **kwargs):
        raise AssertionError("played games before refusing the folder")

    with monkeypatch.context() as patch:
        patch.setattr(E, "play_matchups", no_games)
        assert E.main(["heuristic", "--levels", "5", "--games", "2", "--jobs", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"--out {str(out)!r} already holds a report (report.json, ladder.png)" in err
    assert "--overwrite" in err and "another --out" in err
    assert (out / "report.json").read_text() == first

    # --overwrite: the new report replaces the old one; a ladder.png of the old ladder does not stay
    assert E.main(["heuristic", "--opponents", "random", "--games", "2", "--jobs", "1", "--overwrite",
                   "--out", str(out)]) == 0
    assert json.loads((out / "report.json").read_text())["mode"] == "table"
    assert not (out / "ladder.png").exists()
    assert (out / "notes.txt").read_text() == "mine"  # only the evaluator's own files are touched
    assert f"saved {out / 'report.json'}\n" in capsys.readouterr().out

    # a ladder.png alone is a report too
    (out / "report.json").unlink()
    (out / "ladder.png").write_bytes(b"old")
    assert E.main(["heuristic", "--levels", "4", "--games", "2", "--jobs", "1", "--out", str(out)]) == 2
    assert "already holds a report (ladder.png)" in capsys.readouterr().err


def test_save_report_removes_an_old_ladder_plot(tmp_path):
    (tmp_path / "ladder.png").write_bytes(b"an old ladder")
    report = E.evaluate("random", opponents=["random"], games=2, jobs=1)
    assert R.save_report(report, tmp_path) == (tmp_path / "report.json", None)
    assert not (tmp_path / "ladder.png").exists()
    assert [name for name in R.REPORT_FILES if (tmp_path / name).exists()] == ["report.json"]


def test_a_table_of_more_than_five_is_refused_naming_the_allowed_sizes(capsys):
    with pytest.raises(SystemExit) as info:
        E.main(["heuristic", "--opponents", "jen:7", "--players", "7"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "error: argument --players: must be 2-5 (you and 1-4 opponents), got 7" in err
    assert "Traceback" not in err
    for bad in (7, 1, 0, True, "3"):
        with pytest.raises(ValueError, match=r"num_players must be 2-5 \(you and 1-4 opponents\), got"):
            E.evaluate("heuristic", opponents=["jen:7"], num_players=bad, games=1, jobs=1)
    with pytest.raises(ValueError, match=r"give 1-4 opponents \(a table has 2-5 players: you and 1-4 "
                                         r"opponents\), got 5"):
        E.evaluate("heuristic", opponents=["random"] * 5, games=1, jobs=1)


# --------------------------------------------------------------------------- --resume


def _ladder_args(out, *extra):
    return ["heuristic", "--levels", "4,5", "--games", "10", "--out", str(out), *extra]


def _without_timing(report: dict) -> dict:
    for matchup in report["matchups"]:
        matchup.pop("seconds_per_decision")
    return report


def _interrupt_after(monkeypatch, chunks_to_play: int) -> list:
    """Make the next evaluation stop (as Ctrl-C would) once ``chunks_to_play`` chunks are played."""
    return interrupt_after(monkeypatch, runner, "play_chunk", chunks_to_play)


def test_an_interrupted_evaluation_resumes_to_the_report_of_an_unbroken_run(tmp_path, capsys, monkeypatch):
    whole, broken = tmp_path / "whole", tmp_path / "broken"
    assert E.main(_ladder_args(whole, "--jobs", "1")) == 0
    assert not (whole / "progress.jsonl").exists()  # a finished run leaves its report only
    capsys.readouterr()

    with monkeypatch.context() as patch:
        before = _interrupt_after(patch, 2)
        assert E.main(_ladder_args(broken, "--jobs", "1")) == 130
    err = capsys.readouterr().err
    assert "--resume" in err and "interrupted" in err
    assert not (broken / "report.json").exists()
    kept = sum(chunk.games for chunk in before)
    assert 0 < kept < 20

    # A line cut short by a kill mid-write is dropped: its chunk is played again.
    with open(broken / "progress.jsonl", "a") as journal:
        journal.write('{"chunk": [1, 0, 4], "results": {"ga')

    with monkeypatch.context() as patch:
        again = _interrupt_after(patch, 1)
        assert E.main(_ladder_args(broken, "--jobs", "1", "--resume")) == 130
    assert f"{kept} of 20 games already played" in capsys.readouterr().out
    kept += again[0].games

    # Resumed on two worker processes: only the rest is played, and the report is the unbroken run's.
    assert E.main(_ladder_args(broken, "--jobs", "2", "--resume")) == 0
    out = capsys.readouterr().out
    assert f"{kept} of 20 games already played" in out
    assert _without_timing(json.loads((broken / "report.json").read_text())) == \
        _without_timing(json.loads((whole / "report.json").read_text()))
    assert not (broken / "progress.jsonl").exists()


def test_resume_plays_only_the_chunks_the_journal_lacks(tmp_path, capsys, monkeypatch):
    out = tmp_path / "eval"
    with monkeypatch.context() as patch:
        first = _interrupt_after(patch, 3)
        assert E.main(_ladder_args(out, "--jobs", "1")) == 130
    with monkeypatch.context() as patch:
        second = _interrupt_after(patch, 100)
        assert E.main(_ladder_args(out, "--jobs", "1", "--resume")) == 0
    seeds = lambda chunks: {(c.index, c.first_seed, c.games) for c in chunks}  # noqa: E731
    assert not seeds(first) & seeds(second)
    assert sum(c.games for c in first + second) == 20
    report = json.loads((out / "report.json").read_text())
    assert [m["games"] for m in report["matchups"]] == [10, 10]
    assert [m["per_game"]["deck_seeds"] for m in report["matchups"]] == [[0, 9], [0, 9]]


def test_a_journal_edited_or_damaged_is_refused_before_any_game(tmp_path, capsys, monkeypatch):
    """Each chunk's line must be what that chunk's games give, and the chunks must cover the games:
    an edited line was taken in (the report did not add up, or a TypeError after every game)."""
    out = tmp_path / "eval"
    with monkeypatch.context() as patch:
        _interrupt_after(patch, 2)
        assert E.main(_ladder_args(out, "--jobs", "1")) == 130
    journal = out / "progress.jsonl"
    lines = journal.read_text().splitlines()
    header, first = json.loads(lines[0]), json.loads(lines[1])

    def edited(change):
        entry = json.loads(json.dumps(first))
        change(entry["results"])
        return [lines[0], json.dumps(entry), *lines[2:]]

    for damaged in (edited(lambda r: r.update(games=str(r["games"]))), edited(lambda r: r.update(wins=None)),
                    edited(lambda r: r["wins"].__setitem__(0, r["wins"][0] + 1)),  # no longer its games' W
                    edited(lambda r: r.update(games=r["games"] - 1)),
                    edited(lambda r: r.update(per_game=r["per_game"][:-1])),
                    edited(lambda r: r["per_game"][0][2].__setitem__(0, 0.5)),
                    [json.dumps(dict(header, chunks=header["chunks"][:-1])), *lines[1:]],  # games left out
                    [json.dumps(dict(header, chunks=[[i, s, str(g)] for i, s, g in header["chunks"]])), *lines[1:]],
                    [json.dumps(dict(header, chunks=[[i, s, float(g)] for i, s, g in header["chunks"]])), *lines[1:]]):
        journal.write_text("".join(line + "\n" for line in damaged))
        capsys.readouterr()
        with monkeypatch.context() as patch:
            played = _interrupt_after(patch, 0)
            assert E.main(_ladder_args(out, "--jobs", "1", "--resume")) == 2
        err = capsys.readouterr().err
        assert not played and err.count("\n") == 1 and "progress.jsonl' is damaged; start again with --overwrite" in err
    # a last line whole but without its newline: the next line is not glued to it
    journal.write_text("\n".join(lines))
    with monkeypatch.context() as patch:
        _interrupt_after(patch, 1)
        assert E.main(_ladder_args(out, "--jobs", "1", "--resume")) == 130
    assert len([json.loads(line) for line in journal.read_text().splitlines()]) == len(lines) + 1
    assert E.main(_ladder_args(out, "--jobs", "1", "--resume")) == 0


def test_resume_refusals_are_one_line_and_change_nothing(tmp_path, capsys, monkeypatch):
    missing = tmp_path / "missing"
    assert E.main(_ladder_args(missing, "--jobs", "1", "--resume")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds no evaluation to resume (no progress.jsonl)" in err
    assert not missing.exists()
    finished = tmp_path / "finished"
    assert E.main(["heuristic", "--levels", "4", "--games", "2", "--jobs", "1", "--out", str(finished)]) == 0
    capsys.readouterr()
    assert E.main(["heuristic", "--levels", "4", "--games", "2", "--jobs", "1", "--out", str(finished),
                   "--resume"]) == 2
    assert f"({str(finished / 'report.json')!r} is that of a finished one)" in capsys.readouterr().err

    out = tmp_path / "eval"
    with monkeypatch.context() as patch:
        _interrupt_after(patch, 1)
        assert E.main(_ladder_args(out, "--jobs", "1")) == 130
    capsys.readouterr()
    journal = (out / "progress.jsonl").read_text()

    def no_games(*args, **kwargs):
        raise AssertionError("played games before refusing")

    cases = [
        (["heuristic", "--levels", "4,5", "--games", "12", "--out", str(out), "--resume"],
         "holds an evaluation with other settings (differs in: games (the journal has 10, given 12)"),
        (["random", "--levels", "4,5", "--games", "10", "--out", str(out), "--resume"],
         "differs in: agent (the journal has heuristic, given random)"),
        (["heuristic", "--levels", "4", "--games", "10", "--out", str(out), "--resume"],
         "differs in: levels (the journal has 4,5, given 4)"),
        (["heuristic", "--levels", "4,5", "--games", "10", "--seed", "3", "--out", str(out), "--resume"],
         "differs in: seed (the journal has 0, given 3)"),
        (["heuristic", "--levels", "4,5", "--games", "10", "--max-bid", "30", "--out", str(out), "--resume"],
         "differs in: max_bid (the journal has 40, given 30)"),
        (["heuristic", "--opponents", "random", "--games", "10", "--out", str(out), "--resume"],
         "differs in: levels (the journal has 4,5, given none); opponents (the journal has none, given random)"),
        (_ladder_args(out, "--resume", "--overwrite"), "--resume goes on with the evaluation"),
        (_ladder_args(out), "holds an unfinished evaluation (progress.jsonl): use --resume"),
    ]
    with monkeypatch.context() as patch:
        patch.setattr(E, "play_matchups", no_games)
        for argv, message in cases:
            assert E.main(argv + ["--jobs", "1"]) == 2, argv
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and message in err, (argv, err)
            assert (out / "progress.jsonl").read_text() == journal
        # damage that is not a cut-short last line
        lines = journal.splitlines()
        (out / "progress.jsonl").write_text("\n".join([lines[0], "{not json", *lines[1:]]) + "\n")
        assert E.main(_ladder_args(out, "--jobs", "1", "--resume")) == 2
        assert "is damaged (line 2); start again with --overwrite" in capsys.readouterr().err
        (out / "progress.jsonl").write_text('{"some": "other file"}\n')
        assert E.main(_ladder_args(out, "--jobs", "1", "--resume")) == 2
        assert "is not a ten-env journal of this version" in capsys.readouterr().err
    assert not (out / "report.json").exists()

    # --overwrite starts again
    assert E.main(_ladder_args(out, "--jobs", "1", "--overwrite")) == 0
    assert json.loads((out / "report.json").read_text())["games"] == 10
    assert not (out / "progress.jsonl").exists()


def test_journal_results_read_back_as_they_were():
    from train.journal import results_from_json, results_to_json

    results = play_games([HeuristicAgent()], Rules(jen_level=6), n=3, seed=11)
    assert results_from_json(json.loads(json.dumps(results_to_json(results)))) == results


def test_ctrl_c_ends_the_workers_at_once(monkeypatch):
    # Each chunk is a long search: waiting for the workers to finish it would take minutes.
    tasks = runner.chunks([(("search:400",), Rules(jen_level=10))], games=4, seed=0, jobs=2)
    real_wait = runner.wait

    def wait_then_interrupt(pending, **kwargs):
        real_wait(pending, timeout=3)  # the workers have started their chunks
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "wait", wait_then_interrupt)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        runner.run_chunks(tasks, runner.play_chunk, 2, {}, lambda task, result: None)
    assert time.monotonic() - started < 30
    assert not multiprocessing.active_children()


def test_a_second_ctrl_c_while_the_first_is_handled_is_ignored(monkeypatch):
    # A double press, or timeout -s INT (which signals the command, then its process group): the
    # second, while the workers are being stopped, must not leave them playing their long chunks.
    import signal

    tasks = runner.chunks([(("search:400",), Rules(jen_level=10))], games=4, seed=0, jobs=2)
    real_wait, real_stop = runner.wait, runner._stop_workers
    stopped = []

    def wait_then_ctrl_c(pending, **kwargs):
        real_wait(pending, timeout=3)  # the workers have started their chunks
        signal.raise_signal(signal.SIGINT)

    def ctrl_c_then_stop(executor):
        signal.raise_signal(signal.SIGINT)
        stopped.append(True)
        real_stop(executor)

    monkeypatch.setattr(runner, "wait", wait_then_ctrl_c)
    monkeypatch.setattr(runner, "_stop_workers", ctrl_c_then_stop)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # Python's own, as at a terminal
    try:
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            runner.run_chunks(tasks, runner.play_chunk, 2, {}, lambda task, result: None)
        assert stopped and time.monotonic() - started < 30
        assert not multiprocessing.active_children()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Ctrl-C works again after
    finally:
        signal.signal(signal.SIGINT, before)


def test_ctrl_c_interrupts_once_ignores_the_next_and_not_a_third():
    import signal

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with runner.interrupted_once():
            with pytest.raises(KeyboardInterrupt):
                signal.raise_signal(signal.SIGINT)
            signal.raise_signal(signal.SIGINT)  # the second of a pair: ignored
            with pytest.raises(KeyboardInterrupt):
                signal.raise_signal(signal.SIGINT)  # a third: the clean-up itself is to stop
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)


HALF_SENT_RUN = """
import os, sys, time
sys.path.insert(0, {tests!r})
import interrupt
from ten_env import Rules
from train import runner

real_wait = runner.wait

def wait_then_interrupt(pending, **kwargs):
    while not os.path.exists(os.environ["HALF_SENT"]):  # the worker has written half its message
        for future in real_wait(pending, timeout=0.1).done:
            future.result()  # a worker that failed to, says why
    time.sleep(0.5)  # and the pool's manager thread has read it
    raise KeyboardInterrupt

runner.wait = wait_then_interrupt
tasks = runner.chunks([(("random",), Rules(jen_level=4))], games=1, seed=0, jobs=1)
try:
    runner.run_chunks(tasks, interrupt.half_sent, 2, {{}}, lambda task, result: None)
except KeyboardInterrupt:
    print("ended")
"""


def test_ctrl_c_ends_the_run_when_a_worker_stopped_mid_send(tmp_path):
    # Without closing the result pipe, the pool's manager thread waits for the rest of the half
    # message for ever, and the run with it: a separate process, so that a hang fails the test.
    from pathlib import Path

    script = HALF_SENT_RUN.format(tests=str(Path(__file__).parent))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "HALF_SENT": str(tmp_path / "half-sent")})
    assert done.returncode == 0 and done.stdout.strip() == "ended", done.stderr[-2000:]


def test_a_run_resumes_where_the_package_lies_elsewhere(tmp_path, capsys, monkeypatch):
    # A run begun on another machine or checkout (a lent machine, a cluster) goes on here: a shipped
    # model is named in the journal by its place in the package, and its contents are what count.
    out = tmp_path / "eval"
    argv = ["search:ppo-jen-v1:2", "--levels", "4", "--games", "4", "--jobs", "1", "--out", str(out)]
    with monkeypatch.context() as patch:
        _interrupt_after(patch, 1)
        assert E.main(argv) == 130
    capsys.readouterr()
    journal = out / "progress.jsonl"
    header, *rest = journal.read_text().splitlines()
    files = json.loads(header)["files"]
    assert list(files) == ["agents/pretrained/ppo-jen-v1.zip"]
    digest = files["agents/pretrained/ppo-jen-v1.zip"]
    # as a journal written with the whole path, in a checkout elsewhere, holds it
    moved = header.replace('"agents/pretrained/ppo-jen-v1.zip"', '"/elsewhere/repo/agents/pretrained/ppo-jen-v1.zip"')
    journal.write_text("\n".join([moved, *rest]) + "\n")
    assert E.main(argv + ["--resume"]) == 0
    assert json.loads((out / "report.json").read_text())["games"] == 4
    # but not with other contents
    with monkeypatch.context() as patch:
        _interrupt_after(patch, 1)
        assert E.main(argv + ["--overwrite"]) == 130
    capsys.readouterr()
    header, *rest = journal.read_text().splitlines()
    journal.write_text("\n".join([header.replace(digest, "0" * 64), *rest]) + "\n")
    assert E.main(argv + ["--resume"]) == 2
    assert "differs in: 'agents/pretrained/ppo-jen-v1.zip' (its contents changed" in capsys.readouterr().err


def test_a_shipped_model_and_a_file_of_the_same_name_elsewhere_are_two_files(tmp_path):
    from types import SimpleNamespace

    from agents.policy import PRETRAINED_DIR
    from train.journal import _differences, file_digests

    other = tmp_path / "old-checkout" / "agents" / "pretrained" / "ppo-jen-v1.zip"
    other.parent.mkdir(parents=True)
    other.write_bytes(b"another model")
    shipped = PRETRAINED_DIR / "ppo-jen-v1.zip"
    files = file_digests([SimpleNamespace(path=shipped), SimpleNamespace(path=other)], None)
    assert sorted(files) == sorted(["agents/pretrained/ppo-jen-v1.zip", str(other)])
    # an old journal of that run, which named the shipped one by its whole path elsewhere, reads the same
    old = {"/elsewhere/agents/pretrained/ppo-jen-v1.zip": files["agents/pretrained/ppo-jen-v1.zip"],
           str(other): files[str(other)]}
    assert _differences({"files": old}, {"files": files}) == []
    other.write_bytes(b"retrained")
    changed = file_digests([SimpleNamespace(path=shipped), SimpleNamespace(path=other)], None)
    assert _differences({"files": files}, {"files": changed}) == [f"{str(other)!r} (its contents changed since the "
                                                                 f"run began)"]


def test_the_code_digest_counts_code_not_comments_docstrings_or_layout(tmp_path):
    from train.journal import code_digest, code_digests

    package = tmp_path / "pkg"
    (package / "data").mkdir(parents=True)
    (package / "__pycache__").mkdir()
    module, data = package / "rules.py", package / "data" / "deck.json"
    module.write_text('"""The rules."""\n\ndef limit():\n    """Ten."""\n    return 10  # the bust limit\n')
    data.write_text('{"cards": []}')
    (package / "card.json").write_text("{}")  # a model's card: not code
    (package / "__pycache__" / "rules.cpython-311.pyc").write_bytes(b"bytecode")
    first = code_digests((package,))
    assert sorted(first) == ["pkg/data/deck.json", "pkg/rules.py"]
    module.write_text('"""The rules of TEN."""\n\n\ndef limit():\n    """The limit."""\n    return (10)  # ten\n')
    (package / "card.json").write_text('{"edited": true}')
    assert code_digests((package,)) == first
    module.write_text('"""The rules."""\n\ndef limit():\n    """Ten."""\n    return 11\n')
    assert code_digests((package,)) == {**first, "pkg/rules.py": code_digests((package,))["pkg/rules.py"]}
    assert code_digests((package,))["pkg/rules.py"] != first["pkg/rules.py"]
    module.write_text('"""The rules."""\n\ndef limit():\n    return 10\n')  # a docstring was its body
    assert code_digests((package,)) == first
    data.write_text('{"cards": [] }')  # a data file counts by its bytes
    assert code_digests((package,))["pkg/data/deck.json"] != first["pkg/data/deck.json"]
    # the installed code: every module of ten_env and agents, the bundled deck, no model file
    installed = code_digests()
    assert {"ten_env/game.py", "ten_env/data/deck.json", "agents/search.py"} <= set(installed)
    assert all(name.endswith(".py") or name == "ten_env/data/deck.json" for name in installed)
    assert code_digest() == code_digest(installed) != code_digest(first)


def test_the_code_digest_is_the_same_under_newer_pythons(monkeypatch):
    """ast.dump differs by version (3.12 gives every function and class an empty type_params; 3.13
    leaves empty fields out): a journal begun under one Python was refused under another, as if
    every module had changed. Here 3.12's trees are made under this Python."""
    import ast

    from ten_env import scoring
    from train.journal import code_digests

    roots = (os.path.dirname(scoring.__file__),)
    before, parse = code_digests(roots), ast.parse

    def parse_as_newer(*args, **kwargs):
        tree = parse(*args, **kwargs)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                node.type_params = []
        return tree

    for kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
        if "type_params" not in kind._fields:
            monkeypatch.setattr(kind, "_fields", (*kind._fields, "type_params"))
    monkeypatch.setattr(ast, "parse", parse_as_newer)
    assert code_digests(roots) == before


def test_resume_refuses_a_model_or_deck_changed_since_the_run_began(tmp_path, capsys, monkeypatch):
    from importlib import resources

    from agents.policy import PRETRAINED_DIR
    from train.journal import code_digest

    model, deck, out = tmp_path / "model.zip", tmp_path / "deck.json", tmp_path / "eval"
    model.write_bytes((PRETRAINED_DIR / "ppo-jen-v1.zip").read_bytes())
    bundled = resources.files("ten_env").joinpath("data/deck.json").read_text(encoding="utf-8")
    deck.write_text(bundled)
    argv = [str(model), "--levels", "4", "--games", "4", "--jobs", "1", "--deck-file", str(deck), "--out", str(out)]
    with monkeypatch.context() as patch:
        _interrupt_after(patch, 1)
        assert E.main(argv) == 130
    capsys.readouterr()

    deck.write_text(bundled + "\n")  # the same deck, but not the same file
    assert E.main(argv + ["--resume"]) == 2
    assert f"differs in: {str(deck)!r} (its contents changed since the run began)" in capsys.readouterr().err
    deck.write_text(bundled)
    model.write_bytes((PRETRAINED_DIR / "ppo-jen.zip").read_bytes())  # retrained in place
    assert E.main(argv + ["--resume"]) == 2
    assert f"differs in: {str(model)!r} (its contents changed" in capsys.readouterr().err
    model.write_bytes((PRETRAINED_DIR / "ppo-jen-v1.zip").read_bytes())
    (tmp_path / "decks").mkdir()
    moved = tmp_path / "decks" / "same.json"
    moved.write_text(bundled)
    monkeypatch.chdir(tmp_path / "decks")  # the same deck, named by another path: it resumes
    argv[argv.index(str(deck))] = "same.json"
    assert E.main(argv + ["--resume"]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["games"] == 4 and report["code"] == code_digest()


def test_a_journal_removed_while_playing_is_an_error_not_a_new_file(tmp_path):
    from train.journal import Journal, identity

    plan = E._prepare("heuristic", levels=[4], opponents=None, num_players=None, games=4, seed=0, jobs=1,
                      rules=None)
    tasks = runner.chunks(plan["matchups"], 4, 0, 1)
    journal = Journal.start(tmp_path, identity(plan), tasks)
    (tmp_path / "progress.jsonl").unlink()
    with pytest.raises(ValueError, match="cannot write"):
        journal.record(tasks[0], runner.play_chunk(tasks[0], {}))
    assert not (tmp_path / "progress.jsonl").exists()


def test_resume_with_every_chunk_played_saves_the_report(tmp_path, capsys, monkeypatch):
    out = tmp_path / "eval"

    def cannot_save(report, folder):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(E, "save_report", cannot_save)
        assert E.main(_ladder_args(out, "--jobs", "1")) == 2
    err = capsys.readouterr().err
    assert "No space left on device" in err and "--resume saves the report" in err and err.count("\n") == 1

    def cannot_make(report, folder):
        raise ValueError("the report cannot be made")

    with monkeypatch.context() as patch:  # not a failure to write: a resume would not get past it
        patch.setattr(E, "save_report", cannot_make)
        assert E.main(_ladder_args(out, "--jobs", "1", "--resume")) == 2
    err = capsys.readouterr().err
    assert err.endswith("error: the report cannot be made\n") and "--resume saves" not in err
    with monkeypatch.context() as patch:
        played = _interrupt_after(patch, 100)
        assert E.main(_ladder_args(out, "--jobs", "2", "--resume")) == 0
    assert not played and "20 of 20 games already played" in capsys.readouterr().out
    assert [m["games"] for m in json.loads((out / "report.json").read_text())["matchups"]] == [10, 10]
    assert not (out / "progress.jsonl").exists()


def _stop_an_evaluation_on_workers(tmp_path, stop):
    """A ``ten eval`` on two workers, in a session of its own, stopped by ``stop(run)`` once two of its
    chunks are played; fails if a process of its session outlives it. The run, its stderr, its journal."""
    import signal

    out = tmp_path / "eval"
    run = subprocess.Popen([sys.executable, "-m", "train.cli", "eval", "heuristic", "--levels", "4-10", "--games",
                            "600", "--jobs", "2", "--no-progress", "--out", str(out)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    journal, deadline = out / "progress.jsonl", time.monotonic() + 120
    while time.monotonic() < deadline and (not journal.exists() or journal.read_text().count("\n") < 3):
        time.sleep(0.2)  # two chunks played
    stop(run)
    try:
        _, err = run.communicate(timeout=60)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # the workers end with it (its session holds nothing more)
            try:
                os.killpg(run.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.2)
        else:
            pytest.fail("processes of the evaluation outlived it")
    finally:
        try:
            os.killpg(run.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return run, err, journal


def test_sigterm_stops_an_evaluation_and_its_workers_keeping_its_games(tmp_path):
    """A kill of ten eval left its two worker processes running, orphaned, until killed by hand."""
    import signal

    run, err, journal = _stop_an_evaluation_on_workers(tmp_path, lambda run: run.send_signal(signal.SIGTERM))
    assert run.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "ten: stopped by SIGTERM"
    assert "--resume to go on" in err and journal.read_text().count("\n") >= 3


def test_a_run_under_nohup_outlives_its_terminal(tmp_path):
    """nohup ignores SIGHUP so that a run goes on when its terminal closes; ten's handler undid that."""
    import signal

    out = tmp_path / "eval"
    run = subprocess.Popen([sys.executable, "-m", "train.cli", "eval", "heuristic", "--levels", "4", "--games", "60",
                            "--jobs", "1", "--out", str(out)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))  # as nohup starts it
    journal, deadline = out / "progress.jsonl", time.monotonic() + 120
    while time.monotonic() < deadline and not journal.exists() and run.poll() is None:
        time.sleep(0.1)
    assert journal.exists() and run.poll() is None  # under way when the terminal closes
    run.send_signal(signal.SIGHUP)
    _, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    assert json.loads((out / "report.json").read_text())["matchups"][0]["games"] == 60


def test_a_script_that_evaluates_on_workers_without_a_main_guard_is_told_so(tmp_path):
    """Each spawned worker imports the script, which starts the evaluation again: three tracebacks
    (the workers' and a BrokenProcessPool) said nothing of the cause."""
    script = tmp_path / "noguard.py"
    script.write_text('from train.evaluate import evaluate\n\nevaluate("heuristic", levels=[4], games=4, jobs=2)\n')
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 1 and run.stderr.count("Traceback") == 1, run.stderr
    assert run.stderr.strip().splitlines()[-1] == f"train.options.RunStopped: {runner.WORKER_LOST}"
    assert "if __name__ == \"__main__\":" in runner.WORKER_LOST
    script.write_text(script.read_text().replace("evaluate(", 'if __name__ == "__main__":\n    print(evaluate(')
                      .replace("jobs=2)", "jobs=2)[\"games\"])"))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0 and run.stdout == "4\n", run.stderr


def test_no_progress_leaves_the_bar_out_of_a_log(tmp_path, capsys):
    """ten train had --no-progress; ten eval, ten league and ten distill generate drew their bar into any log."""
    from train import league as L

    argv = ["heuristic", "--levels", "4", "--games", "2", "--jobs", "1"]
    assert E.main([*argv, "--out", str(tmp_path / "a")]) == 0
    assert "evaluating" in capsys.readouterr().err
    assert E.main([*argv, "--out", str(tmp_path / "b"), "--no-progress"]) == 0
    assert capsys.readouterr().err == ""
    assert L.main(["heuristic", "random", "--games", "2", "--jobs", "1", "--out", str(tmp_path / "l"),
                   "--no-progress"]) == 0
    assert capsys.readouterr().err == ""


def test_a_closed_terminal_stops_an_evaluation_on_workers_in_one_line(tmp_path):
    """SIGHUP reaches the whole process group: multiprocessing's resource tracker died of it, was
    started again, and printed a warning and a traceback for each resource the workers freed."""
    import signal

    # as a terminal that closes sends it: to the whole group
    run, err, journal = _stop_an_evaluation_on_workers(tmp_path, lambda run: os.killpg(run.pid, signal.SIGHUP))
    assert run.returncode == 128 + signal.SIGHUP, err
    assert "Traceback" not in err and "resource_tracker" not in err, err
    assert err.strip().splitlines() == [f"the games played so far are kept in {str(journal.parent)!r}: run the same "
                                        f"command with --resume to go on", "", "ten: stopped by SIGHUP"]
