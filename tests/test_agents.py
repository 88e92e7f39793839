"""Scripted agents: JEN agrees with the engine's JEN; the heuristic is clearly stronger."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np

import pytest

from models import save_model_for_other_observations

from agents import HeuristicAgent, JenAgent, PolicyAgent, RandomAgent, play_games
from agents.policy import PRETRAINED_DIR
from agents.registry import make_agent
from agents.tournament import play_game, seeded_games
from ten_env import Game, Rules, jen
from ten_env import observation as O
from ten_env.game import score_margin


@pytest.mark.parametrize("level", [4, 7, 10])
def test_jen_agent_agrees_with_the_engines_jen(level, monkeypatch):
    """Every decision the engine takes for JEN, the agent takes too, from the snapshot."""
    agent = JenAgent(level)
    compared = []
    original = Game._jen_view

    def spy(game):
        view = original(game)
        observation = {"observation": O.encode(game, 1), "action_mask": O.action_mask(game, 1)}
        compared.append((jen.decide(view), agent.act(observation, {"snapshot": game.snapshot()})))
        return view

    monkeypatch.setattr(Game, "_jen_view", spy)
    rng = np.random.default_rng(level)
    for seed in range(15):
        game = Game(Rules(jen_level=level), seed=seed)
        while not game.is_over:
            game.act(int(rng.choice(game.legal_actions())))
    assert len(compared) > 300
    assert all(engine == mine for engine, mine in compared)
    assert any(engine >= 92 for engine, _ in compared)  # her bids were compared too


@pytest.mark.parametrize("coins, seat, auction, max_bid, expected", [
    ([7, 9, 3], 1, {}, 40, "bid_7"),  # first to bid: the richest other player's money
    ([7, 4, 3], 1, {}, 40, "bid_4"),  # ... as far as she can pay
    ([0, 9, 0], 1, {}, 40, "bid_1"),  # ... or the minimum bid, when that is more
    ([9, 10, 3], 1, {}, 5, "bid_5"),  # ... and never above the bid cap
    ([5, 5, 5], 2, {"high_bid": 3, "high_bidder": 1, "bids_left": 2}, 40, "bid_4"),  # after a bid: one more
    ([5, 5, 3], 2, {"high_bid": 3, "high_bidder": 1, "bids_left": 2}, 40, "pass"),  # ... which she cannot pay
    ([5, 5, 5], 2, {"high_bid": 0, "high_bidder": None, "bids_left": 2}, 40, "bid_1"),  # after passes: the minimum
])
def test_jen_agent_bids_at_a_normal_table_as_her_rules_say(coins, seat, auction, max_bid, expected):
    """At a normal table any card is money and the minimum bid is 1; seat 0 drew a wildcard, so seat 1
    bids first. The agent reads the bids allowed off the action mask: each rule of her bidding, one case
    (the test beside this one compares her with the engine's JEN, whose bids come from the same range)."""
    snapshot = json.loads(json.dumps(Game(Rules(num_players=3, max_bid=max_bid), deck=["W3", "B1", "B2"]).snapshot()))
    assert snapshot["phase"] == "auction" and snapshot["current_player"] == 1
    for player, money in zip(snapshot["players"], coins):
        player["coins"] = money
    snapshot["auction"].update(auction)
    snapshot["current_player"] = seat
    snapshot["legal_actions"] = Game._from_snapshot(snapshot, random.Random(0)).legal_action_names()
    game = Game.from_snapshot(snapshot, shuffle_unseen=0)  # a state play can reach: every field checked
    assert game.action_name(JenAgent(7).act(*O.agent_view(game, seat))) == expected


def test_play_games_rotates_seats_and_tallies():
    """Game ``i`` seats agent ``(seat + i) % k`` in each seat (the rule of play_games' docstring),
    and each agent's tallies are those of the seats it sat in."""
    rules = Rules(num_players=3)
    # the seat orders of the games: rotated by one seat a game, back to the start after k games
    rule = [[(seat + i) % 3 for seat in range(3)] for i in range(4)]
    assert rule == [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 1, 2]]
    assert [order for _, order in seeded_games([RandomAgent(1), RandomAgent(2), RandomAgent(3)], rules, 4, 5)] == rule

    # three copies of one deterministic agent play each deal the same whoever sits where: the
    # deal's results by seat, played here, are each agent's in the seat the rule gives it
    by_seat = []
    for deal in range(5, 11):
        game = Game(rules, seed=deal)
        play_game(game, [HeuristicAgent()] * 3)
        scores = game.scores()
        by_seat.append((scores, game.winners(), [score_margin(scores, seat) for seat in range(3)]))
    assert any(len(set(margins)) == 3 for _, _, margins in by_seat)  # the seat makes a difference
    results = play_games([HeuristicAgent(), HeuristicAgent(), HeuristicAgent()], rules, n=6, seed=5)
    seat_of = [[(agent - i) % 3 for agent in range(3)] for i in range(6)]  # order[seat] == agent
    assert results.games == 6 and [game[0] for game in results.per_game] == list(range(5, 11))
    for (_, outcomes, margins), (scores, winners, seat_margins), seats in zip(results.per_game, by_seat, seat_of):
        assert list(margins) == [seat_margins[seat] for seat in seats]
        assert list(outcomes) == ["L" if seat not in winners else "W" if len(winners) == 1 else "T" for seat in seats]
    assert results.total_scores == [sum(scores[seats[a]] for (scores, _, _), seats in zip(by_seat, seat_of))
                                    for a in range(3)]

    # the tallies are the per-game records added up, agent by agent
    results = play_games([RandomAgent(1), RandomAgent(2), RandomAgent(3)], rules, n=12, seed=5)
    assert results.games == 12 and len(results.per_game) == 12
    assert [game[0] for game in results.per_game] == list(range(5, 17))
    assert results.wins == [sum(o[a] == "W" for _, o, _ in results.per_game) for a in range(3)]
    assert results.shared_wins == [sum(o[a] == "T" for _, o, _ in results.per_game) for a in range(3)]
    assert results.margins == [sum(m[a] for _, _, m in results.per_game) for a in range(3)]
    # each game has one sole winner, or two or three sharing the win
    assert all(o.count("W") == 1 and o.count("T") == 0 or o.count("W") == 0 and o.count("T") >= 2
               for _, o, _ in results.per_game)
    again = play_games([RandomAgent(1), RandomAgent(2), RandomAgent(3)], rules, n=12, seed=5)
    assert again == results


def test_heuristic_beats_random_and_jen4_clearly():
    vs_random = play_games([HeuristicAgent(), RandomAgent(0)], Rules(num_players=2), n=150, seed=0)
    assert vs_random.win_rates[0] > 0.9
    vs_jen = play_games([HeuristicAgent(), JenAgent(4)], Rules(num_players=2), n=150, seed=1000)
    assert vs_jen.win_rates[0] > 0.8
    solo = play_games([HeuristicAgent()], Rules(jen_level=4), n=150, seed=2000)
    random_solo = play_games([RandomAgent(0)], Rules(jen_level=4), n=150, seed=2000)
    assert solo.win_rates[0] > random_solo.win_rates[0] + 0.3


def test_make_agent_names():
    assert isinstance(make_agent("random"), RandomAgent)
    assert isinstance(make_agent("heuristic"), HeuristicAgent)
    assert make_agent("jen:7").level == 7
    for bad, message in (("jen:11", r"^agent 'jen:11': JEN needs a level from 4 to 10, as in jen:7$"),
                         ("jen:x", r"^agent 'jen:x': JEN needs a level from 4 to 10"),
                         ("alphago", r"^unknown agent 'alphago'; use random, .* \(the pretrained models: ppo-2p, "
                                     r"ppo-4p, ppo-jen, .*ppo-jen-v1, ppo-mixed\)$"),
                         ("ppo-jne", r"^unknown agent 'ppo-jne'; did you mean 'ppo-jen'\? use random"),  # a typo
                         ("heuristc", r"^unknown agent 'heuristc'; did you mean 'heuristic'\? use random"),
                         ("HEURISTIC", r"^unknown agent 'HEURISTIC'; did you mean 'heuristic'\? use random"),
                         ("missing_model.zip", r"^model file 'missing_model.zip' does not exist")):
        with pytest.raises(ValueError, match=message):
            make_agent(bad)
    for not_a_name in (7, None, ["random"]):
        with pytest.raises(ValueError, match=r"^an agent name must be a string, got .*; use random, heuristic, jen:4"):
            make_agent(not_a_name)
    # digits of other scripts are digits to str.isdigit and int(), but not in a name someone types
    with pytest.raises(ValueError, match="JEN needs a level from 4 to 10"):
        make_agent("jen:\u0667")
    with pytest.raises(ValueError, match="the budget '\u0662\u0665\u0666' must be a whole number"):
        make_agent("search:\u0662\u0665\u0666")
    for seed in ("x", -1, 1.5, True):
        with pytest.raises(ValueError, match=r"^seed must be None or a non-negative integer, got "):
            make_agent("random", seed=seed)


def test_a_training_runs_folder_is_refused_naming_its_model_file(tmp_path):
    (tmp_path / "model.zip").write_bytes(b"")
    with pytest.raises(ValueError, match=r"is a training run's folder: give its model file, '.*model\.zip'"):
        make_agent(str(tmp_path))
    (tmp_path / "model.zip").unlink()  # any other folder is taken for an RLlib checkpoint, and said not to be one
    with pytest.raises(ValueError, match="is not an RLlib checkpoint folder"):
        make_agent(str(tmp_path))


def test_policy_agent_errors(tmp_path, monkeypatch):
    import sys

    from agents import PolicyAgent

    with monkeypatch.context() as patch:  # installed without the training extra: said how to add it
        patch.setitem(sys.modules, "sb3_contrib", None)
        with pytest.raises(ValueError, match=r"^loading the model 'ppo-jen.zip' needs the training extra: pip install "
                                             r"'ten-env\[train\]' \(in a clone: pip install -e '\.\[train\]'; "):
            PolicyAgent(PRETRAINED_DIR / "ppo-jen.zip")

    with pytest.raises(ValueError, match="does not exist"):
        PolicyAgent(tmp_path / "nope.zip")
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a MaskablePPO model"):
        PolicyAgent(junk)


def test_policy_agent_plays_and_checks_observation_size(tmp_path):
    from sb3_contrib import MaskablePPO

    import ten_env
    from agents import PolicyAgent

    model = MaskablePPO("MlpPolicy", ten_env.SoloEnv(jen_level=4), n_steps=64, batch_size=32)
    model.save(tmp_path / "tiny.zip")
    agent = PolicyAgent(tmp_path / "tiny.zip")
    results = play_games([agent], Rules(jen_level=4), n=2)
    assert results.games == 2
    # its move is SB3's own deterministic, masked prediction from the same file
    env, moves = ten_env.env(jen_level=4), 0
    env.reset(seed=3)
    for name in env.agent_iter():
        observation, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        move = agent.act(observation, info)
        expected, _ = model.predict(observation["observation"], action_masks=observation["action_mask"].astype(bool),
                                    deterministic=True)
        assert move == int(expected)
        moves += 1
        env.step(move)
    assert moves > 5

    save_model_for_other_observations(tmp_path / "other.zip")
    with pytest.raises(ValueError, match=r"shape \(10,\).*another"):
        PolicyAgent(tmp_path / "other.zip")


SHIPPED = sorted((Path(__file__).resolve().parent.parent / "agents" / "pretrained").glob("*.json"))


@pytest.mark.parametrize("card_path", SHIPPED, ids=lambda p: p.stem)
def test_every_shipped_model_has_a_true_card(card_path):
    """Each shipped card ``X.json`` belongs to ``X.zip``: its ``sha256`` is the digest of that file's
    bytes and its ``name`` is ``X``. The model loads by that name without unpickling, and what the
    file holds matches the card: the observation (plain, or with the derived features), its size,
    the action count and the policy arguments. The card says how the model was made (algorithm,
    config, training steps and time, machine, how it was measured) and gives its ladder or results."""
    import hashlib
    import json

    from agents import PolicyAgent
    from agents.policy import shipped_models
    from agents.safe_load import policy_kwargs_from_data, read_data

    card = json.loads(card_path.read_text())
    zip_path = card_path.with_suffix(".zip")
    assert card["name"] == card_path.stem and zip_path.is_file()
    assert card["sha256"] == hashlib.sha256(zip_path.read_bytes()).hexdigest()
    assert shipped_models() == sorted(path.stem for path in SHIPPED)  # and no shipped model is without its card
    for key in ("algorithm", "config", "training_steps", "training_time", "machine", "measured_with"):
        assert card[key], key
    agent = PolicyAgent.pretrained(card["name"])
    assert agent.derived_features == card.get("derived_features", False)  # the plain observation, or with them
    assert card["observation_shape"] == [569 if agent.derived_features else 463] and card["num_actions"] == 132
    assert policy_kwargs_from_data(zip_path, read_data(zip_path)) == card["policy_kwargs"]
    assert agent.name == card["name"]
    assert card.get("ladder") or card.get("results")


def card_rate(name: str, num_players: int | None = None, level: int | None = None) -> float:
    """The win rate a shipped model's card gives against the heuristic (``num_players``) or JEN (``level``)."""
    card = json.loads((PRETRAINED_DIR / f"{name}.json").read_text())
    if level is not None:
        return next(m["win_rate"] for m in card["ladder"] if m["level"] == level)
    return next(r["win_rate"] for r in card["results"] if r["num_players"] == num_players)


def fewest_plausible_wins(games: int, rate: float) -> int:
    """The fewest wins in ``games`` that a player winning at ``rate`` reaches 199 times in 200 (binomial)."""
    from scipy.stats import binom  # with the train extra, as train.stats uses it

    return int(binom.ppf(0.005, games, rate))


def test_fewest_plausible_wins():
    assert fewest_plausible_wins(40, 0.5) == 12 and fewest_plausible_wins(10, 1.0) == 10  # 40 fair coins: P(<12) < 0.5%


def test_ppo_2p_beats_the_heuristic_at_two_player_tables():
    from agents import PolicyAgent

    results = play_games([PolicyAgent.pretrained("ppo-2p"), make_agent("heuristic")], Rules(num_players=2),
                         n=40, seed=0)
    # as strong as its card says (87% over 1,000 games), not merely ahead: the heuristic beats ppo-jen 96% of the time
    assert results.wins[0] >= fewest_plausible_wins(40, card_rate("ppo-2p", num_players=2))


def test_ppo_4p_takes_more_than_its_share_against_three_heuristics():
    from agents import PolicyAgent

    table = [PolicyAgent.pretrained("ppo-4p")] + [make_agent("heuristic") for _ in range(3)]
    results = play_games(table, Rules(num_players=4), n=40, seed=0)
    assert results.win_rates[0] > 1 / 4  # more than a fair share, and as its card says (51% over 1,000 games)
    assert results.wins[0] >= fewest_plausible_wins(40, card_rate("ppo-4p", num_players=4))


@pytest.mark.parametrize("players", [3, 5])
def test_ppo_mixed_takes_more_than_its_share_at_every_table(players):
    from agents import PolicyAgent

    table = [PolicyAgent.pretrained("ppo-mixed")] + [make_agent("heuristic") for _ in range(players - 1)]
    results = play_games(table, Rules(num_players=players), n=40, seed=0)
    assert results.win_rates[0] > 1 / players  # more than a fair share; its card: 63% at 3 players, 49% at 5
    assert results.wins[0] >= fewest_plausible_wins(40, card_rate("ppo-mixed", num_players=players))


def test_pretrained_model_loads_by_name_and_plays():
    from agents import PolicyAgent

    agent = PolicyAgent.pretrained("ppo-jen")
    assert make_agent("ppo-jen").name == "ppo-jen"
    results = play_games([agent], Rules(jen_level=4), n=20, seed=0)
    # it beats JEN 4 as its card says (97% of 5,000 deals; a random player wins ~1.5%)
    assert results.wins[0] >= fewest_plausible_wins(20, card_rate("ppo-jen", level=4))
    with pytest.raises(ValueError, match="no pretrained model 'ppo-jenn'; available: .*ppo-jen"):
        PolicyAgent.pretrained("ppo-jenn")


def test_the_heuristic_pays_by_hand_as_automatic_payment_would_at_the_final_buy():
    # Manual payment, seat 0's final buy of O1: B5 scores nothing and the hand never changes again,
    # so the heuristic pays with B5 as automatic payment does there, not with a coin.
    from stacked import new_game, play
    from agents.tournament import player_view

    game = new_game(["O1", "$1", "G1", "G2", "G3", "B1", "B2", "B5"], payment="manual")
    play(game, "draw", "stop_currency")
    play(game, "draw", "draw", "stop_numbers", "pass")
    play(game, "draw", "draw", "pass", "pass")
    play(game, "buy_O1")
    assert (game.phase, game.current_player, game.pay_for) == ("pay", 0, ("final_buy", game.pay_for[1]))
    heuristic = HeuristicAgent()
    assert game.action_name(heuristic.act(*player_view(game, 0, heuristic))) == "pay_B5"


def test_agents_that_read_only_the_vector_and_mask_play_a_gymnasium_view():
    """A Gymnasium view's observation is the vector, its mask in info: PolicyAgent and
    RandomAgent take them as they are, and choose as they do from the PettingZoo view."""
    import ten_env
    from agents import PolicyAgent

    policy, rng_agent = PolicyAgent.pretrained("ppo-jen"), RandomAgent(seed=3)
    env = ten_env.SoloEnv(jen_level=6)
    observation, info = env.reset(seed=11)
    steps, terminated = 0, False
    while not terminated:
        game, seat = env.game, env.seat
        aec_view = O.agent_view(game, seat)
        action = policy.act(observation, info)
        assert action == policy.act(*aec_view)
        assert info["action_mask"][rng_agent.act(observation, info)] == 1
        observation, _, terminated, _, info = env.step(action)
        steps += 1
    assert steps > 10


def test_an_agent_given_what_it_cannot_read_says_so_in_one_line():
    import ten_env
    from agents import PolicyAgent

    observation, info = ten_env.SoloEnv(jen_level=6).reset(seed=0)
    with pytest.raises(ValueError, match=r"info\['snapshot'\].*ten_env\.env\(\) gives and the Gymnasium views do not"):
        HeuristicAgent().act(observation, info)
    for agent in (RandomAgent(0), PolicyAgent.pretrained("ppo-jen")):
        with pytest.raises(ValueError, match=r"a Gymnasium view's observation with info\['action_mask'\]; "
                                             r"got ndarray and info without 'action_mask'"):
            agent.act(observation, {})
        with pytest.raises(ValueError, match=r"needs 'observation' and 'action_mask'; got keys \['obs'\]"):
            agent.act({"obs": observation}, info)


@pytest.mark.parametrize("call, message", [
    (dict(n=-1), "^play_games: n must be a whole number of games, at least 1, got -1$"),
    (dict(n=0), "n must be a whole number of games, at least 1, got 0"),  # it tallied nothing, silently
    (dict(n=1.5), "n must be a whole number of games, at least 1, got 1.5"),
    (dict(n=True), "n must be a whole number of games, at least 1, got True"),
    (dict(seed=None), "^play_games: seed must be a non-negative integer, got None$"),
    (dict(seed=-1), "seed must be a non-negative integer, got -1"),
    (dict(seed=1.0), "seed must be a non-negative integer, got 1.0"),
    (dict(rules={"players": 2}), "^unknown rules field\\(s\\) players; allowed: num_players, "),
    (dict(rules=5), "^rules must be a ten_env.Rules or a dict of its fields, got 5$"),
    (dict(agents=["random", "heuristic"]), r"^play_games: agent 0 is 'random', not an agent \(something with act\(\) "
                                           r"or a callable policy\) \(agents.make_agent\('random'\) makes one by name\)$"),
    (dict(agents=[RandomAgent(0), 5]), r"^play_games: agent 1 is 5, not an agent"),
    (dict(agents="rh"), "^play_games needs a list of 2 agent\\(s\\), got 'rh'$"),
    (dict(agents=[RandomAgent(0)]), "^play_games needs 2 agent\\(s\\) for these rules, got 1$"),
])
def test_play_games_refuses_what_it_cannot_play_in_one_line(call, message):
    arguments = {"agents": [RandomAgent(0), RandomAgent(1)], "rules": Rules(), "n": 2, "seed": 0, **call}
    with pytest.raises(ValueError, match=message):
        play_games(**arguments)


def test_play_games_takes_numpy_counts_and_a_dict_of_rules():
    expected = play_games([RandomAgent(0), RandomAgent(1)], Rules(num_players=2), n=3, seed=2)
    got = play_games([RandomAgent(0), RandomAgent(1)], {"num_players": 2}, n=np.int64(3), seed=np.int64(2))
    assert got == expected and got.games == 3


@pytest.mark.parametrize("spec", ["random", "heuristic", "jen:4", "ppo-jen", "search:4", "search:ppo-jen:4"])
def test_every_agent_refuses_a_mask_with_no_legal_action(spec):
    agent = make_agent(spec, seed=0)
    game = Game(Rules(jen_level=6), seed=1)
    while len(game.legal_actions()) < 2:
        game.act(game.legal_actions()[0])
    observation, info = O.agent_view(game, 0)
    assert agent.act(observation, info) in game.legal_actions()
    observation["action_mask"] = np.zeros_like(observation["action_mask"])  # what observe() gives off turn
    with pytest.raises(ValueError, match=rf"^{spec}: the action mask has no legal action \(an agent acts on its "
                                         r"own turn\)$"):
        agent.act(observation, info)


def test_no_agent_is_reset_with_a_seed_that_deals_its_game():
    """An agent's reset seed must not be its deck's: with it, ``Game(rules, seed=...)`` deals the
    deck in its true order (the only agent of a solitaire game was given exactly that)."""
    seen = []

    class SeedReader(RandomAgent):
        def __init__(self, position):
            super().__init__(0)
            self.position = position

        def reset(self, seed=None):
            seen.append((self.position, seed))
            super().reset(seed)

    for agents, rules in (([SeedReader(0)], Rules(jen_level=7)), ([SeedReader(j) for j in range(3)], Rules(num_players=3))):
        seen.clear()
        for i, (game, _) in enumerate(seeded_games(agents, rules, 4, 40)):
            dealt = Game(rules, seed=40 + i)
            for position, seed in seen[-len(agents):]:
                assert seed != 40 + i and Game(rules, seed=seed).deck != dealt.deck
        assert len(seen) == 4 * len(agents) and len({seed for _, seed in seen}) == len(seen)
    first = list(seen)
    seen.clear()
    list(seeded_games([SeedReader(j) for j in range(3)], Rules(num_players=3), 4, 40))
    assert seen == first  # the same seeds each time: runs replay


@pytest.mark.parametrize("name", ["ppo-jen", "ppo-jen-features", "ppo-4p"])
def test_a_networks_move_is_sb3s_deterministic_prediction(name):
    """``PolicyAgent.act`` computes the move itself, without SB3's ``predict`` and the distribution it
    builds; it must be the move ``predict(deterministic=True)`` gives, in every state."""
    import random

    agent = PolicyAgent.pretrained(name)
    rng = random.Random(0)
    moves = 0
    for rules in (Rules(jen_level=9, payment="manual"), Rules(num_players=4, bust_buy=True)):
        for deal in range(2):
            game = Game(rules, seed=deal)
            while not game.is_over:
                observation, info = O.agent_view(game, game.current_player)
                if len(game.legal_actions()) > 1:
                    predicted, _ = agent.model.predict(agent._network_input(observation["observation"]),
                                                       action_masks=observation["action_mask"].astype(bool),
                                                       deterministic=True)
                    assert agent.act(observation, info) == int(predicted)
                    moves += 1
                game.act(rng.choice(game.legal_actions()))
    assert moves > 200, moves
