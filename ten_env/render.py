"""The table as text: what ``render_mode="ansi"`` shows and what ``ten`` prints.

Seats are labelled ``player N``, or with the names given (``ten play`` and ``ten demo``
name them after their agents). A game followed move by move is better told by its
record's events (:mod:`ten_env.record`), which say what each card and action did.
"""

from __future__ import annotations

from . import cards as C
from .game import JEN_SEAT, Game
from .scoring import score_counts

RECENT = 8  # how many of the latest actions to show


def render_table(game: Game, me: int | None = None, names: list[str] | None = None,
                 last_moves: bool = True) -> str:
    """The whole public table of ``game`` as lines of text.

    ``me`` marks a seat as "you"; ``names`` (one per seat) labels the seats; ``last_moves``
    adds the latest actions by name (leave it out where the events are told as they happen).
    """

    def label(seat: int) -> str:
        return f"player {seat}" if names is None else f"{names[seat]} (seat {seat})"

    lines = []
    head = f"TEN  turn {game.turn}  deck {len(game.deck)}  phase {game.phase}"
    if game.rules.jen_level is not None:
        head += f"  (solitaire vs JEN level {game.rules.jen_level})"
    lines.append(head)
    lines.append("market:  " + (" ".join(C.sort_names(C.expand(game.market))) or "-"))
    tableau = " ".join(C.NAMES[c] for c in game.tableau) or "-"
    if game.phase == "over":
        whose = "game over"
    elif game.phase == "final_buy" or (game.pay_for is not None and game.pay_for[0] == "final_buy"):
        whose = "final buys"  # the deck is out: nobody draws
    else:
        whose = f"{label(game.active_player)} drawing"
    lines.append(f"tableau: {tableau}   net {game.net_total}  currency {game.currency_total}   ({whose})")
    if game.auction_card is not None:
        bid = f"{game.high_bid} by {label(game.high_bidder)}" if game.high_bidder is not None else "none"
        lines.append(f"auction: {C.NAMES[game.auction_card]}  high bid {bid}")
    for seat in range(game.num_players):
        hand = game.hands[seat]
        title = label(seat)
        if game.rules.jen_level is not None and seat == JEN_SEAT and names is None:
            title += " (JEN)"
        if seat == me and names is None:
            title += " (you)"
        lines.append(
            f"{title}: coins {game.coins[seat]}  bust tokens {game.bust_tokens[seat]}"
            f"  cards {sum(hand)}  score {score_counts(hand)}"
        )
        for col, letter in enumerate(C.COLOURS):
            row = "".join(_cell(n + 1, hand[col * C.NUMBERS + n]) for n in range(C.NUMBERS))
            lines.append(f"    {letter} {row}")
        wilds = C.expand(hand[C.NUM_NUMBER_CARDS :])
        wild_names = [C.NAMES[C.NUM_NUMBER_CARDS + w] for w in wilds]
        if wild_names:
            lines.append("    wild " + " ".join(wild_names))
    if game.is_over:
        winners = ", ".join(label(s) for s in game.winners())
        lines.append(f"game over: scores {game.scores()}  winner(s): {winners}")
    else:
        lines.append(f"to act: {label(game.current_player)}")  # type: ignore[arg-type]  # not over: a seat acts
    recent = game.history[-RECENT:]
    if recent and last_moves:
        lines.append(
            "last: " + "; ".join(f"{'p' + str(seat) if names is None else names[seat]} {game.action_name(a)}"
                                 for seat, a, _ in recent)
        )
    return "\n".join(lines)


def _cell(number: int, count: int) -> str:
    # Each number in its own column, so runs and gaps show; "+" marks duplicates.
    return " . " if not count else f" {number}" + ("+" if count > 1 else " ")


def render(mode: str | None, game: Game | None, me: int | None = None) -> str | None:
    """What an environment's ``render()`` gives for ``render_mode`` ``mode``."""
    if mode is None:
        import gymnasium

        gymnasium.logger.warn("render() renders nothing: the env was made with no render_mode, or one it does "
                              "not support; pass render_mode='ansi' or 'human'")
        return None
    text = render_table(game, me=me) if game is not None else "(no game yet: call reset() first)"
    if mode == "human":
        print(text, end="\n\n")
        return None
    return text
