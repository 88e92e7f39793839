"""What the RLlib backend runs on its env runners: the training table (:class:`TableEnv`),
the agent-to-module mapping (:func:`map_agent`) and the per-game metrics (:class:`TenCallbacks`).

Imports Ray: :mod:`train.rllib_trainer` imports this module only once Ray is known to be there.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import numpy as np
from ray.rllib.callbacks.callbacks import RLlibCallback

from agents.base import AgentFailed, CheckedAgent, observation_parts
from agents.registry import make_agent
from agents.rllib_policy import LEARNER
from ten_env.game import score_margin
from ten_env.rllib import TenMultiAgentEnv

if TYPE_CHECKING:
    import gymnasium
    from ray.rllib.algorithms.algorithm import Algorithm
    from ray.rllib.env.env_runner_group import EnvRunnerGroup
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
    from ray.rllib.env.multi_agent_episode import MultiAgentEpisode
    from ray.rllib.utils.metrics.metrics_logger import MetricsLogger

    from ten_env.single_agent import Policy

PLAYER = "player_0"  # the learner's seat


class TableEnv(TenMultiAgentEnv):
    """The training table: :class:`ten_env.rllib.TenMultiAgentEnv` with scripted agents in some seats.

    ``env_config`` adds to ``ten_env.env()``'s arguments ``scripted`` (one agent name per
    other seat: those agents, always) or ``pool`` and ``share`` (each other seat is one of
    the ``pool`` agents with probability ``share``, drawn each game), and ``seed``. Scripted
    seats are played inside the env (they read ``info["snapshot"]``, which no RLModule
    sees), so RLlib never observes them. Before each game every scripted agent at the table
    is reset with a seed of its own, drawn from the env's stream (the reset seed, the runner
    and the env's index on it), so no two envs' agents play the same random sequence. The
    final infos add ``jen_level`` (the level the game was dealt at).

    A scripted agent of yours that fails (:class:`agents.base.AgentFailed`, in its move or its
    ``reset``) does not end the env runner: on a remote one Ray would restart it, the error only
    in its log, and the run would wait on samples. Every scripted seat then takes its lowest
    legal move to the end of the game, and the final infos carry ``agent_failed``, the error's
    one line, which :class:`TenCallbacks` reports and the trainer stops the run with.
    """

    def __init__(self, config: dict | None = None):
        # An EnvContext: the runner's and the vector index tell the envs' random streams apart.
        self._streams = [getattr(config, "worker_index", 0), getattr(config, "vector_index", 0)]
        config = dict(config or {})
        scripted, pool = config.pop("scripted", None), config.pop("pool", ())
        share, seed = config.pop("share", 0.0), config.pop("seed", 0)
        super().__init__(config)
        self._draw = np.random.default_rng([seed, *self._streams])
        self._seating = np.random.default_rng([seed, *self._streams, 1])  # map_agent's, one number a game
        others = range(1, self.rules.num_agents)
        self.fixed = [None] + [CheckedAgent(make_agent(name, seed=seed + i)) for i, name in zip(others, scripted)] \
            if scripted else None
        self.pool, self.share = [CheckedAgent(make_agent(name, seed=seed)) for name in pool], share
        self.table: list[CheckedAgent | None] = [None] * self.rules.num_agents  # None: a seat RLlib plays
        self.failure: str | None = None  # the first AgentFailed of this game

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        self.failure = None
        if seed is not None:  # the same reset seed, the same table and the same games
            self._draw = np.random.default_rng([seed, *self._streams])
        draw = self._draw
        if self.fixed:
            self.table = self.fixed
        elif self.pool:
            self.table = [None, *(self.pool[int(draw.integers(len(self.pool)))] if draw.random() < self.share
                                  else None for _ in range(self.rules.num_agents - 1))]
        for agent in {id(agent): agent for agent in self.table if agent is not None}.values():
            seed_of_agent = int(draw.integers(2**31))
            if self.failure is None:
                try:
                    agent.reset(seed=seed_of_agent)
                except AgentFailed as exc:
                    self.failure = str(exc)
        return super().reset(seed=seed, options=options)

    def seating_seed(self) -> int:
        """The next game's number for :func:`map_agent` (RLlib's seats-to-modules mapping), from
        a stream of the env's own (the run's seed, the runner, the env's index)."""
        return int(self._seating.integers(2**62))

    def scripted_seat(self, seat: int) -> Policy | None:
        agent = self.table[seat]
        return None if agent is None else lambda observation, info: self._move_of(agent, observation, info)

    def _move_of(self, agent: CheckedAgent, observation: dict, info: dict) -> int:
        if self.failure is None:
            try:
                return agent(observation, info)
            except AgentFailed as exc:
                self.failure = str(exc)
        return int(np.flatnonzero(observation_parts(observation, info)[1])[0])  # the game ends; the run stops

    def _final_step(self, illegal: tuple[int, int] | None = None) -> tuple[dict, dict, dict, dict, dict]:
        observations, rewards, terminateds, truncateds, infos = super()._final_step(illegal)
        game = self.game
        assert game is not None  # a game has just ended
        for info in infos.values():
            info["jen_level"] = game.rules.jen_level  # the level this game was dealt at
            if self.failure is not None:
                info["agent_failed"] = self.failure
        return observations, rewards, terminateds, truncateds, infos


SEATING = "ten_seating"  # an episode's custom_data key: the number map_agent draws its game's seating from


def map_agent(agent_id: str, episode: MultiAgentEpisode, modules: tuple[str, ...] = (LEARNER,), **kwargs: Any) -> str:
    """``player_0`` is the learner; every other seat RLlib plays is one of ``modules`` (the
    learner or a snapshot), drawn from a number its env gave the game
    (:meth:`TenCallbacks.on_episode_created`), so that a run is reproduced from its seed and a
    mapping never changes mid-game. (RLlib also calls this on a chunk of a game being carried
    on, for seats already mapped, before the chunk has its data: the episode's id, then, for a
    draw that is discarded.)"""
    if agent_id == PLAYER:
        return LEARNER
    drawn = getattr(episode, "custom_data", {}).get(SEATING, episode.id_)  # none yet while RLlib builds a chunk
    return random.Random(f"{drawn}/{agent_id}").choice(modules)


def send_jen_level(env_runner_group: EnvRunnerGroup, level: int, runner_ids: list[int] | None = None,
                   timeout_s: float | None = None) -> None:
    """The following games of every env on the runners ``runner_ids`` (all, if None) against
    JEN at ``level``."""
    def climb(runner: MultiAgentEnvRunner) -> None:
        if runner.env is not None:  # a local runner beside remote ones has no env
            for env in runner.env.envs:  # type: ignore[union-attr]  # a vector env's: a list
                env.unwrapped.set_jen_level(level)

    env_runner_group.foreach_env_runner(
        climb,  # type: ignore[arg-type]  # Ray types the runner as any EnvRunner: ours are multi-agent
        remote_worker_ids=runner_ids,  # type: ignore[arg-type]  # None (all), Ray's own default
        local_env_runner=runner_ids is None, timeout_seconds=timeout_s)


class TenCallbacks(RLlibCallback):
    """Each game's result for the learner: ``ten/games`` items ``(jen_level, won, margin,
    decisions)``, ``ten/illegal_actions`` (a sum; the masked module keeps it at 0) and
    ``ten/agent_failed``, the errors of scripted agents of yours (:class:`TableEnv`).

    ``episode`` is only the last chunk of a game that spanned several sample calls: the
    learner's decisions are its whole game's, ``learner.t`` (not ``len``, the chunk's).

    On the driver it also holds the curriculum's level (``jen_level``, set by
    :func:`train.rllib_trainer.set_jen_level`): an env runner that failed and that Ray
    restarted is rebuilt from the build-time ``env_config``, so when RLlib brings back one
    that failed in a call (inside ``train()``), the level is sent to it before it samples.
    (One that Ray restarted while no call was waiting on it, which RLlib does not notice, gets
    the level sent before each iteration.)"""

    jen_level: int | None = None

    def on_env_runners_recreated(self, *, algorithm: Algorithm, env_runner_group: EnvRunnerGroup,
                                 env_runner_indices: list[int], is_evaluation: bool, **kwargs: Any) -> None:
        if self.jen_level is not None and not is_evaluation:
            send_jen_level(env_runner_group, self.jen_level, list(env_runner_indices),
                           timeout_s=algorithm.config  # type: ignore[union-attr]  # a built algorithm has its config
                           .env_runner_restore_timeout_s)  # as RLlib's own sync

    def on_episode_created(self, *, episode: MultiAgentEpisode,  # type: ignore[override]  # the new API stack's episode
                           env: gymnasium.Env | None = None, env_index: int = 0, **kwargs: Any) -> None:
        table = getattr(getattr(env, "envs", [None] * (env_index + 1))[env_index], "unwrapped", None)
        if isinstance(table, TableEnv):
            episode.custom_data[SEATING] = table.seating_seed()

    def on_episode_end(self, *, episode: MultiAgentEpisode,  # type: ignore[override]  # the new API stack's episode
                       metrics_logger: MetricsLogger = None,  # type: ignore[assignment]  # RLlib always gives one
                       **kwargs: Any) -> None:
        learner = episode.agent_episodes.get(PLAYER)
        if learner is None:
            return
        info = learner.get_infos(-1)
        if "agent_failed" in info:
            metrics_logger.log_value(("ten", "agent_failed"), info["agent_failed"], reduce="item_series")
        metrics_logger.log_value(("ten", "illegal_actions"), int("illegal_action" in info), reduce="sum")
        if "winners" in info:
            game = (info["jen_level"], info["winners"] == [0], score_margin(info["scores"], 0), learner.t)
            metrics_logger.log_value(("ten", "games"), game, reduce="item_series")
