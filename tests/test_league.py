"""``ten league``: the schedule, the Bradley-Terry ratings, the table and files, the refusals."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from interrupt import interrupt_after
from models import save_model_for_other_observations

from agents import play_games
from agents.policy import PRETRAINED_DIR
from agents.registry import make_agent
from ten_env import Rules
from train import league as L
from train.cli import main as ten


@pytest.fixture(scope="module")
def three_way():
    """random, heuristic and jen:5 in 2-player games: 3 tables of 12 games, played here."""
    return L.league(["random", "heuristic", "jen:5"], num_players=2, games=12, seed=3, jobs=1)


def test_schedule_every_combination_on_the_same_seeds(three_way):
    assert [t["agents"] for t in three_way["tables"]] == [["random", "heuristic"], ["random", "jen:5"],
                                                          ["heuristic", "jen:5"]]
    assert all(t["games"] == 12 for t in three_way["tables"])
    plan = L.prepare(["random", "heuristic", "jen:5", "jen:8", "jen:10"], num_players=4, games=1, jobs=1)
    assert len(plan["tables"]) == 5 and all(len(specs) == 4 for specs, _ in plan["tables"])
    # a table's tallies are those of play_games on the same seeds (game i on seed + i, seats rotated)
    table = play_games([make_agent("random", seed=0), make_agent("heuristic", seed=1)], Rules(num_players=2),
                       n=12, seed=3)
    assert three_way["tables"][0]["wins"] == table.wins
    assert three_way["tables"][0]["mean_scores"] == pytest.approx(table.mean_scores)


def test_stronger_agent_rates_higher_and_totals_agree(three_way):
    rows = {r["agent"]: r for r in three_way["standings"]}
    assert rows["heuristic"]["rating"] > rows["random"]["rating"]
    assert rows["heuristic"]["rating_low"] > rows["random"]["rating_high"]
    assert [r["agent"] for r in three_way["standings"]][0] == "heuristic"
    for r in three_way["standings"]:
        assert r["games"] == 24 and r["rating_low"] <= r["rating"] <= r["rating_high"]
        assert r["win_ci_low"] <= r["win_rate"] <= r["win_ci_high"] and "design_effect" in r
    assert np.mean([r["rating"] for r in three_way["standings"]]) == pytest.approx(L.MEAN_RATING)
    # every game of two players is one pairwise result
    assert np.sum(three_way["pairwise_wins"]["wins"]) == pytest.approx(3 * 12)


def test_bradley_terry_matches_a_general_optimiser():
    from scipy.optimize import minimize
    from scipy.special import log_expit

    rng = np.random.default_rng(0)
    wins = rng.integers(0, 30, (4, 4)).astype(float)
    np.fill_diagonal(wins, 0)

    def loss(s):
        return -np.sum(wins * log_expit(s[:, None] - s[None, :])) + np.sum(s * s) / (2 * L.PRIOR_SD ** 2)

    expected = minimize(loss, np.zeros(4), method="Nelder-Mead", options={"xatol": 1e-9, "fatol": 1e-12,
                                                                           "maxiter": 20000}).x
    assert L.bradley_terry(wins) == pytest.approx(expected - expected.mean(), abs=1e-4)
    # one agent ahead in every comparison: a finite rating, kept so by the prior
    assert np.all(np.isfinite(L.bradley_terry(np.array([[0, 50.0], [0, 0]]))))


def test_the_rating_interval_resamples_whole_deals_at_every_table():
    """Agents 1 and 2 meet agent 0 on the same deals with the same results, and tie each other:
    drawn deal by deal at every table they stay alike in every refit, so their intervals are
    the same (resampled table by table, they were not)."""
    rng = np.random.default_rng(4)
    ahead = rng.random(40) < 0.6  # the deals on which agent 0 finishes ahead
    versus_0 = np.zeros((40, 2, 2))
    versus_0[ahead, 0, 1], versus_0[~ahead, 1, 0] = 1.0, 1.0
    tied = np.full((40, 2, 2), 0.5)
    ratings, low, high, _ = L.fit_ratings([([0, 1], versus_0), ([0, 2], versus_0), ([1, 2], tied)], 3, seed=0,
                                          bootstrap=200)
    assert ratings[1] == pytest.approx(ratings[2])
    assert (low[1], high[1]) == pytest.approx((low[2], high[2]), abs=1e-6)
    assert high[1] - low[1] > 50  # and not narrowed to nothing
    with pytest.raises(ValueError, match=r"every table must play the same deals; got tables of \[39, 40\] games"):
        L.fit_ratings([([0, 1], versus_0), ([0, 2], versus_0[:39])], 3, seed=0, bootstrap=2)


def test_ratings_of_no_games_are_the_mean_with_no_interval_to_draw():
    """With bootstrap resampling on, no deals divided by zero."""
    ratings, low, high, wins = L.fit_ratings([], 3, seed=0, bootstrap=5)
    assert ratings.tolist() == low.tolist() == high.tolist() == [L.MEAN_RATING] * 3 and not wins.any()


def test_the_win_interval_counts_one_deals_games_as_alike_as_they_are():
    from train.stats import clustered_wilson_interval, design_effect, wilson_interval

    rng = np.random.default_rng(5)
    won = (rng.random(100) < 0.3).astype(int)
    for seed in range(50):  # one game a deal: independent games, exactly 1
        assert design_effect(np.random.default_rng(seed).random(100) < 0.3, [1] * 100) == 1.0
    # the same result at each of 4 tables: about 4 times the variance, a Wilson interval over ~a quarter
    effect = design_effect(4 * won, [4] * 100)
    assert effect == pytest.approx(4 * 100 / 99 * 399 / 400)
    low, high, said = clustered_wilson_interval(4 * won, [4] * 100)
    assert said == effect and (low, high) == wilson_interval(round(4 * won.sum() / effect), round(400 / effect))
    assert (low, high) != wilson_interval(4 * won.sum(), 400)
    # independent games at 4 tables: near 1, and never below
    independent = (rng.random((100, 4)) < 0.3).sum(axis=1)
    assert 1.0 <= design_effect(independent, [4] * 100) < 1.3
    assert design_effect([0, 0, 0], [4, 4, 4]) == design_effect([4, 4, 4], [4, 4, 4]) == 1.0


def test_deterministic_and_independent_of_jobs():
    kwargs = dict(num_players=3, games=6, seed=11)
    agents = ["random", "heuristic", "jen:6"]
    one = L.league(agents, jobs=1, **kwargs)
    assert one == L.league(agents, jobs=2, **kwargs)
    assert one == L.league(agents, jobs=1, **kwargs)
    assert one != L.league(agents, jobs=1, num_players=3, games=6, seed=12)


def test_table_json_and_png_agree(three_way, tmp_path):
    json_path, png_path = L.save_league(three_way, tmp_path)
    assert png_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    saved = json.loads(json_path.read_text())
    assert saved == json.loads(json.dumps(three_way))
    table = L.format_league(saved).splitlines()
    assert "3 tables of 12 games" in table[0]
    for line, row in zip(table[3:6], saved["standings"]):
        cells = line.split()
        assert cells[0] == row["agent"] and int(cells[1]) == row["games"] and int(cells[2]) == row["wins"]
        assert f"{row['rating']:.0f}" in cells and f"{row['rating_low']:.0f}" in cells


@pytest.mark.parametrize("agents, players, message", [
    (["random", "no-such-agent"], 2, "unknown agent 'no-such-agent'; use random, heuristic"),
    (["random"], 2, "at least two agents"),
    (["random", "random"], 2, "named more than once"),
    # one agent by two names: it would be rated twice
    (["jen:7", "random", "jen:07"], 2, r"^agents 'jen:7' and 'jen:07' are the same agent \(JenAgent\(7\)\): name each"),
    (["search:8", "search:008"], 2, "agents 'search:8' and 'search:008' are the same agent"),
    (["ppo-jen", "random", str(PRETRAINED_DIR / "ppo-jen.zip")], 2, "agents 'ppo-jen' and '.*ppo-jen.zip' are the same"),
    (["search:ppo-jen:8", f"search:{PRETRAINED_DIR / 'ppo-jen.zip'}:8"], 2, "are the same agent"),
    (["random", "heuristic"], 3, "tables of 3 players need at least 3 agents, got 2: give more agents or "
                                 "--players 2$"),
    (["random", "heuristic", "jen:4"], 4, "got 3: give more agents or --players 2 or 3$"),
    (["random", "heuristic", "jen:4", "jen:5"], 5, "got 4: give more agents or --players 2 to 4$"),
    (["random", "heuristic"], 6, "from 2 to 5"),
    (["random", "heuristic"], 1, "from 2 to 5"),
])
def test_bad_input_is_a_value_error(agents, players, message):
    with pytest.raises(ValueError, match=message):
        L.prepare(agents, num_players=players, games=2, jobs=1)


def test_models_that_cannot_sit_at_the_table_are_refused(tmp_path):
    from sb3_contrib import MaskablePPO

    import ten_env

    path = tmp_path / "bid20.zip"
    MaskablePPO("MlpPolicy", ten_env.SoloEnv(jen_level=4, max_bid=20), n_steps=64, batch_size=32).save(path)
    with pytest.raises(ValueError, match=r"cannot sit at this table.*112 actions but the game has 132"):
        L.prepare(["random", str(path)], num_players=2, games=2, jobs=1)
    assert L.prepare(["random", str(path)], num_players=2, games=2, jobs=1, rules={"max_bid": 20})
    with pytest.raises(ValueError, match=r"agent 'search:.*bid20.zip:2' cannot sit at this table.*112 actions"):
        L.prepare(["random", f"search:{path}:2"], num_players=2, games=2, jobs=1)
    save_model_for_other_observations(tmp_path / "other.zip")
    with pytest.raises(ValueError, match=r"shape \(10,\)"):
        L.prepare(["random", str(tmp_path / "other.zip")], num_players=2, games=2, jobs=1)


def test_cli_refuses_to_overwrite_and_says_why_in_one_line(tmp_path, capsys):
    out = tmp_path / "league"
    args = ["league", "random", "heuristic", "--games", "2", "--jobs", "1", "--out", str(out)]
    assert ten(args) == 0
    assert "saved" in capsys.readouterr().out
    assert ten(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already holds a league report" in err and "--overwrite" in err
    assert ten(args + ["--overwrite"]) == 0
    capsys.readouterr()
    assert ten(["league", "random", "nobody", "--out", str(tmp_path / "never")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown agent 'nobody'" in err
    assert not (tmp_path / "never").exists()


def test_an_interrupted_league_resumes_to_the_report_of_an_unbroken_one(tmp_path, capsys, monkeypatch):
    args = ["league", "random", "heuristic", "jen:4", "--games", "12", "--jobs", "1"]
    whole, broken = tmp_path / "whole", tmp_path / "broken"
    assert ten([*args, "--out", str(whole)]) == 0
    assert not (whole / "progress.jsonl").exists()  # a finished league leaves its report only
    capsys.readouterr()
    with monkeypatch.context() as patch:
        played = interrupt_after(patch, L, "_play_chunk", 2)
        assert ten([*args, "--out", str(broken)]) == 130  # Ctrl-C after two chunks
    err = capsys.readouterr().err
    assert "kept in" in err and "--resume" in err and not (broken / "league.json").exists()
    kept = sum(chunk.games for chunk in played)
    # the same command without --resume, or a resume with other settings, is refused in one line
    assert ten([*args, "--out", str(broken)]) == 2
    assert "holds an unfinished league (progress.jsonl): use --resume" in capsys.readouterr().err
    assert ten([*args[:-4], "--games", "10", "--jobs", "1", "--out", str(broken), "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds a league with other settings (differs in: games (the journal has 12, " \
                                    "given 10))" in err
    # a line edited by hand (a game's winner that is not the one standing highest) is refused
    journal = broken / "progress.jsonl"
    kept_text = journal.read_text()
    lines = kept_text.splitlines()
    entry = json.loads(lines[1])
    scores, keys, winners = entry["records"][0]
    entry["records"][0][2] = [a for a in range(3) if a not in winners][:1]
    journal.write_text("\n".join([lines[0], json.dumps(entry), *lines[2:]]) + "\n")
    assert ten([*args, "--out", str(broken), "--resume"]) == 2
    assert "progress.jsonl' is damaged; start again with --overwrite" in capsys.readouterr().err
    # a journal begun by engine 1 (no "engine" in its first line), whose final buys paid otherwise
    header = json.loads(lines[0])
    assert header.pop("engine") == 2
    journal.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    assert ten([*args, "--out", str(broken), "--resume"]) == 2
    assert "differs in: engine (the journal has none, given 2)" in capsys.readouterr().err
    # and one begun when an agent's reset seed was its deck's seed (no "agent_seeds")
    header = json.loads(lines[0])
    assert header.pop("agent_seeds") == 2
    journal.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    assert ten([*args, "--out", str(broken), "--resume"]) == 2
    assert "holds a league begun by code that seeded its agents otherwise (agents.tournament.AGENT_SEEDS 1, " \
           "now 2): finish it with that code (commit ed8c282 or earlier), or start again with --overwrite" \
           in capsys.readouterr().err
    # and one begun by other code: the modules that changed are named
    header = json.loads(lines[0])
    header["code"]["agents/search.py"] = "0" * 16
    del header["code"]["ten_env/jen.py"]
    journal.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    assert ten([*args, "--out", str(broken), "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds a league begun by other code (changed since: agents/search.py, " \
        "ten_env/jen.py): the games still to play would not be played as those before; finish it with that " \
        "code, or start again with --overwrite" in err
    # one from before the code was kept goes on (nothing to check it by)
    header = json.loads(lines[0])
    del header["code"]
    journal.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    # resumed on two worker processes: the rest is played, and the report is the unbroken league's
    assert ten([*args[:-2], "--jobs", "2", "--out", str(broken), "--resume"]) == 0
    assert f"{kept} of 36 games already played" in capsys.readouterr().out
    assert json.loads((broken / "league.json").read_text()) == json.loads((whole / "league.json").read_text())
    assert not (broken / "progress.jsonl").exists()


def test_cli_subprocess(tmp_path):
    run = subprocess.run([sys.executable, "-m", "train.cli", "league", "random", "heuristic", "jen:5",
                          "--players", "3", "--games", "3", "--jobs", "1", "--out", "out"],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    report = json.loads((tmp_path / "out" / "league.json").read_text())
    assert report["num_players"] == 3 and len(report["tables"]) == 1
    assert all(row["agent"] in run.stdout for row in report["standings"])
    assert (tmp_path / "out" / "league.png").is_file()
    bad = subprocess.run([sys.executable, "-m", "train.cli", "league", "random", "heuristic", "--players", "4"],
                         capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "need at least 4 agents" in bad.stderr
