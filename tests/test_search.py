"""SearchAgent (chance-node MCTS over what a player sees) and OracleAgent (the same search, cheating)."""

import random
import re

import numpy as np
import pytest

from agents import OracleAgent, PolicyAgent, SearchAgent, play_games
from agents.policy import PRETRAINED_DIR
from agents.registry import make_agent
from agents.search import DEFAULT_BUDGET, outcome_value, rollout, rollout_action, to_top
from ten_env import Game, Rules
from ten_env import observation as O
from ten_env.observation import agent_view

from stacked import new_game, play

CONFIGS = {
    **{f"{n}p": Rules(num_players=n) for n in (2, 3, 4, 5)},
    "3p-bust-buy-manual": Rules(num_players=3, bust_buy=True, payment="manual"),
    "2p-manual": Rules(num_players=2, payment="manual"),
    "solitaire-8": Rules(jen_level=8),
    "solitaire-5-bust-buy-manual": Rules(jen_level=5, bust_buy=True, payment="manual"),
}


def _states(rules, count, seed=0):
    """Games stopped at ``count`` decisions spread over random play, every phase included."""
    rng = random.Random(seed)
    states, g = [], 0
    while len(states) < count:
        game = Game(rules, seed=seed * 100 + g)
        g += 1
        while not game.is_over:
            if len(game.legal_actions()) > 1 and rng.random() < 0.15:
                states.append(game.clone())
            game.act(rng.choice(game.legal_actions()))
    return states[:count]


def _states_by_phase(rules, per_phase, seed=0):
    """Up to ``per_phase`` decisions of each phase these rules have, from random play."""
    expected = {"draw", "auction", "buy", "final_buy"} | ({"bust"} if rules.bust_buy else set()) \
        | ({"pay"} if rules.payment == "manual" else set())
    rng = random.Random(seed)
    found = {phase: [] for phase in expected}
    for g in range(200):
        game = Game(rules, seed=seed * 1000 + g)
        while not game.is_over:
            if len(game.legal_actions()) > 1 and len(found[game.phase]) < per_phase and rng.random() < 0.3:
                found[game.phase].append(game.clone())
            game.act(rng.choice(game.legal_actions()))
        if all(len(states) == per_phase for states in found.values()):
            break
    assert all(found.values()), {phase: len(states) for phase, states in found.items()}
    return [state for states in found.values() for state in states]


@pytest.mark.parametrize("name", list(CONFIGS))
def test_search_plays_a_legal_action_in_every_phase(name):
    agent = SearchAgent(budget=3, seed=1)
    for game in _states_by_phase(CONFIGS[name], per_phase=4):
        action = agent.act(*agent_view(game, game.current_player))
        assert action in game.legal_actions()


def test_the_decision_does_not_depend_on_the_unseen_order():
    """Same public state, different deck orders, same seed: the same decision."""
    for game in _states(Rules(jen_level=9), 12, seed=3):
        other = game.clone(shuffle_unseen=77)
        assert other.deck != game.deck and other.snapshot() == game.snapshot()
        seat = game.current_player
        first = SearchAgent(budget=24, seed=5).act(*agent_view(game, seat))
        second = SearchAgent(budget=24, seed=5).act(*agent_view(other, seat))
        assert first == second


def test_stratified_chance_does_not_depend_on_the_unseen_order():
    states = [game for game in _states(Rules(jen_level=9), 10, seed=5) if len(set(game.deck)) > 1]
    assert len(states) >= 8
    for game in states:
        other = game.clone(shuffle_unseen=78)
        assert other.deck != game.deck and other.snapshot() == game.snapshot()
        seat = game.current_player
        first = SearchAgent(budget=24, seed=5, chance="stratified").act(*agent_view(game, seat))
        second = SearchAgent(budget=24, seed=5, chance="stratified").act(*agent_view(other, seat))
        assert first == second


@pytest.mark.parametrize("rules", [Rules(jen_level=9), Rules(num_players=3)], ids=["solitaire-9", "3p"])
def test_stratified_search_keeps_each_simulation_to_its_own_cards(rules):
    """Many simulations through deep trees: a card moved in the deck but not in the
    simulation's record of it would merge outcomes that differ, and the search would
    then try moves that are not legal."""
    for game in _states(rules, 10, seed=5):
        action = SearchAgent(budget=100, seed=1, chance="stratified").act(*agent_view(game, game.current_player))
        assert action in game.legal_actions()


def test_stratified_chance_keeps_the_next_cards_to_their_odds():
    """After every move of the root, each card came next in at least its share of the
    simulations, rounded down (sampled, a card often falls short of it)."""
    game = _states(Rules(jen_level=9), 1, seed=7)[0]
    view = agent_view(game, game.current_player)
    counts = {card: game.deck.count(card) for card in set(game.deck)}
    met = {}
    for chance in ("stratified", "sampled"):
        agent = SearchAgent(budget=200, seed=2, chance=chance)
        seen = []  # the card on top of each simulation's deck as the root's move is made
        original = Game.act

        def act(self, action, next_card=None):
            if not seen or seen[-1] is not self:
                seen.append(self)
                tops.append((action, self.deck[-1]))
            return original(self, action, next_card)

        tops = []
        try:
            Game.act = act
            agent.act(*view)
        finally:
            Game.act = original
        met[chance] = tops
    short = {}
    for chance, tops in met.items():
        by_action = {}
        for action, card in tops:
            by_action.setdefault(action, []).append(card)
        short[chance] = sum(
            cards.count(card) < len(cards) * copies // len(game.deck)
            for cards in by_action.values() for card, copies in counts.items())
    assert short["stratified"] == 0 and short["sampled"] > 0


def test_a_card_taken_to_the_top_leaves_the_rest_a_fair_shuffle():
    """Every order of [c, c, x] equally likely, each copy of c equally likely to be taken:
    the decks that follow are the orders of what is left, equally often."""
    class Pick:  # a generator whose "random" choice is the copy given
        def __init__(self, k):
            self.k = k

        def randrange(self, n):
            return self.k % n

    tally = {}
    for order in ([0, 0, 1], [0, 1, 0], [1, 0, 0]):
        for k in range(2):  # two copies of card 0
            deck = order[:]
            to_top(deck, 0, Pick(k))
            assert deck[-1] == 0
            tally[tuple(deck)] = tally.get(tuple(deck), 0) + 1
    assert tally == {(0, 1, 0): 3, (1, 0, 0): 3}


def test_search_refuses_an_unknown_chance_and_the_oracle_a_reordered_deck():
    with pytest.raises(ValueError, match="chance must be one of sampled, stratified"):
        SearchAgent(chance="exact")
    with pytest.raises(ValueError, match="the oracle plays the true order"):
        OracleAgent(chance="stratified")


def test_search_is_reproducible_with_a_seed():
    game = _states(Rules(num_players=3), 1, seed=4)[0]
    view = agent_view(game, game.current_player)
    agent = SearchAgent(budget=30, seed=9)
    first = agent.act(*view)
    agent.reset(seed=9)
    assert agent.act(*view) == first == SearchAgent(budget=30, seed=9).act(*view)


def test_search_reports_the_visits_behind_its_move():
    game = _states(Rules(jen_level=8), 1, seed=6)[0]
    decision = SearchAgent(budget=40, seed=3).search(*agent_view(game, 0))
    assert decision.actions == game.legal_actions()
    assert sum(decision.visits) == 40
    assert decision.visits[decision.actions.index(decision.action)] == max(decision.visits)
    assert -1.0 <= decision.value <= 1.0


def test_search_reports_how_deep_its_simulations_went():
    game = _states(Rules(jen_level=8), 1, seed=6)[0]
    view = agent_view(game, 0)
    assert SearchAgent(budget=1, seed=3).search(*view).depth == 1.0  # one simulation, one decision
    honest = SearchAgent(budget=60, seed=3).search(*view)
    assert 1.0 < honest.depth
    # On the true order every simulation meets the same outcomes, so the tree grows deeper than
    # on reshuffled decks, where a new card or a new turn of JEN's is a new leaf.
    view[1]["game"] = game
    assert OracleAgent(budget=60, seed=3).search(*view).depth > honest.depth + 1


def test_a_network_search_counts_the_depth_of_every_simulation_in_its_batches(monkeypatch):
    """Simulations run in batches of 8 (20 = 8 + 8 + 4): each is counted once, from the root to its leaf."""
    model = PolicyAgent.pretrained("ppo-jen")
    paths = []
    simulate = SearchAgent._simulate

    def counted(self, root, root_game, seat, batch):
        decisions = simulate(self, root, root_game, seat, batch)
        paths.append((batch, decisions))
        return decisions

    monkeypatch.setattr(SearchAgent, "_simulate", counted)
    game = _states(Rules(jen_level=8), 1, seed=6)[0]
    decision = SearchAgent(budget=20, model=model, seed=3).search(*agent_view(game, 0))
    assert [batch for batch, _ in paths] == [8, 8, 4] and sum(decision.visits) == 20
    assert all(batch <= decisions for batch, decisions in paths)  # every simulation makes one decision at least
    assert decision.depth == sum(decisions for _, decisions in paths) / 20


def test_search_plays_a_lone_legal_move_without_searching():
    game = Game(Rules(jen_level=8), seed=0)
    observation, info = agent_view(game, 0)
    mask = np.zeros_like(observation["action_mask"])
    mask[game.legal_actions()[0]] = 1
    decision = SearchAgent(budget=40, seed=3).search({**observation, "action_mask": mask}, info)
    assert decision == (game.legal_actions()[0], [game.legal_actions()[0]], [0], 0.0, 0.0)


def test_search_stops_when_every_card_left_busts():
    # Net total 9 and only high cards left: any draw busts, so the numbers are taken.
    game = Game(Rules(jen_level=4), deck=["B4", "B5", "G9", "O9", "P9", "B9", "G8", "O8"])
    game.act("draw")
    assert game.snapshot()["net_total"] == 9 and "draw" in game.legal_action_names()
    action = SearchAgent(budget=20, seed=0).act(*agent_view(game, 0))
    assert game.action_name(action) == "stop_numbers"


def test_the_rollout_policy_is_legal_and_ends_games():
    rng = random.Random(0)
    for rules in CONFIGS.values():
        game = Game(rules, seed=rng.randrange(1000))
        while not game.is_over:
            action = rollout_action(game)
            assert action in game.legal_actions()
            game.act(action)
        assert outcome_value(game, 0) == pytest.approx(_outcome(game, 0))
    game = Game(Rules(jen_level=7), seed=3)
    value = rollout(game, 0)
    assert game.is_over and value == pytest.approx(_outcome(game, 0))


def test_the_rollout_pays_by_hand_as_automatic_payment_would():
    """Seat 0 holds an idle second B3 when it buys G5 with manual payment: automatic payment
    spends the duplicate first (the rollout paid coins first, then the lowest card it held,
    whether it scored or not)."""
    deck = ["B3", "B3", "G5", "$1", "O2", "B9", "B8", "B7"]
    moves = ["draw", "stop_numbers", "draw", "stop_currency", "stop_numbers", "buy_G5"]
    by_hand = play(new_game(deck, payment="manual"), *moves)
    assert by_hand.phase == "pay" and by_hand.action_name(rollout_action(by_hand)) == "pay_B3"
    while by_hand.phase == "pay":
        by_hand.act(rollout_action(by_hand))
    automatic = play(new_game(deck, payment="auto"), *moves)
    assert by_hand.snapshot()["players"] == automatic.snapshot()["players"]


def _outcome(game, seat):
    """(win + margin) / 2 from the final scores: win 1 alone, 0 shared, -1 lost; margin against
    the best other score, over 20, cut to [-1, 1]."""
    scores, winners = game.scores(), game.winners()
    win = (1.0 if len(winners) == 1 else 0.0) if seat in winners else -1.0
    margin = (scores[seat] - max(s for other, s in enumerate(scores) if other != seat)) / 20
    return (win + min(1.0, max(-1.0, margin))) / 2


@pytest.mark.parametrize("temperature", [1.0, 3.0])
def test_the_prior_is_the_networks_policy_softened(temperature):
    model = PolicyAgent.pretrained("ppo-jen")
    game = _states(Rules(jen_level=8), 1, seed=2)[0]
    legal = game.legal_actions()
    probs, _ = model.evaluate(O.encode(game, 0)[None], O.action_mask(game, 0).astype(bool)[None])
    softened = probs[0][legal] ** (1 / temperature)
    agent = SearchAgent(budget=8, model=model, seed=0, prior_temperature=temperature)
    _, priors = agent._values([game], 0)
    assert priors[0] == pytest.approx((softened / softened.sum()).tolist())
    if temperature > 1:  # softer: the favourite keeps less than the network gave it
        assert max(priors[0]) < probs[0].max()


def test_search_with_a_network_batches_its_evaluations(monkeypatch):
    model = PolicyAgent.pretrained("ppo-jen")
    sizes = []
    evaluate = model.evaluate

    def counted(observations, masks):
        sizes.append(len(observations))
        return evaluate(observations, masks)

    monkeypatch.setattr(model, "evaluate", counted)
    agent = SearchAgent(budget=16, model=model, seed=2)
    for game in _states(Rules(jen_level=7), 2, seed=6):
        action = agent.act(*agent_view(game, 0))
        assert action in game.legal_actions()
    assert max(sizes) > 1  # leaves are valued several at a time


def test_policy_agent_evaluate_gives_masked_probabilities_and_values():
    model = PolicyAgent.pretrained("ppo-jen")
    games = _states(Rules(jen_level=6), 3, seed=8)
    views = [agent_view(game, 0)[0] for game in games]
    probs, values = model.evaluate(np.stack([v["observation"] for v in views]),
                                   np.stack([v["action_mask"].astype(bool) for v in views]))
    assert probs.shape == (3, games[0].num_actions) and values.shape == (3,)
    for row, view in zip(probs, views):
        assert row.sum() == pytest.approx(1.0, abs=1e-5)
        assert not row[~view["action_mask"].astype(bool)].any()


def _unshared_model():
    """A fresh MaskablePPO whose policy and value have feature extractors of their own."""
    from sb3_contrib import MaskablePPO

    from ten_env import SoloEnv

    ppo = MaskablePPO("MlpPolicy", SoloEnv(jen_level=9), seed=0, device="cpu",
                      policy_kwargs={"share_features_extractor": False, "net_arch": [16]})
    return PolicyAgent.from_model(ppo, name="unshared")


@pytest.mark.parametrize("name", ["ppo-jen-v1", "ppo-jen-tuned-outcome", "unshared"])
def test_policy_agent_evaluate_is_the_policys_own_distribution_and_value(name, monkeypatch):
    """evaluate's single pass gives the very numbers of the policy's get_distribution and
    predict_values (so a search plays the same games), and a policy class that overrides them
    is asked through its own methods."""
    import torch

    model = _unshared_model() if name == "unshared" else PolicyAgent.pretrained(name)
    games = [game for seed in (8, 9) for game in _states(Rules(jen_level=9), 12, seed=seed)]
    observations = np.stack([O.encode(game, game.current_player) for game in games])
    masks = np.stack([O.action_mask(game, game.current_player).astype(bool) for game in games])
    policy = getattr(model.model, "policy", model.model)
    with torch.no_grad():
        x = torch.as_tensor(model._network_input(observations), dtype=torch.float32)
        expected_probs = policy.get_distribution(x, action_masks=masks).distribution.probs.numpy()
        expected_values = policy.predict_values(x).numpy()[:, 0]
    probs, values = model.evaluate(observations, masks)
    assert np.array_equal(probs, expected_probs) and np.array_equal(values, expected_values)

    class Shifted(type(policy)):  # a custom policy: its value is its own
        def predict_values(self, obs):
            return super().predict_values(obs) + 1

    monkeypatch.setattr(policy, "__class__", Shifted)
    probs, values = model.evaluate(observations, masks)
    assert np.array_equal(probs, expected_probs) and np.allclose(values, expected_values + 1)


def test_the_oracle_needs_the_real_game_and_plays_with_play_games():
    game = Game(Rules(jen_level=6), seed=1)
    with pytest.raises(ValueError, match=r"OracleAgent needs info\['game'\]"):
        OracleAgent(budget=4).act(*agent_view(game, 0))
    handed = []

    class Watched(OracleAgent):  # records whether each root is the game in play, deck order and all
        def _root_game(self, info):
            root = super()._root_game(info)
            handed.append((root.snapshot() == dict(info["snapshot"]) and root.deck == info["game"].deck,
                           len(root.deck)))
            return root

    results = play_games([Watched(budget=4, seed=0)], Rules(jen_level=6), n=2, seed=0)
    assert results.games == 2 and len(handed) > 10 and all(same for same, _ in handed)
    assert sum(cards > 0 for _, cards in handed) > 10  # most of them before the deck ran out


def test_agents_by_name():
    assert isinstance(make_agent("search"), SearchAgent)
    assert make_agent("search:40").budget == 40
    assert make_agent("search:ppo-jen:8").model.name == "ppo-jen"
    oracle = make_agent("oracle:12")
    assert isinstance(oracle, OracleAgent) and oracle.budget == 12 and oracle.sees_deck_order
    for bad, message in [("search:0", "from 1 to 100,000"), ("search:100001", "from 1 to 100,000"),
                         ("oracle:ppo-jen:1000000", "budget '1000000' must be a whole number"),
                         ("search:1:2:3", "write search"),
                         ("search:heuristic:5", "not a trained model"), ("search:nope:5", "its model"),
                         # a second part is always the budget: never read as the default budget
                         ("search:ppo-jen:-3", "budget '-3' must be a whole number"),
                         ("search:ppo-jen:abc", "budget 'abc' must be"), ("oracle:ppo-jen:1e3", "budget '1e3'"),
                         ("search:ppo-jen:0", "from 1 to 100,000"),
                         # one part that is a signed number is a budget too, not a model's name
                         ("search:-3", "budget '-3' must be a whole number"), ("oracle:+2", "budget '\\+2'")]:
        with pytest.raises(ValueError, match=message):
            make_agent(bad)
    assert make_agent("search:100000").budget == 100_000
    for bad in (0, 100_001, 2.0, True):
        with pytest.raises(ValueError, match="budget must be a whole number of simulations from 1 to 100,000"):
            SearchAgent(budget=bad)
    for bad in (0, -1.0, float("inf"), float("nan"), True, "3"):
        with pytest.raises(ValueError, match="prior_temperature must be a positive number"):
            SearchAgent(prior_temperature=bad)


@pytest.mark.parametrize("spec, budget, model, chance", [
    ("search:chance=stratified", DEFAULT_BUDGET, None, "stratified"),
    ("search:40:chance=stratified", 40, None, "stratified"),
    ("search:ppo-jen:8:chance=stratified", 8, "ppo-jen", "stratified"),
    ("search:ppo-jen:chance=stratified", DEFAULT_BUDGET, "ppo-jen", "stratified"),
    ("search:ppo-jen:8:chance=sampled", 8, "ppo-jen", "sampled"),
    ("oracle:12:chance=sampled", 12, None, "sampled"),
])
def test_a_search_name_sets_its_chance_and_reads_back(spec, budget, model, chance):
    agent = make_agent(spec)
    assert (agent.budget, getattr(agent.model, "name", None), agent.chance) == (budget, model, chance)
    again = make_agent(agent.name)  # the name a report records plays the same search
    assert (type(again), again.budget, getattr(again.model, "name", None), again.chance) == \
        (type(agent), agent.budget, getattr(agent.model, "name", None), agent.chance)
    if chance == "sampled":  # the default is not spelled out: old names and reports stay as they are
        assert "chance" not in agent.name


@pytest.mark.parametrize("spec, message", [
    ("search:ppo-jen:8:chance=lucky", "agent 'search:ppo-jen:8:chance=lucky': chance must be one of sampled, "
                                      "stratified, got 'lucky'"),
    ("search:8:budget=9", "'budget=9' is neither an option (chance=sampled|stratified) nor a model file"),
    ("search:lr=3.zip", "'lr=3.zip' is neither an option (chance=sampled|stratified) nor a model file"),
    ("search:8:chance=stratified:", "a part is empty"),
    ("search:8:chance = stratified", "write it without spaces around ':' and '=', as in "
                                     "search:ppo-jen:200:chance=stratified"),
    ("search: 8", "write it without spaces"), ("oracle:ppo-jen :8", "as in oracle:ppo-jen:200"),
    ("search:4:=stratified", "'=stratified' is neither an option (chance=sampled|stratified) nor a model file"),
    ("search:nofile=2.zip:4", "'nofile=2.zip' is neither an option (chance=sampled|stratified) nor a model file"),
    ("oracle:a:b:c", "write oracle, oracle:<budget>, oracle:<model>:<budget> or oracle:<model> "
                     "(e.g. oracle:ppo-jen:200)"),
    ("search:8:chance=stratified:chance=sampled", "chance is given twice"),
    ("oracle:8:chance=stratified", "the oracle plays the true deck order"),
    ("search:chance=stratified:8", "options such as chance=stratified go last, after the model and budget"),
    ("search:a/lr=3:8", "'a/lr=3' is neither an option (chance=sampled|stratified) nor a model file"),
])
def test_a_search_names_bad_option_is_refused(spec, message):
    with pytest.raises(ValueError, match=re.escape(message)) as error:
        make_agent(spec)
    if spec == "oracle:a:b:c":
        assert str(error.value).endswith(message)  # not offered chance=stratified, which the oracle refuses


def test_a_model_path_holding_an_equals_sign_is_a_model_not_an_option(tmp_path, monkeypatch):
    (tmp_path / "seed=1").mkdir()
    for name in ("lr=3.zip", "seed=1/model.zip"):
        (tmp_path / name).write_bytes((PRETRAINED_DIR / "ppo-jen.zip").read_bytes())
    monkeypatch.chdir(tmp_path)
    for spec, budget in (("search:lr=3.zip", DEFAULT_BUDGET), ("search:seed=1/model.zip:64", 64),
                         ("search:seed=1/model.zip:64:chance=stratified", 64)):
        agent = make_agent(spec)
        assert agent.model is not None and agent.budget == budget
        assert agent.chance == ("stratified" if spec.endswith("chance=stratified") else "sampled")
        # named by the path as given, not the file's stem ("model"), so the name plays the same search
        assert agent.name == (spec if spec != "search:lr=3.zip" else f"search:lr=3.zip:{DEFAULT_BUDGET}")
        again = make_agent(agent.name)
        assert (again.budget, again.chance, again.model.path) == (agent.budget, agent.chance, agent.model.path)


def test_a_model_path_holding_a_colon_is_named_as_the_reason(tmp_path, monkeypatch):
    # ':' separates a search name's parts, so such a path can never be one of them: say so, rather
    # than call the rest of the path a bad budget.
    (tmp_path / "x:y").mkdir()
    (tmp_path / "x:y" / "model.zip").write_bytes((PRETRAINED_DIR / "ppo-jen.zip").read_bytes())
    monkeypatch.chdir(tmp_path)
    assert isinstance(make_agent("x:y/model.zip"), PolicyAgent)  # alone, it is a path like any other
    for spec in ("search:x:y/model.zip:8", "oracle:x:y/model.zip"):
        with pytest.raises(ValueError, match=re.escape("the model path 'x:y/model.zip' holds ':', which separates "
                                                       "the parts of a")):
            make_agent(spec)


def test_a_search_over_a_network_for_another_max_bid_says_so():
    # PolicyAgent.act said so; a search, which calls evaluate, met a torch shape error instead.
    with pytest.raises(ValueError, match=r"model 'ppo-jen' has 132 actions but the game has 112 \(a different max_bid\)"):
        play_games([make_agent("search:ppo-jen:8")], Rules(jen_level=8, max_bid=20), n=1, seed=0)


def test_the_other_seats_play_as_the_opponents_given():
    game = Game(Rules(num_players=3), seed=4)
    while game.current_player != 0 or len(game.legal_actions()) < 2:
        game.act(rollout_action(game))
    played = []

    def always_the_first(seat):
        def policy(sim):
            assert sim.current_player == seat  # called for its own seat only
            played.append(seat)
            return sim.legal_actions()[0]
        return policy

    agent = SearchAgent(budget=8, seed=0, opponents=[None, always_the_first(1), always_the_first(2)])
    agent.act(*agent_view(game, 0))
    assert set(played) == {1, 2}  # both other seats, in the tree and in the rollouts; seat 0's None unused
    before = game.clone()
    for bad, message in [([None, None], "opponents has 2 entries, one for each of the game's 3 seats needed"),
                         ([None] * 4, "opponents has 4 entries")]:
        with pytest.raises(ValueError, match=re.escape(message)):
            SearchAgent(budget=8, opponents=bad).act(*agent_view(game, 0))
    assert game == before
    for bad in ("rollout", 5, [None, "heuristic", None]):
        with pytest.raises(ValueError, match="opponents must be None or a list with a callable"):
            SearchAgent(opponents=bad)


@pytest.mark.parametrize("bad", ["x", float("nan"), float("inf"), -0.1, True, None])
def test_the_exploration_constant_is_a_finite_number(bad):
    with pytest.raises(ValueError, match=re.escape(f"exploration must be a finite number at least 0, got {bad!r}")):
        SearchAgent(exploration=bad)


def test_numpy_seeds_seed_a_search_as_their_ints_do():
    game = Game(Rules(jen_level=8), seed=3)
    while len(game.legal_actions()) < 2:
        game.act(rollout_action(game))
    decisions = [SearchAgent(budget=16, seed=seed).search(*agent_view(game, 0)) for seed in (5, np.int64(5))]
    assert decisions[0] == decisions[1]
    assert make_agent("search:4", seed=np.int64(5)).rng.random() == SearchAgent(seed=5).rng.random()
    for bad in (1.5, "abc", -1, True):
        with pytest.raises(ValueError, match="seed must be None or a non-negative integer"):
            SearchAgent(seed=bad)


@pytest.mark.parametrize("spec", ["a" * 300, f"search:{'a' * 300}:4", "x\x00y", "search:x\x00y:3", f"{'b' * 300}.zip"])
def test_a_name_no_file_can_have_is_an_unknown_agent(spec):
    with pytest.raises(ValueError, match="unknown agent|cannot name a file \\(File name too long\\)$"):
        make_agent(spec)
