"""Game records (ten_env/record.py), ten record, ten view's page and ten eval --save-games."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from agents import HeuristicAgent, JenAgent, OracleAgent, PolicyAgent, RandomAgent
from agents.tournament import play_game, seeded_games
from ten_env import Game, Rules
from ten_env import cards as C
from ten_env.record import Recorder, check_record, load_record
from train.cli import main
from train.record import agent_move, play_recorded, record_seeded_games
from train.view import page


def _kinds(rec: Recorder) -> list[tuple[int, str, str]]:
    return [(step["seat"], e["kind"], e["text"]) for step in rec.steps for e in step["events"]]


@pytest.mark.parametrize("rules", [Rules(num_players=2), Rules(num_players=3, bust_buy=True),
                                   Rules(num_players=4, payment="manual"), Rules(jen_level=6),
                                   Rules(num_players=5, bust_buy=True, payment="manual")],
                         ids=["2p", "3p-bust-buy", "4p-manual", "jen", "5p-both"])
def test_a_record_follows_every_action_of_the_game(rules):
    names = ["ann", "bob", "cy", "di", "ed"][:rules.num_agents]
    rec = Recorder(rules, names, seed=11)
    rng = random.Random(3)
    while not rec.game.is_over:
        rec.act(rng.choice(rec.game.legal_actions()))
    game, record = rec.game, rec.to_dict()
    # one step per history entry, forced moves and JEN's included, in order
    assert [(s["seat"], s["action"], s["forced"]) for s in record["steps"]] == \
        [(seat, game.action_name(a), forced) for seat, a, forced in game.history]
    last = record["steps"][-1]["state"]
    assert last["phase"] == "over" and last["deck_size"] == 0
    assert [p["coins"] for p in last["players"]] == game.coins
    assert [p["score"] for p in last["players"]] == game.scores()
    assert record["result"]["scores"] == game.scores() and record["result"]["winners"] == game.winners()
    # the highlighted runs add up to each score, every state
    for step in record["steps"]:
        for player in step["state"]["players"]:
            assert sum(run["score"] for run in player["runs"] if run) == player["score"]
    # every card drawn is told, with the deck one card shorter
    draws = [s for s in record["steps"] if s["action"] == "draw"]
    assert all(s["events"][0]["kind"] == "draw" for s in draws)
    # a bust token event always says how many the seat holds; the variant's offer is an event of its own
    kinds = [e for s in record["steps"] for e in s["events"]]
    tokens = [(e["bust_tokens"], s["state"]["players"][e["seat"]]["bust_tokens"])
              for s in record["steps"] for e in s["events"] if e["kind"] == "bust_token"]
    assert tokens and all(told == held for told, held in tokens)
    offers = [e for e in kinds if e["kind"] == "bust_buy_offer"]
    assert len(offers) == sum(s["state"]["phase"] == "bust" and s["action"] == "draw" for s in record["steps"])
    assert bool(offers) == rules.bust_buy
    check_record(json.loads(json.dumps(record)))
    if rules.solitaire:
        assert record["players"][1]["name"] == "JEN"


def test_events_say_what_happened_and_why():
    """A stacked deck: a bust on the net total pays the others, a bust on currency does not,
    a buy is priced and paid, an auction is bid and paid with a bust token, currency above 10
    coins is lost, then the final buy phases and the result."""
    rec = Recorder(Rules(num_players=2), ["ann", "bob"],
                   deck=["$3", "B9", "B5", "$5", "$4", "$3", "G2", "W#", "$4", "O1"])
    for action in ["draw", "draw", "draw", "draw", "stop_numbers", "buy_B5", "bid_2", "pass", "stop_currency"]:
        rec.act(action)
    while not rec.game.is_over:
        rec.act("pass")
    texts = [text for _, _, text in _kinds(rec)]
    expected = [
        "ann draws B9: net total 6, currency total 3",
        "ann busts: the net total 11 is above 10",
        "ann takes a bust token (now 1)",
        "bob gains 3 coins (the currency in the tableau when ann busted on the net total): 8 now",
        "B5, B9 go to the market",
        "bob busts: the currency total 12 is above 10",
        "ann stops and takes the numbers: G2",
        "ann buys B5 from the market for 5",
        "ann pays with 5 coins",
        "bob draws W#, a wildcard: it is auctioned at once",
        "ann bids 2 for W#",
        "bob passes on W#",
        "ann wins W# for 2",
        "ann pays with 1 bust token (3 each, no change given)",
        "bob gains 2 coins (took the currency); 2 lost, as nobody holds more than 10: 10 now",
        "the deck is empty: every player has one last buy phase. Final buy phase of bob",
        "game over. Final scores: ann 4, bob 0; winner: ann",
    ]
    for line in expected:
        assert line in texts, line
    assert texts.index(expected[0]) < texts.index(expected[1]) < texts.index(expected[-1])
    # a currency bust pays nobody
    currency_bust = texts.index("bob busts: the currency total 12 is above 10")
    assert not any(t.startswith("ann gains") for t in texts[currency_bust:currency_bust + 3])
    bust = next(e for s in rec.steps for e in s["events"] if e["kind"] == "bust")
    assert bust["reason"] == "net" and bust["net_total"] == 11
    pay = [e for s in rec.steps for e in s["events"] if e["kind"] == "payment"]
    assert pay[1]["bust_tokens"] == 1 and pay[1]["coins"] == 0


@pytest.mark.parametrize("deck, tie_break, winners", [
    (["B1", "G1"], "ann and bob scored 1 with the same money (5): fewer cards wins (ann 1, bob 1): "
                   "still tied, a shared win", [0, 1]),
    (["$2", "B1", "G1"], "ann and bob scored 1: more money wins (coins + 3 per bust token: ann 5, bob 7)", [1]),
])
def test_tie_breaks_are_explained(deck, tie_break, winners):
    rec = Recorder(Rules(num_players=2), ["ann", "bob"], deck=deck)
    while not rec.game.is_over:
        rec.act("stop_numbers" if "stop_numbers" in rec.game.legal_action_names() else "draw")
    result = rec.to_dict()["result"]
    assert result["winners"] == winners and result["tie_break"] == tie_break


def test_the_person_is_told_in_their_own_grammar():
    rec = Recorder(Rules(jen_level=5), ["you"], deck=["B3", "G4", "$2", "B5"])
    rec.act("stop_numbers")
    texts = [text for _, _, text in _kinds(rec)]
    assert "you draw B3: net total 3, currency total 0" in texts
    assert "you stop and take the numbers: B3" in texts
    assert any(t.startswith("JEN draws G4") for t in texts)
    seeded = Recorder(Rules(jen_level=5), ["you"], seed=3)
    while not seeded.game.is_over:
        seeded.act(seeded.game.legal_actions()[-1])
    turns = [text for _, kind, text in _kinds(seeded) if kind == "turn"]
    assert any(t.endswith(": you draw") for t in turns) and any(t.endswith(": JEN draws") for t in turns)
    assert not any(t.endswith("you draws") for t in turns)


def test_seeded_records_are_the_games_an_evaluation_plays():
    rules = Rules(num_players=3)
    agents = [HeuristicAgent(), RandomAgent(seed=1), JenAgent(6)]
    played = [(game.history, game.scores()) for game, _ in seeded_games(agents, rules, 3, seed=40)]
    recorded = list(record_seeded_games(agents, ["heuristic", "random", "jen:6"], rules, 3, seed=40))
    assert [(rec.game.history, rec.game.scores()) for rec in recorded] == played
    assert [p["name"] for p in recorded[1].to_dict()["players"]] == ["random", "jen:6", "heuristic"]  # rotated


def test_a_trained_policy_s_decisions_carry_its_probabilities_and_value():
    agent = PolicyAgent.pretrained("ppo-jen")
    seen = []  # what the network said at each of its decisions, in order
    evaluate = agent.evaluate

    def spy(observations, masks):
        probs, values = evaluate(observations, masks)
        seen.append((float(values[0]), {a: float(probs[0][a]) for a in np.flatnonzero(masks[0])}))
        return probs, values

    agent.evaluate = spy
    rec = Recorder(Rules(jen_level=7), [agent.name], seed=2)
    play_recorded(rec, {0: agent})
    decisions = [s for s in rec.steps if s["seat"] == 0 and not s["forced"]]
    assert decisions and all("policy" in s for s in decisions) and len(seen) == len(decisions)
    assert not any("policy" in s for s in rec.steps if s["forced"])
    for step, (value, probs) in zip(decisions, seen):
        assert step["policy"]["value"] == round(value, 4)
        assert step["policy"]["probs"] == [[rec.game.action_name(int(a)), round(p, 4)]
                                           for a, p in sorted(probs.items(), key=lambda item: -item[1])]
        assert step["action"] == step["policy"]["probs"][0][0]  # the agent plays its most likely action


def test_page_is_self_contained_and_safe_from_names():
    rec = Recorder(Rules(num_players=2), ["</script><script>alert(1)</script>", "bob"], seed=1)
    html = page(rec.to_dict())
    assert html.count("</script>") == 2  # the data block's and the code's; the name cannot close one
    assert "http://" not in html and "https://" not in html and " src=" not in html
    data = html.split('<script id="data" type="application/json">')[1].split("</script>")[0]
    assert json.loads(data)["record"]["players"][0]["name"].startswith("</script>")


def test_ten_record_then_ten_view(tmp_path, capsys):
    out = tmp_path / "game.json"
    assert main(["record", "heuristic", "jen:5", "random", "--seed", "4", "-o", str(out)]) == 0
    record = load_record(out)
    assert [p["name"] for p in record["players"]] == ["heuristic", "jen:5", "random"]
    assert record["seed"] == 4 and record["rules"]["num_players"] == 3 and record["result"]
    assert main(["record", "heuristic", "--level", "6", "-o", str(tmp_path / "solo.json")]) == 0
    assert load_record(tmp_path / "solo.json")["rules"]["jen_level"] == 6
    assert main(["record", "random", "--players", "4", "-o", str(tmp_path / "four.json")]) == 0
    assert len(load_record(tmp_path / "four.json")["players"]) == 4
    assert main(["view", str(out), "-o", str(tmp_path / "game.html")]) == 0
    assert (tmp_path / "game.html").read_text().startswith("<!doctype html>")
    assert main(["view", str(tmp_path / "solo.json")]) == 0
    assert (tmp_path / "solo.html").is_file()
    assert capsys.readouterr().err == ""
    # an existing file is replaced only when told to
    (tmp_path / "solo.html").write_text("kept")
    assert main(["view", str(tmp_path / "solo.json")]) == 2
    assert capsys.readouterr().err == (f"ten: error: {str(tmp_path / 'solo.html')!r} already exists: "
                                       f"use --overwrite to replace it, or another -o\n")
    assert (tmp_path / "solo.html").read_text() == "kept"
    assert main(["view", str(tmp_path / "solo.json"), "--overwrite"]) == 0
    page = (tmp_path / "solo.html").read_text()
    assert page.startswith("<!doctype html>")
    assert main(["view", str(tmp_path / "solo.json")]) == 0  # a page of ten view's own is replaced without asking
    assert (tmp_path / "solo.html").read_text() == page
    assert main(["record", "random", "random", "--seed", "9", "-o", str(out), "--overwrite"]) == 0
    assert load_record(out)["seed"] == 9


@pytest.mark.parametrize("argv, message", [
    (["record", "heuristic", "alphago", "-o", "{tmp}/x.json"], "ten: error: unknown agent 'alphago'"),
    (["record", "heuristic", "random", "--level", "5", "-o", "{tmp}/x.json"],
     "ten: error: --level 5 is the solitaire game: give one agent to play JEN, got 2\n"),
    (["record", "random", "--players", "3", "--level", "5", "-o", "{tmp}/x.json"],
     "ten: error: --level 5 is the solitaire game, 2 players: leave out --players (got --players 3)\n"),
    (["record", "heuristic", "-o", "{tmp}/x.json"], "ten: error: give 2-5 agents for a normal game"),
    (["record", "random", "random", "--players", "3", "-o", "{tmp}/x.json"],
     "ten: error: --players 3 does not fit 2 agents"),
    (["record", "random", "random", "-o", "{tmp}/nowhere/x.json"],
     "ten: error: cannot write '{tmp}/nowhere/x.json': the folder '{tmp}/nowhere' does not exist\n"),
    (["record", "random", "random", "-o", "{tmp}/other.json/x.json"],  # it said the folder did not exist
     "ten: error: cannot write '{tmp}/other.json/x.json': '{tmp}/other.json' is a file, not a folder\n"),
    (["record", "random", "random", "-o", "{tmp}/other.json/a/x.json"],
     "ten: error: cannot write '{tmp}/other.json/a/x.json': '{tmp}/other.json' is a file, not a folder\n"),
    (["record", "random", "random", "-o", ""], "ten: error: the file name is empty: give one such as game.json\n"),
    (["record", "random", "random", "-o", "{tmp}/other.json"],
     "ten: error: '{tmp}/other.json' already exists: use --overwrite to replace it, or another -o\n"),
    (["view", "{tmp}/game.json"],  # the file beside it, game.html, is not a page of ten view's
     "ten: error: '{tmp}/game.html' already exists: use --overwrite to replace it, or another -o\n"),
    (["view", "{tmp}/game.json", "-o", "{tmp}/broken.json"], "ten: error: '{tmp}/broken.json' already exists"),
    (["view", "{tmp}/game.json", "-o", " "], "ten: error: the file name is empty: give one such as game.html\n"),
    (["view", "{tmp}/game.json", "-o", "{tmp}"], "ten: error: '{tmp}' is a folder: give a file name such as game.html\n"),
    (["view", ""], "ten: error: the record's file name is empty: give one such as game.json\n"),
    (["view", "{tmp}/missing.json"], "ten: error: cannot read"),
    (["view", "{tmp}/broken.json"], "ten: error: '{tmp}/broken.json' is not a game record: invalid JSON"),
    (["view", "{tmp}/deep.json"], "ten: error: '{tmp}/deep.json' is not a game record: its JSON is nested too deeply"),
    (["view", "{tmp}/other.json"], "ten: error: '{tmp}/other.json' is not a game record: it needs"),
    (["view", "{tmp}/numbers.json"], "ten: error: '{tmp}/numbers.json': the record's player 0 needs a \"name\""),
    (["view", "{tmp}/seats.json"], "ten: error: '{tmp}/seats.json': the record's player 0 needs a \"name\""),
    (["view", "{tmp}/game.json", "-o", "{tmp}/game.json"],
     "ten: error: the page would overwrite the record '{tmp}/game.json': give the page another name"),
    (["view", "{tmp}/game.html"],
     "ten: error: the page would overwrite the record '{tmp}/game.html': give the page another name"),
])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys, argv, message):
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "deep.json").write_text("[" * 100_000)
    (tmp_path / "other.json").write_text(json.dumps({"format": "something else"}))
    rec = Recorder(Rules(num_players=2), ["ann", "bob"], seed=1)
    for name, players in [("game.json", None), ("game.html", None), ("numbers.json", [1, 2]),
                          ("seats.json", [{"seat": 0}, {"seat": 1}])]:
        record = rec.to_dict()
        if players is not None:
            record["players"] = players
        (tmp_path / name).write_text(json.dumps(record))
    before = {path: path.read_bytes() for path in tmp_path.iterdir()}
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message.replace("{tmp}", str(tmp_path))) and err.count("\n") == 1, err
    assert {path: path.read_bytes() for path in tmp_path.iterdir()} == before



def _finished_record(**rules) -> dict:
    rec = Recorder(Rules(**rules), ["ann", "bob"], seed=5)
    rng = random.Random(2)
    while not rec.game.is_over:
        rec.act(rng.choice(rec.game.legal_actions()))
    return json.loads(json.dumps(rec.to_dict()))


def _first(record: dict, action: str) -> int:
    return next(i for i, step in enumerate(record["steps"]) if step["action"] == action and not step["forced"])


def _edit_coins(record):
    i = _first(record, "draw")
    record["steps"][i]["state"]["players"][1]["coins"] += 3
    return f"step {i} is not what the record's rules, deck and moves give: state.players[1].coins is "


def _edit_action(record):
    i = _first(record, "draw")
    record["steps"][i]["action"] = "bid_40"
    return f"step {i}, 'bid_40', cannot be played there: "


def _edit_event(record):
    i = _first(record, "draw")
    card = record["steps"][i]["events"][0]["card"]
    record["steps"][i]["events"][0]["card"] = "B1" if card != "B1" else "B2"
    return f"step {i} is not what the record's rules, deck and moves give: events[0].card is "


def _edit_move(record):
    # a legal move other than the one played: named at its own step, not where the replay breaks later
    i = _first(record, "stop_numbers")
    record["steps"][i]["action"] = "draw"
    return (f"step {i} is not what the record's rules, deck and moves give: events[0].kind is \"take_numbers\" "
            f"in the record, \"draw\" when played again")


def test_two_long_values_that_differ_are_shown_where_they_differ():
    """Both were cut at 37 characters from their start: two long names differing at the end read alike."""
    from ten_env.record import _difference

    name = "a very long name for a player, written by hand"
    assert _difference({"name": name + "!"}, {"name": name + "?"}) == (
        'name is ...written by hand?" in the record, ...written by hand!" when played again')
    assert _difference({"n": 3}, {"n": 4}) == "n is 4 in the record, 3 when played again"  # short: whole


def _no_result(record):
    record["result"] = None
    return f"the record gives no result, but its game is over after its {len(record['steps'])} steps"


def _bad_deck(record):
    record["deck"] = 5
    return "the record's deck must be a list of cards from the top, got 5"


def _other_root(record):
    record["result"] = [1]
    return "result is not what the record's rules, deck and moves give: it is [1] in the record"


def _extra_step(record):
    record["steps"].append(record["steps"][-1])
    return f"the game is over after step {len(record['steps']) - 2}; the record goes on to step {len(record['steps']) - 1}"


def _early_result(record):
    del record["steps"][-5:]
    return f"the record gives a result, but its game is not over after its {len(record['steps'])} steps"


def _bad_rules(record):
    record["rules"]["num_players"] = 9
    return "the record's rules are not rules ten-env plays: "


def _bad_seed(record):
    record["seed"] = "lucky"
    return "the record's game cannot be set up again: "


def _other_result(record):
    record["result"]["scores"][0] += 1
    return "result is not what the record's rules, deck and moves give: scores[0] is "


def _bad_policy(record):
    record["steps"][0]["policy"] = {"value": "high", "probs": []}
    return "step 0's policy needs a \"value\" (a number) and \"probs\""


@pytest.mark.parametrize("edit", [_edit_coins, _edit_action, _edit_event, _edit_move, _extra_step, _early_result,
                                  _no_result, _bad_rules, _bad_seed, _bad_deck, _other_result, _other_root,
                                  _bad_policy])
def test_ten_view_refuses_a_record_its_game_does_not_give(tmp_path, capsys, edit):
    """A record edited by hand is replayed from its rules, deck and moves, and the first thing
    that differs is named in one line; the page is not written."""
    record = _finished_record(num_players=2, payment="manual")
    check_record(record)  # as written, it replays to the letter
    message = edit(record)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    assert main(["view", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ten: error: '{path}': {message}") and err.count("\n") == 1, err
    assert not (tmp_path / "game.html").exists()


def test_the_wording_of_events_may_differ_between_versions():
    """A record saved by an earlier version, whose events were worded otherwise ("you draws"),
    still replays: what happened is compared, not how it was said; and what the page shows is
    the replay's wording, so words edited by hand are not shown."""
    record = _finished_record(num_players=2)
    worded = json.loads(json.dumps(record))
    for step in record["steps"]:
        for event in step["events"]:
            event["text"] = event["text"].upper()
    record["result"]["text"] = record["result"]["text"].upper()
    record["steps"][2]["events"][0]["text"] = "player 1 wins the game on the spot"
    check_record(record)
    assert record == worded
    # a record refused is left as it was: no word of it changed before the refusal
    record["steps"][5]["events"][0]["text"] = "REWORDED"
    record["result"]["scores"][0] += 1
    refused = json.loads(json.dumps(record))
    with pytest.raises(ValueError, match="result is not what the record's rules, deck and moves give"):
        check_record(record)
    assert record == refused


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_ten_view_refuses_a_record_holding_what_json_does_not_allow(tmp_path, capsys, constant):
    """Python's json reads NaN and Infinity; the page's JSON.parse does not, and showed nothing."""
    record = _finished_record(num_players=2)
    record["steps"][0]["policy"] = {"value": 0.5, "probs": [["draw", 1.0]]}
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record).replace('"value": 0.5', f'"value": {constant}'))
    assert main(["view", str(path)]) == 2
    assert capsys.readouterr().err == f"ten: error: '{path}' is not a game record: it holds {constant}, which " \
                                      f"JSON does not allow\n"
    assert not (tmp_path / "game.html").exists()


def test_a_record_nested_too_deeply_is_refused_as_not_one():
    """Comparing such a step with the replay went deeper than Python allows: a RecursionError."""
    record = _finished_record(num_players=2)
    deep = []
    for _ in range(5000):
        deep = [deep]
    record["steps"][0]["events"].append(deep)
    with pytest.raises(ValueError, match=r"^'the record': the record is nested too deeply to be one$"):
        check_record(record)


def test_a_record_of_a_deck_file_is_checked_for_shape_only(tmp_path):
    """Its deck is a file on the machine that made it: the record is not replayed, and nothing it
    names is read."""
    record = _finished_record(num_players=2)
    record["rules"]["deck_file"] = str(tmp_path / "nowhere.json")
    record["steps"][3]["state"]["players"][1]["coins"] += 3
    check_record(record)
    record["steps"][3]["state"]["players"].pop()  # its shape is still checked
    with pytest.raises(ValueError, match=r"^'the record': step 3 shows 1 player, the record names 2$"):
        check_record(record)


def test_a_record_without_its_deck_is_checked_for_shape_only():
    """What ten play --web shows while a game runs hides the seed and the deck: nothing to replay."""
    rec = Recorder(Rules(num_players=2), ["ann", "bob"], seed=5)
    rec.act(rec.game.legal_actions()[0])
    record = json.loads(json.dumps(rec.to_dict(public=True)))
    assert record["seed"] is None and record["deck"] is None
    record["steps"][0]["state"]["players"][1]["coins"] += 3
    check_record(record)
    record["seed"] = 5
    with pytest.raises(ValueError, match=r"step 0 is not what .*: state\.players\[1\]\.coins is \d+ in the record"):
        check_record(record)
    # its shape is still checked: the seats a state shows (a state without them was a TypeError
    # in the check itself), and a table of 2-5
    record["seed"] = None
    for edit, message in ((lambda r: r["steps"][0]["state"].update(players=None),
                           r"^'the record': step 0 needs \"players\" \(a list, one entry a seat\); got null$"),
                          (lambda r: r["initial"].update(players=1.5),
                           r"^'the record': the initial state needs \"players\" \(a list, one entry a seat\); got 1.5$"),
                          (lambda r: r["initial"]["players"].pop(),
                           r"^'the record': the initial state shows 1 player, the record names 2$"),
                          (lambda r: r.update(players=[], initial={}, steps=[]),
                           r"^'the record': the record names 0 players; a game has 2 to 5$")):
        broken = json.loads(json.dumps(record))
        edit(broken)
        with pytest.raises(ValueError, match=message):
            check_record(broken)


def test_a_record_of_engine_1_is_read_and_played_again_where_engine_2_plays_the_same():
    """Version 1 records were played by engine 1, whose automatic payment at the final buy spent
    coins first, at a normal table and against JEN alike: such a record cannot be played again, and
    is checked for its shape; a game with manual payment plays out the same, and is played again."""
    recorders = [Recorder(Rules(num_players=3), ["ann", "bob", "cy"], seed=2),
                 Recorder(Rules(jen_level=6), ["you", "JEN"], seed=2),
                 Recorder(Rules(num_players=3, payment="manual"), ["ann", "bob", "cy"], seed=2),
                 Recorder(Rules(jen_level=6, payment="manual"), ["you", "JEN"], seed=2)]
    for rec in recorders:
        while not rec.game.is_over:
            rec.act(rec.game.legal_actions()[-1])
    for rec, replayed in zip(recorders, (False, False, True, True)):
        record = json.loads(json.dumps(rec.to_dict()))
        assert record["version"] == 2
        record["version"] = 1
        check_record(record)
        record["steps"][3]["state"]["players"][1]["coins"] += 3
        if replayed:
            with pytest.raises(ValueError, match=r"step 3 is not what the record's rules, deck and moves give"):
                check_record(record)
        else:
            check_record(record)
    record["version"] = 3
    with pytest.raises(ValueError, match=r"is a game record of version 3; this ten-env reads versions 1, 2$"):
        check_record(record)


def _pay_as_engine_1(patch) -> None:
    """Automatic payment as engine 1 made it: coins first at the final buy too."""
    from ten_env import payment

    automatic = payment.automatic
    patch.setattr(payment, "automatic", lambda *args, last=False, **kwargs: automatic(*args, **kwargs))


def test_a_solitaire_record_of_engine_1_whose_final_buy_paid_coins_is_read(monkeypatch):
    """Engine 1 paid the person's final buy against JEN with coins first; engine 2 spends the card
    that scores nothing (B3, beside B1). A true version-1 record of that game was refused as edited."""
    deck = ["B1", "B3", "G4", "O1", "$1", "G5", "P1"]
    moves = ["draw", "stop_numbers", "draw", "stop_currency", "pass", "buy_O1"]
    records = {}
    for engine in (1, 2):
        with monkeypatch.context() as patch:
            if engine == 1:
                _pay_as_engine_1(patch)
            rec = Recorder(Rules(jen_level=4), ["me"], deck=deck)
            for move in moves:
                rec.act(move)
            assert rec.game.is_over
            records[engine] = json.loads(json.dumps(rec.to_dict()))
    person = [records[engine]["steps"][-1]["state"]["players"][0] for engine in (1, 2)]
    assert [(p["coins"], p["cards"]) for p in person] == [(5, ["B1", "B3", "O1", "P1"]), (6, ["B1", "O1", "P1"])]
    assert [p["score"] for p in person] == [3, 3]  # the card spent scored nothing
    old = dict(records[1], version=1)
    check_record(old)
    with pytest.raises(ValueError, match=r"is not what the record's rules, deck and moves give"):
        check_record(dict(records[1], version=2))  # as engine 2's, it is not what engine 2 plays
    check_record(records[2])


def test_solitaire_games_end_as_engine_1_ended_them(monkeypatch):
    """What lets an evaluation's journal begun by engine 1 be finished by engine 2 against JEN (and
    not at a normal table): the same decisions, scores and winners, game by game."""
    from ten_env.rules import ends_as_engine_1, plays_as_engine_1

    assert ends_as_engine_1({"jen_level": 4}) and not plays_as_engine_1({"jen_level": 4})
    assert not ends_as_engine_1({"num_players": 3}) and not ends_as_engine_1({"num_players": 3, "payment": "auto"})
    assert ends_as_engine_1({"num_players": 3, "payment": "manual"}) and plays_as_engine_1({"payment": "manual"})

    def ends(engine: int, rules: Rules, seed: int, agent) -> tuple:
        with monkeypatch.context() as patch:
            if engine == 1:
                _pay_as_engine_1(patch)
            game, clock = Game(rules, seed=seed), [[0, 0.0]]
            agent.reset(seed)
            play_game(game, [agent], clock)
            return clock[0][0], game.scores(), game.winners(), game.coins[0], game.history

    coins_differ = 0
    for seed in range(60):
        for agent in (HeuristicAgent(), RandomAgent()):
            rules = Rules(jen_level=4 + seed % 7)
            first, second = ends(1, rules, seed, agent), ends(2, rules, seed, agent)
            assert first[:3] == second[:3] and first[4] == second[4], (seed, agent.name)
            coins_differ += first[3] != second[3]
    assert coins_differ > 0  # the final buy did pay otherwise in some of them


def test_a_record_of_a_stacked_deck_and_a_policy_replays():
    rec = Recorder(Rules(jen_level=5), ["me"], deck=["B5", "G3", "B4", "P9", "O1", "$2", "W#"] * 6)
    while not rec.game.is_over:
        rec.act(rec.game.legal_actions()[0], policy={"value": 0.25, "probs": [["draw", 1.0]]})
    record = json.loads(json.dumps(rec.to_dict()))
    check_record(record)
    record["deck"][0] = "B6"
    with pytest.raises(ValueError, match=r"is not what the record's rules, deck and moves give"):
        check_record(record)


def test_ten_eval_saves_its_first_games(tmp_path, capsys):
    out = tmp_path / "eval"
    assert main(["eval", "heuristic", "--levels", "5,6", "--games", "2", "--jobs", "1", "--out", str(out),
                 "--save-games", "2"]) == 0
    saved = sorted(p.name for p in (out / "games").iterdir())
    assert saved == ["jen5-game0.json", "jen5-game1.json", "jen6-game0.json", "jen6-game1.json"]
    # the hint names a record that was saved: the first one
    assert f"saved 4 game records in {out / 'games'} (see one with: ten view {out / 'games' / 'jen5-game0.json'})" \
        in capsys.readouterr().out
    report = json.loads((out / "report.json").read_text())
    first = load_record(out / "games" / "jen5-game0.json")
    assert first["seed"] == 0 and first["rules"]["jen_level"] == 5
    for level, matchup in zip((5, 6), report["matchups"]):  # the records are the games the report counts
        scores = [load_record(out / "games" / f"jen{level}-game{i}.json")["result"]["scores"] for i in range(2)]
        assert sum(s[0] > s[1] for s in scores) == matchup["wins"]
        assert sum(s[0] for s in scores) / 2 == matchup["mean_score"]
    assert main(["eval", "heuristic", "--opponents", "random", "--games", "1", "--jobs", "1",
                 "--out", str(tmp_path / "table"), "--save-games", "5"]) == 0
    assert sorted(p.name for p in (tmp_path / "table" / "games").iterdir()) == ["game0.json"]
    # a smaller run over the first with --overwrite: no record of the first run is left, other files stay
    (out / "games" / "notes.txt").write_text("mine")
    capsys.readouterr()
    assert main(["eval", "heuristic", "--levels", "6", "--games", "1", "--jobs", "1", "--out", str(out),
                 "--save-games", "1", "--overwrite"]) == 0
    assert sorted(p.name for p in (out / "games").iterdir()) == ["jen6-game0.json", "notes.txt"]
    assert f"(see one with: ten view {out / 'games' / 'jen6-game0.json'})" in capsys.readouterr().out
    # another agent's report over it, without --save-games: the records of the report replaced go too
    assert main(["eval", "random", "--levels", "6", "--games", "1", "--jobs", "1", "--out", str(out),
                 "--overwrite"]) == 0
    assert sorted(p.name for p in (out / "games").iterdir()) == ["notes.txt"]


def test_a_game_without_a_seed_gets_one_and_can_be_replayed():
    """The drawn seed is recorded: the record's own actions, taken again in a new recorder on
    that seed, give the whole record again, every event and state."""
    for rules in (Rules(num_players=3, bust_buy=True), Rules(jen_level=8, payment="manual")):
        names = ["ann", "bob", "cy"][:rules.num_agents]
        rec = Recorder(rules, names)
        rng = random.Random(0)
        while not rec.game.is_over:
            rec.act(rng.choice(rec.game.legal_actions()))
        record = json.loads(json.dumps(rec.to_dict()))
        assert isinstance(record["seed"], int)
        again = Recorder(Rules(**record["rules"]), [p["name"] for p in record["players"]], seed=record["seed"],
                         start=record["start"])
        for step in record["steps"]:
            if not step["forced"]:  # the forced ones (and JEN's) follow by themselves
                again.act(step["action"])
        assert json.loads(json.dumps(again.to_dict())) == record


def test_the_public_record_hides_the_deck_until_the_game_is_over():
    rec = Recorder(Rules(num_players=2), ["ann", "bob"], deck=["B1", "G2", "$3", "O4"])
    hidden = rec.to_dict(public=True)
    assert hidden["deck"] is None and hidden["seed"] is None
    assert rec.to_dict()["deck"] == ["B1", "G2", "$3", "O4"]  # the full record keeps it
    while not rec.game.is_over:
        rec.act(rec.game.legal_actions()[0])
    assert rec.to_dict(public=True)["deck"] == ["B1", "G2", "$3", "O4"]


def _value(payment: dict) -> int:
    return payment["coins"] + 3 * payment["bust_tokens"] + len(payment["cards"])


def test_a_payment_with_a_copy_of_the_card_being_bought_is_told():
    """Ann holds B3, G3, O3 and a W3 (which scores as P3), then wins a second W3 for 2: she
    pays with her idle W3 and a coin. The W3 spent and the W3 won are in the same hand."""
    rec = Recorder(Rules(num_players=2), ["ann", "bob"], deck=["B3", "G3", "O3", "W3", "W3", "$1", "B1"])
    for action in ["draw", "draw", "draw", "pass", "bid_1", "stop_numbers", "bid_2", "pass"]:
        rec.act(action)
    won = next(s for s in rec.steps if any(e["kind"] == "auction_won" and e["price"] == 2 for e in s["events"]))
    payment = [e for e in won["events"] if e["kind"] == "payment"]
    assert payment == [{"kind": "payment", "seat": 0, "price": 2, "card": "W3", "coins": 1, "bust_tokens": 0,
                        "cards": ["W3"], "text": "ann pays with 1 coin and W3 (1 each)"}]
    assert rec.game.hands[0][C.parse("W3")] == 1 and rec.game.coins[0] == 3


@pytest.mark.parametrize("payment", ["auto", "manual"])
def test_every_payment_adds_up_to_the_price(payment):
    """Over many random games: what each payment event says was spent is worth the price
    (a bust token may overpay by up to 2, no change given)."""
    checked = 0
    for game_seed in range(120):
        rng = random.Random(game_seed)
        rules = Rules(num_players=rng.choice([2, 3, 4, 5]), bust_buy=rng.random() < 0.5, payment=payment)
        if game_seed % 4 == 0:
            rules = Rules(jen_level=rng.choice([4, 7, 10]), bust_buy=rules.bust_buy, payment=payment)
        rec = Recorder(rules, ["p"] * rules.num_agents, seed=game_seed)
        while not rec.game.is_over:
            rec.act(rng.choice(rec.game.legal_actions()))
        due = None
        for step in rec.steps:
            for event in step["events"]:
                if event["kind"] != "payment":
                    continue
                if "due" in event:  # a manual payment starts: the pay_* events that follow add up
                    due, price, paid, tokens = event["due"], event["price"], 0, 0
                    assert due == price
                    continue
                if event.get("manual"):
                    paid, tokens = paid + _value(event), tokens + event["bust_tokens"]
                    if event["left"] == 0:
                        assert paid >= price and (paid == price or (tokens and paid - price < 3)), event
                        due = None
                        checked += 1
                    continue
                value = _value(event)
                assert value == event["price"] or (event["bust_tokens"] and 0 < value - event["price"] < 3), event
                checked += 1
        assert due is None
    assert checked > 100


def test_the_empty_deck_is_announced_once_with_manual_payment():
    """A final buy paid coin by coin ends in the pay phase: the next final buy phase is not
    the first one."""
    rng = random.Random(0)
    rec = Recorder(Rules(num_players=3, payment="manual"), ["ann", "bob", "cy"], seed=0)
    while not rec.game.is_over:
        legal = rec.game.legal_action_names()
        buys = [a for a in legal if a.startswith("buy_")]
        rec.act(rng.choice(buys) if buys and rec.game.phase == "final_buy" else rng.choice(legal))
    final = [e["text"] for s in rec.steps for e in s["events"] if e["kind"] == "final_buy"]
    assert sum(s["action"].startswith("pay_") and s["state"]["phase"] == "final_buy" for s in rec.steps) >= 1
    assert len(final) == 3 and sum(t.startswith("the deck is empty") for t in final) == 1, final
    assert final[0].startswith("the deck is empty: every player has one last buy phase.")


@pytest.mark.parametrize("rules", [Rules(num_players=2), Rules(num_players=3, bust_buy=True),
                                   Rules(num_players=4, payment="manual"), Rules(jen_level=4),
                                   Rules(jen_level=9, bust_buy=True, payment="manual"),
                                   Rules(num_players=5, bust_buy=True, payment="manual")],
                         ids=["2p", "3p-bust-buy", "4p-manual", "jen4", "jen9-both", "5p-both"])
def test_the_replay_is_checked_against_the_game(rules):
    """The recorder reads its events off a replay of the game; after every action the replay is
    compared with the real game, and a difference is an error, not a wrong record."""
    for seed in range(5):
        rec = Recorder(rules, ["p"] * rules.num_agents, seed=seed)
        rng = random.Random(seed)
        while not rec.game.is_over:
            rec.act(rng.choice(rec.game.legal_actions()))
        assert rec._replay.phase == "over"
    rec = Recorder(rules, ["p"] * rules.num_agents, seed=0)
    rec._replay.coins[0] += 1  # the replay goes astray
    with pytest.raises(RuntimeError, match="the record's replay of the game differs from the game after action "
                                           r"\d+ in coins: a bug in ten_env.record"):
        rec.act(rec.game.legal_actions()[0])


def test_seeded_games_can_play_each_game_through_a_hook():
    """record_seeded_games plays an evaluation's games through seeded_games' ``play`` hook: the
    hook gets each deck seed and seat order after the agents' resets."""
    rules = Rules(num_players=3)
    agents = [RandomAgent(seed=1), HeuristicAgent(), RandomAgent(seed=2)]

    def play(deck_seed, order):
        game = Game(rules, seed=deck_seed)
        play_game(game, [agents[a] for a in order])
        return game

    hooked = [(game.history, order) for game, order in seeded_games(agents, rules, 4, 9, play=play)]
    assert hooked == [(game.history, order) for game, order in seeded_games(agents, rules, 4, 9)]
    with pytest.raises(ValueError, match="give clock or play"):
        next(seeded_games(agents, rules, 1, 0, clock=[[0, 0.0]] * 3, play=play))


def test_agent_move_takes_one_recorded_move():
    agent = PolicyAgent.pretrained("ppo-jen")
    rec = Recorder(Rules(jen_level=7), [agent.name], seed=2)
    steps = agent_move(rec, agent)
    assert steps[0]["seat"] == 0 and not steps[0]["forced"] and "policy" in steps[0]
    assert rec.steps[-len(steps):] == steps
    oracle = Recorder(Rules(num_players=2), ["oracle", "random"], seed=1)  # it sees the game (on purpose)
    while oracle.game.current_player != 0:
        oracle.act(oracle.game.legal_actions()[0])
    steps = agent_move(oracle, OracleAgent(budget=2, seed=0))
    assert steps[0]["seat"] == 0 and not steps[0]["forced"] and "policy" not in steps[0]


@pytest.mark.parametrize("argv, loads", [(["heuristic", "jen:5", "random"], ["heuristic", "jen:5", "random"]),
                                         (["random", "--players", "4"], ["random"] * 4),
                                         (["heuristic", "--level", "5"], ["heuristic"])])
def test_ten_record_loads_each_agent_once(tmp_path, monkeypatch, argv, loads):
    import train.runner

    calls = []
    real = train.runner.load_agent

    def counted(spec, seed=None, trust=False):
        calls.append((spec, seed))
        return real(spec, seed=seed, trust=trust)

    monkeypatch.setattr(train.runner, "load_agent", counted)
    assert main(["record", *argv, "-o", str(tmp_path / "g.json")]) == 0
    assert calls == [(spec, seat) for seat, spec in enumerate(loads)]  # one instance per seat, seeded by seat


@pytest.mark.parametrize("players", ["7", "x"])
def test_ten_record_s_players_error_speaks_of_seats_not_opponents(tmp_path, capsys, players):
    with pytest.raises(SystemExit) as info:
        main(["record", "random", "--players", players, "-o", str(tmp_path / "g.json")])
    assert info.value.code == 2
    err = capsys.readouterr().err
    got = players if players.isdigit() else repr(players)
    assert f"ten record: error: argument --players: must be a whole number from 2 to 5, got {got}\n" in err
    assert "opponents" not in err and list(tmp_path.iterdir()) == []


def test_a_recorder_refuses_names_rules_and_policies_it_cannot_keep():
    with pytest.raises(ValueError, match="^names must be a list of names, one per seat, got 'ab'$"):
        Recorder(Rules(), "ab")  # not the players "a" and "b"
    with pytest.raises(ValueError, match="^rules must be a ten_env.Rules or a dict of its fields, got 5$"):
        Recorder(5, ["a", "b"])
    assert Recorder({"num_players": 3}, ["a", "b", "c"], seed=1).rules == Rules(num_players=3)
    rec = Recorder(Rules(), ["a", "b"], seed=2)
    move = rec.game.legal_actions()[0]
    for bad in ("xyz", {"value": 1}, {"value": 0.5, "probs": [["draw"]]}, {"value": 0.5, "probs": [["draw", object()]]}):
        before, steps = rec.game.clone(), json.dumps(rec.steps)  # the forced first draw's
        with pytest.raises(ValueError, match=r'^policy must be \{"value": a number, "probs": \[\[action name, '):
            rec.act(move, policy=bad)
        assert rec.game == before and json.dumps(rec.steps) == steps
    import numpy as np

    rec.act(move, policy={"value": np.float32(0.5), "probs": (("draw", np.float64(0.25)),)})  # as a network gives them
    written = next(step["policy"] for step in rec.steps if "policy" in step)
    assert written == {"value": 0.5, "probs": [["draw", 0.25]]} and type(written["value"]) is float
    check_record(json.loads(json.dumps(rec.to_dict())))  # and the record it makes reads back


def test_a_file_written_atomically_is_whole_or_as_it_was(tmp_path):
    import errno
    import os

    from ten_env.record import write_atomically

    path = tmp_path / "report.json"
    path.write_text("the old report\n")

    def dies_half_way(tmp):
        tmp.write_text('{"half": ')
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp))

    with pytest.raises(OSError) as caught:
        write_atomically(path, dies_half_way)
    assert caught.value.filename == str(path)  # what the caller asked for, not the temporary name
    assert path.read_text() == "the old report\n" and os.listdir(tmp_path) == ["report.json"]
    with pytest.raises(KeyboardInterrupt):  # a run stopped while writing leaves no temporary file either
        write_atomically(tmp_path / "new.json", lambda tmp: (tmp.write_text("{"), exec("raise KeyboardInterrupt")))
    assert os.listdir(tmp_path) == ["report.json"]
    write_atomically(path, lambda tmp: tmp.write_text("the new report\n"))
    assert path.read_text() == "the new report\n" and os.listdir(tmp_path) == ["report.json"]


def test_a_file_written_atomically_gets_the_permissions_of_any_new_file(tmp_path):
    import os
    import stat

    from ten_env.record import write_atomically

    old = os.umask(0o022)
    try:
        write_atomically(tmp_path / "game.json", lambda tmp: tmp.write_text("{}\n"))
        os.umask(0o077)
        write_atomically(tmp_path / "private.json", lambda tmp: tmp.write_text("{}\n"))
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "game.json").stat().st_mode) == 0o644  # readable by others, as open() makes
    assert stat.S_IMODE((tmp_path / "private.json").stat().st_mode) == 0o600
