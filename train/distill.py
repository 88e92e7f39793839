"""``ten distill``: expert iteration, the searching agent's decisions distilled into a network.

The searching agent (:class:`agents.SearchAgent`, ``search:ppo-jen:64``) plays better
than the network that guides it (``ppo-jen``): at every decision it runs 64 simulations
of the game, with the network's policy as the prior of each move and its value at the
leaves, and plays the move it visited most. Expert iteration (as in AlphaZero) trains
the network on what the search found, so that the network alone plays more like the
search, at the cost of one forward pass instead of 64 simulations; a search guided by
the new network can then find better moves still, and the loop goes round again.

Two steps, each a command.

``ten distill generate TEACHER --games N --seed S [--levels 6-10] [--jobs J] -o DATA.npz``
    The teacher, a search agent (``search``, ``search:<budget>``, ``search:<model>:<budget>``, any
    of them optionally followed by ``:chance=stratified``;
    not ``oracle...``, which sees the deck order: its targets would teach moves that depend
    on cards nobody can see) or a network (``ppo-jen``, a model ``.zip``: it plays its
    likeliest move, as ``ten eval`` plays it, and its own probabilities and value are
    written; cheap data for a value, below), plays N solitaire games against JEN at each
    level: game i of a level on deck seed S + i, the teacher reset with the seed
    :func:`agents.tournament.seeded_games` gives it (so ``ten eval TEACHER --levels L
    --games N --seed S`` plays the very same games, and the data does not depend on
    ``--jobs``). ``--bust-buy``, ``--payment``, ``--max-bid`` and ``--deck-file`` choose the
    game, as for ``ten eval``. A progress bar counts the games; the last line says how
    many decisions were written and how often the teacher won at each level. Until the
    data is saved, ``DATA.parts/`` beside it keeps each chunk of games played
    (:mod:`train.journal`; about as much disk as the data again), so a run that stops
    goes on with the same command and ``--resume``, to the same data; a chunk whose file
    is gone or damaged is played again.

    ``--player AGENT`` (DAgger, Ross et al. 2011): the player (the network being trained,
    say) makes every move and the teacher only labels the positions it reaches. A network
    trained on the teacher's own games learns the teacher's positions; playing alone it
    strays into positions of its own, where nothing taught it. The outcomes (the value
    targets) are then the player's games'; the player is reset before each game with the seed
    :func:`agents.tournament.seeded_games` gives a second seat.

    Keep the deck seeds of the data away from those of the evaluation: ``ten eval`` plays
    seeds 0 to games - 1 by default, so generate with, say, ``--seed 100000``; a network
    evaluated on the games it was trained on would be measured on its homework.

``ten distill train DATA.npz [DATA2.npz ...] --from MODEL -o NEW.zip``
    Starts from the weights of ``MODEL`` (a shipped model's name such as ``ppo-jen``, or a
    ``.zip``; read without unpickling, :func:`agents.safe_load.load_model`) and trains its
    policy and value networks on the data by minibatch Adam (``--epochs 4 --lr 1e-4
    --batch 512 --value-weight 0.5``). A share of the *games* (``--holdout 0.1``, drawn
    with ``--seed``) is kept apart, whole, for validation: the decisions of one game are
    alike, and a game split between both sides would flatter the validation (a deal, a JEN
    level and a deck seed, that two files hold goes to one side, as one game). After each
    epoch one line gives the training and validation policy loss and value loss and the
    validation agreement (the share of decisions where the network's likeliest move is one
    the search visited most, ties included); the starting weights are measured the same way
    first (epoch "start"), so that the last line can say whether the kept epoch beats them.
    The weights of the epoch (1 to ``--epochs``) with the lowest validation loss are kept
    and saved as a MaskablePPO ``.zip`` that ``ten eval``, ``ten play`` and
    ``agents.PolicyAgent`` load without trusting it, with its card ``NEW.json`` beside it:
    the starting model, the data files (teacher, levels, games, decisions), the settings,
    the losses of every epoch, the time and the machine. The optimizer state in the file
    starts afresh, for PPO to go on from it (``train.init_from`` in a config); the card's
    ``training_steps`` are the PPO steps of the starting model.

What the data holds: one row per decision of the teacher (a decision with a single legal
move has nothing to teach and is not written; the engine plays such moves itself, so in
practice there are none), in the order of levels, then games, then moves:

- ``observation`` (float32, decisions x 463): the ``observation["observation"]`` vector;
- ``mask`` (bool, decisions x actions): the legal actions, ``observation["action_mask"]``;
- ``policy`` (float32, decisions x actions): the **policy target**, the search's visit
  counts normalised to sum to 1 (a network teacher's action probabilities), zero on
  illegal actions;
- ``value`` (float32): the search's mean value at the root, (result + margin / 20) / 2 in
  its own terms (:func:`agents.search.outcome_value`) (a network teacher's value), kept
  for study, not trained on;
- ``level`` (int8) and ``game`` (int32, 0 to N - 1 within the level; its deck seed is
  S + game);
- ``reward`` (float32): the **value target**, the game's outcome as the environment's
  ``reward="margin"`` gives it: (the score of the one who played, the teacher or the player,
  minus JEN's) / 20, clipped to [-1, 1]; the same for every decision of a game;
- ``win`` (float32): 1.0 if the teacher (or the player) won the game, 0.0 if not (JEN wins ties);
- ``meta``: a JSON string: ``format``, ``teacher``, ``player`` (``null``: the teacher played),
  ``levels``, ``games_per_level``, ``seed``, ``agent_seeds``, ``code`` (which code played the games:
  ``train.journal.code_digest``), ``rules``, ``wins_per_level``, ``decisions``,
  ``single_move_decisions``, ``seconds``, ``jobs``, ``ten_env_version``.

``--width N`` first widens every hidden layer of the starting model's policy network to N
units (:func:`widen_policy`): the widened network plays exactly as the starting one did, and
the new units give the policy room the starting layers may lack. The value network is kept.

``--features`` first gives the starting network the derived features (:mod:`ten_env.features`:
the odds that the next card busts, what one more of each card would add to each player's score,
what taking the tableau would add) as inputs after the observation, with zero weights, so that it
plays exactly as before until training reads them. The data files are unchanged (plain
observations); the features are computed from them when training starts (about 4,000 decisions
a second). The saved model takes ``features.EXTENDED_SIZE`` floats, which
:class:`agents.PolicyAgent` builds from the environment's observation itself; going on from it
(``--from`` that model) extends the data again without being asked. ``ten train`` goes on from
such a model with ``train.derived_features: true`` (:mod:`train.config`).

The training loss of a decision is ``policy_weight`` (``--policy-weight``, 1) times the
cross-entropy between its policy target and the network's masked policy, plus
``value_weight`` times the squared error between the value head and its value target.
With ``--policy-weight 0`` the value alone is trained: the policy network is not run and
keeps its weights exactly, so the prior a search takes from it is unchanged. With
``--value-weight 0`` the policy alone is trained and the value network keeps its weights
exactly (its gradient is zero), so a value fitted for the search stays as it was. A network
teacher plays a game in about 13 ms (a search at budget 64 in about 0.4 s), so the value
of the search's leaves can be fitted on tens of thousands of games' outcomes.

The policy target is the visit shares or, with ``--sharpen K``, the shares to the power
K, renormalised: the network plays its likeliest move, so a target
spread over several moves can teach it the wrong favourite where it cannot fit the spread
exactly. The value target is ``reward`` or, with ``--value-target outcome``, (result +
margin / 20) / 2 with the result +1 for a win and -1 for a loss: the value the search gives
a finished game, so that a search guided by the network values its leaves and its finished
games alike. The cross-entropy cannot fall below the targets' own entropy (printed before
training): what is left above it is what the network still disagrees with.

One round (``search:ppo-jen:64`` made about 130 decisions a second on one job, some 52 a
game, on the busy 2-core development machine: the 1000 games below take about 7 minutes)::

    ten distill generate search:ppo-jen:64 --levels 6-10 --games 200 --seed 100000 -o round1.npz
    ten distill train round1.npz --from ppo-jen -o runs/distill/round1.zip
    ten eval runs/distill/round1.zip --levels 4-10 --games 1000

and the next round searches with the new network: the registry takes a model path in a
search spec, ``search:runs/distill/round1.zip:64`` (any path without a colon; the file is
loaded as safely as ``ten eval`` loads it)::

    ten distill generate search:runs/distill/round1.zip:64 --games 200 --seed 200000 -o round2.npz
    ten distill train round1.npz round2.npz --from runs/distill/round1.zip -o runs/distill/round2.zip

The shipped ``ppo-jen`` is one such round, taught by the strongest searching agent at the
levels the network loses most, its policy alone trained (the value stays the one fitted for
the search, below); 138,762 decisions from 2,700 games, half of them made on a lent 16-core
machine::

    ten distill generate search:ppo-jen-outcome:512 --levels 8-10 --games 150 --seed 700000 -o c0.npz
    ...  # --seed 701000, 702000 (150 games a level), 710000-719000, 720000-724000 (30)
    ten distill train c0.npz ... --from ppo-jen-outcome --value-weight 0 --epochs 12 --lr 3e-4 -o ppo-jen.zip

It beats ``ppo-jen-v1`` at every JEN level (45.0% against 38.7% at JEN 8, 5,000 fresh deals a
level). A first round at budget 64 had taught nothing: at that budget the search almost
always agreed with the network (98.4% of decisions, against 85.5% at 512), and its few
disagreements were measured too noisily.

A value for the search, as the shipped ``ppo-jen-outcome`` was made. ``ppo-jen-v1``'s value
estimates the margin reward, while the search scores a finished game mostly by its result
(a win by one point is worth 0.05 to the first and 0.525 to the second); the refitted value
estimates the search's score, on 100,000 games of ``ppo-jen-v1``'s own (5.3M decisions: about
13 minutes of play on both cores of the 2-core machine and 8 of training on one)::

    ten distill generate ppo-jen-v1 --levels 6-10 --games 10000 --seed 300000 -o a.npz
    ten distill generate ppo-jen-v1 --levels 6-10 --games 10000 --seed 400000 -o b.npz
    ten distill train a.npz b.npz --from ppo-jen-v1 --policy-weight 0 --value-weight 1 \
        --value-target outcome --epochs 3 --lr 3e-4 --batch 1024 -o ppo-jen-outcome.zip
    ten eval search:ppo-jen-outcome.zip:512 --levels 8 --games 1000 --seed 2000

From Python: :func:`generate` and :func:`save_data`, :func:`load_data`, :func:`train_network`.
torch is imported only inside the functions that train.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import math
import os
import platform
import re
import sys
import time
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from agents.base import Player, move_of
from agents.tournament import AGENT_SEEDS, play_game, seeded_games
from ten_env import Game, Rules
from ten_env import features as F
from ten_env import observation as O
from ten_env.actions import max_bid_for, num_actions
from ten_env.env import final_rewards
from ten_env.record import write_atomically
from ten_env.rules import as_rules, JEN_LEVELS

from .options import (MAX_GAMES, MAX_WIDTH, add_jobs_argument, add_progress_argument, add_rules_arguments, at_least,
                      check_max_bid, check_output, int_range, make_writable, need_training_extra, parse_levels,
                      real_number, rules_from_args, span, whole_number)
from .journal import JOURNAL, Codec, Journal, Resumable, code_digest, file_digests, with_rules_and_files
from .runner import Chunk, chunks, default_jobs, run_chunks, seat_agents

if TYPE_CHECKING:
    import numpy.typing as npt
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from agents import PolicyAgent, SearchAgent

FORMAT = "ten-distill/1"
DEFAULT_LEVELS = "6-10"  # where ppo-jen loses most of its games: there the search has most to teach
PLAYERS_HELP = "an agent that does not see the deck order (ppo-jen, a model .zip, heuristic, search:...)"
TEACHERS_HELP = ("a search agent (search, search:<budget>, search:<model>:<budget> or search:<model>, e.g. "
                 "search:ppo-jen:64, optionally followed by :chance=stratified) or a network (a shipped model "
                 "such as ppo-jen, or a model .zip)")
#: Every array a data file holds, with its dtype (``meta`` aside).
ARRAYS = {"observation": np.float32, "mask": np.bool_, "policy": np.float32, "value": np.float32,
          "level": np.int8, "game": np.int32, "reward": np.float32, "win": np.float32}
#: What the value head learns: ``reward``, the environment's margin reward (what PPO's value
#: estimates); ``outcome``, the search's own value of a finished game.
VALUE_TARGETS = ("reward", "outcome")
#: The new units of a widened layer start with their incoming weights scaled down by this: near tanh's
#: linear middle, small beside the old units, until training gives them something to carry.
NEW_UNIT_SCALE = 0.1
FROM_HINT = "ten distill train starts only from a model file that loads without unpickling (as ten train writes)"
EVAL_DECKS = 1000  # ten eval --games 1000 plays deck seeds 0-999: data on those decks would be measured on itself
#: The names chunk_files writes, and those of its temporary files (``ten_env.record.write_atomically``).
CHUNK_FILE = re.compile(r"chunk-[0-9]+-[0-9]+\.npz|\.chunk-[0-9]+-[0-9]+-[a-z0-9_]+\.npz")
SEAT = 0  # the searching seat: in the solitaire game the agent always sits in seat 0, JEN in seat 1


# ---------------------------------------------------------------------------- generating


def check_teacher(spec: str) -> str:
    """The teacher's spec, stripped, unless it names an agent that sees the deck order (``ValueError``).

    Whether it names a search agent or a network is known once it is loaded
    (:func:`plan_generation`)."""
    return _fair_spec(spec, "teacher", "so its decisions would teach moves that depend on cards nobody can see",
                      TEACHERS_HELP)


def check_player(spec: str | None) -> str | None:
    """The player's spec, stripped (``None``: the teacher plays), unless it is empty or names an agent
    that sees the deck order (``ValueError``)."""
    if spec is None:
        return None
    return _fair_spec(spec, "player", "so the positions it reaches and the outcomes the value learns would "
                                      "depend on cards nobody can see", PLAYERS_HELP)


def _fair_spec(spec: str, role: str, why: str, allowed: str) -> str:
    spec = spec.strip() if isinstance(spec, str) else ""
    if not spec:
        raise ValueError(f"the {role} is empty; use {allowed}")
    if spec.partition(":")[0] == "oracle":
        raise ValueError(f"{role} {spec!r} sees the deck order, {why}; use {allowed}")
    return spec


def _level_rules(rules: dict | None, level: int) -> dict:
    base = dict(rules or {})
    for key in ("num_players", "jen_level"):
        if key in base:
            raise ValueError(f"rules key {key!r} is not allowed: the data is the solitaire game (2 players), "
                             f"its JEN levels set by levels")
    try:
        checked = Rules(**base, num_players=2, jen_level=level)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"rules: {exc}") from None
    return {name: getattr(checked, name) for name in Rules.field_names()}


class _Scribe:
    """Asks the teacher at every decision and writes down what lay behind its move: a search's visit
    shares and root value, or a network's action probabilities and value. It plays the teacher's
    move, or with a ``player`` the player's (the teacher then only labels the player's positions)."""

    def __init__(self, teacher: SearchAgent | PolicyAgent, player: Player | None = None) -> None:
        self.teacher, self.player = teacher, player
        self.searches = hasattr(teacher, "search")
        self.rows: list[tuple] = []  # (observation, mask, policy, value)
        self.single_moves = 0

    def act(self, observation: dict, info: dict) -> int:
        mask = np.asarray(observation["action_mask"]).astype(bool)
        if mask.sum() < 2:  # nothing to choose, nothing to teach
            self.single_moves += 1
            return int(np.flatnonzero(mask)[0])
        vector = np.asarray(observation["observation"], dtype=np.float32)
        if self.searches:
            decision = self.teacher.search(observation, info)  # type: ignore[union-attr]  # searches: a SearchAgent
            visits = np.asarray(decision.visits, dtype=np.float64)
            policy = np.zeros(mask.shape[0], dtype=np.float32)
            policy[decision.actions] = visits / visits.sum()
            action, value = decision.action, decision.value
        else:  # a network plays its likeliest move, as PolicyAgent.act does, from the same forward pass
            probs, values = self.teacher.evaluate(vector[None], mask[None])  # type: ignore[union-attr]  # a PolicyAgent
            policy = np.where(mask, probs[0], 0).astype(np.float32)
            action, value = int(np.argmax(policy)), float(values[0])
        self.rows.append((vector, mask, policy, np.float32(value)))
        # your own player may be a policy function: move_of plays either, and names its failures
        return action if self.player is None else move_of(self.player, 0, observation, info)


def play_teacher_chunk(chunk: Chunk, cache: dict) -> dict:
    """The games of ``chunk`` played by its teacher, every decision written down (one dict of arrays).

    Module-level, so that :func:`train.runner.run_chunks` can run it on worker processes.
    """
    agents = seat_agents(chunk.specs, cache, chunk.trust)  # the teacher, and the player if there is one
    teacher, player = agents[0], (agents[1] if len(agents) > 1 else None)
    rules = as_rules(chunk.rules)
    n = num_actions(rules.max_bid)

    def play(deck_seed: int, order: list[int]) -> tuple[Game, _Scribe]:
        game = Game(rules, seed=deck_seed)
        scribe = _Scribe(teacher, player)
        play_game(game, [scribe])
        return game, scribe

    parts: dict[str, list] = {name: [] for name in ARRAYS}
    wins = single_moves = 0
    for k, ((game, scribe), _) in enumerate(seeded_games(agents, rules, chunk.games, chunk.first_seed,
                                                         play=play)):
        won = game.winners() == [SEAT]  # a tie is JEN's
        wins += won
        single_moves += scribe.single_moves
        count = len(scribe.rows)
        if count:
            observations, masks, policies, values = zip(*scribe.rows)
            parts["observation"].append(np.stack(observations))
            parts["mask"].append(np.stack(masks))
            parts["policy"].append(np.stack(policies))
            parts["value"].append(np.array(values, dtype=np.float32))
        parts["level"].append(np.full(count, rules.jen_level, dtype=np.int8))
        parts["game"].append(np.full(count, k, dtype=np.int32))  # within the chunk; the caller adds its start
        parts["reward"].append(np.full(count, final_rewards(game, SEAT, "margin"), dtype=np.float32))
        parts["win"].append(np.full(count, float(won), dtype=np.float32))
    arrays = _concatenate(parts, n)
    return {"arrays": arrays, "wins": wins, "single_moves": single_moves}


def _row_shape(name: str, n_actions: int) -> tuple:
    """The shape of one decision's entry in the array ``name``."""
    return {"observation": (O.SIZE,), "mask": (n_actions,), "policy": (n_actions,)}.get(name, ())


def _concatenate(parts: dict, n_actions: int) -> dict:
    return {name: (np.concatenate(parts[name]) if parts[name]
                   else np.zeros((0, *_row_shape(name, n_actions)), dtype=dtype)).astype(dtype, copy=False)
            for name, dtype in ARRAYS.items()}


def plan_generation(teacher: str, *, levels: str | Iterable[int] = DEFAULT_LEVELS, games: int, seed: int,
                    jobs: int | None = None, rules: dict | None = None, player: str | None = None) -> dict:
    """Check every input of :func:`generate`, the agents loaded once; what to play. Nothing is played:
    the command line checks everything first, so that a mistake fails before any game."""
    teacher, player = check_teacher(teacher), check_player(player)
    levels = parse_levels(levels)
    whole_number("games", games, 1, MAX_GAMES)
    whole_number("seed", seed, 0)
    jobs = whole_number("jobs", default_jobs() if jobs is None else jobs, 1)
    specs = (teacher,) if player is None else (teacher, player)
    matchups = [(specs, _level_rules(rules, level)) for level in levels]
    from ten_env.deck import load as load_deck

    load_deck(matchups[0][1]["deck_file"])  # an unreadable deck file fails here, with its reason
    cache: dict = {}
    agents = seat_agents(specs, cache)  # a bad model name fails here, before any worker starts
    max_bid = matchups[0][1]["max_bid"]
    _check_teacher_agent(teacher, agents[0], max_bid)
    if player is not None:
        check_max_bid(agents[1], max_bid, f"player {player!r}: its model", "generate")
    files = file_digests(agents, matchups[0][1]["deck_file"], specs)  # what the generation read, for --resume
    if jobs > 1:
        cache.clear()  # the workers load their own
    return {"teacher": teacher, "player": player, "levels": levels, "games": games, "seed": seed, "jobs": jobs,
            "matchups": matchups, "cache": cache, "files": files}


def generate(teacher: str, *, levels: str | Iterable[int] = DEFAULT_LEVELS, games: int, seed: int,
             jobs: int | None = None, rules: dict | None = None, player: str | None = None,
             progress: bool = False) -> dict:
    """Play ``games`` games of ``teacher`` against JEN at each of ``levels``; the data (see the module doc).

    With ``player`` (an agent's name), the player makes the moves and the teacher only labels
    every position the player meets (DAgger). Returns ``{"arrays": {name: array}, "meta":
    {...}}``, as :func:`save_data` writes it and :func:`load_data` reads it back. ``rules``:
    :class:`ten_env.Rules` fields but ``num_players`` and ``jen_level`` (``bust_buy``,
    ``payment``, ``max_bid``, ``deck_file``). The arrays do not depend on ``jobs`` (worker
    processes; default all cores).
    """
    plan = plan_generation(teacher, levels=levels, games=games, seed=seed, jobs=jobs, rules=rules, player=player)
    return play_generation(plan, progress=progress)


def play_generation(plan: dict, progress: bool = False, journal: Journal | None = None) -> dict:
    """Play what :func:`plan_generation` checked (the chunks ``journal`` lacks, recording each there);
    the data of :func:`generate`."""
    teacher, levels, games, seed, jobs = (plan[key] for key in ("teacher", "levels", "games", "seed", "jobs"))
    matchups, cache = plan["matchups"], plan["cache"]
    start = time.perf_counter()
    results: dict[tuple[int, int], dict] = {}  # (level index, first deck seed) -> the chunk's arrays

    def done(task: Chunk, result: dict) -> None:
        results[task.index, task.first_seed] = result

    run_chunks(chunks(matchups, games, seed, jobs), play_teacher_chunk, jobs, cache, done, progress=progress,
               desc="generating", journal=journal)
    seconds = time.perf_counter() - start if journal is None else journal.seconds
    if journal is not None:
        journal.let_go()  # the chunks' arrays are in results alone, let go of one by one below

    wins = [0] * len(levels)
    single_moves = 0
    for (index, _), result in results.items():
        wins[index] += result["wins"]
        single_moves += result["single_moves"]
    arrays = _assemble(results, seed, num_actions(matchups[0][1]["max_bid"]))
    rules_used = {key: value for key, value in matchups[0][1].items() if key != "jen_level"}
    meta = {
        "format": FORMAT, "teacher": teacher, "player": plan["player"], "levels": levels,
        "games_per_level": games, "seed": seed, "agent_seeds": AGENT_SEEDS, "code": code_digest(), "rules": rules_used, "wins_per_level": wins, "decisions": len(arrays["policy"]),
        "single_move_decisions": single_moves, "seconds": round(seconds, 1), "jobs": jobs,
        "ten_env_version": _version(),
    }
    return {"arrays": arrays, "meta": meta}


def _assemble(results: dict, seed: int, n_actions: int) -> dict:
    """The chunks' arrays in one array each, levels then games in order, whatever finished first.

    Each chunk is let go of once copied, so the data is held about once, not twice (a million
    decisions are some 2.5 GB)."""
    order = sorted(results)
    total = sum(len(results[key]["arrays"]["policy"]) for key in order)
    arrays = {name: np.empty((total, *_row_shape(name, n_actions)), dtype=dtype) for name, dtype in ARRAYS.items()}
    at = 0
    for key in order:
        chunk = results.pop(key)["arrays"]
        rows = len(chunk["policy"])
        for name in ARRAYS:
            arrays[name][at:at + rows] = chunk[name]
        arrays["game"][at:at + rows] += key[1] - seed  # a chunk counts its games from 0
        at += rows
    return arrays


def generation_identity(plan: dict) -> dict:
    """What makes two generations the same one (for ``--resume``), each part by its name."""
    return with_rules_and_files({"teacher": plan["teacher"], "player": plan["player"], "levels": plan["levels"],
                                 "games": plan["games"], "seed": plan["seed"]}, plan)


def parts_folder(out: Path) -> Path:
    """Where ``ten distill generate -o DATA.npz`` keeps its journal and each chunk's arrays until
    the data is saved: ``DATA.parts``."""
    return out.with_suffix(".parts")


def chunk_files(folder: Path) -> Codec:
    """Each chunk's arrays in a file of its own in ``folder``, its line naming the file."""

    def encode(chunk: Chunk, result: dict) -> dict:
        name = f"chunk-{chunk.index}-{chunk.first_seed}.npz"

        def write(tmp: Path) -> None:
            with open(tmp, "wb") as handle:
                np.savez_compressed(handle, **result["arrays"])

        write_atomically(folder / name, write)  # whole before its line names it
        return {"file": name, "sha256": _digest(folder / name), "wins": result["wins"],
                "single_moves": result["single_moves"]}

    def decode(entry: dict) -> dict | None:
        name = entry["file"]
        if not isinstance(name, str) or not CHUNK_FILE.fullmatch(name) or name.startswith("."):
            raise ValueError(f"not a chunk file's name: {name!r}")  # the journal is damaged
        try:
            # another file than the one its line was written for (copied over it, damaged): played again
            if "sha256" in entry and _digest(folder / name) != entry["sha256"]:
                return None
            with np.load(folder / name, allow_pickle=False) as data:
                arrays = {key: data[key] for key in ARRAYS}
        except Exception:  # gone, cut short or damaged (np.load raises EOFError, zlib.error ...): played again
            return None
        return {"arrays": arrays, "wins": int(entry["wins"]), "single_moves": int(entry["single_moves"])}

    return Codec(encode, decode)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _remove_parts(folder: Path) -> None:
    """The journal and chunk files of ``folder`` (only those), and the folder if nothing else is left."""
    if not folder.is_dir():
        return
    for path in folder.iterdir():
        if path.name == JOURNAL or CHUNK_FILE.fullmatch(path.name):
            path.unlink()
    try:
        folder.rmdir()
    except OSError:  # something of the user's is in it: left alone
        pass


def _check_teacher_agent(spec: str, agent: object, max_bid: int) -> None:
    from agents import PolicyAgent, SearchAgent

    if getattr(agent, "sees_deck_order", False) or not isinstance(agent, (SearchAgent, PolicyAgent)):
        raise ValueError(f"teacher {spec!r} is neither a fair search agent nor a network: it has no visit "
                         f"counts or action probabilities to teach; use {TEACHERS_HELP}")
    check_max_bid(agent, max_bid, f"teacher {spec!r}: its model", "generate")


def _version() -> str:
    from .cli import version

    return version()


def save_data(data: dict, path: str | Path) -> Path:
    """Write ``data`` (from :func:`generate`) as one compressed ``.npz``."""
    path = Path(path)

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as handle:  # a file object: numpy would add .npz to a name
            np.savez_compressed(handle, meta=np.array(json.dumps(data["meta"])), **data["arrays"])

    try:
        write_atomically(path, write)
    except OSError as exc:
        raise ValueError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
    return path


def load_data(path: str | Path) -> dict:
    """A data file of ``ten distill generate``, read without unpickling; ``ValueError`` saying what is wrong."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"data file {str(path)!r} does not exist" if not path.exists()
                         else f"data file {str(path)!r} is not a file")
    not_data = f"{str(path)!r} is not a data file of ten distill generate"
    try:
        with path.open("rb") as file:
            archive = zipfile.is_zipfile(file)
    except OSError as exc:
        raise ValueError(f"cannot read data file {str(path)!r}: {exc.strerror or exc}") from None
    if not archive:  # numpy would take it for a pickle and suggest unpickling it
        raise ValueError(f"{not_data} (not an .npz archive)")
    try:
        with np.load(path, allow_pickle=False) as archive:
            missing = [name for name in ("meta", *ARRAYS) if name not in archive.files]
            if missing:
                raise ValueError(f"{not_data}: it has no {', '.join(missing)}")
            meta = json.loads(str(archive["meta"]))
            arrays = {name: archive[name] for name in ARRAYS}
    except ValueError as exc:
        if str(exc).startswith(not_data):
            raise
        raise ValueError(f"{not_data} ({exc})") from None
    except Exception as exc:  # a zip of the wrong kind fails in many ways inside numpy
        raise ValueError(f"{not_data} ({type(exc).__name__}: {exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{not_data}: its meta is not {FORMAT}")
    rows = len(arrays["policy"])
    shapes = {name: array.shape for name, array in arrays.items()}
    if any(len(shape) != (2 if name in ("observation", "mask", "policy") else 1) or shape[0] != rows
           for name, shape in shapes.items()) or shapes["mask"] != shapes["policy"]:
        raise ValueError(f"{not_data}: its arrays do not fit together ({shapes})")
    # A NaN or an infinity (which generate never writes) made the loss NaN, and the advice a smaller
    # --lr. A sum carries either through without an array of flags as large as the data.
    broken = [name for name, array in arrays.items()
              if array.dtype.kind == "f" and not np.isfinite(array.sum(dtype=np.float64))]
    if broken:
        raise ValueError(f"{not_data}: its {', '.join(broken)} array{'s hold' if len(broken) > 1 else ' holds'} "
                         f"NaN or infinite numbers")
    return {"arrays": arrays, "meta": meta, "path": str(path)}


def summary(data: dict, path: str | Path) -> str:
    """The one line ``ten distill generate`` ends with."""
    meta = data["meta"]
    n = meta["games_per_level"]
    rates = ", ".join(f"JEN {level} {100 * w / n:.0f}%" for level, w in zip(meta["levels"], meta["wins_per_level"]))
    games = n * len(meta["levels"])
    player = meta.get("player")
    who = meta["teacher"] if player is None else f"{player} (the player; {meta['teacher']} labelled its positions)"
    return (f"saved {path}: {meta['decisions']} decisions from {games} games ({n} per level); "
            f"{who} won {rates}; {_duration(meta['seconds'])}")


def _duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{seconds:.1f} s"


# ---------------------------------------------------------------------------- training


def _model_facts(path: Path) -> tuple[tuple, int]:
    """(observation shape, action count) of a model file, from its plain fields."""
    from agents.safe_load import action_space, observation_shape, read_data

    data = read_data(path)
    return observation_shape(path, data), int(action_space(path, data).n)


def _losses(policy: MaskableActorCriticPolicy, observations: torch.Tensor, masks: torch.Tensor, targets: torch.Tensor,
            rewards: torch.Tensor, rows: torch.Tensor, batch: int = 4096) -> dict:
    """Mean policy cross-entropy, value squared error and argmax agreement over ``rows`` (indices)."""
    import torch

    total = {"policy_loss": 0.0, "value_loss": 0.0, "agreement": 0.0}
    if not len(rows):
        return {key: float("nan") for key in total}
    policy.set_training_mode(False)
    with torch.no_grad():
        for start in range(0, len(rows), batch):
            part = rows[start:start + batch]  # indexed a batch at a time: no copy of all the rows at once
            log_probs, values = _forward(policy, observations[part], masks[part])
            total["policy_loss"] += float(-(targets[part] * log_probs).sum(1).sum())
            total["value_loss"] += float(((values - rewards[part]) ** 2).sum())
            # Agreement: the network's first choice is a move the search visited most (ties are
            # common with a small budget, and any of the tied moves is the search's argmax).
            most = targets[part] >= targets[part].max(1, keepdim=True).values
            total["agreement"] += float(most.gather(1, log_probs.argmax(1, keepdim=True)).sum())
    return {key: value / len(rows) for key, value in total.items()}


def _forward(policy: MaskableActorCriticPolicy, observations: torch.Tensor,
             masks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The masked log-probabilities and the values, as the agent's policy computes them to play."""
    distribution = policy.get_distribution(observations, action_masks=masks)  # type: ignore[arg-type]  # takes tensors
    return (distribution.distribution.logits,  # type: ignore[union-attr]  # sb3-contrib's: a MaskableCategorical
            policy.predict_values(observations)[:, 0])


def _split_games(datasets: list[dict], holdout: float, seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Row indices (training, validation): whole deals held out; and the number of deals.

    A deal is a JEN level and a deck seed: the decisions of one deal in two files (the same
    file twice, files over the same seeds, a player's and the search's games of it) go to the
    same side, so the validation loss is measured on deals training never met. Each deal is
    named by the first file that holds it, so files over distinct seeds split as games did."""
    # (level, deck seed) -> (file, game) of the first file that holds it
    first: dict[tuple[int, int], tuple[int, int, int]] = {}
    per_file = []
    for i, d in enumerate(datasets):
        pairs = np.stack([d["arrays"]["level"].astype(np.int64), d["arrays"]["game"].astype(np.int64)], axis=1)
        played, rows = np.unique(pairs, axis=0, return_inverse=True)
        start = int(d["meta"]["seed"])
        named = np.array([first.setdefault((level, start + game), (i, level, game)) for level, game in played.tolist()],
                         dtype=np.int64).reshape(-1, 3)
        per_file.append(named[rows.reshape(-1)])
    games, group = np.unique(np.concatenate(per_file), axis=0, return_inverse=True)
    group = group.reshape(-1)
    n_games = len(games)
    if n_games < 2:
        raise ValueError(f"the data holds {n_games} game{'s' if n_games != 1 else ''} with decisions: "
                         f"at least 2 are needed to hold some out for validation")
    held = min(n_games - 1, max(1, round(holdout * n_games)))
    chosen = np.random.default_rng(seed).choice(n_games, size=held, replace=False)
    is_held = np.isin(group, chosen)
    return np.flatnonzero(~is_held), np.flatnonzero(is_held), n_games


def hidden_layers(network: torch.nn.Sequential) -> tuple[int, ...]:
    """The sizes of the hidden layers of one of a policy's networks (``mlp_extractor.policy_net``
    or ``value_net``: linear layers and their activations in turn)."""
    import torch

    return tuple(layer.out_features for layer in network if isinstance(layer, torch.nn.Linear))


def policy_layers(model: MaskablePPO) -> tuple[int, ...]:
    """The sizes of the hidden layers of ``model``'s policy network."""
    return hidden_layers(model.policy.mlp_extractor.policy_net)


def widen_policy(model: MaskablePPO, width: int) -> None:
    """Give every hidden layer of ``model``'s policy network ``width`` units, computing the same policy.

    Each old unit keeps its weights; the new ones start with small incoming weights
    (:data:`NEW_UNIT_SCALE`), and nothing reads them yet (their outgoing weights are zero), so
    training starts from the starting model's policy with room to learn what it could not hold
    (net2net's widening, Chen et al. 2016, with zeros where net2net splits units). The value
    network is kept as it is; the saved file records the new layer sizes (``net_arch`` with
    ``pi`` and ``vf``), which :mod:`agents.safe_load` reads like any other.
    """
    import torch

    old_layers = policy_layers(model)
    if not old_layers:
        raise ValueError("the starting model's policy network has no hidden layer for --width to widen")
    if width < max(old_layers):
        raise ValueError(f"--width {width} is narrower than the starting model's policy layers "
                         f"{list(old_layers)}: it can only widen them")
    if all(units == width for units in old_layers):
        raise ValueError(f"--width {width} is the starting model's policy layers {list(old_layers)} already: "
                         f"give a wider width, or leave --width out")
    old = model.policy
    kwargs = {**model.policy_kwargs, "net_arch": {"pi": [width] * len(old_layers),
                                                  "vf": list(hidden_layers(old.mlp_extractor.value_net))}}
    new: MaskableActorCriticPolicy = model.policy_class(  # type: ignore[assignment]  # SB3 types it any BasePolicy
        model.observation_space, model.action_space, model.lr_schedule, **kwargs)
    with torch.no_grad():
        new.mlp_extractor.value_net.load_state_dict(old.mlp_extractor.value_net.state_dict())
        new.value_net.load_state_dict(old.value_net.state_dict())
        linear: list[tuple[torch.nn.Linear, torch.nn.Linear]] = [  # type: ignore[assignment]  # new's are Linears too
            (a, b) for a, b in zip(old.mlp_extractor.policy_net, new.mlp_extractor.policy_net)
            if isinstance(a, torch.nn.Linear)] + [
            (old.action_net, new.action_net)]  # type: ignore[list-item]  # SB3 types action_net as a Module: a Linear
        for k, (a, b) in enumerate(linear):
            rows, cols = a.weight.shape
            if k < len(linear) - 1:
                b.weight[rows:] *= NEW_UNIT_SCALE
                b.bias[rows:] = 0.0
            b.weight[:rows, :cols] = a.weight
            b.weight[:rows, cols:] = 0.0
            b.bias[:rows] = a.bias
    model.policy = new.to(old.device)
    model.policy_kwargs = kwargs


def add_derived_features(model: MaskablePPO) -> None:
    """Give ``model``'s networks the derived features (:mod:`ten_env.features`) as inputs after the
    observation, computing the same policy and value: the new inputs start with zero weights, so
    only training makes anything of them. The saved file records the extended observation space,
    which :mod:`agents.safe_load` and :class:`agents.PolicyAgent` read like any other."""
    import gymnasium

    old = model.policy
    low, high = F.space_bounds()
    space = gymnasium.spaces.Box(low=low, high=high, dtype=np.float32)
    new = model.policy_class(space, model.action_space, model.lr_schedule, **model.policy_kwargs)
    load_with_new_inputs(new, old.state_dict())
    model.policy = new.to(old.device)  # type: ignore[assignment]  # policy_class: a MaskableActorCriticPolicy
    model.observation_space = space


def load_with_new_inputs(policy: torch.nn.Module, state: dict) -> None:
    """Load the weights ``state`` of a network that takes the plain observation into ``policy``,
    the same network taking the derived features after it: the features' columns of the first
    layers are zero, so ``policy`` computes what the plain network did until it is trained."""
    import torch

    target = policy.state_dict()
    if target.keys() != state.keys():
        raise ValueError(f"the networks differ in their layers ({sorted(target.keys() ^ state.keys())}): "
                         f"only their inputs may differ")
    for name, value in target.items():
        was = tuple(state[name].shape)
        # a weight matrix is (outputs, inputs): only the inputs may grow
        if len(was) != value.dim() or any(a != b and not (i == 1 and a < b) for i, (a, b) in
                                          enumerate(zip(was, value.shape))):
            raise ValueError(f"the networks differ in {name} (shape {list(was)} against {list(value.shape)}): "
                             f"only their inputs may differ")
    with torch.no_grad():
        for name, value in target.items():
            was = state[name]
            value.zero_()
            value[tuple(slice(0, n) for n in was.shape)] = was


def _extended(observations: torch.Tensor) -> torch.Tensor:
    """The observations (a tensor, decisions x ``observation.SIZE``) with their derived features, in
    chunks: millions of decisions need little more memory than the result."""
    import torch

    whole = np.empty((len(observations), F.EXTENDED_SIZE), dtype=np.float32)
    for first in range(0, len(observations), 65536):
        whole[first:first + 65536] = F.extend(observations[first:first + 65536].numpy())
    return torch.from_numpy(whole)


def outcome(rewards: torch.Tensor, wins: torch.Tensor) -> torch.Tensor:
    """What each game was worth to the search itself (:func:`agents.search.outcome_value`): (result +
    margin / 20) / 2, the result +1 for a win and -1 for a loss (JEN wins ties, so there are no shared
    wins), from the data's margin reward and win columns."""
    return ((2 * wins - 1) + rewards) / 2


def sharpened(targets: torch.Tensor, power: float) -> torch.Tensor:
    """Each row of visit shares raised to ``power`` and renormalised: 1 leaves them as they are;
    higher leans on the most visited moves, which the network, played by its argmax, must get right."""
    if power == 1:
        return targets
    raised = (targets / targets.max(1, keepdim=True).values) ** power  # scaled first: no underflow to 0/0
    return raised / raised.sum(1, keepdim=True)


def train_network(data_paths: list, start: str, out: str | Path, *, epochs: int = 4, lr: float = 1e-4, batch: int = 512,
                  value_weight: float = 0.5, holdout: float = 0.1, seed: int = 0, sharpen: float = 1.0,
                  value_target: str = "reward", policy_weight: float = 1.0, width: int | None = None,
                  features: bool = False, overwrite: bool = False,
                  echo: Callable[[str], object] | None = print) -> dict:
    """Train ``start``'s network on the data files, save it at ``out`` (a ``.zip``) with its card
    (``.json`` beside it); the card, as a dict. ``echo`` gets one line per epoch (``None``: quiet).

    See the module docstring for the losses, the validation and what the card holds.
    """
    if not data_paths:
        raise ValueError("give at least one data file of ten distill generate")
    whole_number("epochs", epochs, 1)
    whole_number("batch", batch, 1)
    if not (isinstance(lr, (int, float)) and math.isfinite(lr) and lr > 0):
        raise ValueError(f"lr must be a number above 0, got {lr!r}")
    for name, weight in (("value_weight", value_weight), ("policy_weight", policy_weight)):
        if isinstance(weight, bool) or not (isinstance(weight, (int, float)) and math.isfinite(weight)
                                            and weight >= 0):
            raise ValueError(f"{name} must be a number, 0 or more, got {weight!r}")
    if policy_weight == 0 and value_weight == 0:
        raise ValueError("policy_weight and value_weight (--policy-weight, --value-weight) are both 0: "
                         "there would be nothing to train")
    if isinstance(sharpen, bool) or not (isinstance(sharpen, (int, float)) and math.isfinite(sharpen)
                                         and sharpen >= 1):
        raise ValueError(f"sharpen must be a number, 1 or more, got {sharpen!r}")
    if value_target not in VALUE_TARGETS:
        raise ValueError(f"value_target must be one of {', '.join(VALUE_TARGETS)}, got {value_target!r}")
    if width is not None:
        whole_number("width", width, 1)
        if policy_weight == 0:
            raise ValueError("width widens the policy network, which policy_weight 0 leaves as it is: "
                             "give one or the other")
    if not (isinstance(holdout, (int, float)) and 0 < holdout < 1):
        raise ValueError(f"holdout must be a share of the games above 0 and below 1, got {holdout!r}")
    if features and policy_weight == 0:
        raise ValueError("features gives the policy network new inputs, which policy_weight 0 leaves unread: "
                         "give one or the other")
    out = check_output(out, ".zip", "the model", overwrite, beside=(".json",))
    from .config import model_path

    try:
        start_path = model_path(start)
        shape, n_actions = _model_facts(start_path)
    except ValueError as exc:
        raise ValueError(f"--from: {exc}") from None
    derived = shape == (F.EXTENDED_SIZE,)  # the starting model takes the derived features already
    if features and derived:
        raise ValueError(f"--from {start!r} takes the derived features already: leave --features out")
    datasets = [load_data(path) for path in data_paths]
    for data in datasets:
        obs_size, data_actions = data["arrays"]["observation"].shape[1], data["arrays"]["mask"].shape[1]
        if (obs_size + (F.SIZE if derived else 0),) != shape or data_actions != n_actions:
            raise ValueError(
                f"data file {data['path']!r} has observations of {obs_size} floats and {data_actions} actions, "
                f"but the starting model {start!r} has observations of {shape[0] if len(shape) == 1 else shape} "
                f"floats and {n_actions} actions: distill into a model made for the same game")

    import torch

    import ten_env
    from agents.safe_load import RESUME_HINT, load_model, load_policy, model_card

    began = time.perf_counter()
    torch.manual_seed(seed)
    max_bid = max_bid_for(n_actions)
    env = ten_env.SoloEnv(jen_level=JEN_LEVELS[0], max_bid=max_bid)
    try:
        model = load_model(start_path, env=F.DerivedFeatures(env) if derived else env, device="cpu")
    except ValueError as exc:  # only what loads without unpickling: no --trust-model here
        raise ValueError(f"--from: {str(exc).replace(RESUME_HINT, FROM_HINT)}") from None
    layers_at_start = policy_layers(model)
    if features:
        add_derived_features(model)
    if width is not None:
        widen_policy(model, width)
    make_writable(out.parent)  # made only once every input is known to be right, and before the training
    policy = model.policy

    def stacked(name: str, dtype: npt.DTypeLike) -> torch.Tensor:
        """The files' rows of one array in one tensor; each file's copy is dropped once it is in place,
        so that millions of decisions need little more memory than the tensor itself."""
        parts = [d["arrays"].pop(name) for d in datasets]
        whole = np.empty((sum(len(part) for part in parts), *parts[0].shape[1:]), dtype=dtype)
        at = 0
        while parts:
            part = parts.pop(0)
            whole[at:at + len(part)] = part
            at += len(part)
            del part
        return torch.from_numpy(whole)

    observations, masks = stacked("observation", np.float32), stacked("mask", np.bool_)
    if features or derived:
        observations = _extended(observations)
    # Sharpening works in float64 (small shares to a power); the shares as they are need no more than float32.
    targets = sharpened(stacked("policy", np.float64 if sharpen != 1 else np.float32), sharpen).float()
    rewards = stacked("reward", np.float32)
    if value_target == "outcome":
        rewards = outcome(rewards, stacked("win", np.float32))
    train_rows, valid_rows, n_games = _split_games(datasets, holdout, seed)
    train_idx, valid_idx = torch.as_tensor(train_rows), torch.as_tensor(valid_rows)

    def measure(rows: torch.Tensor) -> dict:
        return _losses(policy, observations, masks, targets, rewards, rows)

    positive = targets > 0
    floor = float(-(targets[positive] * targets[positive].log()).sum() / len(targets))
    say = echo or (lambda line: None)
    say(f"{len(targets)} decisions from {n_games} deals, {len(valid_rows)} of them in the held-out deals; "
        f"the targets' entropy (the policy loss's floor) is {floor:.3f}")

    def record(epoch: int, trained: dict, valid: dict) -> dict:
        entry = {"epoch": epoch,
                 "train_policy_loss": trained["policy_loss"], "train_value_loss": trained["value_loss"],
                 "validation_policy_loss": valid["policy_loss"], "validation_value_loss": valid["value_loss"],
                 "validation_loss": policy_weight * valid["policy_loss"] + value_weight * valid["value_loss"],
                 "validation_agreement": valid["agreement"]}
        label = "start" if epoch == 0 else f"{epoch}/{epochs}"
        say(f"epoch {label:>5}  train: policy {trained['policy_loss']:.4f} value {trained['value_loss']:.4f}  "
            f"validation: policy {valid['policy_loss']:.4f} value {valid['value_loss']:.4f} "
            f"agreement {100 * valid['agreement']:.1f}%")
        return entry

    history = [record(0, measure(train_idx), measure(valid_idx))]
    optimizer = torch.optim.Adam(policy.parameters(), lr=lr)
    generator = torch.Generator().manual_seed(seed)
    best, best_state = None, None
    for epoch in range(1, epochs + 1):
        policy.set_training_mode(True)
        order = train_idx[torch.randperm(len(train_idx), generator=generator)]
        for first in range(0, len(order), batch):
            rows = order[first:first + batch]
            if policy_weight:
                log_probs, values = _forward(policy, observations[rows], masks[rows])
                loss: torch.Tensor | float = -policy_weight * (targets[rows] * log_probs).sum(1).mean()
            else:  # the value alone: the policy network is not even run, and keeps its weights exactly
                values, loss = policy.predict_values(observations[rows])[:, 0], 0.0
            loss = loss + value_weight * torch.nn.functional.mse_loss(values, rewards[rows])
            if not torch.isfinite(loss):
                raise ValueError(f"training diverged in epoch {epoch}: the loss is {float(loss)}; give a "
                                 f"smaller --lr (it was {lr:g}) or --value-weight (it was {value_weight:g})")
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        entry = record(epoch, measure(train_idx), measure(valid_idx))
        if not all(math.isfinite(entry[key]) for key in ("train_policy_loss", "train_value_loss", "validation_loss")):
            raise ValueError(f"training diverged in epoch {epoch}: its losses are not finite; give a smaller --lr "
                             f"(it was {lr:g}) or --value-weight (it was {value_weight:g})")
        history.append(entry)
        if best is None or entry["validation_loss"] < best["validation_loss"]:
            best, best_state = entry, copy.deepcopy(policy.state_dict())
    policy.load_state_dict(best_state)
    policy.set_training_mode(False)
    # PPO going on from this file starts its optimizer afresh: the saved moments were the starting model's.
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=model.lr_schedule(1),
                                              **policy.optimizer_kwargs)
    seconds = time.perf_counter() - began

    def write(tmp: Path) -> None:
        model.save(tmp)
        load_policy(tmp)  # what ten eval and PolicyAgent will do: no unpickling, or no file

    try:
        write_atomically(out, write)
    except OSError as exc:
        raise ValueError(f"cannot write {str(out)!r}: {exc.strerror or exc}") from None
    start_entry = history[0]
    assert best is not None  # epochs >= 1
    card = model_card(
        model, name=out.stem,
        method=(("ten distill train --policy-weight 0: the starting model's value network fitted to the "
                 "teacher's games, its policy network kept as it was"
                 if policy_weight == 0 else
                 "expert iteration (ten distill train --value-weight 0): the starting model's policy network "
                 "trained on the teacher's decisions, its value network kept as it was"
                 if value_weight == 0 else
                 "expert iteration (ten distill train): the starting model's network trained on the teacher's "
                 "decisions")
                + ("; the derived features (ten_env.features) first added to its inputs (--features), "
                   "with zero weights, keeping its policy and value" if features else "")
                + (f"; its policy network first widened to {width} units a layer (--width), keeping its policy"
                   if width is not None else "")
                + "; training_steps are the starting model's PPO steps"),
        started_from=start,
        data=[{"file": d["path"], "teacher": d["meta"]["teacher"], "player": d["meta"].get("player"),
               "levels": d["meta"]["levels"],
               "games_per_level": d["meta"]["games_per_level"], "seed": d["meta"]["seed"],
               "games": d["meta"]["games_per_level"] * len(d["meta"]["levels"]),
               "decisions": len(d["arrays"]["game"]), "rules": d["meta"]["rules"]} for d in datasets],
        epochs=epochs, learning_rate=lr, batch_size=batch, policy_weight=policy_weight,
        value_weight=value_weight, sharpen=sharpen,
        value_target=value_target,
        policy_layers_at_start=list(layers_at_start), widened_to=width,
        derived_features=features or derived, derived_features_added=features,
        holdout=holdout, seed=seed,
        games=sum(d["meta"]["games_per_level"] * len(d["meta"]["levels"]) for d in datasets), deals=n_games,
        train_decisions=len(train_rows), validation_decisions=len(valid_rows),
        target_entropy=floor,
        epoch_losses=history, kept_epoch=best["epoch"],
        validation={key: best[key] for key in ("validation_policy_loss", "validation_value_loss",
                                               "validation_loss", "validation_agreement")},
        start_validation={key: start_entry[key] for key in ("validation_policy_loss", "validation_value_loss",
                                                            "validation_loss", "validation_agreement")},
        training_time=_duration(seconds), training_seconds=round(seconds, 1),
        machine=_machine(torch.__version__), ten_env_version=_version(),
    )
    card_path = out.with_suffix(".json")
    try:
        write_atomically(card_path, lambda tmp: tmp.write_text(json.dumps(card, indent=2)))
    except OSError as exc:
        raise ValueError(f"cannot write {str(card_path)!r}: {exc.strerror or exc}; the model is saved in "
                         f"{str(out)!r}") from None
    verdict = ("" if best["validation_loss"] < start_entry["validation_loss"]
               else ": no epoch beat the starting weights on validation (less --lr, or more data?)")
    say(f"kept epoch {best['epoch']} (validation loss {best['validation_loss']:.4f}, the starting weights' "
        f"{start_entry['validation_loss']:.4f}){verdict}; saved {out} and {card_path}; {_duration(seconds)}")
    return card


def _machine(torch_version: str) -> str:
    cores = os.cpu_count() or 1
    return (f"{cores}-core {platform.machine() or 'unknown'} CPU, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}, torch {torch_version}")


# ---------------------------------------------------------------------------- command line


_learning_rate = real_number("--lr", "a number above 0", lambda value: value > 0)
_weight = real_number("--value-weight", "a number, 0 or more", lambda value: value >= 0)
_policy_weight = real_number("--policy-weight", "a number, 0 or more", lambda value: value >= 0)
_share = real_number("--holdout", "a share of the games above 0 and below 1 (e.g. 0.1)", lambda value: 0 < value < 1)
_sharpen = real_number("--sharpen", "a number, 1 or more", lambda value: value >= 1)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``ten distill generate`` and ``ten distill train``."""
    steps = parser.add_subparsers(dest="step", metavar="STEP")
    gen = steps.add_parser(
        "generate", help="a search agent or network plays JEN; its decisions saved as training data (.npz)",
        description="Play a search agent (or a network) against JEN, GAMES games per level, and save every "
                    "decision it makes with its visit counts (a network's probabilities: the policy target) "
                    "and the game's outcome (the value target).")
    gen.add_argument("teacher", metavar="TEACHER", help=f"the teacher: {TEACHERS_HELP}")
    gen.add_argument("--player", metavar="AGENT",
                     help="an agent that makes the moves instead (e.g. the network being trained); the teacher "
                          "then only labels the positions the player reaches (DAgger), and the outcomes are "
                          "the player's")
    gen.add_argument("--levels", default=DEFAULT_LEVELS, metavar="LEVELS",
                     help=f"JEN levels ({span(JEN_LEVELS)}, a list such as 6,8,10, or one level; "
                          f"default {DEFAULT_LEVELS})")
    gen.add_argument("--games", type=int_range(1, MAX_GAMES, "--games"), required=True, metavar="N",
                     help="games per level")
    gen.add_argument("--seed", type=at_least(0, "--seed"), required=True, metavar="S",
                     help="game i of each level uses deck seed S+i (keep away from the seeds you evaluate on: "
                          "ten eval uses 0 to games-1 by default)")
    add_jobs_argument(gen, "J")
    add_progress_argument(gen)
    add_rules_arguments(gen)
    gen.add_argument("-o", "--out", required=True, metavar="DATA.npz", help="the data file to write")
    gen.add_argument("--overwrite", action="store_true",
                     help="replace the data file if it exists (or start an unfinished generation again)")
    gen.add_argument("--resume", action="store_true",
                     help="go on with an interrupted generation of this data file (its DATA.parts folder): give "
                          "the same teacher and options; --jobs may differ")
    gen.set_defaults(run=run_generate)

    fit = steps.add_parser(
        "train", help="train a network on the data of ten distill generate",
        description="Train a model's policy on the search's visit counts and its value on the games' "
                    "outcomes, keeping the epoch with the best validation loss; save it as a MaskablePPO .zip.")
    fit.add_argument("data", nargs="+", metavar="DATA.npz", help="data files of ten distill generate")
    fit.add_argument("--from", dest="start", required=True, metavar="MODEL",
                     help="the starting weights: a shipped model (ppo-jen, ...) or a model .zip")
    fit.add_argument("--epochs", type=at_least(1, "--epochs"), default=4, metavar="N", help="default 4")
    fit.add_argument("--lr", type=_learning_rate, default=1e-4, metavar="LR",
                     help="Adam's learning rate (default 1e-4)")
    fit.add_argument("--batch", type=at_least(1, "--batch"), default=512, metavar="N",
                     help="decisions per minibatch (default 512)")
    fit.add_argument("--value-weight", type=_weight, default=0.5, metavar="W",
                     help="weight of the value loss beside the policy loss (default 0.5; 0 trains the "
                          "policy alone and leaves the value network exactly as it was)")
    fit.add_argument("--policy-weight", type=_policy_weight, default=1.0, metavar="W",
                     help="weight of the policy loss (default 1; 0 trains the value alone and leaves the "
                          "policy exactly as it was)")
    fit.add_argument("--sharpen", type=_sharpen, default=1.0, metavar="K",
                     help="policy targets = visit shares to the power K, renormalised (default 1: as visited; "
                          "higher leans on the most visited move)")
    fit.add_argument("--value-target", choices=VALUE_TARGETS, default="reward",
                     help="what the value head learns: the margin reward PPO's value estimates (default), or "
                          "outcome, (result + margin / 20) / 2, the search's own value of a finished game")
    fit.add_argument("--width", type=int_range(1, MAX_WIDTH, "--width"), metavar="N",
                     help="widen every hidden layer of the starting policy network to N units first, keeping "
                          "its policy (the new units start unread); the value network stays as it is")
    fit.add_argument("--features", action="store_true",
                     help="give the starting network the derived features (bust odds, what each card would add "
                          "to each score; ten_env.features) as new inputs first, with zero weights")
    fit.add_argument("--holdout", type=_share, default=0.1, metavar="SHARE",
                     help="share of the games held out for validation (default 0.1)")
    fit.add_argument("--seed", type=int_range(0, 2**63 - 1, "--seed"), default=0, metavar="N",
                     help="seeds the held-out games, the minibatches and torch (default 0; torch takes 64 bits)")
    fit.add_argument("-o", "--out", required=True, metavar="MODEL.zip",
                     help="the model to write (its card MODEL.json beside it)")
    fit.add_argument("--overwrite", action="store_true", help="replace the model and its card if they exist")
    fit.set_defaults(run=run_train)
    parser.set_defaults(run=_no_step)


def _no_step(args: argparse.Namespace) -> int:
    raise ValueError("ten distill needs a step: generate (a search agent's decisions as data) or train "
                     "(a network on that data); see ten distill --help")


def run_generate(args: argparse.Namespace) -> int:
    teacher, player = check_teacher(args.teacher), check_player(args.player)
    levels = parse_levels(args.levels)
    # --resume replaces a data file left by an earlier run, as the finished generation will
    out = check_output(args.out, ".npz", "the data", args.overwrite or args.resume)
    parts = parts_folder(out)
    # save_data says why it cannot write the data as a ValueError
    run = Resumable(parts, args.resume, args.overwrite, what="generation", of=f"of {str(out)!r}",
                    place=f"{str(parts)!r}, beside {str(out)!r},", option="-o",
                    same="the same teacher and options", product="the data", finished=out, save_errors=(ValueError,))
    rules = rules_from_args(args)
    jobs = default_jobs() if args.jobs is None else args.jobs
    plan = plan_generation(teacher, levels=levels, games=args.games, seed=args.seed, jobs=jobs, rules=rules,
                           player=player)

    def prepare() -> None:  # made only once everything else is known to be right
        if not args.resume:
            _remove_parts(parts)  # an unfinished generation that --overwrite starts again
        make_writable(parts)

    journal = run.open(generation_identity(plan), plan, chunks(plan["matchups"], args.games, args.seed, jobs),
                       chunk_files(parts), prepare)
    if args.seed < EVAL_DECKS:
        last = args.seed + args.games - 1
        seeds = f"deck seed {args.seed} is" if args.games == 1 else f"deck seeds {args.seed}-{last} are"
        print(f"note: {seeds} among those ten eval plays by "
              f"default (from 0; --games {EVAL_DECKS} plays 0-{EVAL_DECKS - 1}): evaluate on other seeds, or "
              f"generate with --seed {EVAL_DECKS} or more", file=sys.stderr)
    with run.playing():
        data = play_generation(plan, progress=not args.no_progress, journal=journal)
    with run.saving():
        save_data(data, out)
    _remove_parts(parts)
    print(summary(data, out))
    return 0


def run_train(args: argparse.Namespace) -> int:
    need_training_extra("ten distill train", "torch", "stable_baselines3", "sb3_contrib")
    import torch

    # One thread whatever OMP_NUM_THREADS says, as ten train does: the same weights from the same data
    # on any machine (generating needs nothing here: ten's own default is already one thread).
    torch.set_num_threads(1)
    train_network(args.data, args.start, args.out, epochs=args.epochs, lr=args.lr, batch=args.batch,
                  value_weight=args.value_weight, holdout=args.holdout, seed=args.seed,
                  sharpen=args.sharpen, value_target=args.value_target, policy_weight=args.policy_weight,
                  width=args.width, features=args.features, overwrite=args.overwrite,
                  echo=lambda line: print(line, flush=True))
    return 0
