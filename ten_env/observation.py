"""The observation vector: everything public, seen from one seat.

Kept apart from the rules: this module only reads a :class:`~ten_env.game.Game`.
Seats are rotated so that the observer comes first (relative seat 0), then the
players to their left in turn order. There are always ``MAX_SEATS`` = 5 seat
blocks, so one network can play any player count; absent seats are all zeros
(their ``present`` flag is 0). Counts are raw; money, totals and scores are
scaled to about [0, 1].

The vector is made of named pieces, declared once in ``PIECES`` (and the seat
block in ``SEAT_PIECES``); the encoder, the tables below and the tests all read
them. ``piece("market")`` is the slice of a piece; ``SEAT["coins"]`` an offset
within a seat block. The tables are generated from the declarations:

{tables}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any

import numpy as np

from . import cards as C
from .deck import PUBLISHED_TOTALS
from .game import BUST_LIMIT, JEN_SEAT, MAX_BUY_PRICE, MAX_COINS, PHASES, Game
from .rules import JEN_LEVELS, PLAYER_COUNTS
from .scoring import MAX_SCORE, hand_key, hand_score

MAX_SEATS = max(PLAYER_COUNTS)
FULL_DECK = sum(PUBLISHED_TOTALS.values())  # the whole box (129 cards): deck size is scaled by it
NUM_WILDS = C.FIRST_CURRENCY - C.NUM_NUMBER_CARDS
NUM_CURRENCY = C.NUM_CARD_TYPES - C.FIRST_CURRENCY
UNBOUNDED = 200.0  # upper bound of counts and of scaled amounts with no limit in the rules

# The tableau's totals just after a bust: up to 10 + 9 of net total, 10 + 5 of currency.
_NET_HIGH = (BUST_LIMIT + C.NUMBERS) / BUST_LIMIT  # 1.9
_CURRENCY_HIGH = (BUST_LIMIT + C.CURRENCY_VALUES) / BUST_LIMIT  # 1.5

# (name, size, meaning, scale, (low, high)): the value stored is the quantity / scale
# (a scale of None depends on the rules: see the encoder).

SEAT_PIECES = (
    ("present", 1, "the seat exists in this game", 1, (0, 1)),
    ("active", 1, "is the active player (the one drawing this turn)", 1, (0, 1)),
    ("to_act", 1, "is the player to act now", 1, (0, 1)),
    ("jen", 1, "is JEN (solitaire game)", 1, (0, 1)),
    ("coins", 1, f"coins / {MAX_COINS}", MAX_COINS, (0, 1)),
    ("bust_tokens", 1, "bust tokens / 3", 3, (0, UNBOUNDED)),
    ("score", 1, f"current score / {MAX_SCORE}", MAX_SCORE, (0, 1)),
    ("cards_held", 1, "cards held / 20", 20, (0, UNBOUNDED)),
    ("hand", C.NUM_OWNABLE, "copies held of each card a player can own (B1..P9, W1..W9, B#..P#, W#)", 1,
     (0, UNBOUNDED)),
)

PIECES = (
    ("seats", MAX_SEATS, "seat blocks for relative seats 0..4 (see the seat block)", 1, None),
    ("market", C.NUM_NUMBER_CARDS, "market: copies of each number card (B1..P9)", 1, (0, UNBOUNDED)),
    ("tableau", C.NUM_NUMBER_CARDS, "tableau: copies of each number card", 1, (0, UNBOUNDED)),
    ("tableau_currency", NUM_CURRENCY, "tableau: copies of each currency card ($1..$5)", 1, (0, UNBOUNDED)),
    # A number bust leaves up to 10 + 9 of net total while the busting variant's buy is
    # decided, a currency bust up to 10 + 5 of currency.
    ("net_total", 1, f"tableau net total / {BUST_LIMIT} (negative when currency outweighs; up to {_NET_HIGH:g})",
     BUST_LIMIT, (-_CURRENCY_HIGH, _NET_HIGH)),
    ("currency_total", 1, f"tableau currency total / {BUST_LIMIT} (up to {_CURRENCY_HIGH:g}, just after a currency "
     "bust)", BUST_LIMIT, (0, _CURRENCY_HIGH)),
    ("deck", C.NUM_CARD_TYPES, "deck: copies left of every card, in card order (public; only the order is hidden)", 1, (0, UNBOUNDED)),
    ("deck_size", 1, f"deck size / {FULL_DECK}", FULL_DECK, (0, UNBOUNDED)),  # a stacked deck may be longer
    ("phase", len(PHASES), "phase one-hot: " + ", ".join(PHASES), 1, (0, 1)),
    ("auction_card", NUM_WILDS, "auction: the wildcard for sale, one-hot (W1..W9, B#..P#, W#)", 1, (0, 1)),
    ("high_bid", 1, "auction: high bid / max_bid", None, (0, 1)),
    ("high_bidder", MAX_SEATS, "auction: relative seat of the high bidder, one-hot", 1, (0, 1)),
    ("pay_remaining", 1, f"payment: amount still owed / max(max_bid, {MAX_BUY_PRICE}) (manual payment)", None, (0, 1)),
    ("pay_duplicates_only", 1, "payment: only duplicates count as cards (solitaire auction)", 1, (0, 1)),
    ("deck_empty", 1, "the deck is empty (the game is ending)", 1, (0, 1)),
    ("player_count", len(PLAYER_COUNTS), "player count one-hot: "
     + ", ".join(str(n) for n in PLAYER_COUNTS), 1, (0, 1)),
    ("solitaire", 1, "solitaire game against JEN", 1, (0, 1)),
    ("jen_level", 1, f"JEN's level / {JEN_LEVELS[-1]} (0 in a normal game)", JEN_LEVELS[-1], (0, 1)),
    ("bust_buy", 1, "busting variant", 1, (0, 1)),
    ("manual_payment", 1, "manual payment", 1, (0, 1)),
)


def _offsets(pieces: Iterable[tuple[Any, ...]],
             unit: Callable[[str, int], int] = lambda name, size: size) -> tuple[dict[str, int], int]:
    offsets, at = {}, 0
    for name, size, *_ in pieces:
        offsets[name] = at
        at += unit(name, size)
    return offsets, at


SEAT, SEAT_SIZE = _offsets(SEAT_PIECES)
OFFSET, SIZE = _offsets(PIECES, lambda name, size: size * SEAT_SIZE if name == "seats" else size)
_SIZES = {name: size * SEAT_SIZE if name == "seats" else size for name, size, *_ in PIECES}


def piece(name: str) -> slice:
    """The slice of the observation that holds piece ``name`` (see ``PIECES``)."""
    return slice(OFFSET[name], OFFSET[name] + _SIZES[name])


def seat_block(k: int) -> slice:
    """The slice of relative seat ``k``'s block (0 is the observer)."""
    return slice(OFFSET["seats"] + k * SEAT_SIZE, OFFSET["seats"] + (k + 1) * SEAT_SIZE)


# Where each piece starts.
MARKET, TABLEAU, TABLEAU_CURRENCY = OFFSET["market"], OFFSET["tableau"], OFFSET["tableau_currency"]
NET_TOTAL, CURRENCY_TOTAL = OFFSET["net_total"], OFFSET["currency_total"]
DECK, DECK_SIZE, PHASE = OFFSET["deck"], OFFSET["deck_size"], OFFSET["phase"]
AUCTION_CARD, HIGH_BID, HIGH_BIDDER = OFFSET["auction_card"], OFFSET["high_bid"], OFFSET["high_bidder"]
PAY_REMAINING, PAY_DUPLICATES_ONLY = OFFSET["pay_remaining"], OFFSET["pay_duplicates_only"]
DECK_EMPTY, PLAYER_COUNT, SOLITAIRE = OFFSET["deck_empty"], OFFSET["player_count"], OFFSET["solitaire"]
JEN_LEVEL, BUST_BUY, MANUAL_PAYMENT = OFFSET["jen_level"], OFFSET["bust_buy"], OFFSET["manual_payment"]


def piece_table(pieces: Iterable[tuple[Any, ...]], offsets: Mapping[str, int], header: str,
                first_index: str | None = None) -> str:
    """A reStructuredText table of named pieces ``(name, size, meaning, ...)``: where each starts, its
    size and meaning (``first_index`` replaces the first row's index and gives its size one seat block)."""
    rows = [(str(offsets[name]), str(size), meaning) for name, size, meaning, *_ in pieces]
    if first_index is not None:  # the seat blocks, one per relative seat k
        rows[0] = (first_index, str(SEAT_SIZE), rows[0][2])
    widths = [max(len(r[i]) for r in rows + [(header, "size", "meaning")]) for i in range(3)]
    line = "  ".join("=" * w for w in widths)
    fmt = "  ".join("{:<%d}" % w for w in widths)
    out = [line, fmt.format(header, "size", "meaning").rstrip(), line]
    out += [fmt.format(*r).rstrip() for r in rows]
    return "\n".join(out + [line])


__doc__ = __doc__.format(tables="\n\n".join([
    piece_table(PIECES, OFFSET, "index", first_index=f"0 + {SEAT_SIZE}*k"),
    "Seat block (offset within the block):",
    piece_table(SEAT_PIECES, SEAT, "offset"),
]))


def space_bounds() -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of every entry, for the ``Box`` space, from the pieces' bounds.

    Flags and scaled quantities with a limit in the rules (coins, scores, bids,
    amounts owed) lie in [0, 1], the tableau totals in [-1.5, 1.9]; counts of cards
    and bust tokens have no rules limit and are bounded by ``UNBOUNDED``, far above
    any real game.
    """
    low = np.zeros(SIZE, dtype=np.float32)
    high = np.ones(SIZE, dtype=np.float32)
    for k in range(MAX_SEATS):
        block = seat_block(k).start
        for name, size, _, _, (lo, hi) in SEAT_PIECES:
            low[block + SEAT[name] : block + SEAT[name] + size] = lo
            high[block + SEAT[name] : block + SEAT[name] + size] = hi
    for name, _, _, _, bounds in PIECES:
        if bounds is not None:
            low[piece(name)], high[piece(name)] = bounds
    return low, high


_PHASE_INDEX = {phase: PHASE + i for i, phase in enumerate(PHASES)}
# what each piece's value is divided by (the pieces with None are scaled by the rules)
SCALE = {name: scale for name, _, _, scale, _ in PIECES if scale is not None}
_SEAT_SCALE = {name: scale for name, _, _, scale, _ in SEAT_PIECES}
_HAND = slice(SEAT["hand"], SEAT_SIZE)
_CURRENCY_AT = TABLEAU_CURRENCY - C.FIRST_CURRENCY
_AUCTION_AT = AUCTION_CARD - C.NUM_NUMBER_CARDS


@lru_cache(maxsize=65536)
def _seat_row(hand: bytes | tuple) -> np.ndarray:
    """A seat block with what depends on the hand alone filled in (hands repeat a lot; kept by
    :func:`ten_env.scoring.hand_key`)."""
    row = np.zeros(SEAT_SIZE, dtype=np.float32)
    row[SEAT["present"]] = 1.0
    row[SEAT["score"]] = hand_score(hand) / _SEAT_SCALE["score"]
    row[SEAT["cards_held"]] = sum(hand) / _SEAT_SCALE["cards_held"]
    row[_HAND] = np.frombuffer(hand, dtype=np.uint8) if isinstance(hand, bytes) else hand
    return row


# The seat-block entries that change without the hand changing, for each player count.
_PER_TURN = ("active", "to_act", "jen", "coins", "bust_tokens")
_PER_TURN_AT = {
    n: np.array([k * SEAT_SIZE + SEAT[name] for k in range(n) for name in _PER_TURN]) for n in PLAYER_COUNTS
}


def encode(game: Game, seat: int) -> np.ndarray:
    """The observation of ``seat`` (a float32 vector of length ``SIZE``)."""
    obs = np.zeros(SIZE, dtype=np.float32)
    n = game.num_players
    rules = game.rules
    solitaire = game.solitaire
    current = game.current_player
    order = [(seat + k) % n for k in range(n)]
    hands, coins, tokens = game.hands, game.coins, game.bust_tokens
    np.concatenate([_seat_row(hand_key(hands[s])) for s in order], out=obs[: n * SEAT_SIZE])
    active, jen = game.active_player, JEN_SEAT if solitaire else -1
    coin_scale, token_scale = _SEAT_SCALE["coins"], _SEAT_SCALE["bust_tokens"]
    per_turn: list[float] = []
    for s in order:  # in _PER_TURN's order
        per_turn += (s == active, s == current, s == jen, coins[s] / coin_scale, tokens[s] / token_scale)
    obs[_PER_TURN_AT[n]] = per_turn
    obs[MARKET : MARKET + C.NUM_NUMBER_CARDS] = game.market
    for card in game.tableau:
        obs[TABLEAU + card if card < C.NUM_NUMBER_CARDS else _CURRENCY_AT + card] += 1
    obs[NET_TOTAL] = game.net_total / SCALE["net_total"]
    obs[CURRENCY_TOTAL] = game.currency_total / SCALE["currency_total"]
    deck = game.deck
    if deck:
        obs[DECK : DECK + C.NUM_CARD_TYPES] = np.bincount(deck, minlength=C.NUM_CARD_TYPES)
    obs[DECK_SIZE] = len(deck) / SCALE["deck_size"]
    obs[_PHASE_INDEX[game.phase]] = 1.0
    if game.auction_card is not None:
        obs[_AUCTION_AT + game.auction_card] = 1.0
        obs[HIGH_BID] = game.high_bid / rules.max_bid  # the scale the rules set
        if game.high_bidder is not None:
            obs[HIGH_BIDDER + (game.high_bidder - seat) % n] = 1.0
    if game.phase == "pay":
        obs[PAY_REMAINING] = game.pay_remaining / max(rules.max_bid, MAX_BUY_PRICE)  # a bid, or a buy
        obs[PAY_DUPLICATES_ONLY] = game.pay_duplicates_only
    obs[DECK_EMPTY] = not deck
    obs[PLAYER_COUNT + n - PLAYER_COUNTS[0]] = 1.0
    if solitaire:
        obs[SOLITAIRE] = 1.0
        obs[JEN_LEVEL] = rules.jen_level / SCALE["jen_level"]  # type: ignore[operator]  # solitaire: a level is set
    obs[BUST_BUY] = rules.bust_buy
    obs[MANUAL_PAYMENT] = rules.payment == "manual"
    return obs


def action_mask(game: Game, seat: int) -> np.ndarray:
    """1 for each action ``seat`` may take now (all zeros when it is not their turn)."""
    mask = np.zeros(game.num_actions, dtype=np.int8)
    if game.current_player == seat:
        mask[game._legal_now()] = 1
    return mask


def agent_view(game: Game, seat: int) -> tuple[dict, dict]:
    """(observation, info) for ``seat``, as the PettingZoo env gives them to an agent."""
    observation = {"observation": encode(game, seat), "action_mask": action_mask(game, seat)}
    legal = game.legal_action_names() if game.current_player == seat else []
    return observation, {"snapshot": game.lazy_snapshot(), "legal_actions": legal}
