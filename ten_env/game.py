"""The rules engine: one game of TEN as plain state plus the moves that change it.

``Game`` holds the whole state in plain lists and ints (copy it with
:meth:`Game.clone`, compare it with ``==``, read it with :meth:`Game.snapshot`)
and changes it only through :meth:`Game.act`. The sections below follow the
rulebook: a turn is a draw phase (paused by an auction whenever a wildcard comes
up), ended by stopping with a reward or by busting, followed by an optional buy
phase; the last card drawn ends the game after one final buy phase for everybody.
Each phase's legal actions sit beside the moves that phase allows. RULES.md lists
every decision taken where the rulebook is silent; comments name them.

A decision with exactly one legal action (the first draw of a turn, a bid or a
buy nobody can afford) is taken by the engine itself and recorded in
``history`` as forced; in the solitaire game the engine also plays JEN. So
``current_player`` is always a seat with a real choice.

Chance. The deck's order is the only hidden thing in TEN: every other card is
public, so the composition of the deck is too. For search, :meth:`Game.unseen`
and :meth:`Game.chance_outcomes` give the next card's distribution,
``act(action, next_card=...)`` picks the outcome of the next draw,
``clone(shuffle_unseen=seed)`` gives a copy whose deck order is a fresh sample
of what a player knows, and :meth:`Game.from_snapshot` builds a game from
public information alone (an environment's ``info["snapshot"]``).
"""

from __future__ import annotations

import dataclasses
import operator
import random
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, SupportsIndex

from . import cards as C
from . import jen, payment
from .actions import (
    BID_BASE,
    DRAW,
    FIRST_BUY,
    FIRST_PAY_CARD,
    PASS,
    PAY_BUST,
    PAY_COIN,
    STOP_CURRENCY,
    STOP_NUMBERS,
    action_names,
    is_index,
    num_actions,
)
from .deck import load as load_deck
from .payment import BUST_TOKEN_VALUE
from .rules import Rules, first_bidder
from .scoring import hand_score
from .snapshot import LazySnapshot

START_COINS = 5
MAX_COINS = 10
BUST_LIMIT = 10  # a net total or currency total above this busts
MAX_BUY_PRICE = payment.MAX_PRICE

PHASES = ("draw", "auction", "buy", "bust", "final_buy", "pay", "over")
BUY_PHASES = ("buy", "bust", "final_buy")  # the phases in which a market card may be bought
JEN_SEAT = 1  # in the solitaire game: seat 0 is the person, seat 1 is JEN


def bust_by(net_total: int, currency_total: int, card: int) -> str | None:
    """The total that drawing ``card`` onto a tableau with these totals takes above
    :data:`BUST_LIMIT`: ``"numbers"`` (a number card, on the net total), ``"currency"`` (a
    currency card, on the currency total) or ``None``. A wildcard busts nobody; that JEN never
    busts on numbers is the engine's to apply, since it depends on who draws."""
    value = C.NET_VALUE[card]
    if value < 0:
        return "currency" if currency_total - value > BUST_LIMIT else None
    return "numbers" if value and net_total + value > BUST_LIMIT else None


def coins_after(coins: int, gain: int) -> int:
    """A player's coins once they gain ``gain``: what would take them above :data:`MAX_COINS` is lost."""
    return min(MAX_COINS, coins + gain)


def totals_after(net_total: int, currency_total: int, card: int) -> tuple[int, int]:
    """The tableau's (net total, currency total) once ``card`` is laid on it: a number card
    adds its number to the net total, a currency card takes its value off the net total and
    adds it to the currency total (a wildcard is auctioned, never laid down)."""
    value = C.NET_VALUE[card]
    return net_total + value, currency_total - value if value < 0 else currency_total


def stacked_deck(deck: Iterable[str]) -> list[int]:
    """The cards of a stacked deck given as card strings, top first (``ValueError`` if it is not one)."""
    if isinstance(deck, str) or not hasattr(deck, "__iter__"):
        raise ValueError("deck must be a list of card strings, top first, e.g. ['B3', '$2']")
    order = [C.parse(card) for card in deck]
    if not order:
        raise ValueError("deck must hold at least one card")
    return order


class Game:
    """One game of TEN.

    Args:
        rules: the :class:`~ten_env.Rules` of the game (default: 2 players).
        seed: shuffles the deck for the player count; same rules, same seed and
            same actions always give the same game.
        deck: instead of shuffling, the exact cards to draw, top first, as
            notation strings (``["B3", "$2", "W#"]``); any length >= 1. Cards
            outside it are not in the game.
        start: the seat that takes the first turn (default 0). The rulebook
            picks it at random; the environments draw it from their reset seed.
            In the solitaire game the person (seat 0) always starts.
    """

    def __init__(self, rules: Rules | None = None, seed: int | None = None, deck: Iterable[str] | None = None,
                 start: int = 0) -> None:
        rules = Rules() if rules is None else rules
        if not isinstance(rules, Rules):
            raise ValueError(f"rules must be a ten_env.Rules, got {type(rules).__name__}")
        if not is_index(start) or operator.index(start) not in range(rules.num_players):
            raise ValueError(f"start must be a seat from 0 to {rules.num_players - 1}, got {start!r}")
        start = operator.index(start)
        if rules.solitaire and start != 0:
            raise ValueError(f"start must be 0 in the solitaire game (the person starts), got {start!r}")
        out_of_game = [0] * C.NUM_CARD_TYPES
        if deck is None:
            if seed is not None and not is_index(seed):
                raise ValueError(f"seed must be an int or None, got {seed!r}")
            seed = None if seed is None else operator.index(seed)  # random.Random refuses NumPy's integers
            in_play, out_of_game = deck_for(rules)
            order = C.expand(in_play)
            random.Random(seed).shuffle(order)
        else:
            order = stacked_deck(deck)
        self._setup(rules)
        n = rules.num_players
        self.out_of_game = out_of_game
        self.deck: list[int] = order[::-1]  # top of the deck is the end of the list
        self.tableau: list[int] = []  # number and currency cards, in the order drawn
        self.net_total = 0
        self.currency_total = 0
        self.market = [0] * C.NUM_NUMBER_CARDS
        self.discard = [0] * C.NUM_CARD_TYPES
        self.coins = [START_COINS] * n
        self.bust_tokens = [0] * n
        self.hands = [[0] * C.NUM_OWNABLE for _ in range(n)]
        self.phase = "draw"
        self.active_player = start
        self.decider = start  # the seat that must act in the current phase
        self.turn = 1
        # auction in progress
        self.auction_card: int | None = None
        self.high_bid = 0
        self.high_bidder: int | None = None
        self.bids_left = 0
        # payment in progress (manual payment)
        self.pay_remaining = 0
        self.pay_for: tuple[str, int] | None = None  # (phase that charged, card)
        self.bust_kind: str | None = None  # "numbers" / "currency" while a bust resolves
        self.final_buyers: list[int] = []
        self.history: list[tuple[int, int, bool]] = []  # (seat, action, forced)
        self._advance()

    def _setup(self, rules: Rules) -> None:
        """What follows from the rules alone (shared by every way of making a game)."""
        self.rules = rules
        self.num_players = rules.num_players
        self.solitaire = rules.solitaire
        self._names, self._ids = _action_table(rules.max_bid)
        self._legal: list[int] | None = None

    # ------------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    @property
    def current_player(self) -> int | None:
        """The seat that must act now; ``None`` once the game is over."""
        return None if self.phase == "over" else self.decider

    @property
    def num_actions(self) -> int:
        return num_actions(self.rules.max_bid)

    @property
    def max_decisions(self) -> int:
        """An upper bound on ``len(history)`` for this whole game, from its first
        turn, whatever is played (see :func:`max_decisions`)."""
        places = self.card_locations()
        del places["out_of_game"]
        return max_decisions(self.rules, [sum(k) for k in zip(*places.values())])

    def action_name(self, action: int) -> str:
        """The stable name of action id ``action`` (see :mod:`ten_env.actions`)."""
        if not is_index(action) or not 0 <= operator.index(action) < len(self._names):
            raise ValueError(f"action id must be an int from 0 to {len(self._names) - 1}, got {action!r}")
        return self._names[operator.index(action)]

    def action_id(self, name: str) -> int:
        """The id of the action called ``name`` (e.g. ``"buy_G3"``)."""
        if name not in self._ids:
            raise ValueError(f"unknown action {name!r}; actions are {self._action_grammar()}")
        return self._ids[name]

    def _action_grammar(self) -> str:
        return (f"draw, stop_numbers, stop_currency, pass, bid_1..bid_{self.rules.max_bid}, "
                f"buy_<card>, pay_coin, pay_bust, pay_<card>")

    def legal_actions(self) -> list[int]:
        """Ids of the actions the current player may take, ascending (empty when over)."""
        return list(self._legal_now())

    def _legal_now(self) -> list[int]:
        # The engine's own copy: callers get a fresh list they may change freely.
        legal = self._legal
        if legal is None:
            legal = self._legal = _LEGAL[self.phase](self)
        return legal

    def legal_action_names(self) -> list[str]:
        return [self._names[a] for a in self._legal_now()]

    def wealth(self, seat: int, duplicates_only: bool = False) -> int:
        """What a seat can pay (:func:`ten_env.payment.wealth`)."""
        return payment.wealth(self.coins[seat], self.bust_tokens[seat], self.hands[seat], duplicates_only)

    def scores(self) -> list[int]:
        return [hand_score(h) for h in self.hands]

    def winners(self) -> list[int]:
        """Seats that win (several only for a shared win). Valid once the game is over.

        Normal game: highest score, then most money (coins plus bust tokens at 3),
        then fewest cards. Solitaire: the person wins only with more points than
        JEN; every tie goes to JEN.
        """
        if not self.is_over:
            raise ValueError("the game is not over yet: winners() is known only at the end")
        if self.solitaire:
            scores = self.scores()
            return [0] if scores[0] > scores[JEN_SEAT] else [JEN_SEAT]
        keys = [self.standing(s) for s in range(self.num_players)]
        best = max(keys)
        return [s for s in range(self.num_players) if keys[s] == best]

    def standing(self, seat: int) -> tuple[int, int, int]:
        """How ``seat`` ranks in a normal game, higher first: (score, money, -cards held),
        money being coins plus bust tokens at 3: the rulebook's order for the winner."""
        money = self.coins[seat] + BUST_TOKEN_VALUE * self.bust_tokens[seat]
        return hand_score(self.hands[seat]), money, -sum(self.hands[seat])

    def card_locations(self) -> dict[str, list[int]]:
        """Counts per card id in each place a card can be; every card is in exactly one."""
        places = {
            "deck": _counts(self.deck),
            "tableau": _counts(self.tableau),
            "market": self.market + [0] * (C.NUM_CARD_TYPES - C.NUM_NUMBER_CARDS),
            "discard": list(self.discard),
            "out_of_game": list(self.out_of_game),
            "auction": _counts([] if self.auction_card is None else [self.auction_card]),
        }
        for seat, hand in enumerate(self.hands):
            places[f"player_{seat}"] = hand + [0] * (C.NUM_CARD_TYPES - C.NUM_OWNABLE)
        return places

    # ------------------------------------------------------------------ chance

    def unseen(self) -> dict[str, int]:
        """The cards nobody has seen, ``{card: copies}`` in card order: the deck's contents.

        Every other card of TEN is public, so this is what any player knows of
        the deck; only its order is hidden.
        """
        counts = _counts(self.deck)
        return {C.NAMES[c]: k for c, k in enumerate(counts) if k}

    def chance_outcomes(self) -> list[tuple[str, float]]:
        """The next card to be drawn and its probability, ``[(card, p), ...]`` in card order.

        Each probability is the card's copies left divided by the deck size.
        ``ValueError`` when the deck is empty.
        """
        size = len(self.deck)
        if not size:
            raise ValueError("the deck is empty: no card is left to draw")
        return [(card, k / size) for card, k in self.unseen().items()]

    # ------------------------------------------------------------------ snapshots and copies

    def snapshot(self) -> dict:
        """Everything public, as JSON-ready data; :meth:`from_snapshot` rebuilds a game from it."""
        auction = None
        if self.auction_card is not None:
            auction = {
                "card": C.NAMES[self.auction_card],
                "high_bid": self.high_bid,
                "high_bidder": self.high_bidder,
                "bids_left": self.bids_left,
            }
        pay = None
        if self.phase == "pay":
            assert self.pay_for is not None  # set for the whole pay phase
            pay = {
                "payer": self.decider,
                "remaining": self.pay_remaining,
                "for": self.pay_for[0],
                "card": C.NAMES[self.pay_for[1]],
                "duplicates_only": self.pay_duplicates_only,
            }
        return {
            "rules": dataclasses.asdict(self.rules),
            "num_players": self.num_players,
            "jen_level": self.rules.jen_level,
            "min_bid": self.rules.min_bid,
            "players": [
                {
                    "coins": self.coins[s],
                    "bust_tokens": self.bust_tokens[s],
                    "cards": C.names_of(self.hands[s]),
                    "score": hand_score(self.hands[s]),
                }
                for s in range(self.num_players)
            ],
            "market": C.names_of(self.market),
            "tableau": [C.NAMES[c] for c in self.tableau],
            "net_total": self.net_total,
            "currency_total": self.currency_total,
            "deck_size": len(self.deck),
            "deck": self.unseen(),  # what is left, not in which order: public, since every other card is seen
            "discard": C.names_of(self.discard),
            "out_of_game": C.names_of(self.out_of_game),
            "phase": self.phase,
            "turn": self.turn,
            "active_player": self.active_player,
            "current_player": self.current_player,
            "bust_kind": self.bust_kind,
            "auction": auction,
            "payment": pay,
            "final_buyers": list(self.final_buyers),
            "legal_actions": self.legal_action_names(),
        }

    @classmethod
    def from_snapshot(cls, snapshot: Mapping[str, Any], shuffle_unseen: int | random.Random | None = None) -> "Game":
        """A game in exactly the public state of ``snapshot``, its deck in a random order.

        ``snapshot`` is :meth:`snapshot` (or an environment's ``info["snapshot"]``);
        ``shuffle_unseen`` (an int seed or a ``random.Random``; ``None`` for fresh
        randomness) orders the deck, which the snapshot gives only as contents.
        So an agent that searches games built this way cannot know the true order.
        The new game has an empty ``history``. ``ValueError`` if the snapshot is
        not one.
        """
        rng = _rng(shuffle_unseen)
        try:
            game = cls._from_snapshot(snapshot, rng)
            rebuilt = game.snapshot()
        except (KeyError, TypeError, IndexError, AttributeError, ValueError) as exc:
            raise ValueError(
                f"not a game snapshot ({type(exc).__name__}: {exc}); pass Game.snapshot() or info['snapshot']"
            ) from None
        # Every field must follow from the state rebuilt: nothing dropped, nothing made up.
        wrong = [key for key, value in rebuilt.items() if snapshot.get(key) != value]
        if wrong:
            raise ValueError(f"not a game snapshot: {', '.join(wrong)} do(es) not agree with the rest; "
                             f"pass Game.snapshot() or info['snapshot'] unchanged")
        return game

    @classmethod
    def _from_snapshot(cls, snap: Mapping[str, Any], rng: random.Random) -> "Game":
        game = object.__new__(cls)
        game._setup(Rules(**snap["rules"]))
        game.out_of_game = _counts(C.parse(c) for c in snap.get("out_of_game", ()))
        deck = C.expand([snap["deck"].get(name, 0) for name in C.NAMES])
        rng.shuffle(deck)
        game.deck = deck
        game.tableau = [C.parse(c) for c in snap["tableau"]]
        if any(C.is_wild(c) for c in game.tableau):  # a wildcard drawn goes to auction, never here
            raise KeyError(f"a wildcard in the tableau {snap['tableau']}")
        game.net_total, game.currency_total = snap["net_total"], snap["currency_total"]
        game.market = _counts(C.parse(c) for c in snap["market"])[: C.NUM_NUMBER_CARDS]
        game.discard = _counts(C.parse(c) for c in snap["discard"])
        players = snap["players"]
        if len(players) != game.num_players:
            raise KeyError(f"{len(players)} players for num_players={game.num_players}")
        game.coins = [_whole(p["coins"], "coins", 0, MAX_COINS) for p in players]
        game.bust_tokens = [_whole(p["bust_tokens"], "bust_tokens", 0) for p in players]
        game.hands = [_counts(C.parse(c) for c in p["cards"])[: C.NUM_OWNABLE] for p in players]
        game.phase = snap["phase"]
        if game.phase not in PHASES:
            raise KeyError(f"phase {game.phase!r}")
        last_seat = game.num_players - 1
        game.active_player = _whole(snap["active_player"], "active_player", 0, last_seat)
        current = snap["current_player"]
        if (current is None) != (game.phase == "over"):
            raise KeyError(f"current_player {current!r} in the {game.phase} phase")
        if current is not None:
            current = _whole(current, "current_player", 0, last_seat)
        totals = (0, 0)
        for card in game.tableau:  # the totals are what the tableau's cards, laid one by one, make
            totals = totals_after(*totals, card)
        if (game.net_total, game.currency_total) != totals:
            raise KeyError(f"net_total {game.net_total} and currency_total {game.currency_total} "
                           f"for the tableau {snap['tableau']}")
        game.decider = game.active_player if current is None else current
        game.turn = _whole(snap["turn"], "turn", 1)
        auction = snap["auction"]
        if auction:
            game.auction_card = C.parse(auction["card"])
            if not C.is_wild(game.auction_card):
                raise KeyError(f"an auction of {auction['card']}: only wildcards are auctioned")
            game.high_bid = _whole(auction["high_bid"], "high_bid", 0, game.rules.max_bid)
            bidder = auction["high_bidder"]
            game.high_bidder = None if bidder is None else _whole(bidder, "high_bidder", 0, last_seat)
            game.bids_left = _whole(auction["bids_left"], "bids_left", 0, game.num_players)
        else:
            game.auction_card, game.high_bid, game.high_bidder, game.bids_left = None, 0, None, 0
        pay = snap["payment"]
        if pay:
            if pay["for"] not in ("auction", *BUY_PHASES):
                raise KeyError(f"payment for {pay['for']!r}")
            game.pay_remaining = _whole(pay["remaining"], "payment remaining", 1)
            game.pay_for = (pay["for"], C.parse(pay["card"]))
        else:
            game.pay_remaining, game.pay_for = 0, None
        game.bust_kind = snap["bust_kind"]
        if game.bust_kind not in (None, "numbers", "currency"):
            raise KeyError(f"bust_kind {game.bust_kind!r}")
        game.final_buyers = [_whole(seat, "final_buyers", 0, last_seat) for seat in snap["final_buyers"]]
        game.history = []
        # What each phase holds, as play leaves it: a bidding auction only in the auction phase (its
        # winner's payment keeps it, with no bids left), a payment only in the pay phase, a bust
        # only in the bust phase or its payment.
        paying_for = game.pay_for[0] if game.pay_for else None
        if bool(auction) != (game.phase == "auction" or paying_for == "auction") or \
                (auction and (game.bids_left > 0) != (game.phase == "auction")):
            raise KeyError(f"auction {auction!r} in the {game.phase} phase")
        if bool(pay) != (game.phase == "pay"):
            raise KeyError(f"payment {pay!r} in the {game.phase} phase")
        if (game.bust_kind is not None) != (game.phase == "bust" or paying_for == "bust"):
            raise KeyError(f"bust_kind {game.bust_kind!r} in the {game.phase} phase")
        paid_for = game.pay_for[1] if pay and game.pay_for is not None else None
        if paid_for is not None and (paid_for != game.auction_card if paying_for == "auction" else not (
                C.is_number(paid_for) and game.market[paid_for])):
            raise KeyError(f"a payment for {pay['card']} ({paying_for}): it is for the auction's card, or for a "
                           "number card of the market")
        if game.solitaire and current == JEN_SEAT:  # JEN's moves are made inside act()
            raise KeyError("JEN to act: in the solitaire game JEN never waits for a move")
        if current is not None and not game.legal_actions():
            raise KeyError(f"nothing to do for the player to act in the {game.phase} phase of a game not over")
        return game

    def lazy_snapshot(self) -> LazySnapshot:
        """The snapshot of this moment, built only if it is read (cheap when it is not).

        It keeps a copy of the game with the deck sorted: what it holds, read or not,
        tells the deck's contents and never its order.
        """
        frozen = self.clone(history=False)
        frozen.deck.sort()
        return LazySnapshot(frozen)

    def clone(self, history: bool = True, shuffle_unseen: int | random.Random | None = None) -> "Game":
        """An independent copy of this game, at this point.

        The plain copy carries the true deck order, so whoever plays it on sees
        the real future cards. With ``shuffle_unseen`` (an int seed or a
        ``random.Random``) the copy's deck is put in an order drawn from the deck's
        contents and ``shuffle_unseen`` alone, as :meth:`from_snapshot` draws it:
        a fair sample of what a player knows, for honest look-ahead, which two
        games differing only in their deck orders give alike for the same seed.
        """
        other = object.__new__(Game)
        other.__dict__.update(self.__dict__)
        other.deck = self.deck[:]
        other.tableau = self.tableau[:]
        other.market = self.market[:]
        other.discard = self.discard[:]
        other.coins = self.coins[:]
        other.bust_tokens = self.bust_tokens[:]
        other.final_buyers = self.final_buyers[:]
        other.out_of_game = self.out_of_game[:]
        other.hands = [h[:] for h in self.hands]
        other.history = self.history[:] if history else []
        if shuffle_unseen is not None:
            other.deck.sort()  # a shuffle of the true order would tell it to whoever knows the seed
            _rng(shuffle_unseen).shuffle(other.deck)
        return other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        mine = {k: v for k, v in self.__dict__.items() if k != "_legal"}
        theirs = {k: v for k, v in other.__dict__.items() if k != "_legal"}
        return mine == theirs

    __hash__ = None  # type: ignore[assignment]  # typeshed types object.__hash__ as a method

    # ------------------------------------------------------------------ acting

    def act(self, action: SupportsIndex | str, next_card: str | int | None = None) -> None:
        """Take ``action`` (an id or a name) for the current player.

        ``next_card`` (a card name or id among :meth:`unseen`) puts a copy of that
        card on top of the deck first, so the next card drawn, by this action or
        by a forced draw it leads to (the next turn's first draw), is that card:
        how a chance-node search picks an outcome. The copy nearest the top is the
        one taken (it swaps places with the old top card), so in a shuffled deck the
        cards under it are not quite a fair shuffle of the rest (fewer copies of that
        card lie near the top than chance would put there); a search that plays on
        past the chosen card should swap a copy chosen at random to the top itself.

        Raises ``ValueError`` naming the action, the phase and the legal actions
        if it is not legal now, or naming the card if it is not unseen; the game
        is then unchanged.
        """
        legal = self._legal_now()
        if type(action) is not int or action not in legal:
            action = self._checked(action, legal)
        if next_card is not None:
            self._put_on_top(next_card)
        self._apply(action, False)
        self._advance()

    def _checked(self, action: object, legal: list[int]) -> int:
        """``action`` as a legal id, or the ``ValueError`` that explains why it is not one."""
        if self.phase == "over":
            raise ValueError(f"the game is over: no action is legal (got {action!r})")
        if isinstance(action, str):
            if action not in self._ids:
                raise self._refusal(f"unknown action {action!r} (actions are {self._action_grammar()})")
            action = self._ids[action]
        elif is_index(action):
            action = operator.index(action)
            if not 0 <= action < len(self._names):
                raise self._refusal(f"action id {action} is out of range (ids run from 0 to {len(self._names) - 1})")
        else:
            raise self._refusal(f"action {action!r} is neither an int id nor a name")
        if action not in legal:
            raise self._refusal(f"action {self._names[action]!r} (id {action}) is not legal")
        return action

    def _refusal(self, what: str) -> ValueError:
        legal = ", ".join(self._names[a] for a in self._legal_now())
        return ValueError(f"{what} for player {self.decider} in the {self.phase} phase; legal: {legal}")

    def _put_on_top(self, next_card: str | int) -> None:
        if isinstance(next_card, str):
            try:
                card = C.parse(next_card)
            except ValueError:
                card = -1
        elif is_index(next_card):
            card = operator.index(next_card)
        else:
            card = -1
        deck = self.deck
        if not 0 <= card < C.NUM_CARD_TYPES or card not in deck:
            unseen = ", ".join(self.unseen()) or "none, the deck is empty"
            raise ValueError(f"next_card {next_card!r} is not an unseen card; unseen: {unseen}")
        top = len(deck) - 1
        i = top - deck[::-1].index(card)  # the copy nearest the top
        deck[i], deck[top] = deck[top], deck[i]

    def _advance(self) -> None:
        """Take every decision that is not a real choice: forced moves and JEN's."""
        while self.phase != "over":
            if self.solitaire and self.decider == JEN_SEAT:
                action = jen.decide(self._jen_view())
                if action not in self._legal_now():  # a bug in the engine, not in the input
                    raise RuntimeError(f"JEN chose illegal {self._names[action]} in {self.phase}")
                self._apply(action, True)
                continue
            legal = self._legal_now()
            if len(legal) != 1:
                return
            self._apply(legal[0], True)

    def _apply(self, action: int, forced: bool) -> None:
        self.history.append((self.decider, action, forced))
        self._legal = None
        _MOVE[self.phase](self, action)

    # ------------------------------------------------------------------ the draw phase

    def _draw_legal(self) -> list[int]:
        legal = [DRAW] if self.deck else []
        if self.solitaire and self.decider == JEN_SEAT:
            # JEN always takes the numbers, even when the deck runs out on a
            # tableau without any (RULES.md: "JEN at the end of the deck").
            return legal + [STOP_NUMBERS] if self.tableau else legal
        if self.net_total + self.currency_total > 0:  # some number card in the tableau
            legal.append(STOP_NUMBERS)
        if self.currency_total:
            legal.append(STOP_CURRENCY)
        return legal

    def _draw_move(self, action: int) -> None:
        if action == DRAW:
            self._draw()
        elif action == STOP_NUMBERS:
            self._take_numbers()
        else:
            self._take_currency()

    def _draw(self) -> None:
        card = self.deck.pop()
        if C.is_wild(card):
            self._start_auction(card)
            return
        bust = bust_by(self.net_total, self.currency_total, card)
        self.tableau.append(card)
        self.net_total, self.currency_total = totals_after(self.net_total, self.currency_total, card)
        if bust == "currency" or bust == "numbers" and not self._is_jen(self.active_player):
            self._bust(bust)  # JEN never busts on numbers
            return
        self._continue_turn()

    def _continue_turn(self) -> None:
        """After a card or an auction: the active player decides, unless nothing is left to decide."""
        if not self.deck and not self.tableau:
            # The last card was a wildcard drawn on an empty tableau: no reward to take.
            self._end_turn()
        else:
            self.phase = "draw"
            self.decider = self.active_player

    def _take_numbers(self) -> None:
        seat = self.active_player
        self._move_numbers(self.hands[seat])
        self._pay_others()
        self._clear_tableau()
        self.phase = "buy"
        self.decider = seat

    def _take_currency(self) -> None:
        seat = self.active_player
        self._gain(seat, self.currency_total)
        self._move_numbers(self.market)
        self._clear_tableau()
        self._end_turn()

    def _end_turn(self) -> None:
        if self.deck:
            self.turn += 1
            self.active_player = self.decider = (self.active_player + 1) % self.num_players
            self.phase = "draw"
            return
        # The last card has been drawn: one final buy phase each, from the left
        # of the active player round to the active player.
        n = self.num_players
        self.final_buyers = [(self.active_player + k) % n for k in range(1, n + 1)]
        self._next_final_buy()

    # ------------------------------------------------------------------ busting

    def _bust(self, kind: str) -> None:
        seat = self.active_player
        self.bust_kind = kind
        if self._is_jen(seat):
            # JEN busts only on currency, and keeps the numbers she drew.
            self._move_numbers(self.hands[seat])
            self.bust_tokens[seat] += 1
            self._finish_bust()
            return
        self._move_numbers(self.market)
        if self.rules.bust_buy:
            self.phase = "bust"  # buy now instead of taking the bust token, or pass
            self.decider = seat
        else:
            self.bust_tokens[seat] += 1
            self._finish_bust()

    def _finish_bust(self) -> None:
        """Steps 3-5 of busting: others are paid only after a bust on numbers."""
        if self.bust_kind == "numbers":
            self._pay_others()
        self.bust_kind = None
        self._clear_tableau()
        self._end_turn()

    # ------------------------------------------------------------------ auctions

    def _start_auction(self, card: int) -> None:
        self.phase = "auction"
        self.auction_card = card
        self.high_bid, self.high_bidder = 0, None
        self.bids_left = self.num_players
        self.decider = first_bidder(self.active_player, self.num_players)

    def _bid_range(self, seat: int) -> tuple[int, int]:
        """The lowest and the highest bid ``seat`` may make now (none if the lowest is higher):
        at least the minimum bid and above the high bid, at most the bid cap and what they can pay."""
        low = max(self.rules.min_bid, self.high_bid + 1)
        high = min(self.rules.max_bid, self.wealth(seat, duplicates_only=self.rules.auction_duplicates_only))
        return low, high

    def _auction_legal(self) -> list[int]:
        low, high = self._bid_range(self.decider)
        return [PASS, *range(BID_BASE + low, BID_BASE + high + 1)]

    def _auction_move(self, action: int) -> None:
        if action != PASS:
            self.high_bid, self.high_bidder = action - BID_BASE, self.decider
        self.bids_left -= 1
        if self.bids_left:
            self.decider = (self.decider + 1) % self.num_players
        elif self.high_bidder is None:  # everybody passed
            assert self.auction_card is not None
            self.discard[self.auction_card] += 1
            self._close_auction()
        else:
            self._charge(self.high_bidder, self.high_bid,
                         ("auction", self.auction_card))  # type: ignore[arg-type]  # set for the whole auction

    def _close_auction(self) -> None:
        self.auction_card, self.high_bidder = None, None
        self.high_bid = 0
        self._continue_turn()

    # ------------------------------------------------------------------ buying

    def _buy_legal(self) -> list[int]:
        """Buy, bust (busting variant) and final buy phases: one market card at its
        number, never a copy of a number card the buyer holds; or ``pass``."""
        seat = self.decider
        hand, budget = self.hands[seat], self.wealth(seat)
        return [PASS] + [
            FIRST_BUY + card
            for card, k in enumerate(self.market)
            if k and not hand[card] and payment.price(card) <= budget
        ]

    def _buy_move(self, action: int) -> None:
        phase = self.phase
        if action == PASS:
            if phase == "bust":  # declining the variant's buy takes the bust token
                self.bust_tokens[self.active_player] += 1
            self._after_buy(phase)
        else:
            card = action - FIRST_BUY
            self._charge(self.decider, payment.price(card), (phase, card))

    def _after_buy(self, phase: str) -> None:
        """The buy (or its refusal) in ``phase`` is done; carry on with the turn."""
        if phase == "buy":
            self._end_turn()
        elif phase == "bust":
            self._finish_bust()
        else:
            self._next_final_buy()

    def _next_final_buy(self) -> None:
        if not self.final_buyers:
            self.phase = "over"
            return
        self.phase = "final_buy"
        self.decider = self.final_buyers.pop(0)

    # ------------------------------------------------------------------ paying

    @property
    def pay_duplicates_only(self) -> bool:
        """Whether the payment now due may use only duplicate cards (solitaire auctions)."""
        return self.rules.auction_duplicates_only and self.pay_for is not None and self.pay_for[0] == "auction"

    def _charge(self, seat: int, price: int, purpose: tuple[str, int]) -> None:
        """``seat`` owes ``price`` for ``purpose`` = (phase, card); collect it, then deliver."""
        self.pay_for = purpose
        if self._is_jen(seat):
            paid = payment.jen(self.hands[seat], self.coins[seat], self.bust_tokens[seat], price)
        elif self.rules.payment == "auto":
            paid = payment.automatic(self.hands[seat], self.coins[seat], self.bust_tokens[seat], price,
                                     purpose[1], self.pay_duplicates_only, last=purpose[0] == "final_buy")
        else:
            self.phase, self.decider, self.pay_remaining = "pay", seat, price
            return
        self.coins[seat] -= paid.coins
        self.bust_tokens[seat] -= paid.bust_tokens
        for card in paid.cards:
            self._spend_card(seat, card)
        self._deliver(seat)

    def _pay_legal(self) -> list[int]:
        """Manual payment: a coin, a bust token, or a card (only a duplicate in a solitaire auction)."""
        seat = self.decider
        legal = []
        if self.coins[seat]:
            legal.append(PAY_COIN)
        if self.bust_tokens[seat]:
            legal.append(PAY_BUST)
        least = 2 if self.pay_duplicates_only else 1
        legal += [FIRST_PAY_CARD + c for c, k in enumerate(self.hands[seat]) if k >= least]
        return legal

    def _pay_move(self, action: int) -> None:
        seat = self.decider
        if action == PAY_COIN:
            self.coins[seat] -= 1
            self.pay_remaining -= 1
        elif action == PAY_BUST:
            self.bust_tokens[seat] -= 1
            self.pay_remaining -= BUST_TOKEN_VALUE  # no change is given
        else:
            self._spend_card(seat, action - FIRST_PAY_CARD)
            self.pay_remaining -= 1
        if self.pay_remaining <= 0:
            self.pay_remaining = 0
            self._deliver(seat)

    def _deliver(self, seat: int) -> None:
        assert self.pay_for is not None
        phase, card = self.pay_for
        self.pay_for = None
        self.hands[seat][card] += 1
        if phase == "auction":
            self._close_auction()
        else:
            self.market[card] -= 1
            self._after_buy(phase)

    def _spend_card(self, seat: int, card: int) -> None:
        self.hands[seat][card] -= 1
        self.discard[card] += 1

    # ------------------------------------------------------------------ JEN

    def _is_jen(self, seat: int) -> bool:
        return self.solitaire and seat == JEN_SEAT

    def _jen_view(self) -> jen.JenView:
        # Wealth matters to her only in an auction, and counting it was most of the cost of
        # her many draw decisions in a search's rollouts, so it is counted only there.
        auction = self.phase == "auction"
        assert self.rules.jen_level is not None  # only the solitaire game has JEN
        lowest, highest = self._bid_range(JEN_SEAT) if auction else (0, 0)
        return jen.JenView(
            phase=self.phase,
            level=self.rules.jen_level,
            net_total=self.net_total,
            can_draw=bool(self.deck),
            first_to_bid=first_bidder(self.active_player, self.num_players) == JEN_SEAT,
            rival_wealth=self.wealth(1 - JEN_SEAT, self.rules.auction_duplicates_only) if auction else 0,
            lowest_bid=lowest,
            highest_bid=highest,
        )

    # ------------------------------------------------------------------ small moves

    def _gain(self, seat: int, amount: int) -> None:
        self.coins[seat] = coins_after(self.coins[seat], amount)

    def _pay_others(self) -> None:
        """Every player but the active one gains the currency shown in the tableau."""
        if self.currency_total:
            for seat in range(self.num_players):
                if seat != self.active_player:
                    self._gain(seat, self.currency_total)

    def _move_numbers(self, counts: list[int]) -> None:
        """Move the tableau's number cards into ``counts`` (a hand or the market)."""
        for card in self.tableau:
            if card < C.NUM_NUMBER_CARDS:
                counts[card] += 1
        self.tableau = [card for card in self.tableau if card >= C.NUM_NUMBER_CARDS]
        self.net_total = -self.currency_total

    def _clear_tableau(self) -> None:
        for card in self.tableau:
            if C.is_currency(card):
                self.discard[card] += 1
        self.tableau.clear()
        self.net_total = self.currency_total = 0


# Each phase's legal actions and its move, beside each other in the class above.
_LEGAL = {
    "draw": Game._draw_legal,
    "auction": Game._auction_legal,
    "buy": Game._buy_legal,
    "bust": Game._buy_legal,
    "final_buy": Game._buy_legal,
    "pay": Game._pay_legal,
    "over": lambda game: [],
}
_MOVE = {
    "draw": Game._draw_move,
    "auction": Game._auction_move,
    "buy": Game._buy_move,
    "bust": Game._buy_move,
    "final_buy": Game._buy_move,
    "pay": Game._pay_move,
}


def max_decisions(rules: Rules, cards: Sequence[int] | None = None) -> int:
    """An upper bound on the actions (forced ones included) in one game of ``rules``.

    ``cards`` are the game's cards as counts per id (a stacked deck's), by
    default the deck the rules deal.

    With D cards in the deck, W of them wildcards, n players, and a bid cap B:
    at most D draws (each takes a card); at most D stops (a turn opens with a
    draw); at most D + n buy phases (one a turn, a bust-phase buy in the busting
    variant instead of the turn's buy phase, and n final ones), each one
    decision plus, with manual payment, up to 9 payments (a buy costs at most 9,
    each payment pays at least 1); per wildcard n bids, plus up to B payments.
    """
    in_play = deck_for(rules)[0] if cards is None else cards
    size, wild = sum(in_play), sum(in_play[C.NUM_NUMBER_CARDS : C.FIRST_CURRENCY])
    n = rules.num_players
    manual = rules.payment == "manual"
    buy_phases = size + n
    return (2 * size + buy_phases * (1 + MAX_BUY_PRICE * manual)
            + wild * (n + rules.max_bid * manual))


def score_margin(scores: list[int], seat: int) -> int:
    """A seat's score minus the best score among the other seats."""
    return scores[seat] - max(s for other, s in enumerate(scores) if other != seat)


@lru_cache(maxsize=None)
def _action_table(max_bid: int) -> tuple[tuple[str, ...], dict[str, int]]:
    names = action_names(max_bid)
    return names, {name: i for i, name in enumerate(names)}


def deck_for(rules: Rules) -> tuple[list[int], list[int]]:
    """(cards in play, cards out of the game) as counts per id, for the rules' player count;
    ``ValueError`` (a ``DeckFileError``) for a deck file that cannot be used."""
    spec = load_deck(rules.deck_file)
    in_play = spec.for_players(rules.num_players)
    return in_play, [a - b for a, b in zip(spec.full(), in_play)]


def _rng(shuffle: int | random.Random | None) -> random.Random:
    if isinstance(shuffle, random.Random):
        return shuffle
    if shuffle is not None and not is_index(shuffle):
        raise ValueError(f"shuffle_unseen must be an int seed, a random.Random or None, got {shuffle!r}")
    return random.Random(None if shuffle is None else operator.index(shuffle))


def _whole(value: object, name: str, low: int, high: int | None = None) -> int:
    """``value`` as an ``int`` if it is a whole number (:func:`is_index`) from ``low`` to ``high``;
    a snapshot's field that is not says so."""
    if is_index(value) and low <= operator.index(value) and (high is None or operator.index(value) <= high):
        return operator.index(value)
    raise KeyError(f"{name} {value!r}")


def _counts(cards: Iterable[int]) -> list[int]:
    counts = [0] * C.NUM_CARD_TYPES
    for card in cards:
        counts[card] += 1
    return counts
