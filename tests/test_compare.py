"""ten compare: ladder reports side by side, reports of one agent on different seeds combined,
agents compared deal by deal (--paired)."""

from __future__ import annotations

import json
import statistics

import pytest
from scipy.stats import t as t_dist

from train import compare
from train import evaluate as E
from train.cli import main
from train.journal import code_digest


def _ladder(agent, seed, games, levels=(4, 9)):
    return E.evaluate(agent, levels=list(levels), games=games, seed=seed, jobs=1)


def test_reports_on_different_seeds_combine_into_the_report_of_one_run():
    first, second = _ladder("heuristic", 0, 6), _ladder("heuristic", 6, 5)
    whole = _ladder("heuristic", 0, 11)
    (combined,) = compare.combine([second, first])
    assert combined["seed"] == 0 and combined["combined_from"] == 2 and combined["rank"] == whole["rank"]
    # every level of the run is there, once and in order, before they are compared one by one
    assert [m["level"] for m in combined["matchups"]] == [m["level"] for m in whole["matchups"]] == [4, 9]
    for got, want in zip(combined["matchups"], whole["matchups"]):
        for key in ("level", "opponent", "games", "wins", "shared_wins", "win_rate", "ci_low", "ci_high"):
            assert got[key] == want[key], key
        for key in ("mean_score", "opponent_mean_score", "mean_margin"):
            assert got[key] == pytest.approx(want[key]), key
        assert got["seconds_per_decision"] > 0
    # the seeding of the agents is kept: one, or every one the reports were made with
    assert first["agent_seeds"] == combined["agent_seeds"] == 2
    old = {key: value for key, value in second.items() if key != "agent_seeds"}  # made before the key was
    assert compare.combine([first, old])[0]["agent_seeds"] == [1, 2]
    # and so is the code that played them (train.journal.code_digest), or every one
    assert first["code"] == combined["code"] == code_digest()
    assert compare.combine([first, {**second, "code": "0" * 16}])[0]["code"] == ["0" * 16, code_digest()]
    before = {key: value for key, value in second.items() if key != "code"}  # made before the key was
    assert "code" not in compare.combine([{**first, "code": None}, before])[0]


def test_overlapping_seeds_and_other_reports_are_refused(tmp_path):
    first = _ladder("heuristic", 0, 6, levels=(4,))
    with pytest.raises(ValueError, match=r"two reports of heuristic share deck seeds at JEN 4 \(one has seeds 0-5, another from 3\)"):
        compare.combine([first, _ladder("heuristic", 3, 4, levels=(4,))])
    table = E.evaluate("heuristic", opponents=["random"], games=2, jobs=1)
    path = tmp_path / "table.json"
    path.write_text(json.dumps(table))
    with pytest.raises(ValueError, match="a report of normal games, not of the JEN ladder"):
        compare.load_report(path)
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ValueError, match="is not a report.json of ten eval"):
        compare.load_report(tmp_path / "bad.json")
    # a matchup that is not ten eval's fails on loading, naming it, not later with a KeyError
    good = _ladder("heuristic", 0, 2, levels=(8,))
    broken = [({"matchups": []}, "has no matchups"),
              ({"matchups": [{}]}, "its matchup is not ten eval's: its level is null, not 4-10$"),
              ({"matchups": [{"level": 8, "games": 10, "wins": 3}]},
               "its matchup at JEN 8 is not ten eval's: it names no opponent$"),
              ({"matchups": [{**good["matchups"][0], "level": 11}]}, "its matchup at JEN 11 is not .*: its level is 11"),
              ({"matchups": [{**good["matchups"][0], "wins": 3}]},
               "its matchup at JEN 8 is not ten eval's: wins is 3, not a whole number from 0 to its 2 games$"),
              ({"matchups": [{**good["matchups"][0], "games": 0}]}, "at JEN 8 .*: games is 0, not a whole number, 1 or"),
              ({"matchups": [{**good["matchups"][0], "win_rate": "0.5"}]},
               'its matchup at JEN 8 is not ten eval\'s: win_rate is "0.5", not a number$'),
              ({"matchups": [{**good["matchups"][0], "ci_low": None}]}, "at JEN 8 .*: ci_low is null, not a number$"),
              ({"matchups": ["JEN 8"]}, 'its matchup is not ten eval\'s: it is "JEN 8", not an object$'),
              ({"matchups": [{**good["matchups"][0], "mean_score": "x"}]},
               'its matchup at JEN 8 is not .*: mean_score is "x", not a number or null$'),
              ({"matchups": [{**good["matchups"][0], "seconds_per_decision": "fast"}]}, "at JEN 8 is not"),
              ({"agent": 5}, "no agent name and matchups"),
              ({"seed": "a"}, 'its seed is "a", not ten eval\'s'),
              ({"seed": None}, "its seed is null"),
              ({"seed": -1}, "its seed is -1"),
              ({"rank": "JEN 5"}, 'its rank is "JEN 5", not ten eval\'s'),
              ({"rank": {"lvl": 5}}, "its rank is"), ({"rank": {"level": 5.0}}, "its rank is"),
              ({"matchups": [{**good["matchups"][0], "shared_wins": "0"}]}, 'shared_wins is "0", not a whole number'),
              # the games played, one by one, must be the matchup's count of them
              ({"matchups": [{**good["matchups"][0], "wins": 1 - good["matchups"][0]["wins"]}]},
               r"^'.*table.json': the per_game entry of JEN 8 does not add up to its matchup: 2 deals, \d W and 0 T, "
               r"against 2 games, \d wins and 0 shared$")]
    # margins no game gives: NaN (which Python's json reads), and one too big for a score (a TypeError once)
    for margin in (float("nan"), 10**30, -41):
        per_game = {**good["matchups"][0]["per_game"], "margins": [margin, 0]}
        broken.append(({"matchups": [{**good["matchups"][0], "per_game": per_game}]},
                       r"the per_game entry of JEN 8 is not ten eval's \(.*one margin a game, from -40 to 40\)$"))
    broken.append(({"matchups": [{**good["matchups"][0], "win_rate": float("inf")}]}, "win_rate is Infinity, not a"))
    for change, message in broken:
        path.write_text(json.dumps({**good, **change}))
        with pytest.raises(ValueError, match=message):
            compare.load_report(path)
    (tmp_path / "deep.json").write_text("[" * 100_000)  # was a RecursionError
    with pytest.raises(ValueError, match=r"^'.*deep.json' is not a report.json of ten eval \(its JSON is nested too "
                                         r"deeply\)$"):
        compare.load_report(tmp_path / "deep.json")
    path.write_text(json.dumps(good))
    assert compare.load_report(path) == json.loads(json.dumps(good))
    # ten eval's --out folder stands for the report.json in it; another folder is named as one
    (tmp_path / "run").mkdir()
    with pytest.raises(ValueError, match=r"^'.*run' is a folder without a report.json: give ten eval's report.json, "
                                         r"or the --out folder of ten eval that holds it$"):
        compare.load_report(tmp_path / "run")
    path.rename(tmp_path / "run" / "report.json")
    assert compare.load_report(tmp_path / "run") == json.loads(json.dumps(good))


def test_ten_compare_prints_the_table_and_draws_every_agent(tmp_path, capsys, monkeypatch):
    paths = []
    for agent, seed in (("heuristic", 0), ("random", 0), ("heuristic", 4)):
        path = tmp_path / f"{agent}-{seed}.json"
        path.write_text(json.dumps(_ladder(agent, seed, 4)))
        paths.append(str(path))
    png = tmp_path / "figs" / "ladder.png"
    assert main(["compare", *paths, "-o", str(png), "--markdown"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "| agent | games / level | ms / decision | JEN 4 | JEN 9 | rank |"
    assert [line.split(" | ")[0] for line in lines[2:4]] == ["| `heuristic`", "| `random`"]
    assert lines[2].split(" | ")[1] == "8"  # the two heuristic reports are one row of 8 games
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"saved {png}" in out
    assert main(["compare", *paths, "-o", str(png)]) == 2  # there already: replaced only with --overwrite
    assert capsys.readouterr().err == (f"ten: error: -o {str(png)!r}: {str(png)!r} already exists: use --overwrite "
                                       f"to replace it, or another -o\n")
    png.write_bytes(b"old")
    assert main(["compare", *paths, "-o", str(png), "--overwrite"]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    capsys.readouterr()
    assert main(["compare", *paths, "--overwrite"]) == 2
    assert capsys.readouterr().err == "ten: error: --overwrite lets -o replace a file: give -o too\n"
    assert main(["compare", paths[0], "-o", str(tmp_path / "x.jpg")]) == 2
    assert main(["compare", str(tmp_path / "missing.json"), "-o", str(tmp_path / "new" / "ladder.png")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"ten: error: -o {str(tmp_path / 'x.jpg')!r}: the plot is a .png file (e.g. x.png)",
                   f"ten: error: {str(tmp_path / 'missing.json')!r} does not exist"]
    assert not (tmp_path / "x.jpg").exists() and not (tmp_path / "new").exists()  # refused: no folder made
    # a PNG that cannot be written fails before the table is printed, in one line
    (tmp_path / "folder.png").mkdir()
    assert main(["compare", paths[0], "-o", str(tmp_path / "folder.png")]) == 2
    (tmp_path / "file").write_text("")
    assert main(["compare", paths[0], "-o", str(tmp_path / "file" / "ladder.png")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.splitlines()
    assert len(err) == 2
    assert err[0] == f"ten: error: -o {str(tmp_path / 'folder.png')!r} is a folder: give a .png file for the plot"
    assert err[1] == f"ten: error: -o {str(tmp_path / 'file' / 'ladder.png')!r}: {str(tmp_path / 'file')!r} is a " \
                     f"file, not a folder"

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("tempfile.TemporaryFile", refuse)  # a folder this user cannot write in
    assert main(["compare", paths[0], "-o", str(tmp_path / "locked" / "ladder.png")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"ten: error: cannot write to {str(tmp_path / 'locked')!r}: Permission denied\n"


def test_no_two_of_thirty_agents_lines_look_alike():
    from train.compare import line_look

    looks = [line_look(i) for i in range(30)]
    assert len(set(looks)) == 30
    assert line_look(0)[1:] == ("o", "-") and line_look(10)[1:] == ("s", "--")  # the 11th: another style


def test_paired_compares_the_deals_both_agents_played(tmp_path, capsys):
    base = _ladder("heuristic", 0, 12, levels=(4, 5))
    other = _ladder("jen:4", 6, 10, levels=(4,))  # deals 6-15: 6-11 are shared
    rows, notes = compare.paired_rows([base, other])
    assert len(rows) == 1
    agent, level, deals, rates, one_only, difference, p_value, margin = rows[0]
    assert (agent, level, deals) == ("jen:4", "JEN 4", "6")
    mine = base["matchups"][0]["per_game"]["outcomes"][6:]
    theirs = other["matchups"][0]["per_game"]["outcomes"][:6]
    assert rates == f"{100 * mine.count('W') / 6:.1f}% -> {100 * theirs.count('W') / 6:.1f}%"
    c = compare.paired_comparison(compare.deal_results(base["matchups"][0]), compare.deal_results(other["matchups"][0]))
    assert difference.startswith(f"{100 * c['difference']:+.1f} (") and p_value == f"{c['p_value']:.3g}"
    only_mine = sum(x == "W" != y for x, y in zip(mine, theirs))
    only_theirs = sum(y == "W" != x for x, y in zip(mine, theirs))
    assert one_only == f"{only_mine} / {only_theirs}"
    # six deals: far too few won by one only for the t interval, and said so
    assert notes == [f"jen:4 at JEN 4: {only_mine + only_theirs} deals won by one only: the interval is rough "
                     f"(made for 25 or more)"]
    assert compare._rough("x", {"first_only": 1, "second_only": 0}) == [
        "x: 1 deal won by one only: the interval is rough (made for 25 or more)"]  # said "1 deals"
    lopsided = compare.paired_comparison({s: ("L", -5) for s in range(4)},
                                         {s: ("W", 5) for s in range(3)} | {3: ("L", 0)})
    # a difference of win rates stays within [-1, 1]: the t interval of the differences 1, 1, 1, 0
    # (mean 0.75, standard error 0.25) is cut at its top, 1.55, and kept at its bottom
    from scipy.stats import t

    assert lopsided["ci_high"] == 1.0 and lopsided["ci_low"] == pytest.approx(0.75 - t.ppf(0.975, 3) * 0.25)

    # at two levels, a row "all" pools their deals
    both = _ladder("jen:4", 6, 10, levels=(4, 5))
    rows2, notes2 = compare.paired_rows([base, both])
    assert [row[1] for row in rows2] == ["JEN 4", "JEN 5", "all"] and rows2[0] == rows[0]
    # the pooled row's interval is made from 12 deals, too few as well, and said so like each level's
    pooled_one_only = sum(map(int, rows2[2][4].split(" / ")))
    assert pooled_one_only < 25 and notes2[-1] == (f"jen:4 at all levels: {pooled_one_only} deals won by one only: "
                                                   f"the interval is rough (made for 25 or more)")
    pooled = {}, {}
    for i, level in enumerate((4, 5)):
        for side, report in enumerate((base, both)):
            deals = compare.deal_results(report["matchups"][i])
            pooled[side].update({(level, seed): result for seed, result in deals.items()})
    c = compare.paired_comparison(*pooled)
    assert rows2[2][2] == "12" and rows2[2][5].startswith(f"{100 * c['difference']:+.1f} (")

    # one agent's reports on deals 0-5 and 6-11, combined, pair as its one run on 0-11 does
    halves = compare.combine([_ladder("heuristic", 0, 6, levels=(4, 5)), _ladder("heuristic", 6, 6, levels=(4, 5))])
    assert compare.paired_rows([halves[0], other]) == (rows, notes)

    # what cannot be paired is said, not guessed at
    old = json.loads(json.dumps(other))
    del old["matchups"][0]["per_game"]
    far = _ladder("jen:4", 100, 3, levels=(4,))
    bust = {**_ladder("jen:4", 0, 2, levels=(4,)), "agent": "jen:4 (busting)"}
    bust["rules"] = {**bust["rules"], "bust_buy": True}
    elsewhere = _ladder("jen:4", 0, 2, levels=(6,))
    rows, notes = compare.paired_rows([base, old, far, bust, elsewhere])
    assert rows == []
    assert notes == ["jen:4 at JEN 4: the report of jen:4 has no per-game results, not paired",
                     "jen:4 at JEN 4: 0 deals in common with heuristic, not paired",
                     "jen:4 (busting): played under other rules than heuristic, not paired",
                     "jen:4 at JEN 6: heuristic has no games there, not paired"]

    wordy = json.loads(json.dumps(other))
    wordy["matchups"][0]["per_game"]["margins"][0] = "x"
    with pytest.raises(ValueError, match="the per_game entry of JEN 4 is not ten eval's"):
        compare.paired_rows([base, wordy])

    old_base = json.loads(json.dumps(base))
    del old_base["matchups"][0]["per_game"]
    assert compare.paired_rows([old_base, old])[1] == [
        "jen:4 at JEN 4: the reports of heuristic and jen:4 have no per-game results, not paired"]
    assert compare.paired_rows([old_base, other])[1] == [
        "jen:4 at JEN 4: the report of heuristic has no per-game results, not paired"]

    paths = []
    for name, report in (("base", base), ("other", other)):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(report))
    assert main(["compare", *map(str, paths), "--paired"]) == 0
    out = capsys.readouterr().out.splitlines()
    title = out.index("paired with heuristic, on the deals both played (difference = agent - heuristic):")
    assert out[title + 1].split()[:3] == ["agent", "level", "deals"] and out[title + 3].startswith("jen:4 ")
    assert main(["compare", str(paths[0]), "--paired"]) == 2
    assert capsys.readouterr().err.strip() == (
        "ten: error: --paired compares every other agent with the first: give two agents' reports or more")

    # --confidence: the intervals at another level, named in the header. The same six deals at 95%
    # (the default) and at 99%: the win-rate interval's low end is cut to -1 at both, so its high
    # end shows the wider interval; the margin interval, never cut, is wider at both ends
    mine_deals, their_deals = compare.deal_results(base["matchups"][0]), compare.deal_results(other["matchups"][0])
    c95 = compare.paired_comparison(mine_deals, their_deals)
    c99 = compare.paired_comparison(mine_deals, their_deals, confidence=0.99)
    assert c95["ci_low"] == c99["ci_low"] == -1.0 and c99["ci_high"] > c95["ci_high"]
    assert c99["margin_ci_low"] < c95["margin_ci_low"] and c99["margin_ci_high"] > c95["margin_ci_high"]
    # the row at 99%, against the paired t interval worked out here from the deals' outcomes and margins
    my_margins = base["matchups"][0]["per_game"]["margins"][6:]
    their_margins = other["matchups"][0]["per_game"]["margins"][:6]

    def t_interval(x, y, cut=float("inf")):  # mean of y - x, +- t(0.995, n - 1) standard errors, cut to +-cut
        d = [q - p for p, q in zip(x, y)]
        mean, half = statistics.fmean(d), t_dist.ppf(0.995, len(d) - 1) * statistics.stdev(d) / len(d) ** 0.5
        return mean, max(mean - half, -cut), min(mean + half, cut)

    won = t_interval([x == "W" for x in mine], [y == "W" for y in theirs], cut=1)
    margin = t_interval(my_margins, their_margins)
    row99 = [f"{100 * won[0]:+.1f} ({100 * won[1]:+.1f} to {100 * won[2]:+.1f})",
             f"{margin[0]:+.2f} ({margin[1]:+.2f} to {margin[2]:+.2f})"]
    wide, _ = compare.paired_rows([base, other], confidence=0.99)
    assert [wide[0][5], wide[0][7]] == row99
    assert main(["compare", *map(str, paths), "--paired", "--confidence", "0.99"]) == 0
    out = capsys.readouterr().out
    assert "difference, points (99% CI)" in out and all(cell in out for cell in row99)
    assert main(["compare", *map(str, paths), "--paired", "--confidence", "0.983625"]) == 0
    assert "difference, points (98.3625% CI)" in capsys.readouterr().out
    with pytest.raises(SystemExit) as info:
        main(["compare", *map(str, paths), "--paired", "--confidence", "1.5"])
    captured = capsys.readouterr()
    assert info.value.code == 2 and captured.err.endswith(
        "error: argument --confidence: must be a number between 0 and 1, such as 0.95, got '1.5'\n")
    assert main(["compare", *map(str, paths), "--confidence", "0.9"]) == 2
    captured = capsys.readouterr()
    assert captured.err == "ten: error: --confidence sets the intervals of --paired: give --paired too\n"
    assert captured.out == ""
    broken = json.loads(json.dumps(other))
    broken["matchups"][0]["per_game"]["margins"].pop()
    paths[1].write_text(json.dumps(broken))
    assert main(["compare", *map(str, paths), "--paired"]) == 2
    assert "the per_game entry of JEN 4 is not ten eval's" in capsys.readouterr().err
