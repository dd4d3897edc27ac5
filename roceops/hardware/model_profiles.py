"""Switch models whose NOS ships no SKU files: the vendor's facts about one model, each with its source.

A SONiC switch is described by its SKU folder (:mod:`roceops.hardware.models`); a switch whose NOS
has no such files is described here, as data in ``roceops/hardware/model_catalogue/<name>.json``
(package data), one file per model named as the device reports itself (``show version``'s model).
Every fact carries a ``source`` (vendor file at a commit, vendor or third-party page); a fact no
source confirms is ``None`` with a source string that says so, and lint refuses what depends on it
rather than guessing (:mod:`roceops.lint.rules_model_profiles`). The NOS-specific spellings
(``keyword`` fields) are read by the platform room that renders them; this module never interprets them.

>>> p = model_profile("DCS-7060X6-64PE")
>>> p.ports.count, p.speed_keyword(400_000), p.queues.keyword
(64, '400g-4', 'uc-tx-queue')
>>> model_profile("7800R3-48CQ-LC").queues_for("4.32"), model_profile("7800R3-48CQ-LC").queues_for("4.33")[-1]
((0, 1, 2, 3, 4, 5, 6), 7)
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, ValidationError, model_validator

from roceops.hardware.models import MtuRange, Sourced
from roceops.model.types import StrictModel

MODEL_CATALOGUE = Path(__file__).parent / "model_catalogue"

Mbps = Annotated[int, Field(gt=0, description="speed in Mb/s")]
QueueId = Annotated[int, Field(ge=0, le=7)]


class UnknownModelProfile(LookupError):
    """No model profile of that name."""


class ProfilePorts(StrictModel):
    """The front-panel ports a fabric can use: how many, which cage, how the NOS names them."""

    count: Annotated[int, Field(ge=1)] = Field(description="front-panel data ports (cages) of the model")
    cage: str = Field(description="cage type, e.g. OSFP, QSFP28")
    lanes_per_cage: Annotated[int, Field(ge=1)] | None = None
    naming: str = Field(description="regular expression every port name matches; group 'port' is the cage number")
    example: str = Field(description="a port name that matches, for messages")
    source: str

    @model_validator(mode="after")
    def _naming_compiles(self) -> ProfilePorts:
        pattern = re.compile(self.naming)
        if "port" not in pattern.groupindex or not pattern.fullmatch(self.example):
            raise ValueError(f"ports.naming {self.naming!r} needs a (?P<port>...) group and must match "
                             f"{self.example!r}")
        return self

    def cage_of(self, name: str) -> int | None:
        """The cage number of port ``name``, None when the model does not name a port so."""
        m = re.fullmatch(self.naming, name)
        return int(m.group("port")) if m else None


class ProfileSpeed(StrictModel):
    """A speed a port of the model runs, with the NOS keyword that sets it."""

    speed: Mbps
    keyword: str
    source: str


class ProfileQueues(StrictModel):
    """Egress queues: the per-interface queue keyword, the queue ids a user may configure, lossless queues."""

    keyword: str = Field(description="the per-interface egress queue keyword the room renders")
    keyword_source: str
    configurable: tuple[QueueId, ...]
    configurable_source: str
    from_release: dict[str, tuple[QueueId, ...]] = Field(
        default_factory=dict, description="release -> configurable queue ids from that release on")
    lossless: Annotated[int, Field(ge=1, le=8)] | None = Field(description="lossless queues; None: unconfirmed")
    lossless_source: str


class ProfileFeature(StrictModel):
    """A feature the RoCE config needs: confirmed for this model (``supported``), with the NOS keyword/unit if any."""

    supported: bool
    keyword: str | None = None
    source: str


class ProfileLoadBalancing(StrictModel):
    """Hash fields and seed: the syntax a source confirms for this model, None where none does."""

    hash_fields: str | None = None
    hash_seed: str | None = None
    source: str


class ModelProfile(StrictModel):
    """One switch model (or a chassis line card) as its vendor's sources describe it."""

    name: str = Field(description="the model as the device reports it, e.g. DCS-7060X6-64PE")
    platform: str = Field(description="the roceops platform (room) whose NOS runs on it")
    vendor: str
    family: str
    architecture: Literal["shared-buffer", "voq"]
    asic: Sourced
    ports: ProfilePorts
    speeds: tuple[ProfileSpeed, ...]
    mtu: MtuRange
    queues: ProfileQueues
    ecn: ProfileFeature = Field(description="queue-length ECN marking in bytes; keyword = the threshold unit")
    pfc: ProfileFeature
    pfc_watchdog: ProfileFeature
    load_balancing: ProfileLoadBalancing

    def speed_keyword(self, speed: int) -> str | None:
        return next((s.keyword for s in self.speeds if s.speed == speed), None)

    def queues_for(self, release: str | None) -> tuple[int, ...]:
        """Configurable queue ids on ``release`` (the base set when the release is not pinned)."""
        best = self.queues.configurable
        for since, queues in sorted(self.queues.from_release.items(), key=lambda kv: _release_key(kv[0])):
            if release is not None and _release_key(release) >= _release_key(since):
                best = queues
        return best


def _release_key(release: str) -> tuple[int, ...]:
    """``4.33.1F`` -> (4, 33, 1): numeric parts of a release, for ordering.

    >>> _release_key("4.33.1F") > _release_key("4.33"), _release_key("4.9") < _release_key("4.10")
    (True, True)
    """
    return tuple(int(n) for n in re.findall(r"\d+", release))


@cache
def _load(path: Path) -> ModelProfile:
    try:
        return ModelProfile.model_validate_json(path.read_text())
    except ValidationError as exc:
        raise ValueError(f"{path}: not a roceops model profile ({exc})") from None


def model_profile_names() -> list[str]:
    return sorted(p.stem for p in MODEL_CATALOGUE.glob("*.json"))


def model_profile(name: str) -> ModelProfile:
    """The profile of model ``name``; :class:`UnknownModelProfile` when the catalogue has none."""
    path = MODEL_CATALOGUE / f"{name}.json"
    if "/" in name or not path.is_file():
        raise UnknownModelProfile(f"no model profile {name!r} (known: {', '.join(model_profile_names())})")
    return _load(path)


def find_model_profile(name: str | None) -> ModelProfile | None:
    """:func:`model_profile`, or None for no name or an unknown one (lint reports unknown names)."""
    if name is None or "/" in name or not (MODEL_CATALOGUE / f"{name}.json").is_file():
        return None  # without listing the catalogue for model_profile's message (every EOS render asks)
    try:
        return model_profile(name)
    except UnknownModelProfile:
        return None
