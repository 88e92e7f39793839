"""Training configs: a YAML file that fully describes a run, checked before anything runs.

Sections (every key optional except where noted; unknown keys are errors):

```yaml
rules:            # the game, as ten_env.Rules (without jen_level: see opponents)
  num_players: 2  # selfplay may list several: [2, 3, 4, 5] spreads the envs over the table sizes
  bust_buy: false
  payment: auto
  max_bid: 40
  deck_file: null # a deck file instead of the bundled deck
opponents:        # who the learner plays against: one of three kinds
  kind: jen       # jen: the solitaire game against JEN (needs num_players 2)
  jen_level: 4
  curriculum:     # optional: climb levels when the rolling win rate passes a threshold
    threshold: 0.55
    window: 300
    max_level: 10
  # kind: scripted  -> agents: [heuristic, jen:5]   (one per other seat)
  # kind: selfplay  -> pool_size, snapshot_every, scripted, scripted_share
algorithm:        # MaskablePPO (sb3-contrib) and its hyperparameters (backend rllib: RLlib's PPO, same keys)
  learning_rate: 0.0003
  n_steps: 1024
  batch_size: 256
  n_epochs: 5
  gamma: 1.0
  gae_lambda: 0.95
  clip_range: 0.2
  ent_coef: 0.01
  vf_coef: 0.5
  max_grad_norm: 0.5
  net_arch: [256, 256]
train:
  total_steps: 200000
  n_envs: 4
  vec_env: dummy  # or subproc (one process per env)
  seed: 0
  reward: win     # or margin, or outcome: (win + margin) / 2, the search's value of a game
  checkpoint_every: 50000
  init_from: null # warm start: a pretrained model's name (ppo-jen) or a model .zip, same net_arch
  derived_features: false  # true: the learner sees ten_env.features' derived features after the
                           # observation (sb3 only); a plain init_from gets them as zero-weight inputs
  init_sharpen: 1.0  # with init_from: the warm start's action logits times this, its policy's
                     # probabilities raised to this power (argmax and value unchanged), for a
                     # network distilled from soft targets, whose sampled play is weak
evaluation:
  every: 50000    # periodic evaluation on fixed seeds (0: never)
  games: 100
  opponents: [heuristic]          # normal games: one matchup per agent (all other seats), e.g. [heuristic, jen:7]
  final_levels: "4-10"            # JEN ladder at the end (kind jen; "" to skip)
  final_games: 200
output:
  dir: runs/run
backend: sb3      # or rllib: Ray RLlib's PPO; how it reads the keys: train.rllib_trainer
ray:              # backend rllib only
  address: null   # a running cluster ("auto", "10.0.0.5:6379"); null starts a local Ray
  num_env_runners: 1
  num_cpus_per_env_runner: 1
```

``load_config(path, overrides, unused)`` reads a file, applies ``--set key=value``
overrides (dotted keys, YAML values) and returns a validated :class:`Config`
(adding to the list ``unused``, if given, a note on each key the run never reads);
every problem is reported as one ``ValueError``, naming each key that is wrong
(problems of single keys all at once, separated by ``;``; a conflict between
keys, the first found) and what is allowed. A section left empty is a section of
defaults.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_args

import yaml
from pydantic import (BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationError, field_validator,
                      model_validator)

from agents.registry import NAMES_HELP
from ten_env.rules import JEN_LEVELS, MAX_BIDS, PLAYER_COUNTS

from .options import MAX_WIDTH, parse_levels

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails


class _Section(BaseModel):
    # NaN and infinity are refused as what they are: "less than or equal to 1 (got 'nan')" named a bound
    # that NaN does not break
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _numbers_are_not_booleans(cls, data: Any) -> Any:
        # pydantic would read true as 1 (YAML 1.1 also reads yes and on as true): a slip, not a count,
        # whether the key takes one number, a constrained one or a list of them; and the other way, 1
        # or "no" for a switch
        if isinstance(data, dict):
            for key, value in data.items():
                field = cls.model_fields.get(key)
                if field is None:
                    continue
                types = _leaf_types(field.annotation)
                if bool in types and types <= {bool, type(None)} and not isinstance(value, (bool, type(None))):
                    raise ValueError(f"{key} must be true or false, got {value!r}")
                if not _has_bool(value):
                    continue
                if bool not in types and types & {int, float}:
                    what = "a list of numbers" if isinstance(value, list) else "a number"
                    raise ValueError(f"{key} must be {what}, got {value!r}")
        return data


def _leaf_types(annotation: object) -> set:
    """The types an annotation is built from: ``list[Annotated[int, ...]] | None`` gives {int, NoneType}."""
    args = get_args(annotation)  # a Literal's values and an Annotated's constraints are not types
    if not args:
        return {annotation}
    return set().union(*(_leaf_types(arg) for arg in args if isinstance(arg, type) or get_args(arg)))


def _has_bool(value: object) -> bool:
    return isinstance(value, bool) or (isinstance(value, list) and any(_has_bool(v) for v in value))


PlayerCount = Annotated[int, Field(ge=PLAYER_COUNTS[0], le=PLAYER_COUNTS[-1])]
# One size or a list of them: the kind of value given picks the branch, so a mistake is reported
# against that branch alone (the tags are dropped from the key named in the message).
_UNION_TAGS = ("one", "several")
TableSizes = Annotated[
    Union[Annotated[PlayerCount, Tag("one")], Annotated[list[PlayerCount], Field(min_length=1), Tag("several")]],
    Discriminator(lambda value: "several" if isinstance(value, list) else "one"),
]


class RulesConfig(_Section):
    # A list trains one network at several table sizes (self-play): env i plays the i-th size, cyclically.
    num_players: TableSizes = 2
    bust_buy: bool = False
    payment: Literal["auto", "manual"] = "auto"
    max_bid: int = Field(40, ge=MAX_BIDS[0], le=MAX_BIDS[-1])
    deck_file: str | None = None

    @property
    def player_counts(self) -> list[int]:
        return list(self.num_players) if isinstance(self.num_players, list) else [self.num_players]

    def game(self, num_players: int, **extra: object) -> dict:
        """``ten_env.Rules`` arguments for a table of ``num_players``."""
        return {**self.model_dump(exclude={"num_players"}), "num_players": num_players, **extra}

    @field_validator("deck_file")
    @classmethod
    def _loadable(cls, path: str | None) -> str | None:
        if path is not None:
            from ten_env.deck import load

            load(path)  # raises ValueError saying what is wrong with the file
        return path


class Curriculum(_Section):
    threshold: float = Field(0.55, gt=0.0, lt=1.0)
    window: int = Field(300, ge=10)
    max_level: int = Field(JEN_LEVELS[-1], ge=JEN_LEVELS[0], le=JEN_LEVELS[-1])


class JenOpponents(_Section):
    kind: Literal["jen"]
    jen_level: int = Field(JEN_LEVELS[0], ge=JEN_LEVELS[0], le=JEN_LEVELS[-1])
    curriculum: Curriculum | None = None


class ScriptedOpponents(_Section):
    kind: Literal["scripted"]
    agents: list[str] = Field(min_length=PLAYER_COUNTS[0] - 1, max_length=PLAYER_COUNTS[-1] - 1)  # other seats

    @field_validator("agents")
    @classmethod
    def _known(cls, names: list[str]) -> list[str]:
        from agents.registry import make_agent

        for name in names:
            make_agent(name)  # raises ValueError naming the allowed agents
        return names


class SelfPlayOpponents(_Section):
    kind: Literal["selfplay"]
    pool_size: int = Field(5, ge=1, le=50)
    snapshot_every: int = Field(20000, ge=1)
    scripted: list[str] = ["heuristic"]
    scripted_share: float = Field(0.2, ge=0.0, le=1.0)

    @field_validator("scripted")
    @classmethod
    def _known(cls, names: list[str]) -> list[str]:
        return ScriptedOpponents._known(names)

    @model_validator(mode="after")
    def _someone_to_play_the_share(self) -> SelfPlayOpponents:
        if self.scripted_share > 0 and not self.scripted:
            raise ValueError(f"scripted is empty, but scripted_share is {self.scripted_share}: name the scripted "
                             f"agents, or set scripted_share: 0")
        return self


Opponents = Annotated[Union[JenOpponents, ScriptedOpponents, SelfPlayOpponents], Field(discriminator="kind")]


class AlgorithmConfig(_Section):
    name: Literal["MaskablePPO"] = "MaskablePPO"
    learning_rate: float = Field(3e-4, gt=0.0, le=1.0)
    n_steps: int = Field(1024, ge=8)
    batch_size: int = Field(256, ge=2)
    n_epochs: int = Field(5, ge=1, le=100)
    gamma: float = Field(1.0, gt=0.0, le=1.0)
    gae_lambda: float = Field(0.95, ge=0.0, le=1.0)
    clip_range: float = Field(0.2, gt=0.0, le=1.0)
    ent_coef: float = Field(0.01, ge=0.0, le=1.0)
    vf_coef: float = Field(0.5, ge=0.0, le=10.0)
    max_grad_norm: float = Field(0.5, gt=0.0)
    net_arch: list[Annotated[int, Field(ge=1, le=MAX_WIDTH)]] = [256, 256]


class TrainConfig(_Section):
    total_steps: int = Field(200_000, ge=1)
    n_envs: int = Field(4, ge=1, le=256)
    vec_env: Literal["dummy", "subproc"] = "dummy"
    seed: int = Field(0, ge=0, le=2**31 - 1)  # + steps done (mod 2**31) + env index: a NumPy seed
    reward: Literal["win", "margin", "outcome"] = "win"
    checkpoint_every: int = Field(50_000, ge=1)
    init_from: str | None = None
    derived_features: bool = False
    # A network distilled from soft targets (the search's visit shares) plays well by its argmax
    # but far worse sampled, and PPO learns from sampled play: sharpening it first starts PPO near
    # the argmax player (ppo-jen-features, 300 JEN 8 games: 45% sampled at 6, 6% at 1, 51% by argmax).
    init_sharpen: float = Field(1.0, gt=0.0, le=100.0)

    @field_validator("init_from")
    @classmethod
    def _model_file(cls, spec: str | None) -> str | None:
        if spec is not None:
            model_path(spec)  # raises ValueError naming the shipped models
        return spec


def model_path(spec: str) -> Path:
    """The file of ``train.init_from``: a shipped model's name (``ppo-jen``) or a path to a ``.zip``."""
    from agents.policy import PRETRAINED_DIR, shipped_models

    shipped = PRETRAINED_DIR / f"{spec}.zip"
    if shipped.is_file():
        return shipped
    path = Path(spec)
    if path.suffix == ".zip" and path.is_file():
        return path
    raise ValueError(f"no model {spec!r}: name a shipped model ({', '.join(shipped_models())}) "
                     f"or an existing .zip file")


class EvaluationConfig(_Section):
    every: int = Field(50_000, ge=0)
    games: int = Field(100, ge=1)
    opponents: list[str] = Field(["heuristic"], min_length=1)
    final_levels: str = f"{JEN_LEVELS[0]}-{JEN_LEVELS[-1]}"
    final_games: int = Field(200, ge=0)

    @field_validator("opponents")
    @classmethod
    def _known(cls, names: list[str]) -> list[str]:
        return ScriptedOpponents._known(names)

    @field_validator("final_levels", mode="before")
    @classmethod
    def _as_text(cls, levels: object) -> object:
        # "--set evaluation.final_levels=7" reads as the number 7, and a YAML list as a list
        if levels is None:  # "--set evaluation.final_levels=" reads as null: no ladder, as ""
            return ""
        if isinstance(levels, int) and not isinstance(levels, bool):
            return str(levels)
        if isinstance(levels, list):
            return ",".join(str(level) for level in levels)
        return levels


class OutputConfig(_Section):
    dir: str = "runs/run"

    @field_validator("dir")
    @classmethod
    def _names_a_folder(cls, path: str) -> str:
        if not path.strip():  # "" would be the current folder
            raise ValueError(f"must name a folder for the run, such as runs/my-run, got {path!r}")
        return path


class RayConfig(_Section):
    """``backend: rllib``: where Ray runs and how many sampling processes it starts."""

    address: str | None = None
    num_env_runners: int = Field(1, ge=0, le=1024)
    num_cpus_per_env_runner: int = Field(1, ge=1, le=256)


class Config(_Section):
    rules: RulesConfig = RulesConfig()
    opponents: Opponents = JenOpponents(kind="jen")
    algorithm: AlgorithmConfig = AlgorithmConfig()
    train: TrainConfig = TrainConfig()
    evaluation: EvaluationConfig = EvaluationConfig()
    output: OutputConfig = OutputConfig()
    backend: Literal["sb3", "rllib"] = "sb3"
    ray: RayConfig = RayConfig()

    def _agents_fit_max_bid(self) -> None:
        """Every network named as an opponent was made for this game's actions (``rules.max_bid``):
        said here, by the key, rather than when the envs are built or after training."""
        from agents.registry import action_count, make_agent
        from ten_env.actions import max_bid_for, num_actions

        named = {"scripted": "agents", "selfplay": "scripted"}.get(self.opponents.kind)
        keys = [(f"opponents.{named}", getattr(self.opponents, named))] if named else []
        needed = num_actions(self.rules.max_bid)
        for key, names in [*keys, ("evaluation.opponents", self.evaluation.opponents)]:
            for name in names:
                n = action_count(make_agent(name))
                if n is not None and n != needed:
                    raise ValueError(f"{key}: {name!r} was made for rules.max_bid {max_bid_for(n)} ({n} actions); "
                                     f"rules.max_bid {self.rules.max_bid} gives {needed}: set rules.max_bid to "
                                     f"{max_bid_for(n)}, or name another agent")

    @model_validator(mode="after")
    def _consistent(self) -> Config:
        kind = self.opponents.kind
        if kind != "selfplay" and isinstance(self.rules.num_players, list):
            raise ValueError(f"rules.num_players: a list of table sizes needs opponents.kind selfplay, "
                             f"got kind {kind}: give one number")
        counts = self.rules.player_counts
        if len(set(counts)) != len(counts):
            raise ValueError(f"rules.num_players: give each table size once, got {counts}")
        if len(counts) > self.train.n_envs:
            raise ValueError(f"train.n_envs ({self.train.n_envs}) must be at least the number of table sizes in "
                             f"rules.num_players ({len(counts)}): env i plays the i-th size, so the others "
                             f"would never be trained")
        if kind == "jen" and self.rules.num_players != 2:
            raise ValueError(
                f"rules.num_players must be 2 when opponents.kind is jen (the solitaire game), "
                f"got {self.rules.num_players}"
            )
        opponents, players = self.opponents, self.rules.num_players  # one table size, but for self-play
        if isinstance(opponents, ScriptedOpponents) and isinstance(players, int) \
                and len(opponents.agents) != players - 1:
            raise ValueError(
                f"opponents.agents must name one agent per other seat: {players - 1} "
                f"for rules.num_players={players}, got {len(opponents.agents)}"
            )
        if isinstance(opponents, JenOpponents) and opponents.curriculum is not None \
                and opponents.curriculum.max_level < opponents.jen_level:
            raise ValueError("opponents.curriculum.max_level must be at least opponents.jen_level")
        if self.algorithm.batch_size > self.algorithm.n_steps * self.train.n_envs:
            raise ValueError(
                f"algorithm.batch_size ({self.algorithm.batch_size}) must be at most "
                f"algorithm.n_steps * train.n_envs ({self.algorithm.n_steps * self.train.n_envs})"
            )
        if self.evaluation.final_levels:
            try:
                parse_levels(self.evaluation.final_levels)
            except ValueError as exc:
                raise ValueError(f"evaluation.final_levels: {exc}") from None
        if self.backend == "sb3" and self.ray != RayConfig():
            raise ValueError("ray: this section is for backend: rllib (this config uses sb3)")
        if self.backend == "rllib":
            if isinstance(self.rules.num_players, list):
                raise ValueError("rules.num_players: backend rllib trains one table size: give one number")
            if self.train.init_from:
                raise ValueError("train.init_from: a warm start from an SB3 model is for backend sb3 only")
            if self.train.derived_features:
                raise ValueError("train.derived_features: the derived features are for backend sb3 only "
                                 "(RLlib's models take the plain observation)")
            runners = self.ray.num_env_runners
            if runners and self.train.n_envs % runners:
                raise ValueError(f"train.n_envs ({self.train.n_envs}) must be a multiple of ray.num_env_runners "
                                 f"({runners}): the envs are shared evenly by the runners")
        self._agents_fit_max_bid()
        if self.train.init_sharpen != 1.0 and not self.train.init_from:
            raise ValueError("train.init_sharpen: sharpens the policy of a warm start: set train.init_from too")
        if self.train.init_from:
            from agents.safe_load import (action_space, check_observation_shape, observation_shape,
                                          policy_kwargs_from_data, read_data)
            from ten_env import features as F
            from ten_env.actions import max_bid_for, num_actions

            path = model_path(self.train.init_from)
            data = read_data(path)
            shape = observation_shape(path, data)
            if shape == (F.EXTENDED_SIZE,) and not self.train.derived_features:
                raise ValueError(f"train.init_from: the network of {self.train.init_from!r} takes the derived "
                                 f"features ({F.EXTENDED_SIZE} floats): set train.derived_features: true")
            try:
                check_observation_shape(path, shape)
            except ValueError as exc:
                raise ValueError(f"train.init_from: {exc}") from None
            arch = policy_kwargs_from_data(path, data).get("net_arch")
            if isinstance(arch, dict):  # SB3's {"pi": [...], "vf": [...]}, e.g. from ten distill train --width
                if arch.get("pi") != arch.get("vf"):
                    raise ValueError(f"train.init_from: the network of {self.train.init_from!r} has policy layers "
                                     f"{arch.get('pi')} and value layers {arch.get('vf')}, but algorithm.net_arch "
                                     f"gives both the same layers: start from a model whose two networks match")
                arch = arch.get("pi")
            if arch != list(self.algorithm.net_arch):
                raise ValueError(f"train.init_from: the network of {self.train.init_from!r} has layers {arch}, "
                                 f"algorithm.net_arch is {list(self.algorithm.net_arch)}: set it to the model's")
            n = int(action_space(path, data).n)
            if n != num_actions(self.rules.max_bid):
                made_for = max_bid_for(n)
                raise ValueError(f"train.init_from: the network of {self.train.init_from!r} has {n} actions, made "
                                 f"for rules.max_bid {made_for}; rules.max_bid {self.rules.max_bid} gives "
                                 f"{num_actions(self.rules.max_bid)}: set rules.max_bid to {made_for}")
        return self

    def to_dict(self) -> dict:
        return self.model_dump(mode="json")


_SECTIONS: dict[str, type[BaseModel]] = {
    "": Config, "rules": RulesConfig, "algorithm": AlgorithmConfig, "train": TrainConfig,
    "evaluation": EvaluationConfig, "output": OutputConfig, "ray": RayConfig, "opponents.curriculum": Curriculum,
}
_OPPONENT_KINDS: dict[str, type[BaseModel]] = {
    "jen": JenOpponents, "scripted": ScriptedOpponents, "selfplay": SelfPlayOpponents,
}


def _describe(error: ErrorDetails) -> str:
    loc = [str(part) for part in error["loc"] if not str(part).startswith("function-") and part not in _UNION_TAGS]
    kind_model = None
    if len(loc) > 1 and loc[0] == "opponents" and loc[1] in _OPPONENT_KINDS:
        kind_model = _OPPONENT_KINDS[loc.pop(1)]  # pydantic puts the kind in the path
    where = ".".join(loc)
    kind = error["type"]
    if kind == "extra_forbidden":
        parent = where.rpartition(".")[0]
        model = kind_model if parent == "opponents" and kind_model else _SECTIONS.get(parent)
        allowed = f"; allowed: {', '.join(model.model_fields)}" if model else ""
        return f"unknown key {where!r}{allowed}"
    if kind == "union_tag_not_found":
        return f"{where or 'opponents'}.kind is required: one of jen, scripted, selfplay"
    if kind == "union_tag_invalid":
        given = error.get("input", {}).get("kind")
        return f"{where or 'opponents'}.kind must be one of jen, scripted, selfplay (got {given!r})"
    message = error["msg"].removeprefix("Value error, ")
    if where and kind != "value_error":
        return f"{where}: {message} (got {_given(error.get('input'))})"
    return f"{where}: {message}" if where else message


NOT_A_MAPPING = "a config must be a YAML mapping of sections (rules, opponents, algorithm, ...)"


def _given(value: object) -> str:
    return "an empty value" if value is None else repr(value)


def validate(data: dict) -> Config:
    """A :class:`Config` from plain data, or ValueError listing every problem."""
    if not isinstance(data, dict):
        raise ValueError(NOT_A_MAPPING)
    # "train:" with nothing under it is YAML's null: an empty section, every key at its default
    data = {key: {} if value is None and key in Config.model_fields and key != "backend" else value
            for key, value in data.items()}
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        problems = [_describe(error) for error in exc.errors()]
        raise ValueError("invalid config: " + "; ".join(problems)) from None


def apply_overrides(data: dict, overrides: list[str]) -> dict:
    """Apply ``key.sub=value`` strings (values read as YAML) to nested config data."""
    if overrides and not isinstance(data, dict):
        raise ValueError(NOT_A_MAPPING)
    for item in overrides:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set {item!r}: expected key=value, e.g. train.total_steps=200000")
        node = data
        parts = key.strip().split(".")
        if not all(part.strip() for part in parts):
            raise ValueError(f"--set {item!r}: {key.strip()!r} has an empty part: write section.key, "
                             f"e.g. train.total_steps=200000")
        for part in parts[:-1]:
            child = node.get(part)
            if child is None:  # absent, or left empty in the file
                child = node[part] = {}
            if not isinstance(child, dict):
                raise ValueError(f"--set {item!r}: {part!r} is not a section")
            node = child
        try:
            node[parts[-1]] = yaml.load(raw, Loader=_UniqueKeyLoader)
        except yaml.YAMLError as exc:
            problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
            raise ValueError(f"--set {item!r}: the value is not valid YAML ({problem}); a text value may need "
                             f"quotes, as in key='\"text\"'") from None
    return data


def load_config(path: str | Path, overrides: Sequence[str] = (), unused: list | None = None) -> Config:
    """The config of the file at ``path`` with ``overrides`` (``--set``); ``unused``, a list, gets
    :func:`unused_keys`' notes."""
    data = apply_overrides(read_yaml(path, "config file"), list(overrides))
    config = validate(data)
    if unused is not None:
        unused += unused_keys(config, data)
    return config


def unused_keys(config: Config, given: dict) -> list[str]:
    """A note for each key ``given`` (the config as written, overrides applied) and set to other
    than its default (or nothing) that the run it describes never reads, so that a setting meant
    for another kind of run is not lost in silence (a run's own ``config.yaml``, which writes
    out every default, gives none); and one for a ``train.total_steps`` that SB3, which learns
    from whole rollouts, rounds up by more than a twentieth."""
    def given_in(section: str, key: str) -> bool:
        part, model = given.get(section), getattr(config, section)
        value = getattr(model, key)
        return isinstance(part, dict) and key in part and value != type(model).model_fields[key].default \
            and value not in ("", None)

    notes = []
    if config.opponents.kind == "jen" and given_in("evaluation", "opponents"):
        notes.append("evaluation.opponents is not used against JEN (opponents.kind jen): the evaluations play JEN")
    if config.opponents.kind != "jen" and given_in("evaluation", "final_levels"):
        notes.append(f"evaluation.final_levels is for runs against JEN; this one (opponents.kind "
                     f"{config.opponents.kind}) is evaluated against evaluation.opponents")
    if config.backend == "rllib" and given_in("train", "vec_env"):  # (a ray section under sb3 is refused)
        notes.append("train.vec_env is for backend sb3; with backend rllib, RLlib's env runners run the envs")
    rollout, budget = config.algorithm.n_steps * config.train.n_envs, config.train.total_steps
    trained = -(-budget // rollout) * rollout  # SB3 learns from whole rollouts only
    if config.backend == "sb3" and trained - budget > budget / 20:  # a few steps over are not worth a word
        notes.append(f"train.total_steps {budget:,} is not a whole number of rollouts "
                     f"(algorithm.n_steps x train.n_envs = {rollout:,} steps): the run trains {trained:,}")
    return notes


class _UniqueKeyLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a key given twice in one mapping: PyYAML keeps the last
    one, so a section written twice would lose the first without a word."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # "<<: *defaults": merged by the base class
                continue
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, Hashable):  # refused by the base class, in its own words
                continue
            if key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"the key {key!r} is given twice",
                                                        key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep)


def read_yaml(path: str | Path, what: str) -> Any:
    """The data of the YAML file at ``path`` (``{}`` if it is empty); ``ValueError`` naming ``what``
    it is and why it cannot be read."""
    if not str(path):  # Path("") is the current folder
        raise ValueError(f"the {what}'s name is empty: give a YAML file such as configs/quick.yaml")
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{what} {str(path)!r} is a folder: give a YAML file such as configs/quick.yaml")
    if not path.is_file():
        # named as the README names them, away from the repository's root
        shipped = not path.is_absolute() and path.parts[:1] == ("configs",) and not Path("configs").is_dir()
        raise ValueError(f"{what} {str(path)!r} does not exist" + (
            " here: the configs/ folder comes with the repository, so run ten train from its root" if shipped
            else ""))
    try:
        with path.open(encoding="utf-8") as stream:  # opened, so that an error names the file, not a string
            data = yaml.load(stream, Loader=_UniqueKeyLoader)
    except UnicodeDecodeError:
        raise ValueError(f"{what} {str(path)!r} is not a text file (not UTF-8)") from None
    except OSError as exc:
        raise ValueError(f"cannot read {what} {str(path)!r}: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"{what} {str(path)!r} is not valid YAML: {' '.join(str(exc).split())}") from None
    return {} if data is None else data


__all__ = ["Config", "load_config", "read_yaml", "validate", "apply_overrides", "parse_levels", "NAMES_HELP"]
