"""``SearchAgent``: Monte Carlo tree search with chance nodes, seeing only what a player sees.

Each decision grows a tree over the agent's own choices. Between two of its
decisions the game moves on by chance (the cards drawn) and by the other seats
(JEN, played by the engine in the solitaire game; in a normal game the other
seats' models, by default the fast rollout policy below); the tree keeps one
child per outcome it has met, keyed by the cards drawn and the moves made. So a
decision in the tree depends only on what the agent would have seen by then:
the draws are chance events, not a deck order known in advance.

Every simulation starts from a game rebuilt from the public snapshot
(:meth:`ten_env.Game.from_snapshot`) with the deck reshuffled by the agent's
own random generator: a fresh sample of what the deck may hold in what order,
and drawing from it card by card is drawing from the chance distribution the
player knows (:meth:`ten_env.Game.chance_outcomes`). The true order never
reaches the agent, so two games with the same public state get the same
decision from the same seed. With ``chance="stratified"`` the first card that
comes after each of the agent's moves is dealt by its odds rather than by luck
(the card with the highest odds / (times it came next + 1) goes on top of that
simulation's deck), so a move's value is less moved by a lucky run of cards.

Leaves are valued by a rollout to the end of the game with a fast policy
(draw while the chance of busting is at most 30%, then take the numbers unless
the money is worth more, buy a card that scores, bid the minimum for a wildcard
that scores when that minimum is 3 coins or less, pay by hand as automatic
payment would) or, given a trained model (:class:`agents.PolicyAgent`), by its
value, with its policy as the prior
of each decision (PUCT); the network's evaluations are batched, simulations
being run in groups with a virtual loss. The prior is the policy softened,
each probability raised to 1 / ``prior_temperature`` (3 by default) and the
whole renormalised: a trained policy is nearly certain of its favourite move
(``ppo-jen-v1`` gives it 0.98 at the median decision), and with that prior the
search hardly ever tried another: it played the network's move 99.4% of the
time. Softened, it weighs the alternatives by what the simulations find
(``search:ppo-jen-v1:64`` at JEN 8, the same 1,000 deals: 43.9% with the raw
prior, 47.8% softened; a power of 1/5 did as well as 1/3 over 500 of them,
mixing a quarter of uniform in did not).

A game's value to the agent is its result (+1 a sole win, -1 a loss, 0 a
shared win) plus its score margin / 20, both halved, so that among equally
likely wins the search prefers the wider. A network's value should estimate
the same: the tree puts finished games and the network's leaves side by side.
``ppo-jen-v1``'s value estimates the margin reward it was trained on (a one-point
win is 0.05 to it, 0.525 here); ``ppo-jen-outcome`` is ``ppo-jen-v1`` with the
value refitted to this score (``ten distill train --value-target outcome
--policy-weight 0``): at JEN 8, on the same 1,000 deals, searching with it won
51.0% against 47.8% at budget 64 and 55.2% against 52.9% at 256. The shipped
``ppo-jen`` has that value and a policy distilled from this search at budget 512
(``ten distill``): as the prior it adds 2.0, 5.8 and 5.3 points at JEN 8, 9 and 10
to ``search:ppo-jen-outcome:64``, on the same 1,000 deals a level.

:class:`OracleAgent` runs the same search on the true deck order: it cheats,
and serves only to show how far any agent could get.
"""

from __future__ import annotations

import math
import numbers
import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple, cast

import numpy as np

from ten_env import Game
from ten_env import observation as O
from ten_env.actions import (
    BID_BASE,
    DRAW,
    FIRST_BUY,
    PASS,
    STOP_CURRENCY,
    STOP_NUMBERS,
)
from ten_env.env import check_seed, final_rewards
from ten_env.game import bust_by
from ten_env.payment import price
from ten_env.scoring import hand_score

from .base import Agent, automatic_payment_move, observation_parts, snapshot_of

if TYPE_CHECKING:
    from .policy import PolicyAgent

DEFAULT_BUDGET = 100  # simulations per decision
# A typo's guard, not a limit of the method: at about 0.4 ms a simulation with a network and
# 2-2.5 ms with rollouts (the 2-core machine), 100,000 is 40 s to 4 minutes a decision, and a
# solitaire game of 50-65 decisions takes half an hour to four hours; the budgets measured went
# to 1,024.
MAX_BUDGET = 100_000
EXPLORATION = 0.7  # UCB's constant, for values in [-1, 1]
BUST_ODDS = 0.3  # the rollout policy draws while the chance of busting is at most this
BATCH = 8  # simulations whose leaves a network values in one forward pass
PRIOR_TEMPERATURE = 3.0  # a network's policy is softened to p ** (1 / this) as the search's prior
CHANCE = ("sampled", "stratified")  # how a simulation picks the next card off the deck (see SearchAgent)


def outcome_value(game: Game, seat: int) -> float:
    """What a finished game is worth to ``seat``: (result + margin / 20) / 2, in [-1, 1]: the
    environments' ``reward="outcome"``, so a network trained on it values games as the search does."""
    return final_rewards(game, seat, "outcome")


# ---------------------------------------------------------------- the rollout policy


def rollout_action(game: Game) -> int:
    """A fast, sensible action for whoever is to act (reads the deck's contents, never its order)."""
    legal = game._legal_now()
    if len(legal) == 1:
        return legal[0]
    phase = game.phase
    seat = game.decider
    if phase == "draw":
        if DRAW in legal and _bust_chance(game) <= BUST_ODDS:
            return DRAW
        numbers = game.net_total + game.currency_total  # the number cards' total
        if STOP_NUMBERS in legal and (numbers >= game.currency_total or STOP_CURRENCY not in legal):
            return STOP_NUMBERS
        return STOP_CURRENCY  # with two moves or more, and the numbers not taken, taking the money is one
    if phase == "auction":
        lowest, highest = game._bid_range(seat)
        assert game.auction_card is not None  # set for the whole auction
        if lowest <= min(highest, 3) and _gain(game.hands[seat], game.auction_card) > 0:
            return BID_BASE + lowest
        return PASS
    if phase == "pay":
        assert game.pay_for is not None  # set for the whole payment
        purpose, card = game.pay_for
        return automatic_payment_move(game.hands[seat], game.coins[seat], game.bust_tokens[seat], game.pay_remaining,
                                      card, game.pay_duplicates_only, final_buy=purpose == "final_buy")
    # buy, bust, final_buy: the card that adds most to the score (lowest id among equals), if the coins cover it
    hand, coins = game.hands[seat], game.coins[seat]
    affordable = [action for action in legal if action != PASS and price(action - FIRST_BUY) <= coins]
    if not affordable:
        return PASS
    before = hand_score(hand)
    best, best_gain = PASS, 0
    for action in affordable:
        gain = _gain(hand, action - FIRST_BUY, before)
        if gain > best_gain:
            best, best_gain = action, gain
    return best


def _bust_chance(game: Game) -> float:
    """The chance that the next card busts the active player, from the deck's contents."""
    unseen = game.deck
    if not unseen:
        return 1.0
    net, currency = game.net_total, game.currency_total
    return sum(1 for card in unseen if bust_by(net, currency, card)) / len(unseen)


def _gain(hand: list[int], card: int, before: int | None = None) -> int:
    """What one more ``card`` adds to ``hand``'s score (``before``: its score now, if known)."""
    if before is None:
        before = hand_score(hand)
    hand[card] += 1
    after = hand_score(hand)
    hand[card] -= 1
    return after - before


def rollout(game: Game, seat: int, others: Sequence[Callable[[Game], int] | None] | None = None) -> float:
    """Play ``game`` to its end (in place) with the rollout policy; its value to ``seat``."""
    while not game.is_over:
        player = game.decider
        if others is not None and player != seat and others[player] is not None:
            game.act(others[player](game))  # type: ignore[misc]  # not None: checked above
        else:
            game.act(rollout_action(game))
    return outcome_value(game, seat)


def to_top(deck: list[int], card: int, rng: random.Random) -> int:
    """Swap a copy of ``card``, chosen at random, to the top of ``deck`` (its end); its old place.

    A random copy, not the nearest, keeps the rest of a shuffled deck a fair shuffle: of
    the orders of ``[c, c, x]``, taking the nearest ``c`` up leaves ``x`` next two times in
    three, where a deck known to start with ``c`` has it next one time in two.
    """
    places = [k for k, other in enumerate(deck) if other == card]
    k = places[rng.randrange(len(places))]
    deck[k], deck[-1] = deck[-1], deck[k]
    return k


# ---------------------------------------------------------------- the tree


class Decision(NamedTuple):
    """What one search found: the move chosen, and per legal action its visits; ``value`` is
    the mean value to the searching seat over all simulations; ``depth`` the mean number of
    the searching seat's decisions a simulation went through in the tree before its leaf
    (1: every simulation stopped at the first outcome after a root move). Both are 0.0 when
    nothing was searched, a single legal move being played at once."""

    action: int
    actions: list[int]
    visits: list[int]
    value: float
    depth: float = 0.0


class _Node:
    """A decision of the searching seat: per legal action, visits, summed value and children."""

    __slots__ = ("actions", "prior", "visits", "total", "children", "n", "unseen", "next_cards")

    def __init__(self, actions: list[int], prior: list[float] | None = None):
        self.actions = actions
        self.prior = prior
        self.visits = [0] * len(actions)
        self.total = [0.0] * len(actions)
        self.children: list[dict[tuple, _Node]] = [dict() for _ in actions]  # outcome key -> _Node
        self.n = 0
        self.unseen: list[tuple[int, int]] | None = None  # stratified chance: (card, copies) left in the deck here
        self.next_cards: list[dict[int, int] | None] | None = None  # stratified chance: per action, card -> simulations it came next in

    def select(self, exploration: float) -> int:
        """Index of the action to try. Without a prior (UCB1): every action once, in the order of
        their ids, then the best UCB1 score; so a budget smaller than the number of legal moves
        tries only the lowest ids. With one (PUCT): the best PUCT score, an unvisited action's
        value counted 0, so the prior decides which are tried."""
        visits, total, prior = self.visits, self.total, self.prior
        if prior is None:
            for i, v in enumerate(visits):
                if not v:
                    return i
            log_n = math.log(self.n)
            scores = [total[i] / visits[i] + exploration * math.sqrt(log_n / visits[i]) for i in range(len(visits))]
        else:
            root = math.sqrt(self.n + 1)
            scores = [(total[i] / visits[i] if visits[i] else 0.0) + exploration * prior[i] * root / (1 + visits[i])
                      for i in range(len(visits))]
        return max(range(len(scores)), key=scores.__getitem__)


class SearchAgent(Agent):
    """Chance-node Monte Carlo tree search (see the module docstring).

    Args:
        budget: simulations per decision (default ``DEFAULT_BUDGET``, at most ``MAX_BUDGET``).
        model: a :class:`agents.PolicyAgent` whose value values the leaves and whose
            policy is the prior (``None``: rollouts, UCB1).
        seed: seeds the search's random generator (reset by ``reset(seed)``).
        opponents: in a normal game, a list with an entry per seat, indexed by seat: a
            callable ``(game) -> action`` that plays that seat in the simulations (given
            the simulation's game), or ``None`` for the rollout policy; the searching
            seat's own entry is not used. ``None``: the rollout policy for every seat.
        exploration: UCB1 / PUCT constant.
        prior_temperature: the network's policy, raised to ``1 / prior_temperature`` and
            renormalised, is the prior (1: the policy as it is; higher: softer).
        chance: how a simulation meets the next card off the deck after each of the
            agent's moves. ``"sampled"``: as its shuffled deck has it, so each card comes
            next in about its share of the simulations, as luck has it. ``"stratified"``:
            the card with the highest odds / (times it came next after this move + 1) is
            put on top of that simulation's deck (the quasi-random chance selection of
            Stochastic MuZero, Antonoglou et al. 2022), a random copy of it, so the rest
            of the deck stays a fair shuffle. Every card then comes next at least its
            share of the simulations, rounded down, whatever their number (a common card
            may come next about two simulations more than its share): one source of noise
            taken out of each move's value; the cards after that first one are as luck has
            them. (After a move that draws nothing before the agent's next decision, the
            card put on top swaps places with the copy that decision puts there.) Both
            are honest: the odds come from the deck's public contents. Stratified did not
            win more at JEN 9 (-0.8 points, -3.2 to +1.6, at budget 256 on 1,000 paired
            deals: docs/research.md), so the default is ``"sampled"``; by name,
            ``search:<model>:<budget>:chance=stratified``.
    """

    sees_deck_order = False

    def __init__(self, budget: int = DEFAULT_BUDGET, model: PolicyAgent | None = None, seed: int | None = None,
                 opponents: Sequence[Callable[[Game], int] | None] | None = None, exploration: float = EXPLORATION,
                 name: str | None = None, prior_temperature: float = PRIOR_TEMPERATURE, chance: str = "sampled"):
        if isinstance(budget, bool) or not isinstance(budget, int) or not 1 <= budget <= MAX_BUDGET:
            raise ValueError(f"budget must be a whole number of simulations from 1 to {MAX_BUDGET:,}, "
                             f"got {budget!r}")
        if isinstance(prior_temperature, bool) or not isinstance(prior_temperature, (int, float)) \
                or not 0 < prior_temperature < math.inf:
            raise ValueError(f"prior_temperature must be a positive number, got {prior_temperature!r}")
        if chance not in CHANCE:
            raise ValueError(f"chance must be one of {', '.join(CHANCE)}, got {chance!r}")
        if chance != "sampled" and self.sees_deck_order:
            raise ValueError(f"chance={chance!r} reorders the deck; the oracle plays the true order")
        if isinstance(exploration, bool) or not isinstance(cast(object, exploration), numbers.Real) \
                or not 0 <= exploration < math.inf:
            raise ValueError(f"exploration must be a finite number at least 0, got {exploration!r}")
        if opponents is not None and (isinstance(opponents, (str, bytes)) or not hasattr(opponents, "__len__")
                                      or not all(o is None or callable(o) for o in opponents)):
            raise ValueError(f"opponents must be None or a list with a callable (game) -> action or None for "
                             f"each seat, got {opponents!r}")
        if model is not None and not hasattr(model, "evaluate"):
            raise ValueError(f"model must be a PolicyAgent (something with evaluate()), got {type(model).__name__}")
        self.budget, self.model, self.opponents, self.exploration = budget, model, opponents, exploration
        self.prior_temperature = float(prior_temperature)
        self.chance = chance
        self.rng = random.Random(check_seed(seed))
        model_part = f"{getattr(model, 'name', 'model')}:" if model is not None else ""
        option_part = f":chance={chance}" if chance != "sampled" else ""  # the name make_agent reads back
        self.name = name or f"{'oracle' if self.sees_deck_order else 'search'}:{model_part}{budget}{option_part}"

    def __repr__(self) -> str:
        chance = f", chance={self.chance!r}" if self.chance != "sampled" else ""
        return f"{type(self).__name__}(budget={self.budget}, model={getattr(self.model, 'name', None)!r}{chance})"

    def reset(self, seed: int | None = None) -> None:
        seed = check_seed(seed)
        if seed is not None:
            self.rng = random.Random(seed)

    # ------------------------------------------------------------ acting

    def act(self, observation: dict, info: dict) -> int:
        return self.search(observation, info).action

    def search(self, observation: dict, info: dict) -> Decision:
        """Search from this view; the move it picks with the visits and value behind it."""
        legal = np.flatnonzero(observation_parts(observation, info, self.name)[1])
        if legal.size == 1:
            return Decision(int(legal[0]), [int(legal[0])], [0], 0.0)
        root_game = self._root_game(info)
        seat = root_game.current_player
        assert seat is not None  # a game with two legal moves is not over
        if sorted(root_game.legal_actions()) != legal.tolist():
            raise ValueError(f"{self.name}: the snapshot's legal actions differ from the action mask")
        if self.opponents is not None and len(self.opponents) != root_game.num_players:
            raise ValueError(f"{self.name}: opponents has {len(self.opponents)} entries, one for each of the "
                             f"game's {root_game.num_players} seats needed")
        root = self._new_node(root_game, seat)
        done = decisions = 0
        while done < self.budget:
            batch = min(BATCH if self.model is not None else 1, self.budget - done)
            decisions += self._simulate(root, root_game, seat, batch)
            done += batch
        best = max(range(len(root.actions)), key=lambda i: (root.visits[i], root.total[i]))
        return Decision(int(root.actions[best]), [int(a) for a in root.actions], list(root.visits),
                        sum(root.total) / max(1, root.n), decisions / done)

    def _root_game(self, info: dict) -> Game:
        """A game in the public state of ``info["snapshot"]``; its deck order is the agent's own guess."""
        return Game.from_snapshot(snapshot_of(info), shuffle_unseen=self.rng)

    def _world(self, root_game: Game) -> Game:
        """One simulation's game: the deck reshuffled, a new sample of the unseen order."""
        world = root_game.clone(history=False)
        # The root's deck is already an order drawn from the snapshot alone (from_snapshot), so
        # shuffling it as it lies is as fair as clone(shuffle_unseen=), without its sort.
        self.rng.shuffle(world.deck)
        return world

    # ------------------------------------------------------------ simulations

    def _simulate(self, root: _Node, root_game: Game, seat: int, batch: int) -> int:
        """``batch`` simulations: down the tree, out to a leaf, value it, and back up; the
        searching seat's decisions they went through, all together."""
        pending: list[tuple[list[tuple[_Node, int]], Game, tuple[dict, tuple, list[int]] | None]] = []  # (path, game at the leaf or finished, parent edge to expand)
        for _ in range(batch):
            game = self._world(root_game)
            order = game.deck[:]  # this world's cards, to name the ones each move draws
            node, path = root, []
            while True:
                i = node.select(self.exploration)
                path.append((node, i))
                node.visits[i] += 1  # counted now: a virtual loss keeps a batch's paths apart
                node.n += 1
                node.total[i] -= 1.0
                if self.chance == "stratified":
                    self._stratify(node, i, game.deck, order)
                drawn_from, moves_from = len(game.deck), len(game.history)
                game.act(node.actions[i])
                self._others_play(game, seat)
                if game.is_over:
                    pending.append((path, game, None))
                    break
                key = (tuple(order[len(game.deck) : drawn_from]), tuple(game.history[moves_from:]))
                child = node.children[i].get(key)
                if child is None:  # a new outcome: expanded with the actions legal here (a rollout moves on)
                    pending.append((path, game, (node.children[i], key, game.legal_actions())))
                    break
                node = child
        values, priors = self._values([entry[1] for entry in pending], seat)
        for (path, game, expand), value, prior in zip(pending, values, priors):
            if expand is not None:
                children, key, actions = expand
                if key not in children:
                    children[key] = _Node(actions, prior)
            for node, i in path:
                node.total[i] += value + 1.0  # the virtual loss undone, the value added
        return sum(len(path) for path, _, _ in pending)

    def _stratify(self, node: _Node, i: int, deck: list[int], order: list[int]) -> None:
        """Put on top of this simulation's deck the card due next after ``node``'s action ``i``:
        the one whose count so far is furthest behind its odds (odds / (count + 1) highest)."""
        if not deck:
            return
        if node.unseen is None:  # every simulation reaching a node has drawn the same cards
            node.unseen = sorted(Counter(deck).items())
            node.next_cards = [None] * len(node.actions)
        assert node.next_cards is not None
        met = node.next_cards[i]
        if met is None:
            met = node.next_cards[i] = {}
        unseen = node.unseen
        card = max(unseen, key=lambda entry: entry[1] / (met.get(entry[0], 0) + 1))[0]
        met[card] = met.get(card, 0) + 1
        k = to_top(deck, card, self.rng)
        order[k], order[len(deck) - 1] = order[len(deck) - 1], order[k]  # the world's record of its cards

    def _others_play(self, game: Game, seat: int) -> None:
        others = self.opponents
        while not game.is_over and game.current_player != seat:
            player = game.current_player
            move = others[player] if others is not None else None  # type: ignore[index]  # not over: a seat acts
            game.act(move(game) if move is not None else rollout_action(game))

    def _new_node(self, game: Game, seat: int) -> _Node:
        actions = game.legal_actions()
        prior = self._values([game.clone(history=False)], seat)[1][0] if self.model is not None else None
        return _Node(actions, prior)

    def _values(self, games: list[Game], seat: int) -> tuple[list[float], list[list[float] | None]]:
        """Each game's value to ``seat`` (the result if it is over, else the network's or a
        rollout's) and, with a network, the prior of its legal actions: one forward pass for all."""
        values: list[float] = [0.0] * len(games)  # each set below
        priors: list[list[float] | None] = [None] * len(games)
        open_games = []
        for k, game in enumerate(games):
            if game.is_over:
                values[k] = outcome_value(game, seat)
            elif self.model is None:
                values[k] = rollout(game, seat, self.opponents)
            else:
                open_games.append(k)
        if open_games:
            batch = [games[k] for k in open_games]
            observations = np.stack([O.encode(game, seat) for game in batch])
            masks = np.stack([O.action_mask(game, seat).astype(bool) for game in batch])
            probs, network = self.model.evaluate(observations, masks)  # type: ignore[union-attr]  # only with a model
            for k, row, value in zip(open_games, probs, network):
                values[k] = float(value)
                legal = row[games[k].legal_actions()].astype(np.float64) ** (1 / self.prior_temperature)
                total = float(legal.sum())
                priors[k] = (legal / total).tolist() if total > 0 else [1 / len(legal)] * len(legal)
        return values, priors


class OracleAgent(SearchAgent):
    """The same search on the TRUE deck order: it cheats, and is named and documented so.

    It needs the real game, which no environment gives an agent: :func:`agents.play_games`
    hands it over (``info["game"]``) only to agents whose ``sees_deck_order`` is true.
    Its results answer "how beatable is each JEN level at all?", never "how good is an
    agent".
    """

    sees_deck_order = True

    def _root_game(self, info: dict) -> Game:
        game = info.get("game") if info else None
        if not isinstance(game, Game):
            raise ValueError("OracleAgent needs info['game'], the real game (it cheats); play it with "
                             "agents.play_games or ten eval, which give it to agents that see the deck order")
        return game.clone(history=False)

    def _world(self, root_game: Game) -> Game:
        return root_game.clone(history=False)  # the true order, every time
