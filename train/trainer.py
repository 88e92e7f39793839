"""``ten train CONFIG.yaml``: MaskablePPO on TEN, from a config file (see :mod:`train.config`).

What a run leaves in its output folder::

    config.yaml        the resolved config (with every default written out)
    meta.json          package versions, seed, start time
    model.zip          the final policy (load it with agents.PolicyAgent)
    model.json         its card: policy arguments as plain values, spaces, steps, seconds, machine
    checkpoints/       the last 3 step_<N>.zip and state.json (for --resume)
    pool/              self-play: the learner's past policies
    tb/                TensorBoard logs: ten/win_rate, ten/margin, ten/episode_length,
                       ten/jen_level; the periodic evaluations' ten/eval_win_rate and
                       ten/eval_margin against JEN, ten/eval_win_rate_vs_<agent> and
                       ten/eval_margin_vs_<agent> (with _<N>p for each table size) at
                       normal tables; and SB3's own
    eval/              the final evaluation: report.json, and ladder.png against JEN;
                       eval/<N>p/ for each table size of a run over several

Every model file this module reads (a self-play pool opponent, a checkpoint to
resume) is loaded without unpickling anything (:mod:`agents.safe_load`).

A run's random streams (the envs' deals, SB3's sampling, torch) start from ``train.seed``;
a resumed run's from ``train.seed`` plus the steps done (:func:`run_seed_at`), so that it goes
on with new games rather than the first ones again. ``--overwrite`` deletes only a folder
that holds a run: both the ``config.yaml`` and the ``meta.json`` written at its start.

torch, stable-baselines3 and sb3-contrib are imported here only.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, SupportsFloat, SupportsIndex

import gymnasium
import numpy as np
import yaml

import ten_env
from agents import PolicyAgent, play_games
from agents.base import Agent, AgentFailed, CheckedAgent, checked_move
from agents.registry import make_agent
from ten_env import Rules
from ten_env.game import score_margin
from ten_env.record import write_atomically
from ten_env.rules import JEN_LEVELS

from .config import Config, SelfPlayOpponents, read_yaml
from .options import RunStopped, is_whole, make_writable, parse_levels

if TYPE_CHECKING:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.base_class import BaseAlgorithm
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import VecEnv

    from agents import Results
    from agents.base import Player

STATE = "state.json"
WINDOW = "curriculum_window"  # state.json's key for the curriculum's games at the current level, won (1) or not
KEEP_CHECKPOINTS = 3


# ---------------------------------------------------------------------------- opponents


class PoolOpponent(Agent):
    """Self-play opponent: each game, one of the learner's past policies from ``pool_dir``,
    or (with probability ``scripted_share``, or while the pool is empty) a scripted agent."""

    name = "pool"

    def __init__(self, pool_dir: str, scripted: list[str], scripted_share: float, seed: int = 0):
        self.pool_dir = Path(pool_dir)
        self.scripted = [make_agent(name, seed=seed) for name in scripted] or [make_agent("random", seed)]
        self.share = scripted_share
        self.rng = np.random.default_rng(seed)
        self._models: dict[str, object] = {}
        self.current = self.scripted[0]

    def reset(self, seed: int | None = None) -> None:
        pool = sorted(self.pool_dir.glob("step_*.zip"))  # not a snapshot being written (.step_...)
        for pruned in self._models.keys() - {str(file) for file in pool}:  # pool_size models held, not every one
            del self._models[pruned]
        if not pool or self.rng.random() < self.share:
            self.current = self.scripted[int(self.rng.integers(len(self.scripted)))]
            return
        path = str(pool[int(self.rng.integers(len(pool)))])
        if path not in self._models:
            from agents.safe_load import load_policy

            # In the learner's process (DummyVecEnv), as an evaluation's opponents: the run trains
            # as it does with SubprocVecEnv, whose workers load the pool's networks
            with _streams_kept():
                self._models[path] = load_policy(path)  # the policy network only; nothing unpickled
        self.current = PolicyAgent.from_model(self._models[path], name=Path(path).stem)

    def act(self, observation: dict, info: dict) -> int:
        return checked_move(self.current, observation, info)


# ---------------------------------------------------------------------------- environments


def make_env_fn(config: Config, rank: int, out_dir: Path, jen_level: int | None) -> Callable[[], gymnasium.Env]:
    """A picklable factory for environment ``rank`` of the vector env."""
    counts = config.rules.player_counts
    opponents = config.opponents
    reward = config.train.reward
    derived_features = config.train.derived_features
    seed = config.train.seed * 1000 + rank

    def make() -> Monitor:
        from stable_baselines3.common.monitor import Monitor

        env: gymnasium.Env  # a SingleAgentEnv, wrapped for the derived features
        if opponents.kind == "jen":
            rules = Rules(**config.rules.game(2, jen_level=jen_level))
            env = ten_env.SingleAgentEnv(rules, opponents=(), seat=0, reward=reward)
        else:
            rules = Rules(**config.rules.game(counts[rank % len(counts)]))
            others: list  # the other seats' players, in seat order after the learner
            if opponents.kind == "scripted":
                others = [CheckedAgent(make_agent(name, seed=seed * 10 + i)) for i, name in enumerate(opponents.agents)]
            else:
                others = [
                    PoolOpponent(str(out_dir / "pool"), opponents.scripted, opponents.scripted_share,
                                 seed=seed * 10 + i)
                    for i in range(rules.num_players - 1)
                ]
            env = ten_env.SingleAgentEnv(rules, opponents=others, reward=reward)
        if derived_features:
            from ten_env.features import DerivedFeatures

            env = DerivedFeatures(env)
        return Monitor(_SaysWhyInOneLine(env))

    return make


class _SaysWhyInOneLine(gymnasium.Wrapper):
    """On a worker process of SB3's ``SubprocVecEnv``, an opponent's :class:`AgentFailed` is printed
    in one line and ends the worker quietly (the training process then stops the run, see
    :func:`train`); its traceback would go to the terminal, and the training process would see
    only the pipe closing. In the training process itself it goes on up, to ``ten``'s one line."""

    def step(self, action: SupportsIndex) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        with _one_line_on_a_worker():
            return self.env.step(action)

    def reset(self, **kwargs: Any) -> tuple[np.ndarray, dict[str, Any]]:
        with _one_line_on_a_worker():
            return self.env.reset(**kwargs)


@contextmanager
def _one_line_on_a_worker() -> Iterator[None]:
    import multiprocessing

    try:
        yield
    except AgentFailed as exc:
        if multiprocessing.parent_process() is None:
            raise
        sys.stderr.flush()
        os.write(2, f"ten: error: {exc}\n".encode())  # one write: the line whole beside another worker's
        raise SystemExit(1) from None


def _level_env_method(venv: VecEnv, level: int) -> None:
    venv.env_method("set_jen_level", level)


# ---------------------------------------------------------------------------- callbacks


def _callbacks(config: Config, out_dir: Path, state: dict, verbose: int = 0) -> Any:
    from stable_baselines3.common.callbacks import BaseCallback

    opponents = config.opponents
    curriculum = getattr(opponents, "curriculum", None)
    selfplay = opponents if isinstance(opponents, SelfPlayOpponents) else None  # which snapshots a pool

    class TenCallback(BaseCallback):
        """Game statistics, curriculum, checkpoints, self-play snapshots, periodic evaluation."""

        def __init__(self) -> None:
            super().__init__(verbose)  # with --verbose, says when the curriculum climbs
            window = curriculum.window if curriculum else 200
            self.results = deque(state.get(WINDOW) or (), maxlen=window)
            if curriculum:  # saved with each checkpoint, so a resumed run's curriculum counts the games before
                state[WINDOW] = self.results
            self.margins: deque[float] = deque(maxlen=window)
            self.lengths: deque[int] = deque(maxlen=window)
            # The steps whose rollouts PPO has trained on: what a checkpoint holds (SB3 counts the
            # steps of a rollout as they are played, before it learns from them).
            self.trained = state["timesteps"]
            self.next_checkpoint = _next_multiple(state["timesteps"], config.train.checkpoint_every)
            self.next_eval = _next_multiple(state["timesteps"], config.evaluation.every)
            self.next_snapshot = (_next_multiple(state["timesteps"], selfplay.snapshot_every)
                                  if selfplay else None)

        def _on_step(self) -> bool:
            for info, done in zip(self.locals["infos"], self.locals["dones"]):
                if not done or "winners" not in info:
                    continue
                seat, scores = info["seat"], info["scores"]
                self.results.append(1.0 if info["winners"] == [seat] else 0.0)
                self.margins.append(score_margin(scores, seat))
                if "episode" in info:
                    self.lengths.append(info["episode"]["l"])
            if self.results:
                self.logger.record("ten/win_rate", float(np.mean(self.results)))
            if self.margins:  # none yet after a resume, whose curriculum window starts full
                self.logger.record("ten/margin", float(np.mean(self.margins)))
            if self.lengths:
                self.logger.record("ten/episode_length", float(np.mean(self.lengths)))
            if state.get("jen_level") is not None:
                self.logger.record("ten/jen_level", state["jen_level"])
                self._climb()
            steps = self.num_timesteps
            if selfplay and self.next_snapshot is not None and steps >= self.next_snapshot:
                self._snapshot_to_pool(selfplay.pool_size)
                self.next_snapshot += selfplay.snapshot_every
            if config.evaluation.every and steps >= self.next_eval:
                self._evaluate()
                self.next_eval += config.evaluation.every
            return True

        def _on_rollout_start(self) -> None:
            # Each rollout starts once the last one is learnt from: checkpoints are taken here, so that
            # one holds no steps it has not trained on (a resumed run would count them done, and cut
            # its rollouts out of step with an unbroken run's).
            self.trained = self.num_timesteps
            if self.trained >= self.next_checkpoint:
                with _writing(out_dir, "a checkpoint"):
                    save_checkpoint(self.model, out_dir, state, self.trained)
                self.next_checkpoint = _next_multiple(self.trained, config.train.checkpoint_every)

        def _climb(self) -> None:
            if not curriculum or len(self.results) < curriculum.window:
                return
            if np.mean(self.results) >= curriculum.threshold and state["jen_level"] < curriculum.max_level:
                state["jen_level"] += 1
                _level_env_method(self.training_env, state["jen_level"])
                self.results.clear()
                if self.verbose:
                    print(f"curriculum: JEN level {state['jen_level']}")

        def _snapshot_to_pool(self, pool_size: int) -> None:
            pool = out_dir / "pool"
            with _writing(out_dir, "a snapshot for the pool"):
                pool.mkdir(exist_ok=True)
                write_atomically(pool / f"step_{self.num_timesteps:010d}.zip", self.model.save)
            for old in sorted(pool.glob("step_*.zip"))[: -pool_size]:
                old.unlink()

        def _evaluate(self) -> None:
            periodic_evaluation(config, PolicyAgent.from_model(self.model), state.get("jen_level"),
                                self.num_timesteps, self.logger.record)

    return TenCallback()


def periodic_evaluation(config: Config, agent: Player, jen_level: int | None, steps: int,
                        record: Callable[[str, float], object]) -> None:
    """The evaluation every ``evaluation.every`` steps, for both backends: ``agent`` against JEN
    at ``jen_level`` (opponents kind jen) or against each ``evaluation.opponents`` agent at each
    table size; ``record(tag, value)`` logs each win rate and margin, and a line is printed. It
    leaves the process's random streams as it found them (:func:`_streams_kept`)."""
    with _streams_kept():
        _evaluate_now(config, agent, jen_level, steps, record)


@contextmanager
def _streams_kept() -> Iterator[None]:
    """Python's, NumPy's and torch's global random streams, put back as they were: loading a
    network for an opponent (``evaluation.opponents: [ppo-2p]``, a self-play pool's) draws its first
    weights from torch's, which PPO's rollouts sample actions from, so it changed the training."""
    import random

    import torch

    python, numpy = random.getstate(), np.random.get_state()
    with torch.random.fork_rng(devices=[]):
        try:
            yield
        finally:
            random.setstate(python)
            np.random.set_state(numpy)


def _evaluate_now(config: Config, agent: Player, jen_level: int | None, steps: int,
                  record: Callable[[str, float], object]) -> None:
    seed = 1_000_000  # fixed evaluation seeds, apart from the training games
    if config.opponents.kind == "jen":
        rules = Rules(**config.rules.game(2, jen_level=jen_level))
        result = play_games([agent], rules, n=config.evaluation.games, seed=seed)
        record("ten/eval_win_rate", result.win_rates[0])
        record("ten/eval_margin", result.mean_margins[0])
        _print_evaluation(steps, f"JEN {jen_level}", result)
        return
    counts = config.rules.player_counts
    for players in counts:
        rules = Rules(**config.rules.game(players))
        suffix = f"_{players}p" if len(counts) > 1 else ""
        for name in config.evaluation.opponents:
            table = [agent] + [make_agent(name, seed=i) for i in range(players - 1)]
            result = play_games(table, rules, n=config.evaluation.games, seed=seed)
            record(f"ten/eval_win_rate_vs_{name}{suffix}", result.win_rates[0])
            record(f"ten/eval_margin_vs_{name}{suffix}", result.mean_margins[0])
            _print_evaluation(steps, f"vs {name}" + (f", {players} players" if suffix else ""), result)


def _print_evaluation(steps: int, label: str, result: Results) -> None:
    """One line per periodic evaluation: steps, opponent, win rate with its 95% interval."""
    from .stats import wilson_interval

    low, high = wilson_interval(result.wins[0], result.games)
    print(f"eval at {steps:,} steps, {label}: win rate {100 * result.win_rates[0]:.1f}% "
          f"({100 * low:.1f}-{100 * high:.1f}%, {result.games} games), margin {result.mean_margins[0]:+.2f}",
          flush=True)


def _next_multiple(steps: int, every: int) -> int:
    return (steps // every + 1) * every if every else 0


# ---------------------------------------------------------------------------- checkpoints


def save_checkpoint(model: BaseAlgorithm, out_dir: Path, state: dict, steps: int) -> Path:
    folder = out_dir / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"step_{steps:010d}.zip"
    write_atomically(path, model.save)  # a disk filling up leaves no half a checkpoint
    state = dict(state, timesteps=steps, checkpoint=path.name, training_seconds=training_seconds(model, state))
    text = json.dumps(state, indent=2, default=list)  # the curriculum's window is a deque
    write_atomically(folder / STATE, lambda tmp: tmp.write_text(text))
    for old in sorted(folder.glob("step_*.zip"))[:-KEEP_CHECKPOINTS]:
        old.unlink()  # the newest few are enough to resume or to go back a little
    return path


def training_seconds(model: BaseAlgorithm, state: dict) -> float:
    """Seconds of training so far: the earlier parts' (``state``, as a resumed run's state.json has
    it) and this part's, since SB3's ``learn`` began it (0 before)."""
    started = getattr(model, "start_time", None)
    part = (time.time_ns() - started) / 1e9 if isinstance(started, int) else 0.0
    return round(state.get("training_seconds", 0.0) + part, 1)


def machine() -> str:
    """The machine a run trained on, for its card: the system, the CPUs and torch's threads."""
    import os
    import platform

    import torch

    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, torch {torch.__version__} on the "
            f"CPU with {torch.get_num_threads()} thread(s)")


def run_seed_at(config: Config, timesteps: int) -> int:
    """The seed of a run's random streams from step ``timesteps`` on: ``train.seed`` at its start,
    moved on by the steps done when it is resumed, so that it deals new games (below 2**31, so that
    each env's ``seed + index`` is still a NumPy seed)."""
    return (config.train.seed + timesteps) % 2**31


def _prepare_output(config: Config, out_dir: Path, resume: bool, overwrite: bool) -> dict:
    """Check the output folder and return the run state to start from."""
    saved = out_dir / "config.yaml"
    here, where = Path.cwd().resolve(), out_dir.resolve()
    # --overwrite would empty it, and a new run's files would mix with the person's own; a run
    # resumed from inside its folder only adds to it
    if not resume and (where == here or where in here.parents):
        raise ValueError(f"output.dir {str(out_dir)!r} is the current folder or holds it: a run needs a folder of "
                         f"its own (--overwrite empties it), such as runs/my-run")
    fresh = {"timesteps": 0, "jen_level": getattr(config.opponents, "jen_level", None), "checkpoint": None}
    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"output.dir {str(out_dir)!r} is a file, not a folder: choose another output.dir")
    # Both files ten train writes first: a folder that merely holds a config.yaml (a project's own)
    # is never taken for a run, and never deleted by --overwrite.
    is_run = saved.is_file() and (out_dir / "meta.json").is_file()
    if resume:
        if not saved.is_file():
            raise ValueError(f"--resume: {str(out_dir)!r} holds no run to resume (no config.yaml)")
        saved_config = _saved_config(saved)
        differs = _config_differences(saved_config, config.to_dict())
        if differs:
            raise ValueError(
                f"--resume: {str(out_dir)!r} holds a run with a different config (differs in: "
                f"{', '.join(differs)}); only {', '.join(RESUMABLE_CHANGES)} may change"
            )
        state_file = out_dir / "checkpoints" / STATE
        if not state_file.is_file():
            return fresh  # interrupted before its first checkpoint: start again
        try:
            state = json.loads(state_file.read_text())
        except (OSError, ValueError):
            state = None
        # what a checkpoint's state says, each checked: a bad one would start a run afresh or fail late
        name = state.get("checkpoint") if isinstance(state, dict) else None
        ok = (isinstance(name, str) and name not in ("", ".", "..") and Path(name).name == name  # in checkpoints/
              and is_whole(state.get("timesteps")) and state["timesteps"] >= 0
              and (state.get("jen_level") is None
                   or (is_whole(state["jen_level"]) and state["jen_level"] in JEN_LEVELS))
              and (state.get(WINDOW) is None
                   or (isinstance(state[WINDOW], list) and all(won in (0, 1) for won in state[WINDOW]))))
        if not ok:
            raise ValueError(f"--resume: {str(state_file)!r} is damaged; start again with --overwrite")
        checkpoint = out_dir / "checkpoints" / state["checkpoint"]
        if not checkpoint.exists():  # a file (SB3) or a folder (RLlib)
            raise ValueError(f"--resume: the checkpoint {str(checkpoint)!r} named in {STATE} is missing")
        done, given = state["timesteps"], config.train.total_steps
        budget = (saved_config.get("train") or {}).get("total_steps")
        floor = min(done, budget) if is_whole(budget) else done  # RLlib may pass its budget by a few steps
        if given < floor:
            raise ValueError(f"--resume: train.total_steps {given:,} is below what this run has trained "
                             f"({done:,} steps): give at least {floor:,}")
        return state
    if out_dir.exists() and any(out_dir.iterdir()):
        if overwrite and is_run:
            shutil.rmtree(out_dir)
            return fresh
        if overwrite:
            raise ValueError(
                f"--overwrite: {str(out_dir)!r} is not empty and holds no training run "
                f"(not both the config.yaml and meta.json that ten train writes): it is never deleted; choose "
                f"another output.dir"
            )
        what = "a different run" if is_run and _config_differences(
            _saved_config(saved), config.to_dict()) else "a run" if is_run else "other files"
        raise ValueError(
            f"output folder {str(out_dir)!r} already holds {what}: use --resume to continue it, "
            f"--overwrite to replace it, or choose another output.dir"
        )
    return fresh


def _saved_config(path: Path) -> dict:
    """The config a run folder saved, or ``ValueError`` saying it is damaged."""
    try:
        data = read_yaml(path, "the run's")
    except ValueError as exc:
        raise ValueError(f"{exc}; start again with --overwrite, or choose another output.dir") from None
    if not isinstance(data, dict) or any(not isinstance(section, (dict, type(None)))
                                         for key, section in data.items() if key != "backend"):
        raise ValueError(f"the run's {str(path)!r} is damaged (not a mapping of sections); start again "
                         f"with --overwrite, or choose another output.dir")
    return data


def make_run_folder(out_dir: Path) -> None:
    """Make the run's folder, or ``ValueError`` saying why ``output.dir`` cannot be written."""
    try:
        make_writable(out_dir)
    except ValueError as exc:
        raise ValueError(f"output.dir: {exc}") from None


# What may change between a run and its resumption: none of it changes what is trained. The
# evaluations play with seeds of their own and leave the training's random streams as they were
# (periodic_evaluation); where the final evaluation runs, training is over. The vectorised envs
# deal the same games in the learner's process as in workers, and leave its streams alone there
# too (PoolOpponent).
RESUMABLE_CHANGES = ("train.total_steps", "train.vec_env", "output.dir", "evaluation")


def _config_differences(old: dict, new: dict) -> list[str]:
    """The keys (``section.key``) that differ, ignoring what may change between a run and its
    resumption (:data:`RESUMABLE_CHANGES`: the step budget, how the envs run, where the folder
    lives, the evaluations). A key added to the configs since the run was saved reads as its
    default there."""
    from .config import validate

    def comparable(config: dict) -> dict:
        try:
            config = validate(config).to_dict()
        except ValueError:  # e.g. its init_from file has gone: compared as written
            config = json.loads(json.dumps(config or {}))
        for name in RESUMABLE_CHANGES:
            section, _, key = name.partition(".")
            if key:
                config.get(section, {}).pop(key, None)
            else:
                config.pop(section, None)
        return config

    old, new = comparable(old), comparable(new)
    differs = []
    for section in sorted(set(old) | set(new)):
        saved, given = old.get(section), new.get(section)
        if isinstance(saved, dict) and isinstance(given, dict):
            differs += [f"{section}.{key}" for key in sorted(set(saved) | set(given))
                        if saved.get(key) != given.get(key)]
        elif saved != given:
            differs.append(section)
    return differs


def _clear_new_run(out_dir: Path, existed: bool) -> None:
    """Take away what a new run that failed before training wrote (its folder held nothing before,
    see :func:`_prepare_output`), so that nothing there reads as a run: the folder's contents,
    or the folder if this run made it. Best effort: the failure is what gets reported."""
    try:
        if not existed:
            shutil.rmtree(out_dir)
            return
        for child in out_dir.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
    except OSError:
        pass


def write_config(config: Config, out_dir: Path) -> None:
    """``config.yaml``: the run's resolved config; written again on ``--resume``, which may raise
    ``train.total_steps``, so that the file says what the run was last asked for."""
    text = yaml.safe_dump(config.to_dict(), sort_keys=False)
    write_atomically(out_dir / "config.yaml", lambda tmp: tmp.write_text(text))


def _write_run_files(config: Config, out_dir: Path) -> None:
    import sb3_contrib
    import stable_baselines3
    import torch

    make_run_folder(out_dir)
    write_config(config, out_dir)
    meta = {
        "ten_env": ten_env.__version__,
        "stable_baselines3": stable_baselines3.__version__,
        "sb3_contrib": sb3_contrib.__version__,
        "torch": torch.__version__,
        "seed": config.train.seed,
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    (out_dir / "meta.json").write_text(json.dumps(meta, indent=2))


# ---------------------------------------------------------------------------- the run


def train(config: Config, resume: bool = False, overwrite: bool = False, progress: bool = True,
          final_eval: bool = True, verbose: int = 0, address: str | None = None, trust: bool = False) -> Path:
    """Run (or resume) the training a config describes; returns the final model's path.

    ``backend: rllib`` runs :func:`train.rllib_trainer.train` (``address``: a Ray cluster to
    join, instead of the config's ``ray.address``; ``trust``: ``--trust-model``, which its
    ``--resume`` needs: an RLlib checkpoint is pickled). SB3's ``--resume`` never unpickles."""
    if resume and overwrite:
        raise ValueError(f"--resume continues the run in {config.output.dir!r} and --overwrite deletes it: "
                         f"give one of them")
    if config.backend == "rllib":
        from .rllib_trainer import train as train_rllib

        return train_rllib(config, resume=resume, overwrite=overwrite, progress=progress,
                           final_eval=final_eval, verbose=verbose, address=address, trust=trust)
    if address is not None:
        raise ValueError("--address joins a Ray cluster: it is for configs with backend: rllib")
    if trust:
        raise ValueError("--trust-model lets an RLlib run's --resume unpickle its checkpoint: it is for configs "
                         "with backend: rllib (an SB3 run never unpickles)")
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.utils import set_random_seed
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    out_dir = Path(config.output.dir)
    state = _prepare_output(config, out_dir, resume, overwrite)
    existed = out_dir.exists()  # and empty, unless resumed
    if not resume or not (out_dir / "meta.json").exists():
        _write_run_files(config, out_dir)
    torch.set_num_threads(1)  # small MLPs: threads cost more than they give, and runs stay reproducible
    run_seed = run_seed_at(config, state["timesteps"])
    set_random_seed(run_seed)  # a resumed run goes on with new random streams
    fns = [make_env_fn(config, rank, out_dir, state["jen_level"]) for rank in range(config.train.n_envs)]
    venv = SubprocVecEnv(fns) if config.train.vec_env == "subproc" else DummyVecEnv(fns)
    venv.seed(run_seed)
    algo = config.algorithm
    if state["checkpoint"]:
        from agents.safe_load import load_model, observation_shape

        path = out_dir / "checkpoints" / state["checkpoint"]
        try:
            saved_shape = observation_shape(path)
            if saved_shape != venv.observation_space.shape:
                from ten_env import features as F
                from ten_env import observation as O

                if {saved_shape, venv.observation_space.shape} == {(F.EXTENDED_SIZE,), (O.SIZE,)}:
                    raise ValueError(f"the checkpoint was made for observations of shape {saved_shape}, the "
                                     f"config's train.derived_features gives {venv.observation_space.shape}")
                raise ValueError(
                    f"the checkpoint was made for observations of shape {saved_shape}, "
                    f"this version of ten_env has {venv.observation_space.shape}"
                )
            # Nothing unpickled: the spaces are today's (same layout; the bounds may have been
            # corrected since the checkpoint), the rest is rebuilt from plain values.
            model = load_model(path, env=venv, device="cpu")
            # Rebuilding the model seeds everything (the envs too) with the run's own seed, as at its
            # start: without this, the games after a resume would be the run's first games again.
            model.set_random_seed(run_seed)
            model.start_time = 0.0  # the file's is its last part's: this part's begins with learn()
        except ValueError as exc:
            venv.close()
            raise ValueError(f"--resume: {exc}") from None
        model.tensorboard_log = str(out_dir / "tb")
    else:
        model = MaskablePPO(
            "MlpPolicy", venv,
            learning_rate=algo.learning_rate, n_steps=algo.n_steps, batch_size=algo.batch_size,
            n_epochs=algo.n_epochs, gamma=algo.gamma, gae_lambda=algo.gae_lambda,
            clip_range=algo.clip_range, ent_coef=algo.ent_coef, vf_coef=algo.vf_coef,
            max_grad_norm=algo.max_grad_norm, policy_kwargs={"net_arch": list(algo.net_arch)},
            tensorboard_log=str(out_dir / "tb"), seed=config.train.seed, device="cpu", verbose=verbose,
        )
        if config.train.init_from:
            try:
                warm_start(model.policy, config.train.init_from, sharpen=config.train.init_sharpen)
            except ValueError as exc:
                venv.close()
                if not resume:
                    _clear_new_run(out_dir, existed)
                raise ValueError(f"train.init_from: {exc}") from None
    if resume:  # perhaps with a larger train.total_steps (before its first checkpoint too)
        write_config(config, out_dir)
    remaining = config.train.total_steps - state["timesteps"]
    callback = _callbacks(config, out_dir, state, verbose)
    try:
        if remaining > 0:
            model.learn(
                total_timesteps=remaining, callback=callback,
                reset_num_timesteps=not state["checkpoint"], progress_bar=progress, tb_log_name="run",
            )
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM / SIGHUP (train.runner.Stopped)
        model.num_timesteps = callback.trained  # the rollout under way is played again on --resume
        with _writing(out_dir, "the checkpoint"):
            save_checkpoint(model, out_dir, state, callback.trained)
        try:
            venv.close()
        except (EOFError, OSError):  # subproc workers got the same Ctrl-C and are gone already
            pass
        print(f"\nthe run is kept in {str(out_dir)!r} at {callback.trained:,} steps trained: run the same "
              f"command with --resume to go on", file=sys.stderr)
        raise
    except RunStopped:  # a checkpoint or snapshot it could not write (_writing says what is kept)
        venv.close()
        raise
    except (EOFError, ConnectionError):  # an env's worker process ended (one with an agent that failed says why)
        raise RunStopped(f"an environment's worker process ended (its error, if it gave one, is above); "
                         f"{_kept(out_dir)}") from None
    final = out_dir / "model.zip"
    with _writing(out_dir, "the model"):
        save_checkpoint(model, out_dir, state, model.num_timesteps)
        write_atomically(final, model.save)
        write_model_card(model, final, config, state.get("jen_level"), training_seconds(model, state))
    venv.close()
    if final_eval:
        with _writing(out_dir, "the final evaluation"):
            final_evaluation(config, final, out_dir, progress=progress)
    return final


@contextmanager
def _writing(out_dir: Path, what: str) -> Iterator[None]:
    """A file of the run that cannot be written (a full disk, a folder gone) stops it in one line
    (:class:`train.options.RunStopped`) that says what is kept: the last checkpoint that was saved."""
    try:
        yield
    except OSError as exc:
        name = f" {str(exc.filename)!r}" if exc.filename else ""
        raise RunStopped(f"cannot write {what}{name}: {exc.strerror or exc}; {_kept(out_dir, 'make room')}") from None


def _kept(out_dir: Path, first: str = "mend it") -> str:
    """What a run that stops keeps: the last checkpoint saved, and how to go on from it."""
    try:
        steps = json.loads((out_dir / "checkpoints" / STATE).read_text())["timesteps"]
    except (OSError, ValueError, KeyError, TypeError):
        return "no checkpoint was saved before it"
    return f"the checkpoint at {steps:,} steps is kept: {first}, then --resume"


def warm_start(policy: MaskableActorCriticPolicy, spec: str, sharpen: float = 1.0) -> None:
    """Copy the weights of a trained model (``train.init_from``) into a fresh run's policy.

    Only the network is taken, read without unpickling; the optimiser, the schedules and the
    step count start afresh. The config has checked that both networks have the same layers.
    A network of the plain observation starting a run with ``train.derived_features`` gets the
    features as inputs with zero weights: the run starts from the model's play.
    ``sharpen`` (``train.init_sharpen``) multiplies the action logits (the last policy layer),
    raising the policy's probabilities to that power; the value and the argmax are unchanged.
    """
    import torch

    from agents.safe_load import load_policy

    from .config import model_path
    from .distill import load_with_new_inputs

    start = load_policy(model_path(spec))
    if policy.observation_space.shape == start.observation_space.shape:
        policy.load_state_dict(start.state_dict())
    else:
        load_with_new_inputs(policy, start.state_dict())
    if sharpen != 1.0:
        with torch.no_grad():
            policy.action_net.weight.mul_(sharpen)  # type: ignore[operator]  # SB3 types it a Module: a Linear
            policy.action_net.bias.mul_(sharpen)  # type: ignore[operator]  # SB3 types it a Module: a Linear


def write_model_card(model: MaskablePPO, path: Path, config: Config, jen_level: int | None = None,
                     seconds: float | None = None) -> Path:
    """``model.json`` beside ``model.zip``: what loading it needs, as plain values (the policy
    arguments, the spaces), and where it came from: the config, the seed, the seconds of training
    (every part of a resumed run added up) and the machine (of the last part)."""
    from agents.safe_load import model_card

    card = model_card(model, name=path.parent.name, config="config.yaml", seed=config.train.seed,
                      derived_features=config.train.derived_features, training_seconds=seconds, machine=machine())
    if jen_level is not None:
        card["jen_level_reached"] = jen_level  # the curriculum's level at the end
    card_path = path.with_suffix(".json")
    write_atomically(card_path, lambda tmp: tmp.write_text(json.dumps(card, indent=2)))
    return card_path


def final_evaluation(config: Config, model_path: Path, out_dir: Path, progress: bool = False,
                     trust: bool = False) -> None:
    """The ladder (JEN runs) or the matchups (normal games) of the final model, printed and saved
    in ``eval/`` (``eval/<N>p/`` for each table size of a run over several); ``progress`` shows a
    progress bar (on stderr) while the games are played; ``trust`` lets the model be unpickled
    (an RLlib checkpoint the run has just written)."""
    from .evaluate import evaluate

    ev = config.evaluation
    if not ev.final_games:
        return
    rules = config.rules.model_dump(exclude={"num_players"})  # the game it was trained on
    if config.opponents.kind == "jen":
        if ev.final_levels:
            report = evaluate(str(model_path), levels=parse_levels(ev.final_levels), games=ev.final_games,
                              seed=0, rules=rules, progress=progress, trust=trust)
            _save_evaluation(report, out_dir / "eval")
        return
    counts = config.rules.player_counts
    for players in counts:
        merged: dict | None = None
        for name in ev.opponents:
            part = evaluate(str(model_path), opponents=[name] * (players - 1),
                            games=ev.final_games, seed=0, rules=rules, progress=progress, trust=trust)
            merged = part if merged is None else _merge_reports(merged, part)
        where = out_dir / "eval" if len(counts) == 1 else out_dir / "eval" / f"{players}p"
        assert merged is not None  # evaluation.opponents holds one name at least
        _save_evaluation(merged, where)


def _save_evaluation(report: dict, where: Path) -> None:
    from .report import format_table, save_report

    print(format_table(report))
    json_path, png_path = save_report(report, where)
    print(f"saved {json_path}" + (f" and {png_path}" if png_path else ""))


def _merge_reports(first: dict, second: dict) -> dict:
    merged = dict(first)
    merged["matchups"] = list(first["matchups"]) + list(second["matchups"])
    return merged
