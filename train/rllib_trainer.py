"""``ten train`` with ``backend: rllib``: PPO on Ray RLlib's new API stack, on one machine or a cluster.

The config is the SB3 backend's (:mod:`train.config`), with ``backend: rllib`` and
a ``ray`` section::

    backend: rllib
    ray:
      address: null             # null: start a local Ray, stop it at the end; or a running
                                # cluster's address ("auto", "10.0.0.5:6379"), as --address
      num_env_runners: 2        # sampling processes (0: sample in the trainer's process)
      num_cpus_per_env_runner: 1

Ray is started (or joined) before anything is written, and the CPUs the runners
ask for are checked against what the cluster has: a config asking for more is
refused at once, as is an address where no cluster answers. In a Python session
where Ray is already running (``ray.init()`` before), that session is used and
left running.

What the config's keys mean here:

- ``opponents``: ``jen`` (the solitaire game, JEN played by the engine, with the
  curriculum: the level rises when the last ``window`` games at this level were
  won at least ``threshold`` of the time), ``scripted`` (the agents named play the
  other seats inside the env), ``selfplay`` (one shared policy, the module
  ``learner``, in every seat that is not scripted: each other seat is a scripted
  agent with probability ``scripted_share``, otherwise the learner itself or one of
  ``pool_size`` frozen snapshots of it, all equally likely; a snapshot slot is
  overwritten with the learner every ``snapshot_every`` steps, the oldest first).
  The learner always plays ``player_0``; who starts is drawn each game. A runner
  that failed and that Ray restarted is rebuilt at the level the algorithm was built at
  (the run's start, or its ``--resume``), so the level is sent to every runner before each
  iteration, and again, before it samples, to any runner RLlib brings back inside the
  iteration; the window counts only the games dealt at the current level, and ``state.json``
  keeps it for ``--resume``.
- ``algorithm``: PPO's ``lr``, ``gamma``, ``lambda_``, ``clip_param``,
  ``entropy_coeff``, ``vf_loss_coeff``, ``grad_clip`` and ``num_epochs`` are
  ``learning_rate``, ``gamma``, ``gae_lambda``, ``clip_range``, ``ent_coef``,
  ``vf_coef``, ``max_grad_norm`` and ``n_epochs``; an update uses
  ``n_steps * train.n_envs`` env steps (as SB3's rollout) in minibatches of
  ``batch_size``; ``net_arch`` is the hidden layers (tanh) of
  :class:`train.rllib_module.MaskedPPOModule`. No KL term, as SB3.
- ``train``: ``total_steps`` counts env steps (every move RLlib plays: the
  learner's and its snapshots'); ``n_envs`` envs in all, shared evenly by the runners (a
  multiple of ``ray.num_env_runners``);
  ``vec_env`` is SB3's only; ``init_from`` and ``derived_features`` are not supported.

What a run leaves in ``output.dir``: ``config.yaml``, ``meta.json``,
``checkpoint/`` (the final RLlib algorithm checkpoint: ``ten eval
<dir>/checkpoint --trust-model``), ``model.json`` (its plain card: spaces,
steps, curriculum level), ``checkpoints/`` (the last 3 ``step_<N>/`` and
``state.json``, for ``--resume``, which loads that pickled checkpoint only with
``--trust-model``), ``tb/`` (TensorBoard: ``ten/win_rate``,
``ten/margin``, ``ten/episode_length``, ``ten/jen_level``,
``ten/eval_win_rate``..., ``ten/illegal_actions`` (always 0: the module masks),
``rllib/...`` (``player_0``'s mean return, losses, entropy, steps/s)) and ``eval/``.

Ray, torch and tensorboard are imported here only.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import shutil
import signal
import socket
import threading
import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

import ten_env
from agents.base import AgentFailed
from agents.rllib_policy import CARD, LEARNER, RLlibPolicyAgent, check_card, read_card
from ten_env import observation as O
from ten_env.record import write_atomically
from ten_env.actions import num_actions

from .config import Config, SelfPlayOpponents
from .options import RunStopped
from .trainer import (KEEP_CHECKPOINTS, STATE, WINDOW, _next_multiple, _prepare_output, final_evaluation, make_run_folder,
                      machine, periodic_evaluation, run_seed_at, write_config)

if TYPE_CHECKING:
    from ray.rllib.algorithms.algorithm import Algorithm
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    from .rllib_env import TenCallbacks


def _import_rllib() -> None:
    try:
        import ten_env.rllib  # noqa: F401  (imports Ray RLlib)
    except ModuleNotFoundError as exc:
        raise ValueError(f"backend: rllib needs Ray RLlib, which is not installed: "
                         f"{getattr(exc, 'install', exc)}") from None


def env_config(config: Config, jen_level: int | None, timesteps: int = 0) -> dict:
    """The :class:`train.rllib_env.TableEnv` arguments of a config, for a run ``timesteps`` in
    (a resumed run plays new games, not the first run's again)."""
    opponents = config.opponents
    env = {**config.rules.model_dump(exclude={"num_players"}), "reward": config.train.reward,
           "seed": run_seed_at(config, timesteps)}
    if opponents.kind == "jen":
        return {**env, "jen_level": jen_level}
    env["num_players"] = config.rules.num_players
    if opponents.kind == "scripted":
        return {**env, "scripted": list(opponents.agents)}
    return {**env, "pool": list(opponents.scripted), "share": opponents.scripted_share}


def snapshot_ids(config: Config) -> list[str]:
    """The frozen snapshot modules of a self-play run (none otherwise)."""
    if config.opponents.kind != "selfplay":
        return []
    return [f"snapshot_{i}" for i in range(config.opponents.pool_size)]


# ---------------------------------------------------------------------------- Ray


def start_ray(address: str | None, needed_cpus: int) -> bool:
    """Join ``address`` or start a local Ray (unless one is running here); check the CPUs the
    runners need. ``True`` if this call started or joined Ray (and the run should leave it)."""
    import ray

    started = False
    if not ray.is_initialized():
        if address:
            _check_reachable(address)
        else:  # a local Ray gets this machine's cores: say so before starting it
            from .runner import default_jobs

            _check_cpus(needed_cpus, default_jobs(), "this machine")
        ours = signal.getsignal(signal.SIGTERM)  # ray.init puts its own (sys.exit) in place of ten's stop
        try:
            if address:
                ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
            else:
                ray.init(include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
            if ours is not None and threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGTERM, ours)  # so a kill keeps a checkpoint, as Ctrl-C does
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = f"at {address!r}" if address else "on this machine"
            auth = "" if not address else (" (a cluster with token authentication, Ray's default, also needs "
                                           "RAY_AUTH_MODE=token and its token here)")
            raise ValueError(f"cannot reach a Ray cluster {where} ({' '.join(str(exc).split())[:200]}){auth}; "
                             f"{HOW_TO_JOIN}") from None
        started = True
    try:
        _check_cpus(needed_cpus, int(ray.cluster_resources().get("CPU", 0)), "the Ray cluster")
    except ValueError:
        if started:
            ray.shutdown()
        raise
    return started


def _check_cpus(needed: int, cpus: int, where: str) -> None:
    # Ray would wait for CPUs that never come: refuse at once.
    if needed > cpus:
        raise ValueError(f"the config asks for {needed} CPUs for its env runners (ray.num_env_runners x "
                         f"ray.num_cpus_per_env_runner) but {where} has {cpus}: lower ray.num_env_runners "
                         f"(0 samples in the trainer's process) or join a bigger cluster with --address")


IDLE_ITERATIONS = 20  # iterations in a row with no sample from any runner before a run gives up
HOW_TO_JOIN = ("start one with 'ray start --head' (see README, Running on a Ray cluster), or fix ray.address / "
               "--address, or leave both out to train on a local Ray")


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """A ``host:port`` address where nothing listens is refused at once (``ray.init`` would wait
    for it for minutes); ``auto`` is left to Ray, which fails fast when no cluster runs here."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if address == "auto" or not sep:
        return
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
        raise ValueError(f"cannot reach a Ray cluster at {address!r} ({reason}); {HOW_TO_JOIN}") from None


# ---------------------------------------------------------------------------- the algorithm


def build_algorithm(config: Config, jen_level: int | None, timesteps: int = 0) -> Algorithm:
    """PPO for a config, its envs at ``jen_level``; seeded with ``run_seed_at(config, timesteps)`` (as the
    SB3 backend seeds its envs), so that a resumed run deals new games."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from .rllib_env import TableEnv, TenCallbacks, map_agent
    from .rllib_module import MaskedPPOModule

    algo, ray_config, train = config.algorithm, config.ray, config.train
    snapshots = snapshot_ids(config)
    modules = [LEARNER, *snapshots]
    runners = ray_config.num_env_runners
    spec = RLModuleSpec(module_class=MaskedPPOModule,
                        model_config={"fcnet_hiddens": list(algo.net_arch), "fcnet_activation": "tanh"})
    ppo = (
        PPOConfig()
        # RLlib's env check plays the env at build time, and takes a scripted agent of yours that fails
        # there for an env outside Gymnasium's API; the env is this project's, and tested
        .environment(TableEnv, env_config=env_config(config, jen_level, timesteps), disable_env_checking=True)
        .env_runners(num_env_runners=runners, num_envs_per_env_runner=max(1, train.n_envs // max(1, runners)),
                     num_cpus_per_env_runner=ray_config.num_cpus_per_env_runner, rollout_fragment_length="auto")
        .learners(num_learners=0)  # the learner runs in this process
        .training(lr=algo.learning_rate, gamma=algo.gamma, lambda_=algo.gae_lambda, clip_param=algo.clip_range,
                  entropy_coeff=algo.ent_coef, vf_loss_coeff=algo.vf_coef, grad_clip=algo.max_grad_norm,
                  num_epochs=algo.n_epochs, train_batch_size_per_learner=algo.n_steps * train.n_envs,
                  minibatch_size=algo.batch_size, use_kl_loss=False)
        .multi_agent(policies=set(modules), policies_to_train=[LEARNER],
                     policy_mapping_fn=functools.partial(map_agent, modules=tuple(modules)))
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={m: spec for m in modules}))
        .callbacks(TenCallbacks)
        .debugging(seed=run_seed_at(config, timesteps), log_level="ERROR")
    )
    algorithm = ppo.build_algo()
    _ten_callbacks(algorithm).jen_level = jen_level  # what a runner Ray restarts is sent, should it change
    return algorithm


def _ten_callbacks(algorithm: Algorithm) -> TenCallbacks:
    """The algorithm's :class:`train.rllib_env.TenCallbacks` (RLlib keeps a list of callback objects)."""
    from .rllib_env import TenCallbacks

    found = algorithm.callbacks if isinstance(algorithm.callbacks, list) else [algorithm.callbacks]
    return next(c for c in found if isinstance(c, TenCallbacks))


def copy_module(algorithm: Algorithm, source: str, targets: list[str]) -> None:
    """Overwrite the weights of ``targets`` with ``source``'s, in the learner and on every runner."""
    state = algorithm.learner_group.get_weights(  # type: ignore[union-attr]  # a built algorithm has its learners
        module_ids=[source])[source]
    algorithm.learner_group.set_weights(  # type: ignore[union-attr]  # as above
        {target: state for target in targets})
    algorithm.env_runner_group.sync_weights(  # type: ignore[union-attr]  # and its runners
        from_worker_or_learner_group=algorithm.learner_group, policies=targets, inference_only=True)


def set_jen_level(algorithm: Algorithm, level: int) -> None:
    """The following games of every env, on every runner, against JEN at ``level``; a runner
    that Ray restarts later gets it too (:class:`train.rllib_env.TenCallbacks`)."""
    from .rllib_env import send_jen_level

    _ten_callbacks(algorithm).jen_level = level
    send_jen_level(algorithm.env_runner_group, level)  # type: ignore[arg-type]  # a built algorithm has its runners


# ---------------------------------------------------------------------------- checkpoints


def save_checkpoint(config: Config, algorithm: Algorithm, out_dir: Path, state: dict, steps: int) -> Path:
    """``checkpoints/step_<N>/`` and ``state.json`` (the last few kept), and the card."""
    folder = out_dir / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"step_{steps:010d}"
    algorithm.save_to_path(path.resolve())
    state = dict(state, timesteps=steps, checkpoint=path.name)
    text = json.dumps(state, indent=2, default=list)  # the curriculum's window is a deque
    write_atomically(folder / STATE, lambda tmp: tmp.write_text(text))
    for old in sorted(folder.glob("step_*"))[:-KEEP_CHECKPOINTS]:
        shutil.rmtree(old)
    write_card(out_dir, config, steps, state.get("jen_level"), state.get("training_seconds"))
    return path


def write_card(out_dir: Path, config: Config, steps: int, jen_level: int | None,
               seconds: float | None = None) -> Path:
    """``model.json``: plain facts about the checkpoint, read before anything is unpickled, and
    the seconds of training (every part of a resumed run added up) and the machine."""
    card = {"backend": "rllib", "module": LEARNER, "checkpoint": "checkpoint",
            "observation_shape": [O.SIZE], "num_actions": num_actions(config.rules.max_bid),
            "net_arch": list(config.algorithm.net_arch), "timesteps": steps, "seed": config.train.seed,
            "config": "config.yaml", "training_seconds": seconds, "machine": machine()}
    if jen_level is not None:
        card["jen_level_reached"] = jen_level
    path = out_dir / CARD
    path.write_text(json.dumps(card, indent=2))
    return path


def _write_run_files(config: Config, out_dir: Path) -> None:
    import ray
    import torch

    make_run_folder(out_dir)
    write_config(config, out_dir)
    meta = {"ten_env": ten_env.__version__, "ray": ray.__version__, "torch": torch.__version__,
            "seed": config.train.seed, "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    (out_dir / "meta.json").write_text(json.dumps(meta, indent=2))


# ---------------------------------------------------------------------------- the run


def train(config: Config, resume: bool = False, overwrite: bool = False, progress: bool = True,
          final_eval: bool = True, verbose: int = 0, address: str | None = None, trust: bool = False) -> Path:
    """Run (or resume) the training a ``backend: rllib`` config describes; returns the final
    checkpoint folder. ``address`` (``--address``) overrides ``ray.address``. ``resume`` loads
    the run's checkpoint, which is pickled: only with ``trust`` (``--trust-model``)."""
    _import_rllib()
    import ray
    import torch

    logging.getLogger("ray.rllib").setLevel(logging.ERROR)  # its notices about API changes, not ours

    out_dir = Path(config.output.dir)
    if resume:  # a checkpoint for another observation size is refused before anything starts
        check_card(out_dir, read_card(out_dir))
    # The output folder's checks before Ray starts (10 s); --overwrite deletes only once Ray is up.
    state = None if overwrite and not resume else _prepare_output(config, out_dir, resume, overwrite=False)
    if state is not None and state["checkpoint"] and not trust:
        raise ValueError(f"--resume loads the run's RLlib checkpoint in {str(out_dir)!r}, which is pickled "
                         f"(loading it runs code from it): give --trust-model if you trust that run folder")
    ray_config = config.ray
    started = start_ray(address or ray_config.address,
                        ray_config.num_env_runners * ray_config.num_cpus_per_env_runner)
    writer = algorithm = None
    try:
        if state is None:
            state = _prepare_output(config, out_dir, resume, overwrite)
        if not resume or not (out_dir / "meta.json").exists():
            _write_run_files(config, out_dir)
        torch.set_num_threads(1)  # small MLPs, as the SB3 backend
        algorithm = build_algorithm(config, state["jen_level"], state["timesteps"])
        snapshots = snapshot_ids(config)
        if state["checkpoint"]:
            # The envs were built at the saved curriculum level; the checkpoint holds the rest.
            algorithm.restore_from_path((out_dir / "checkpoints" / state["checkpoint"]).resolve())
        elif snapshots:
            copy_module(algorithm, LEARNER, snapshots)  # every slot starts as the initial policy
        if resume:  # perhaps with a larger train.total_steps (before its first checkpoint too)
            write_config(config, out_dir)
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(out_dir / "tb"))
        steps = _run(config, algorithm, out_dir, state, writer, progress, verbose)
        final = out_dir / "checkpoint"
        if final.exists():
            shutil.rmtree(final)
        algorithm.save_to_path(final.resolve())
        write_card(out_dir, config, steps, state.get("jen_level"), state.get("training_seconds"))
    finally:
        if writer is not None:
            writer.close()
        if algorithm is not None:
            algorithm.stop()
        if started:
            ray.shutdown()
    if final_eval:
        # The run wrote this checkpoint itself a moment ago: loading it (unpickling) is trusted.
        final_evaluation(config, final, out_dir, progress=progress, trust=True)
    return final


def _run(config: Config, algorithm: Algorithm, out_dir: Path, state: dict, writer: SummaryWriter, progress: bool,
         verbose: int) -> int:
    """Train until ``train.total_steps``; checkpoints, curriculum, snapshots, evaluations, logs."""
    opponents, total = config.opponents, config.train.total_steps
    curriculum = getattr(opponents, "curriculum", None)
    results = deque(state.get(WINDOW) or (), maxlen=curriculum.window if curriculum else 200)
    if curriculum:  # saved with each checkpoint, so a resumed run's curriculum counts the games before
        state[WINDOW] = results
    margins: deque[float] = deque(maxlen=results.maxlen)
    lengths: deque[int] = deque(maxlen=results.maxlen)
    steps = state["timesteps"]
    next_checkpoint = _next_multiple(steps, config.train.checkpoint_every)
    next_eval = _next_multiple(steps, config.evaluation.every)
    selfplay = opponents if isinstance(opponents, SelfPlayOpponents) else None  # which snapshots a pool
    next_snapshot = _next_multiple(steps, selfplay.snapshot_every) if selfplay else None
    bar = _progress_bar(total, steps) if progress else None
    started = time.perf_counter()
    start_steps = steps
    earlier = state.get("training_seconds") or 0.0  # a resumed run's parts before this one
    idle = 0  # iterations in a row that sampled nothing

    def save() -> None:
        state["training_seconds"] = round(earlier + time.perf_counter() - started, 1)
        save_checkpoint(config, algorithm, out_dir, state, steps)
    try:
        while steps < total:
            if curriculum:  # a runner Ray restarted unnoticed, between iterations, is at the build-time level
                set_jen_level(algorithm, state["jen_level"])
            result = algorithm.train()
            runners = result.get("env_runners", {})
            for failure in _series(runners, "agent_failed"):  # a scripted agent of yours (TableEnv)
                raise AgentFailed(failure)  # as on the trainer's own runner: the checkpoint before stands
            sampled = runners.get("num_env_steps_sampled", 0)
            if not np.isfinite(sampled) or not sampled:
                # RLlib's PPO returns early, having trained on nothing, when no runner came back
                # within sample_timeout_s (one crashed, which Ray restarts, or is too slow), and
                # reports the count as NaN.
                idle += 1
                if idle >= IDLE_ITERATIONS:
                    save()
                    raise RunStopped(f"no env runner returned any sample in {idle} iterations running, each "
                                     "waiting up to RLlib's sample_timeout_s: see Ray's logs (a runner that keeps "
                                     "crashing, or too few CPUs); the run is saved, for --resume")
                continue
            idle = 0
            steps += int(sampled)
            for level, won, margin, length in finished_games(runners):
                if level == state["jen_level"]:  # games begun before a climb are left out
                    results.append(float(won))
                margins.append(margin)
                lengths.append(length)
            _log(writer, steps, result, results, margins, lengths, state, (steps - start_steps) /
                 max(1e-9, time.perf_counter() - started))
            if curriculum and len(results) >= curriculum.window and np.mean(results) >= curriculum.threshold \
                    and state["jen_level"] < curriculum.max_level:
                state["jen_level"] += 1
                set_jen_level(algorithm, state["jen_level"])
                results.clear()
                if verbose:
                    print(f"curriculum: JEN level {state['jen_level']}")
            if selfplay and next_snapshot is not None and steps >= next_snapshot:
                slot = snapshot_ids(config)[state.get("snapshots", 0) % selfplay.pool_size]
                copy_module(algorithm, LEARNER, [slot])
                state["snapshots"] = state.get("snapshots", 0) + 1
                next_snapshot = _next_multiple(steps, selfplay.snapshot_every)
            if config.evaluation.every and steps >= next_eval:
                _evaluate(config, algorithm, state, steps, writer)
                next_eval = _next_multiple(steps, config.evaluation.every)
            if steps >= next_checkpoint:
                save()
                next_checkpoint = _next_multiple(steps, config.train.checkpoint_every)
            if bar is not None:
                bar.update(min(steps, total) - bar.n)
    except KeyboardInterrupt:
        save()
        raise
    finally:
        if bar is not None:
            bar.close()
    save()
    return steps


def finished_games(runners: dict) -> list:
    """The ``ten/games`` items (:class:`train.rllib_env.TenCallbacks`) of an iteration's
    ``env_runners`` results. RLlib's ``item_series`` reduces a series of one item to the item
    itself, and reports no games as ``None`` (or NaN), so one game or none is a list too."""
    games = _series(runners, "games")
    if games and not isinstance(games[0], (tuple, list)):
        return [runners["ten"]["games"]]  # one game: (jen_level, won, margin, decisions)
    return games


def _series(runners: dict, name: str) -> list:
    """The ``ten/<name>`` items of an ``item_series`` (none: ``None`` or NaN) as a list; one item
    comes as itself."""
    items = runners.get("ten", {}).get(name)
    if items is None or (isinstance(items, float) and math.isnan(items)):
        return []
    return list(items) if isinstance(items, (list, tuple)) else [items]


def _progress_bar(total: int, done: int) -> tqdm:
    from tqdm import tqdm

    return tqdm(total=total, initial=min(done, total), unit="step", dynamic_ncols=True, desc="training")


def _log(writer: SummaryWriter, steps: int, result: dict, results: deque[float], margins: deque[float],
         lengths: deque[int], state: dict, speed: float) -> None:
    runners, learner = result.get("env_runners", {}), result.get("learners", {}).get(LEARNER, {})
    scalars = {
        "ten/illegal_actions": runners.get("ten", {}).get("illegal_actions"),
        "ten/win_rate": np.mean(results) if results else None,
        "ten/margin": np.mean(margins) if margins else None,
        "ten/episode_length": np.mean(lengths) if lengths else None,
        "ten/jen_level": state.get("jen_level"),
        # The learner's seat's (RLlib's episode_return_mean sums every seat's: about 0 in self-play).
        "rllib/episode_return_mean": runners.get("agent_episode_returns_mean", {}).get("player_0"),
        "rllib/steps_per_second": speed,
        "rllib/policy_loss": learner.get("policy_loss"),
        "rllib/vf_loss": learner.get("vf_loss"),
        "rllib/entropy": learner.get("entropy"),
    }
    for key, value in scalars.items():
        if value is not None:
            writer.add_scalar(key, float(value), steps)


def _evaluate(config: Config, algorithm: Algorithm, state: dict, steps: int, writer: SummaryWriter) -> None:
    agent = RLlibPolicyAgent.from_module(algorithm.get_module(LEARNER))  # type: ignore[arg-type]  # a TorchRLModule
    periodic_evaluation(config, agent, state["jen_level"], steps,
                        lambda tag, value: writer.add_scalar(tag, value, steps))
