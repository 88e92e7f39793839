"""The observation vector: everything public, seen from one seat.

Kept apart from the rules: this module only reads a :class:`~ten_env.game.Game`.
Seats are rotated so that the observer comes first (relative seat 0), then the
players to their left in turn order. There are always ``MAX_SEATS`` = 5 seat
blocks, so one network can play any player count; absent seats are all zeros
(their ``present`` flag is 0). Counts are raw; money, totals and scores are
scaled to about [0, 1].

==============  =====  ===========================================================
index           size   meaning
==============  =====  ===========================================================
0 + 58*k        58     seat block for relative seat k = 0..4 (see below)
290             36     market: copies of each number card (B1..P9)
326             36     tableau: copies of each number card
362             5      tableau: copies of each currency card ($1..$5)
367             1      tableau net total / 10 (negative when currency outweighs; up to 1.9)
368             1      tableau currency total / 10 (up to 1.5, just after a currency bust)
369             55     deck: copies left of every card (B1..P9, W1..W9, B#..P#, W#,
                       $1..$5); the order is hidden, the contents are public
424             1      deck size / 129
425             7      phase one-hot: draw, auction, buy, bust, final_buy, pay, over
432             14     auction: the wildcard for sale, one-hot (W1..W9, B#..P#, W#)
446             1      auction: high bid / max_bid
447             5      auction: relative seat of the high bidder, one-hot
452             1      payment: amount still owed / max(max_bid, 9) (manual payment)
453             1      payment: only duplicates count as cards (solitaire auction)
454             1      the deck is empty (the game is ending)
455             4      player count one-hot: 2, 3, 4, 5
459             1      solitaire game against JEN
460             1      JEN's level / 10 (0 in a normal game)
461             1      busting variant
462             1      manual payment
==============  =====  ===========================================================

Seat block (offset within the block):

======  ====  ============================================================
offset  size  meaning
======  ====  ============================================================
0       1     present (the seat exists in this game)
1       1     is the active player (the one drawing this turn)
2       1     is the player to act now
3       1     is JEN (solitaire game)
4       1     coins / 10
5       1     bust tokens / 3
6       1     current score / 40
7       1     cards held / 20
8       50    copies held of each card a player can own (B1..P9, W1..W9, B#..P#, W#)
======  ====  ============================================================
"""

from __future__ import annotations

import numpy as np

from . import cards as C
from .game import JEN_SEAT, PHASES
from .scoring import hand_score

MAX_SEATS = 5
SEAT_SIZE = 8 + C.NUM_OWNABLE
MARKET = MAX_SEATS * SEAT_SIZE
TABLEAU = MARKET + C.NUM_NUMBER_CARDS
TABLEAU_CURRENCY = TABLEAU + C.NUM_NUMBER_CARDS
NET_TOTAL = TABLEAU_CURRENCY + 5
CURRENCY_TOTAL = NET_TOTAL + 1
DECK = CURRENCY_TOTAL + 1
DECK_SIZE = DECK + C.NUM_CARD_TYPES
PHASE = DECK_SIZE + 1
AUCTION_CARD = PHASE + len(PHASES)
HIGH_BID = AUCTION_CARD + C.NUM_OWNABLE - C.NUM_NUMBER_CARDS
HIGH_BIDDER = HIGH_BID + 1
PAY_REMAINING = HIGH_BIDDER + MAX_SEATS
PAY_DUPLICATES_ONLY = PAY_REMAINING + 1
DECK_EMPTY = PAY_DUPLICATES_ONLY + 1
PLAYER_COUNT = DECK_EMPTY + 1
SOLITAIRE = PLAYER_COUNT + 4
JEN_LEVEL = SOLITAIRE + 1
BUST_BUY = JEN_LEVEL + 1
MANUAL_PAYMENT = BUST_BUY + 1
SIZE = MANUAL_PAYMENT + 1

FULL_DECK = 129
_PHASE_INDEX = {phase: i for i, phase in enumerate(PHASES)}


UNBOUNDED = 200.0  # upper bound of counts and of scaled amounts with no limit in the rules


def space_bounds() -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of every entry, for the ``Box`` space.

    Flags and scaled quantities with a limit in the rules (coins, scores, bids,
    amounts owed) lie in [0, 1], the tableau totals in [-1.5, 1.9]; counts of cards
    and bust tokens have no rules limit and are bounded by ``UNBOUNDED``, far above
    any real game.
    """
    low = np.zeros(SIZE, dtype=np.float32)
    high = np.ones(SIZE, dtype=np.float32)
    # A currency bust leaves up to 10 + 5 in the tableau while the busting variant's buy
    # is decided; a number bust up to 10 + 9 of net total.
    low[NET_TOTAL], high[NET_TOTAL] = -1.5, 1.9
    high[CURRENCY_TOTAL] = 1.5
    for k in range(MAX_SEATS):
        base = k * SEAT_SIZE
        high[base + 5] = UNBOUNDED  # bust tokens / 3
        high[base + 7 : base + SEAT_SIZE] = UNBOUNDED  # cards held, copies of each card
    high[MARKET:NET_TOTAL] = UNBOUNDED
    high[DECK:PHASE] = UNBOUNDED
    high[PAY_REMAINING] = 1.0
    return low, high


def encode(game, seat: int) -> np.ndarray:
    """The observation of ``seat`` (a float32 vector of length ``SIZE``)."""
    obs = np.zeros(SIZE, dtype=np.float32)
    n = game.num_players
    solitaire = game.rules.jen_level is not None
    current = game.current_player
    for k in range(n):
        s = (seat + k) % n
        base = k * SEAT_SIZE
        hand = game.hands[s]
        obs[base] = 1.0
        obs[base + 1] = s == game.active_player
        obs[base + 2] = s == current
        obs[base + 3] = solitaire and s == JEN_SEAT
        obs[base + 4] = game.coins[s] / 10
        obs[base + 5] = game.bust_tokens[s] / 3
        obs[base + 6] = hand_score(hand) / 40
        obs[base + 7] = sum(hand) / 20
        obs[base + 8 : base + SEAT_SIZE] = hand
    obs[MARKET:TABLEAU] = game.market
    for card in game.tableau:
        if card < C.NUM_NUMBER_CARDS:
            obs[TABLEAU + card] += 1
        else:
            obs[TABLEAU_CURRENCY + card - C.FIRST_CURRENCY] += 1
    obs[NET_TOTAL] = game.net_total / 10
    obs[CURRENCY_TOTAL] = game.currency_total / 10
    if game.deck:
        obs[DECK:DECK_SIZE] = np.bincount(game.deck, minlength=C.NUM_CARD_TYPES)
    obs[DECK_SIZE] = len(game.deck) / FULL_DECK
    obs[PHASE + _PHASE_INDEX[game.phase]] = 1.0
    if game.auction_card is not None:
        obs[AUCTION_CARD + game.auction_card - C.NUM_NUMBER_CARDS] = 1.0
        obs[HIGH_BID] = game.high_bid / game.rules.max_bid
        if game.high_bidder is not None:
            obs[HIGH_BIDDER + (game.high_bidder - seat) % n] = 1.0
    if game.phase == "pay":
        obs[PAY_REMAINING] = game.pay_remaining / max(game.rules.max_bid, 9)  # a buy costs up to 9
        obs[PAY_DUPLICATES_ONLY] = game.pay_duplicates_only
    obs[DECK_EMPTY] = not game.deck
    obs[PLAYER_COUNT + n - 2] = 1.0
    obs[SOLITAIRE] = solitaire
    obs[JEN_LEVEL] = (game.rules.jen_level or 0) / 10
    obs[BUST_BUY] = game.rules.bust_buy
    obs[MANUAL_PAYMENT] = game.rules.payment == "manual"
    return obs


def action_mask(game, seat: int) -> np.ndarray:
    """1 for each action ``seat`` may take now (all zeros when it is not their turn)."""
    mask = np.zeros(game.num_actions, dtype=np.int8)
    if game.current_player == seat:
        mask[game.legal_actions()] = 1
    return mask


def agent_view(game, seat: int) -> tuple[dict, dict]:
    """(observation, info) for ``seat``, as the PettingZoo env gives them to an agent."""
    observation = {"observation": encode(game, seat), "action_mask": action_mask(game, seat)}
    legal = game.legal_action_names() if game.current_player == seat else []
    return observation, {"snapshot": game.lazy_snapshot(), "legal_actions": legal}
