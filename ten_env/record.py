"""Game records: one game of TEN as plain data, with every event spelled out.

A :class:`Recorder` owns a :class:`~ten_env.Game` and writes down what each
action did, forced moves and JEN's included, as it happens::

    from ten_env import Rules
    from ten_env.record import Recorder

    rec = Recorder(Rules(num_players=3), names=["you", "heuristic", "jen:5"], seed=7)
    while not rec.game.is_over:
        rec.act(rec.game.legal_actions()[0])     # or any agent's choice
    rec.to_dict()                                # JSON-ready; save_record(rec.to_dict(), "game.json")

The record (``format: "ten-record"``, ``version: 2``; version 1 is still read) holds the
rules, the seed (or the stacked deck), the starting seat, the players' names, the public
state before the first action (``initial``) and one entry per action in ``steps``:
``seat``, ``action`` (its name), ``forced`` (the engine took it: the only legal
move, or JEN's), ``events`` and ``state``, the public state after it. An
action taken by a trained policy may carry ``policy``: the network's value and
its probabilities for the legal actions. ``result`` holds the final scores,
the winners and how a tie was broken.

Each event is a dict with a ``kind``, the seat it concerns and a ``text`` that
says it in words, e.g. ``{"kind": "draw", "seat": 0, "card": "B7", "net_total":
9, "currency_total": 2, "text": "you draw B7: net total 9, currency total 2"}``.
Kinds: ``turn``, ``draw``, ``bust`` (``reason``: ``"net"`` or ``"currency"``),
``bust_token`` (``bust_tokens``: how many the seat holds now), ``bust_buy_offer``
(the busting variant: a buy instead of the token), ``take_numbers``,
``take_currency``, ``gain`` (coins, with ``reason`` and any ``lost`` above the
limit of 10), ``to_market``,
``auction``, ``bid``, ``pass``, ``auction_won``, ``discarded``, ``buy``,
``no_buy``, ``payment`` (what was spent: ``coins``, ``bust_tokens``,
``cards``, with the ``price`` and the ``card`` paid for; with manual payment one
event saying what is ``due``, then one per coin, bust token or card),
``final_buy`` and ``game_over``.

The events are read off the public state before and after each single action:
the recorder replays the game's history on a second copy of the game that takes
one action at a time, so that forced moves, which :meth:`Game.act` takes by
itself, are seen one by one too. Nothing in the engine depends on this module.
:func:`load_record` reads a record back, checking it (its game is played again from its
rules, deck and moves, and must come out as recorded) and saying what is wrong.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import secrets
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NoReturn, SupportsIndex

import numpy as np

from . import cards as C
from . import payment
from .actions import BID_BASE, FIRST_BUY, FIRST_PAY_CARD, PASS
from .game import BUST_LIMIT, BUY_PHASES, JEN_SEAT, MAX_COINS, Game, bust_by, totals_after
from .payment import BUST_TOKEN_VALUE
from .rules import PLAYER_COUNTS, Rules, as_rules, plays_as_engine_1
from .scoring import best_layout, hand_score, run_score

FORMAT = "ten-record"
#: 2: recorded by engine 2 (:data:`ten_env.rules.ENGINE_VERSION`), the same layout as 1. A record
#: of version 1 is still read; one of a game that engine 2 plays otherwise (one with automatic
#: payment, whose final buys engine 1 paid otherwise) cannot be played again, and is checked for
#: its shape only.
VERSION = 2
READABLE = (1, 2)


class _OneStep(Game):
    """A game that takes exactly the actions it is given: no forced move or JEN move
    is taken on its own, so each entry of another game's history can be replayed and
    looked at separately."""

    def _advance(self) -> None:
        pass


class Recorder:
    """Plays one game and records it (see the module docstring).

    Args:
        rules: the game's :class:`Rules`.
        names: one name per seat (in the solitaire game JEN's seat may be left
            out: it is named ``JEN``).
        seed, deck, start: as :class:`Game` takes them; without a seed or a deck a seed
            is drawn (and recorded), so that the game can be replayed.
    """

    def __init__(self, rules: Rules, names: Iterable[str], seed: int | None = None, deck: Sequence[str] | None = None,
                 start: int = 0) -> None:
        rules = as_rules(rules)
        if isinstance(names, (str, bytes)) or not hasattr(names, "__iter__"):
            raise ValueError(f"names must be a list of names, one per seat, got {names!r}")
        names = [str(n) for n in names]
        if rules.solitaire and len(names) == 1:
            names.append("JEN")
        if len(names) != rules.num_players:
            raise ValueError(f"a record needs one name per seat ({rules.num_players}), got {len(names)}")
        if seed is None and deck is None:
            seed = random.randrange(2**32)
        self.rules, self.names, self.seed, self.start = rules, names, seed, start
        self.deck = None if deck is None else list(deck)
        self.labels = seat_labels(names)
        self.game = Game(rules, seed=seed, deck=deck, start=start)
        self._replay = _OneStep(rules, seed=seed, deck=deck, start=start)
        self.initial = public_state(self._replay)
        self.steps: list[dict] = []
        self._sync({})

    def act(self, action: SupportsIndex | str, policy: dict | None = None) -> list[dict]:
        """Take ``action`` (an id or a name) in the game; the new steps, forced ones after it included.

        ``policy`` (``{"value": v, "probs": [[action name, p], ...]}``) is kept with
        this action's step: what the player's network thought of it.
        """
        if policy:
            plain = _as_json(policy)  # as the record will hold it
            if not _is_policy(plain):
                raise ValueError('policy must be {"value": a number, "probs": [[action name, probability], ...]}'
                                 f" or None, got {policy!r}")
            policy = plain
        before = len(self.game.history)
        self.game.act(action)
        return self._sync({before: policy} if policy else {})

    def _sync(self, notes: dict) -> list[dict]:
        """Record every history entry of the game not recorded yet."""
        new = []
        for index in range(len(self.steps), len(self.game.history)):
            seat, action, forced = self.game.history[index]
            before = self._replay.clone(history=False)
            self._replay.act(action)
            step = {"seat": seat, "action": self._replay.action_name(action), "forced": forced,
                    "events": events(before, self._replay, seat, action, self.labels),
                    "state": public_state(self._replay)}
            if notes.get(index):
                step["policy"] = notes[index]
            self.steps.append(step)
            new.append(step)
        self._check_replay()
        return new

    def _check_replay(self) -> None:
        """``RuntimeError`` unless the replay, action by action, reached the game's very state:
        what the events were read off is what was played (the history, with its forced
        flags, and the legal-action cache aside)."""
        real, replay = vars(self.game), vars(self._replay)
        differ = sorted(k for k in real.keys() | replay.keys()
                        if k not in ("history", "_legal") and real.get(k, replay) != replay.get(k, real))
        if differ:
            raise RuntimeError(f"the record's replay of the game differs from the game after action "
                               f"{len(self.steps)} in {', '.join(differ)}: a bug in ten_env.record")

    def to_dict(self, public: bool = False) -> dict:
        """The record as JSON-ready data.

        ``public``: what the players may see while the game runs: until the game is
        over, ``seed`` and ``deck`` (either one gives away the deck's order) are
        ``None``. Everything else in a record is public (``state["deck"]`` holds
        only what is left in the deck, not its order).
        """
        hide = public and not self.game.is_over
        record = {
            "format": FORMAT,
            "version": VERSION,
            "rules": dataclasses.asdict(self.rules),
            "seed": None if hide else self.seed,
            "deck": None if hide else self.deck,
            "start": self.start,
            "players": [{"seat": s, "name": n} for s, n in enumerate(self.names)],
            "initial": self.initial,
            "steps": self.steps,
            "result": None,
        }
        if self.game.is_over:
            record["result"] = {k: v for k, v in self.steps[-1]["events"][-1].items() if k not in ("kind", "seat")}
        return record


def seat_labels(names: list[str]) -> list[str]:
    """How the events name each seat: its name, with the seat number where two names are the same."""
    return [n if names.count(n) == 1 else f"{n} (seat {s})" for s, n in enumerate(names)]


# --------------------------------------------------------------------------- public state


def public_state(game: Game) -> dict:
    """What everybody at the table can see, compactly: what a viewer draws for one moment."""
    auction = None
    if game.auction_card is not None:
        auction = {"card": C.NAMES[game.auction_card], "high_bid": game.high_bid,
                   "high_bidder": game.high_bidder}
    return {
        "turn": game.turn,
        "phase": game.phase,
        "active_player": game.active_player,
        "current_player": game.current_player,
        "deck_size": len(game.deck),
        "deck": game.unseen(),
        "market": C.names_of(game.market),
        "tableau": [C.NAMES[c] for c in game.tableau],
        "net_total": game.net_total,
        "currency_total": game.currency_total,
        "auction": auction,
        "to_pay": game.pay_remaining if game.phase == "pay" else None,
        "players": [
            {"coins": game.coins[s], "bust_tokens": game.bust_tokens[s], "cards": C.names_of(game.hands[s]),
             "score": hand_score(game.hands[s]), "runs": scoring_runs(game.hands[s])}
            for s in range(game.num_players)
        ],
        "legal_actions": game.legal_action_names(),
    }


def scoring_runs(hand: Sequence[int]) -> list:
    """Per colour (B, G, O, P), the run that scores in ``hand`` (counts per card id), in the
    best arrangement RULES.md fixes for automatic payment: ``{"from": 3, "to": 6, "score": 4,
    "wild": {"5": "W5"}}``, the wildcards placed by number; ``None`` for a colour without cards."""
    runs: list[dict[str, object] | None] = []
    for colour, (lo, hi, mask, wild_bits, _) in enumerate(best_layout(hand)):
        if lo > hi:
            runs.append(None)
            continue
        own_colour_wilds = hand[C.FIRST_COLOUR_WILD + colour]
        placed = {}
        for n in range(lo, hi + 1):
            if mask >> n & 1:
                continue
            if wild_bits >> n & 1:
                placed[str(n + 1)] = C.NAMES[C.FIRST_NUMBERED_WILD + n]
            elif own_colour_wilds:  # colour wildcards first, then the super wildcard (as scoring counts them)
                placed[str(n + 1)] = C.NAMES[C.FIRST_COLOUR_WILD + colour]
                own_colour_wilds -= 1
            else:
                placed[str(n + 1)] = C.NAMES[C.SUPER_WILD]
        length = hi - lo + 1
        runs.append({"from": lo + 1, "to": hi + 1, "score": run_score(length), "wild": placed})
    return runs


# --------------------------------------------------------------------------- events


def _cards(names: list[str]) -> str:
    return ", ".join(names) if names else "nothing"


def _coins(k: int) -> str:
    return f"{k} coin" + ("" if k == 1 else "s")


_BASE_FORMS = {"draws": "draw", "busts": "bust", "keeps": "keep", "stops and takes": "stop and take",
               "passes": "pass", "bids": "bid", "buys": "buy", "pays": "pay", "wins": "win", "takes": "take",
               "gains": "gain"}


def _does(label: str, verb: str) -> str:
    """``label`` doing ``verb``, in the person's own grammar when the label is "you"."""
    return f"{label} {_BASE_FORMS.get(verb, verb) if label == 'you' else verb}"


def _gained(before: list[int], after: list[int]) -> list[str]:
    """Card names that ``after`` (counts) holds more of than ``before``."""
    return [C.NAMES[c] for c in range(len(after)) for _ in range(max(0, after[c] - before[c]))]


def events(before: Game, after: Game, seat: int, action: int, labels: list[str]) -> list[dict]:
    """The events of ``seat`` taking ``action``: ``before`` is the game just before it,
    ``after`` just after (one action apart); ``labels`` name the seats."""
    out: list[dict] = []

    def say(kind: str, who: int | None, text: str, **fields: object) -> None:
        out.append({"kind": kind, "seat": who, **fields, "text": text})

    name = after.action_name(action)
    who = labels[seat]
    phase = before.phase
    active = before.active_player
    shown = before.currency_total  # the currency others gain when they are paid
    paid_others = False  # did this action pay the tableau's currency to the other players?

    if phase == "draw" and name == "draw":
        card = before.deck[-1]
        card_name = C.NAMES[card]
        if C.is_wild(card):
            say("draw", seat, f"{_does(who, 'draws')} {card_name}, a wildcard: it is auctioned at once", card=card_name)
            say("auction", seat, f"auction of {card_name}: {labels[after.decider]} bids first", card=card_name)
        else:
            net, currency = totals_after(before.net_total, before.currency_total, card)
            say("draw", seat, f"{_does(who, 'draws')} {card_name}: net total {net}, currency total {currency}",
                card=card_name, net_total=net, currency_total=currency)
            if after.phase == "bust" or after.bust_tokens[seat] > before.bust_tokens[seat]:
                reason = "net" if bust_by(before.net_total, before.currency_total, card) == "numbers" else "currency"
                total = currency if reason == "currency" else net
                say("bust", seat, f"{_does(who, 'busts')}: the {reason} total {total} is above {BUST_LIMIT}",
                    reason=reason, net_total=net, currency_total=currency)
                shown = currency
                paid_others = reason == "net" and after.phase != "bust"  # the variant pays after its buy
                kept = _gained(before.hands[seat], after.hands[seat])
                if kept:  # JEN keeps the numbers she drew
                    say("take_numbers", seat,
                        f"{_does(who, 'keeps')} {_cards(kept)} (JEN keeps her numbers when she busts)", cards=kept)
                if after.phase == "bust":
                    say("bust_buy_offer", seat,
                        f"{_does(who, 'may')} buy a card from the market instead of taking a bust token")
    elif name == "stop_numbers":
        kept = _gained(before.hands[seat], after.hands[seat])
        say("take_numbers", seat, f"{_does(who, 'stops and takes')} the numbers: {_cards(kept)}", cards=kept)
        paid_others = True
    elif name == "stop_currency":
        say("take_currency", seat, f"{_does(who, 'stops and takes')} the currency ({shown})", amount=shown)
    elif phase == "auction":
        assert before.auction_card is not None  # set for the whole auction
        card_name = C.NAMES[before.auction_card]
        if name == "pass":
            say("pass", seat, f"{_does(who, 'passes')} on {card_name}", card=card_name)
        else:
            bid = action - BID_BASE
            say("bid", seat, f"{_does(who, 'bids')} {bid} for {card_name}", card=card_name, bid=bid)
        if before.bids_left == 1:  # the last bid: the auction closes
            if name == "pass" and before.high_bidder is None:
                say("discarded", None, f"nobody bids: {card_name} is discarded", card=card_name)
            else:
                winner, price = (before.high_bidder, before.high_bid) if name == "pass" else (seat, action - BID_BASE)
                assert winner is not None  # a pass with no high bidder is the branch above
                say("auction_won", winner, f"{_does(labels[winner], 'wins')} {card_name} for {price}",
                    card=card_name, price=price)
    elif phase in BUY_PHASES:
        if name == "pass":
            if phase == "bust":
                say("no_buy", seat, f"{_does(who, 'takes')} the bust token: no buy")
            else:
                say("no_buy", seat, f"{_does(who, 'buys')} nothing")
        else:
            card_name = C.NAMES[action - FIRST_BUY]
            cost = payment.price(action - FIRST_BUY)
            say("buy", seat, f"{_does(who, 'buys')} {card_name} from the market for {cost}", card=card_name,
                price=cost)
    elif phase == "pay":
        part = {"pay_coin": "a coin", "pay_bust": f"a bust token (worth {BUST_TOKEN_VALUE}, no change given)"}
        paid_with = C.NAMES[action - FIRST_PAY_CARD] if name not in part else None
        what = part.get(name, f"the card {paid_with} (worth 1)")
        left = after.pay_remaining if after.phase == "pay" else 0
        rest = f"{left} left to pay" if left else "paid in full"
        spent = {"coins": int(name == "pay_coin"), "bust_tokens": int(name == "pay_bust"),
                 "cards": [paid_with] if paid_with else []}
        say("payment", seat, f"{_does(who, 'pays')} with {what}; {rest}", manual=True, left=left, **spent)

    if before.bust_kind == "numbers" and after.bust_kind is None:  # the busting variant's buy phase is over
        paid_others = True
    _payments(before, after, action, seat, out, labels)
    _bust_tokens(before, after, out, labels)
    _coin_gains(before, after, name, seat, active, shown, paid_others, out, labels)
    to_market = _gained(before.market, after.market)
    if to_market:
        say("to_market", None, f"{_cards(to_market)} go{'es' if len(to_market) == 1 else ''} to the market",
            cards=to_market)
    _turns(before, after, out, labels)
    return out


def _charged(before: Game, action: int, seat: int) -> tuple[int, int, int] | None:
    """``(payer, card, price)`` when ``seat`` taking ``action`` in ``before`` charged a price:
    a buy, or the last word of an auction that somebody won."""
    if before.phase in BUY_PHASES and action != PASS:
        card = action - FIRST_BUY
        return seat, card, payment.price(card)
    if before.phase == "auction" and before.bids_left == 1:
        assert before.auction_card is not None
        if action != PASS:
            return seat, before.auction_card, action - BID_BASE
        if before.high_bidder is not None:
            return before.high_bidder, before.auction_card, before.high_bid
    return None


def _payments(before: Game, after: Game, action: int, seat: int, out: list, labels: list[str]) -> None:
    """What a payer spent, when a price or a winning bid was paid automatically in this action
    (a manual payment is described one ``pay_*`` action at a time).

    The payer's hand lost the cards spent and gained the card paid for, in this one
    action, so the cards spent are the hand before, less the hand after, plus that card:
    a copy of the very card being bought counts too."""
    charge = _charged(before, action, seat)
    if charge is None:
        return
    payer, card, price = charge
    if after.phase == "pay":
        out.append({"kind": "payment", "seat": payer, "due": after.pay_remaining, "price": price,
                    "card": C.NAMES[card], "manual": True,
                    "text": f"{_does(labels[payer], 'must')} pay {after.pay_remaining}, one coin, "
                            f"bust token or card at a time"})
        return
    coins = before.coins[payer] - after.coins[payer]
    tokens = before.bust_tokens[payer] - after.bust_tokens[payer]
    hand_before, hand_after = before.hands[payer], after.hands[payer]
    cards = [C.NAMES[c] for c in range(len(hand_before))
             for _ in range(hand_before[c] - hand_after[c] + (c == card))]
    parts = [_coins(coins)] if coins else []
    if tokens:
        parts.append(f"{tokens} bust token{'s' if tokens > 1 else ''} ({BUST_TOKEN_VALUE} each, no change given)")
    if cards:
        parts.append(f"{_cards(cards)} (1 each)")
    out.append({"kind": "payment", "seat": payer, "price": price, "card": C.NAMES[card], "coins": coins,
                "bust_tokens": tokens, "cards": cards,
                "text": f"{_does(labels[payer], 'pays')} with {' and '.join(parts) or 'nothing'}"})


def _bust_tokens(before: Game, after: Game, out: list, labels: list[str]) -> None:
    for s in range(before.num_players):
        if after.bust_tokens[s] > before.bust_tokens[s]:
            out.append({"kind": "bust_token", "seat": s, "bust_tokens": after.bust_tokens[s],
                        "text": f"{_does(labels[s], 'takes')} a bust token (now {after.bust_tokens[s]})"})


def _coin_gains(before: Game, after: Game, name: str, seat: int, active: int, shown: int, paid_others: bool,
                out: list, labels: list[str]) -> None:
    """Who gained coins in this action, and why: the currency taken, or the currency shown in
    the tableau of a player who took the numbers or busted on the net total."""
    if name == "stop_currency":
        gainers, reason = [seat], "took the currency"
    elif paid_others and shown:
        gainers = [s for s in range(before.num_players) if s != active]
        why = "took the numbers" if name == "stop_numbers" else "busted on the net total"
        reason = f"the currency in the tableau when {labels[active]} {why}"
    else:
        return
    for s in gainers:
        gained = after.coins[s] - before.coins[s]
        lost = shown - gained
        text = f"{_does(labels[s], 'gains')} {_coins(gained)} ({reason})"
        if lost:
            text += f"; {lost} lost, as nobody holds more than {MAX_COINS}"
        out.append({"kind": "gain", "seat": s, "coins": gained, "lost": lost, "reason": reason,
                    "total": after.coins[s], "text": text + f": {after.coins[s]} now"})


def _turns(before: Game, after: Game, out: list, labels: list[str]) -> None:
    if after.phase == "final_buy" and (before.phase != "final_buy" or after.decider != before.decider):
        # the first final buy phase, unless the one before it only ended with a manual payment
        first = before.phase != "final_buy" and not (
            before.phase == "pay" and before.pay_for is not None and before.pay_for[0] == "final_buy")
        text = ("the deck is empty: every player has one last buy phase. " if first else "") + \
            f"Final buy phase of {labels[after.decider]}"
        out.append({"kind": "final_buy", "seat": after.decider, "text": text})
    elif after.turn != before.turn:
        out.append({"kind": "turn", "seat": after.active_player, "turn": after.turn,
                    "text": f"turn {after.turn}: {_does(labels[after.active_player], 'draws')}"})
    if after.is_over and not before.is_over:
        out.append(result(after, labels))


def result(game: Game, labels: list[str]) -> dict:
    """The ``game_over`` event: scores, winners, and how a tie at the top was broken."""
    scores, winners = game.scores(), game.winners()
    standings = [game.standing(s) for s in range(game.num_players)]
    money, cards = [m for _, m, _ in standings], [-c for _, _, c in standings]
    top = max(scores)
    tied = [s for s in range(game.num_players) if scores[s] == top]
    tie_break = None
    if game.solitaire:
        if scores[0] == scores[JEN_SEAT]:
            tie_break = f"both scored {top}: a tie goes to JEN"
    elif len(tied) > 1:
        names = " and ".join(labels[s] for s in tied)
        best_money = max(money[s] for s in tied)
        rich = [s for s in tied if money[s] == best_money]
        by_money = ", ".join(f"{labels[s]} {money[s]}" for s in tied)
        if len(rich) == 1:
            tie_break = f"{names} scored {top}: more money wins (coins + {BUST_TOKEN_VALUE} per bust token: {by_money})"
        else:
            by_cards = ", ".join(f"{labels[s]} {cards[s]}" for s in rich)
            tie_break = f"{names} scored {top} with the same money ({best_money}): fewer cards wins ({by_cards})"
            if len(winners) > 1:
                tie_break += ": still tied, a shared win"
    board = ", ".join(f"{labels[s]} {scores[s]}" for s in range(game.num_players))
    verdict = ("winner: " if len(winners) == 1 else "shared win: ") + " and ".join(labels[s] for s in winners)
    text = f"game over. Final scores: {board}; {verdict}" + (f" ({tie_break})" if tie_break else "")
    return {"kind": "game_over", "seat": None, "scores": scores, "winners": winners, "money": money,
            "cards": cards, "tie_break": tie_break, "text": text}


# --------------------------------------------------------------------------- files


def write_atomically(path: str | os.PathLike[str], write: Callable[[Path], object]) -> None:
    """``write(tmp)`` into a new file beside ``path``, then renamed onto it: a run stopped, or a disk
    filled, half way leaves ``path`` as it was (or absent), never half written. The temporary file
    (``.<stem>-<8 hex><suffix>``: the suffix kept, which some writers read the format from) is made
    with the permissions any new file gets, and removed if the write fails; an ``OSError`` about it
    names ``path``, the file the caller asked for."""
    path = Path(path)
    tmp = path.with_name(f".{path.stem}-{secrets.token_hex(4)}{path.suffix}")
    try:
        with open(tmp, "xb"):  # new, as the umask allows (mkstemp's would be private to the owner)
            pass
        write(tmp)
        os.replace(tmp, path)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.filename is not None and Path(exc.filename) == tmp:
            exc.filename = str(path)
        raise


def save_record(record: dict, path: str | os.PathLike[str]) -> Path:
    """Write ``record`` to ``path`` as JSON (:func:`write_atomically`); ``ValueError`` saying why it
    cannot be written."""
    path = Path(path)
    text = json.dumps(record, separators=(",", ":")) + "\n"
    try:
        write_atomically(path, lambda tmp: tmp.write_text(text))
    except OSError as exc:
        raise ValueError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
    return path


def load_record(path: str | os.PathLike[str]) -> dict:
    """A record read back from ``path``; ``ValueError`` naming what is wrong with the file."""
    if not str(path).strip():  # Path("") would be the current folder
        raise ValueError("the record's file name is empty: give one such as game.json")
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ValueError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{str(path)!r} is not a game record: it is not text") from None
    try:
        record = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{str(path)!r} is not a game record: invalid JSON ({exc.msg}, line {exc.lineno})") from None
    except RecursionError:
        raise ValueError(f"{str(path)!r} is not a game record: its JSON is nested too deeply") from None
    except ValueError as exc:  # NaN or Infinity: not JSON, and a page's JSON.parse refuses them
        raise ValueError(f"{str(path)!r} is not a game record: {exc}") from None
    check_record(record, str(path))
    return record


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"it holds {name}, which JSON does not allow")


def check_record(record: object, where: str = "the record") -> None:
    """``ValueError`` naming the first thing that keeps ``record`` from being a game record.

    Beyond its shape: a record that holds its seed or its deck is played again from its rules,
    deck and moves, and every state, event (not its wording, which versions may change, and
    which is then written anew from the replay) and the result must come out as recorded; the
    first step that does not is named (a record edited by hand fails here rather than in the
    page that shows it). The policy notes cannot be played again and are kept as written. One that hides both, as
    ``to_dict(public=True)`` does while the game runs, one whose rules name a ``deck_file``
    (a file on the machine that made it, not read here), and one of version 1 with automatic
    payment (played by engine 1, see :data:`VERSION`) are checked for their shape only.
    """
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise ValueError(f"{where!r} is not a game record: it needs \"format\": \"{FORMAT}\" "
                         f"(write one with ten record, ten eval --save-games or ten play --save)")
    if record.get("version") not in READABLE:
        raise ValueError(f"{where!r} is a game record of version {record.get('version')!r}; "
                         f"this ten-env reads versions {', '.join(map(str, READABLE))}")
    for key, kind in (("rules", dict), ("players", list), ("initial", dict), ("steps", list)):
        if not isinstance(record.get(key), kind):
            raise ValueError(f"{where!r}: the record's {key!r} is missing or not a {kind.__name__}")
    seats = len(record["players"])
    if seats not in PLAYER_COUNTS:
        raise ValueError(f"{where!r}: the record names {seats} players; a game has {PLAYER_COUNTS[0]} to "
                         f"{PLAYER_COUNTS[-1]}")
    for i, player in enumerate(record["players"]):
        if not (isinstance(player, dict) and isinstance(player.get("name"), str)):
            raise ValueError(f"{where!r}: the record's player {i} needs a \"name\" (a string), "
                             f"e.g. {{\"seat\": {i}, \"name\": \"heuristic\"}}; got {json.dumps(player)[:60]}")
    for i, step in enumerate(record["steps"]):
        if not (isinstance(step, dict) and isinstance(step.get("events"), list)
                and isinstance(step.get("state"), dict) and isinstance(step.get("action"), str)):
            raise ValueError(f"{where!r}: step {i} needs 'action', 'events' and 'state'")
        _check_seats(step["state"], seats, f"{where!r}: step {i}")
        if "policy" in step and not _is_policy(step["policy"]):
            raise ValueError(f"{where!r}: step {i}'s policy needs a \"value\" (a number) and \"probs\" "
                             f"([[action name, probability], ...]); got {json.dumps(step['policy'])[:60]}")
    _check_seats(record["initial"], seats, f"{where!r}: the initial state")
    replayable = record["version"] == VERSION or plays_as_engine_1(record["rules"])
    if replayable and record["rules"].get("deck_file") is None and (record.get("seed") is not None
                                                                    or record.get("deck") is not None):
        try:
            _check_replay(record, where)
        except RecursionError:  # a field nested far deeper than any record's
            raise ValueError(f"{where!r}: the record is nested too deeply to be one") from None


def _check_seats(state: dict, seats: int, where: str) -> None:
    players = state.get("players")
    if not isinstance(players, list):
        raise ValueError(f"{where} needs \"players\" (a list, one entry a seat); got {json.dumps(players)[:40]}")
    if len(players) != seats:
        raise ValueError(f"{where} shows {len(players)} player{'' if len(players) == 1 else 's'}, "
                         f"the record names {seats}")


def _as_json(value: object) -> Any:
    """``value`` as JSON reads it back (NumPy's numbers as Python's, tuples as lists); ``None`` if it
    is not JSON."""
    def plain(x: object) -> Any:
        if isinstance(x, np.generic):
            return x.item()
        raise TypeError(f"{type(x).__name__} is not JSON")

    try:
        return json.loads(json.dumps(value, default=plain))
    except (TypeError, ValueError):
        return None


def _is_policy(policy: object) -> bool:
    def number(x: object) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool)

    return (isinstance(policy, dict) and number(policy.get("value")) and isinstance(policy.get("probs"), list)
            and all(isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str) and number(pair[1])
                    for pair in policy["probs"]))


def _check_replay(record: dict, where: str) -> None:
    """``ValueError`` unless the record's rules, deck and moves, played again, give its very
    states and events, step by step (the policy notes and the events' wording aside, which may
    change between versions): a record that was edited by hand is caught here, not by the page
    that shows it. The events' wording is then the replay's, written in place: words edited by
    hand are not shown either."""
    def differs(name: str, replayed: object, recorded: object) -> None:
        difference = _difference(_comparable(replayed), _comparable(recorded))
        if difference:
            raise ValueError(f"{where!r}: {name} is not what the record's rules, deck and moves give: {difference}")

    if record.get("deck") is not None and not isinstance(record["deck"], list):
        raise ValueError(f"{where!r}: the record's deck must be a list of cards from the top, "
                         f"got {json.dumps(record['deck'])[:40]}")
    try:
        rules = Rules(**record["rules"])
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where!r}: the record's rules are not rules ten-env plays: {exc}") from None
    try:
        rec = Recorder(rules, [player["name"] for player in record["players"]], seed=record.get("seed"),
                       deck=record.get("deck"), start=record.get("start", 0))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where!r}: the record's game cannot be set up again: {exc}") from None
    differs("initial", rec.initial, record["initial"])
    steps, checked = record["steps"], 0
    while True:
        for j in range(checked, min(len(rec.steps), len(steps))):  # the last move and the forced ones after it
            differs(f"step {j}", rec.steps[j], steps[j])
        checked = i = len(rec.steps)
        if i >= len(steps):
            break
        if rec.game.is_over:
            raise ValueError(f"{where!r}: the game is over after step {i - 1}; the record goes on to step "
                             f"{len(steps) - 1}")
        try:
            rec.act(steps[i]["action"])
        except ValueError as exc:
            raise ValueError(f"{where!r}: step {i}, {steps[i]['action']!r}, cannot be played there: {exc}") from None
    over = len(steps) == len(rec.steps) and rec.game.is_over
    if over != (record.get("result") is not None):
        raise ValueError(f"{where!r}: the record " + (f"gives no result, but its game is over after its {len(steps)} "
                                                      f"steps" if over else f"gives a result, but its game is not "
                                                                            f"over after its {len(steps)} steps"))
    if over:
        differs("result", rec.to_dict()["result"], record["result"])
    # It all holds: now the words are the replay's (the result's too, the last event's words).
    for step, replayed in zip(steps, rec.steps):
        for event, told in zip(step["events"], replayed["events"]):
            event["text"] = told["text"]
    if over and "text" in record["result"]:
        record["result"]["text"] = rec.to_dict()["result"]["text"]


def _comparable(data: object) -> Any:
    """``data`` as JSON holds it (lists, not tuples), less what may differ between two records of
    the same game: a step's policy note and the wording of its events and of the result."""
    data = json.loads(json.dumps(data))
    if isinstance(data, dict) and "events" in data:
        data.pop("policy", None)
        if isinstance(data["events"], list):
            for event in data["events"]:
                if isinstance(event, dict):
                    event.pop("text", None)
    elif isinstance(data, dict) and "scores" in data:  # the result: its words are the last event's
        data.pop("text", None)
    return data


def _difference(replayed: object, recorded: object, path: str = "") -> str | None:
    """Where ``recorded`` first differs from ``replayed``, in words; ``None`` where they agree."""
    if isinstance(replayed, dict) and isinstance(recorded, dict):
        for key in list(replayed) + [k for k in recorded if k not in replayed]:
            if key not in recorded or key not in replayed:
                return f"{path}{key} is " + ("missing from the record" if key not in recorded
                                             else "in the record, not when played again")
            found = _difference(replayed[key], recorded[key], f"{path}{key}.")
            if found:
                return found
        return None
    if isinstance(replayed, list) and isinstance(recorded, list) and len(replayed) == len(recorded):
        for i, (a, b) in enumerate(zip(replayed, recorded)):
            found = _difference(a, b, f"{path.rstrip('.')}[{i}].")
            if found:
                return found
        return None
    if replayed == recorded and isinstance(replayed, bool) == isinstance(recorded, bool):
        return None

    mine, theirs = json.dumps(recorded), json.dumps(replayed)
    # Long values are shown from a little before their first difference: cut at the same place
    # from the start, two long names (or lists) read the same.
    first = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b), min(len(mine), len(theirs)))
    start = max(0, first - 15) if max(len(mine), len(theirs)) > 40 else 0

    def short(text: str) -> str:
        if len(text) <= 40 and not start:
            return text
        return ("..." if start else "") + text[start:start + 37] + ("..." if start + 37 < len(text) else "")

    return f"{path.rstrip('.') or 'it'} is {short(mine)} in the record, {short(theirs)} when played again"
