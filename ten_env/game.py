"""The rules engine: one game of TEN as plain state plus the moves that change it.

``Game`` holds the whole state in plain lists and ints (copy it with
:meth:`Game.clone`, compare it with ``==``, read it with :meth:`Game.snapshot`)
and changes it only through :meth:`Game.act`. The methods below follow the
rulebook's structure: a turn is a draw phase (paused by an auction whenever a
wildcard comes up), ended by stopping with a reward or by busting, followed by
an optional buy phase; the last card drawn ends the game after one final buy
phase for everybody. RULES.md lists every decision taken where the rulebook is
silent; the comments here point at those decisions by name.

A decision with exactly one legal action (the first draw of a turn, a bid or a
buy nobody can afford) is taken by the engine itself and recorded in
``history`` as forced; in the solitaire game the engine also plays JEN.
So ``current_player`` is always a seat with a real choice.
"""

from __future__ import annotations

import dataclasses
import random

from . import cards as C
from . import jen
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
    num_actions,
)
from .deck import load as load_deck
from .rules import Rules
from .scoring import hand_score, score_counts, used_in_best

START_COINS = 5
MAX_COINS = 10
BUST_TOKEN_VALUE = 3
BUST_LIMIT = 10  # a net total or currency total above this busts

PHASES = ("draw", "auction", "buy", "bust", "final_buy", "pay", "over")
JEN_SEAT = 1  # in the solitaire game: seat 0 is the person, seat 1 is JEN


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

    def __init__(self, rules: Rules | None = None, seed: int | None = None, deck=None, start: int = 0):
        rules = Rules() if rules is None else rules
        if not isinstance(rules, Rules):
            raise ValueError(f"rules must be a ten_env.Rules, got {type(rules).__name__}")
        if isinstance(start, bool) or not isinstance(start, int) or start not in range(rules.num_players):
            raise ValueError(f"start must be a seat from 0 to {rules.num_players - 1}, got {start!r}")
        if rules.solitaire and start != 0:
            raise ValueError(f"start must be 0 in the solitaire game (the person starts), got {start!r}")
        self.rules = rules
        self._rules_dict = dataclasses.asdict(rules)
        self.num_players = n = rules.num_players
        self._names = action_names(rules.max_bid)
        self._ids = {name: i for i, name in enumerate(self._names)}
        self.out_of_game = [0] * C.NUM_CARD_TYPES
        if deck is None:
            if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
                raise ValueError(f"seed must be an int or None, got {seed!r}")
            spec = load_deck(rules.deck_file)
            in_play = spec.for_players(n)
            self.out_of_game = [a - b for a, b in zip(spec.full(), in_play)]
            order = C.expand(in_play)
            random.Random(seed).shuffle(order)
        else:
            if isinstance(deck, str) or not hasattr(deck, "__iter__"):
                raise ValueError("deck must be a list of card strings, top first, e.g. ['B3', '$2']")
            order = [C.parse(card) for card in deck]
            if not order:
                raise ValueError("deck must hold at least one card")
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
        self.pay_for: tuple | None = None  # (phase that charged, card)
        self.bust_kind: str | None = None  # "numbers" / "currency" while a bust resolves
        self.final_buyers: list[int] = []
        self.history: list[tuple[int, int, bool]] = []  # (seat, action, forced)
        self._legal: list[int] | None = None
        self._advance()

    # ------------------------------------------------------------------ queries

    @property
    def solitaire(self) -> bool:
        return self.rules.jen_level is not None

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

    def action_name(self, action: int) -> str:
        """The stable name of action id ``action`` (see :mod:`ten_env.actions`)."""
        if isinstance(action, bool) or not hasattr(action, "__index__") or not 0 <= int(action) < len(self._names):
            raise ValueError(f"action id must be an int from 0 to {len(self._names) - 1}, got {action!r}")
        return self._names[int(action)]

    def action_id(self, name: str) -> int:
        """The id of the action called ``name`` (e.g. ``"buy_G3"``)."""
        if name not in self._ids:
            raise ValueError(
                f"unknown action {name!r}; actions are draw, stop_numbers, stop_currency, pass, "
                f"bid_1..bid_{self.rules.max_bid}, buy_<card>, pay_coin, pay_bust, pay_<card>"
            )
        return self._ids[name]

    def legal_actions(self) -> list[int]:
        """Ids of the actions the current player may take, ascending (empty when over)."""
        return list(self._legal_now())

    def _legal_now(self) -> list[int]:
        # The engine's own copy: callers get a fresh list they may change freely.
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def legal_action_names(self) -> list[str]:
        return [self._names[a] for a in self._legal_now()]

    def wealth(self, seat: int, duplicates_only: bool = False) -> int:
        """What a seat can pay: coins, bust tokens at 3, and cards at 1 each
        (only duplicates in solitaire auctions)."""
        hand = self.hands[seat]
        cards = sum(k - 1 for k in hand if k > 1) if duplicates_only else sum(hand)
        return self.coins[seat] + BUST_TOKEN_VALUE * self.bust_tokens[seat] + cards

    def score(self, seat: int) -> int:
        return hand_score(self.hands[seat])

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
        scores = self.scores()
        if self.solitaire:
            return [0] if scores[0] > scores[JEN_SEAT] else [JEN_SEAT]

        def rank(seat):
            money = self.coins[seat] + BUST_TOKEN_VALUE * self.bust_tokens[seat]
            return (scores[seat], money, -sum(self.hands[seat]))

        best = max(rank(s) for s in range(self.num_players))
        return [s for s in range(self.num_players) if rank(s) == best]

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

    def snapshot(self) -> dict:
        """Everything public, as JSON-ready data."""
        auction = None
        if self.phase in ("auction", "pay") and self.auction_card is not None:
            auction = {
                "card": C.NAMES[self.auction_card],
                "high_bid": self.high_bid,
                "high_bidder": self.high_bidder,
            }
        payment = None
        if self.phase == "pay":
            payment = {
                "payer": self.decider,
                "remaining": self.pay_remaining,
                "for": self.pay_for[0],
                "card": C.NAMES[self.pay_for[1]],
                "duplicates_only": self.pay_duplicates_only,
            }
        deck_counts = _counts(self.deck)
        deck = {C.NAMES[c]: k for c, k in enumerate(deck_counts) if k}
        return {
            "rules": dict(self._rules_dict),
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
            "deck": deck,  # what is left, not in which order: public, since every other card is seen
            "discard": C.names_of(self.discard),
            "phase": self.phase,
            "turn": self.turn,
            "active_player": self.active_player,
            "current_player": self.current_player,
            "auction": auction,
            "payment": payment,
            "final_buyers": list(self.final_buyers),
            "legal_actions": self.legal_action_names(),
        }

    def lazy_snapshot(self):
        """The snapshot of this moment, built only if it is read (cheap when it is not)."""
        from .snapshot import LazySnapshot

        return LazySnapshot(self.clone(history=False))

    def clone(self, history: bool = True) -> "Game":
        """An independent copy of this game, at this point."""
        other = object.__new__(Game)
        other.__dict__.update(self.__dict__)
        for key in ("deck", "tableau", "market", "discard", "coins", "bust_tokens",
                    "final_buyers", "out_of_game"):
            setattr(other, key, list(getattr(self, key)))
        other.history = list(self.history) if history else []
        other.hands = [list(h) for h in self.hands]
        return other

    def __eq__(self, other):
        if not isinstance(other, Game):
            return NotImplemented
        mine = {k: v for k, v in self.__dict__.items() if k != "_legal"}
        theirs = {k: v for k, v in other.__dict__.items() if k != "_legal"}
        return mine == theirs

    __hash__ = None

    # ------------------------------------------------------------------ acting

    def act(self, action: int | str) -> None:
        """Take ``action`` (an id or a name) for the current player.

        Raises ``ValueError`` naming the action, the phase and the legal actions
        if it is not legal now; the game is then unchanged.
        """
        if self.phase == "over":
            raise ValueError(f"the game is over: no action is legal (got {action!r})")
        legal = self._legal_now()
        if isinstance(action, str):
            if action not in self._ids:
                raise self._refusal(
                    f"unknown action {action!r} (actions are draw, stop_numbers, stop_currency, pass, "
                    f"bid_1..bid_{self.rules.max_bid}, buy_<card>, pay_coin, pay_bust, pay_<card>)"
                )
            action = self._ids[action]
        elif hasattr(action, "__index__") and not isinstance(action, bool):
            action = int(action)
            if not 0 <= action < len(self._names):
                raise self._refusal(
                    f"action id {action} is out of range (ids run from 0 to {len(self._names) - 1})"
                )
        else:
            raise self._refusal(f"action {action!r} is neither an int id nor a name")
        if action not in legal:
            raise self._refusal(f"action {self._names[action]!r} (id {action}) is not legal")
        self._apply(action, forced=False)
        self._advance()

    def _refusal(self, what: str) -> ValueError:
        legal = ", ".join(self._names[a] for a in self._legal_now())
        return ValueError(f"{what} for player {self.decider} in the {self.phase} phase; legal: {legal}")

    def _advance(self):
        """Take every decision that is not a real choice: forced moves and JEN's."""
        while self.phase != "over":
            if self.solitaire and self.decider == JEN_SEAT:
                action = jen.decide(self._jen_view())
                if action not in self._legal_now():  # a bug in the engine, not in the input
                    raise RuntimeError(f"JEN chose illegal {self._names[action]} in {self.phase}")
                self._apply(action, forced=True)
                continue
            legal = self._legal_now()
            if len(legal) != 1:
                return
            self._apply(legal[0], forced=True)

    def _apply(self, action: int, forced: bool):
        self.history.append((self.decider, action, forced))
        self._legal = None
        phase = self.phase
        if phase == "draw":
            if action == DRAW:
                self._draw()
            elif action == STOP_NUMBERS:
                self._take_numbers()
            else:
                self._take_currency()
        elif phase == "auction":
            self._bid(0 if action == PASS else action - BID_BASE)
        elif phase == "pay":
            self._pay_one(action)
        elif action == PASS:  # buy, bust or final_buy, declined
            if phase == "bust":
                self.bust_tokens[self.active_player] += 1
            self._after_buy(phase)
        else:
            card = action - FIRST_BUY
            self._charge(self.decider, C.number(card), (phase, card))

    # ------------------------------------------------------------------ legal actions

    def _compute_legal(self) -> list[int]:
        phase, seat = self.phase, self.decider
        if phase == "draw":
            legal = [DRAW] if self.deck else []
            if self.solitaire and seat == JEN_SEAT:
                # JEN always takes the numbers, even when the deck runs out on a
                # tableau without any (RULES.md: "JEN at the end of the deck").
                return legal + [STOP_NUMBERS] if self.tableau else legal
            if self.net_total + self.currency_total > 0:  # some number card in the tableau
                legal.append(STOP_NUMBERS)
            if self.currency_total:
                legal.append(STOP_CURRENCY)
            return legal
        if phase == "auction":
            low = max(self.rules.min_bid, self.high_bid + 1)
            high = min(self.rules.max_bid, self.wealth(seat, duplicates_only=self.solitaire))
            return [PASS] + list(range(BID_BASE + low, BID_BASE + high + 1))
        if phase == "pay":
            return self._pay_choices(seat)
        if phase == "over":
            return []
        # buy, bust, final_buy
        hand, budget = self.hands[seat], self.wealth(seat)
        return [PASS] + [
            FIRST_BUY + card
            for card, k in enumerate(self.market)
            if k and not hand[card] and card % 9 + 1 <= budget
        ]

    def _pay_choices(self, seat) -> list[int]:
        legal = []
        if self.coins[seat]:
            legal.append(PAY_COIN)
        if self.bust_tokens[seat]:
            legal.append(PAY_BUST)
        least = 2 if self.pay_duplicates_only else 1
        legal += [FIRST_PAY_CARD + c for c, k in enumerate(self.hands[seat]) if k >= least]
        return legal

    @property
    def pay_duplicates_only(self) -> bool:
        """Whether the payment now due may use only duplicate cards (solitaire auctions)."""
        return self.solitaire and self.pay_for is not None and self.pay_for[0] == "auction"

    # ------------------------------------------------------------------ the draw phase

    def _start_turn(self, seat: int):
        self.active_player = self.decider = seat
        self.phase = "draw"

    def _draw(self):
        card = self.deck.pop()
        if C.is_wild(card):
            self._start_auction(card)
            return
        self.tableau.append(card)
        value = C.NET_VALUE[card]
        self.net_total += value
        if value < 0:
            self.currency_total -= value
            if self.currency_total > BUST_LIMIT:
                self._bust("currency")
                return
        elif self.net_total > BUST_LIMIT and not self._is_jen(self.active_player):
            self._bust("numbers")  # JEN never busts on numbers
            return
        self._continue_turn()

    def _continue_turn(self):
        """After a card or an auction: the active player decides, unless nothing is left to decide."""
        if not self.deck and not self.tableau:
            # The last card was a wildcard drawn on an empty tableau: no reward to take.
            self._end_turn()
        else:
            self.phase = "draw"
            self.decider = self.active_player

    def _take_numbers(self):
        seat = self.active_player
        self._move_numbers(self.hands[seat])
        self._pay_others()
        self._clear_tableau()
        self.phase = "buy"
        self.decider = seat

    def _take_currency(self):
        seat = self.active_player
        self._gain(seat, self.currency_total)
        self._move_numbers(self.market)
        self._clear_tableau()
        self._end_turn()

    def _bust(self, kind: str):
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

    def _finish_bust(self):
        """Steps 3-5 of busting: others are paid only after a bust on numbers."""
        if self.bust_kind == "numbers":
            self._pay_others()
        self.bust_kind = None
        self._clear_tableau()
        self._end_turn()

    def _end_turn(self):
        if self.deck:
            self.turn += 1
            self._start_turn((self.active_player + 1) % self.num_players)
            return
        # The last card has been drawn: one final buy phase each, from the left
        # of the active player round to the active player.
        n = self.num_players
        self.final_buyers = [(self.active_player + k) % n for k in range(1, n + 1)]
        self._next_final_buy()

    def _next_final_buy(self):
        if not self.final_buyers:
            self.phase = "over"
            return
        self.phase = "final_buy"
        self.decider = self.final_buyers.pop(0)

    # ------------------------------------------------------------------ buying

    def _after_buy(self, phase: str):
        """The buy (or its refusal) in ``phase`` is done; carry on with the turn."""
        if phase == "buy":
            self._end_turn()
        elif phase == "bust":
            self._finish_bust()
        else:
            self._next_final_buy()

    # ------------------------------------------------------------------ auctions

    def _start_auction(self, card: int):
        self.phase = "auction"
        self.auction_card = card
        self.high_bid, self.high_bidder = 0, None
        self.bids_left = self.num_players
        self.decider = (self.active_player + 1) % self.num_players

    def _bid(self, amount: int):
        if amount:
            self.high_bid, self.high_bidder = amount, self.decider
        self.bids_left -= 1
        if self.bids_left:
            self.decider = (self.decider + 1) % self.num_players
            return
        if self.high_bidder is None:  # everybody passed
            self.discard[self.auction_card] += 1
            self._close_auction()
        else:
            self._charge(self.high_bidder, self.high_bid, ("auction", self.auction_card))

    def _close_auction(self):
        self.auction_card, self.high_bidder = None, None
        self.high_bid = 0
        self._continue_turn()

    # ------------------------------------------------------------------ paying

    def _charge(self, seat: int, price: int, purpose: tuple):
        """``seat`` owes ``price`` for ``purpose`` = (phase, card); collect it, then deliver."""
        self.pay_for = purpose
        if self._is_jen(seat):
            self._jen_pays(seat, price)
        elif self.rules.payment == "auto":
            self._auto_pay(seat, price, incoming=purpose[1], duplicates_only=self.pay_duplicates_only)
        else:
            self.phase, self.decider, self.pay_remaining = "pay", seat, price
            return
        self._deliver(seat)

    def _pay_one(self, action: int):
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

    def _deliver(self, seat: int):
        phase, card = self.pay_for
        self.pay_for = None
        self.hands[seat][card] += 1
        if phase == "auction":
            self._close_auction()
        else:
            self.market[card] -= 1
            self._after_buy(phase)

    def _auto_pay(self, seat: int, price: int, incoming: int, duplicates_only: bool = False):
        """Pay without giving up score where that is possible (RULES.md: "Automatic payment").

        Idle duplicates first (every extra copy of a number card; an extra wildcard
        only if no best arrangement uses it), then coins, then bust tokens with the
        least waste, then cards one by one: one that no best arrangement needs, else
        the one whose loss costs the least score. Everything is judged with the card
        being bought already in hand. With ``duplicates_only`` (solitaire auctions)
        a player's last copy of a card is never spent.
        """
        hand = self.hands[seat]
        due = price
        hand[incoming] += 1
        if any(hand[c] > 1 for c in range(C.NUM_NUMBER_CARDS, C.NUM_OWNABLE)):
            used = used_in_best(hand)  # wildcard copies can both score: ask the arrangement
        else:
            used = [min(k, 1) for k in hand]  # a number card counts once, so extra copies idle
        for card in range(C.NUM_OWNABLE):
            idle = min(hand[card] - 1, hand[card] - used[card], hand[card] - (card == incoming))
            for _ in range(min(max(idle, 0), due)):
                self._spend_card(seat, card)
                due -= 1
        hand[incoming] -= 1
        if not due:
            return
        coins, tokens = self.coins[seat], self.bust_tokens[seat]
        use_tokens = min(tokens, max(0, -(-(due - coins) // BUST_TOKEN_VALUE)))
        use_coins = min(coins, max(0, due - BUST_TOKEN_VALUE * use_tokens))
        self.coins[seat] -= use_coins
        self.bust_tokens[seat] -= use_tokens
        due -= use_coins + BUST_TOKEN_VALUE * use_tokens
        if due <= 0:
            return
        # Then cards, one at a time: a card outside a best arrangement if there is one
        # (it costs no score), else the card whose loss costs the least score now.
        hand[incoming] += 1
        keep = 1 if duplicates_only else 0
        while due > 0:
            spendable = [max(0, hand[c] - (c == incoming) - keep) for c in range(C.NUM_OWNABLE)]
            if due >= sum(spendable):  # every card that may go goes: nothing to choose
                for card, k in enumerate(spendable):
                    for _ in range(k):
                        self._spend_card(seat, card)
                break
            used = used_in_best(hand)  # stays a best arrangement while only unused cards go
            spares = [c for c in range(C.NUM_OWNABLE)
                      for _ in range(min(spendable[c], hand[c] - used[c]))]
            for card in spares[:due] or [self._least_loss(hand, spendable)]:
                self._spend_card(seat, card)
                due -= 1
        hand[incoming] -= 1

    @staticmethod
    def _least_loss(hand: list[int], spendable: list[int]) -> int:
        before = score_counts(hand)
        best, best_loss = None, None
        for card in range(C.NUM_OWNABLE):
            if spendable[card]:
                hand[card] -= 1
                loss = before - score_counts(hand)
                hand[card] += 1
                if best is None or loss < best_loss:
                    best, best_loss = card, loss
                    if not loss:
                        break  # nothing costs less than nothing
        return best

    def _jen_pays(self, seat: int, price: int):
        """JEN pays in her fixed order (:func:`ten_env.jen.next_payment`)."""
        due = price
        while due > 0:
            what = jen.next_payment(self.coins[seat], self.bust_tokens[seat], self.hands[seat],
                                    duplicates_only=True)
            if what == "coin":
                self.coins[seat] -= 1
                due -= 1
            elif what == "bust":
                self.bust_tokens[seat] -= 1
                due -= BUST_TOKEN_VALUE  # no change is given
            else:
                self._spend_card(seat, what)
                due -= 1

    def _spend_card(self, seat: int, card: int):
        self.hands[seat][card] -= 1
        self.discard[card] += 1

    # ------------------------------------------------------------------ JEN

    def _is_jen(self, seat: int) -> bool:
        return self.solitaire and seat == JEN_SEAT

    def _jen_view(self) -> jen.JenView:
        rival = 1 - JEN_SEAT
        return jen.JenView(
            phase=self.phase,
            level=self.rules.jen_level,
            net_total=self.net_total,
            can_draw=bool(self.deck),
            first_to_bid=jen.first_to_bid(JEN_SEAT, self.active_player, self.num_players),
            rival_wealth=self.wealth(rival, duplicates_only=True),
            own_wealth=self.wealth(JEN_SEAT, duplicates_only=True),
            high_bid=self.high_bid,
            min_bid=self.rules.min_bid,
            max_bid=self.rules.max_bid,
        )

    # ------------------------------------------------------------------ small moves

    def _gain(self, seat: int, amount: int):
        """Gain coins; anything above the limit of 10 is lost."""
        self.coins[seat] = min(MAX_COINS, self.coins[seat] + amount)

    def _pay_others(self):
        """Every player but the active one gains the currency shown in the tableau."""
        if self.currency_total:
            for seat in range(self.num_players):
                if seat != self.active_player:
                    self._gain(seat, self.currency_total)

    def _move_numbers(self, counts: list[int]):
        """Move the tableau's number cards into ``counts`` (a hand or the market)."""
        for card in self.tableau:
            if card < C.NUM_NUMBER_CARDS:
                counts[card] += 1
        self.tableau = [card for card in self.tableau if card >= C.NUM_NUMBER_CARDS]
        self.net_total = -self.currency_total

    def _clear_tableau(self):
        for card in self.tableau:
            if C.is_currency(card):
                self.discard[card] += 1
        self.tableau.clear()
        self.net_total = self.currency_total = 0


def score_margin(scores: list[int], seat: int) -> int:
    """A seat's score minus the best score among the other seats."""
    return scores[seat] - max(s for other, s in enumerate(scores) if other != seat)


def _counts(cards) -> list[int]:
    counts = [0] * C.NUM_CARD_TYPES
    for card in cards:
        counts[card] += 1
    return counts
