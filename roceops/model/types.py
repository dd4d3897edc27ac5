"""Constrained scalar types shared by every roceops model.

Each type carries its valid range so a bad value fails at load time with the
field path, never later in a template.

>>> parse_speed("400G")
400000
>>> Size.parse("1.5MB").bytes
1572864
>>> Threshold.parse("10us").to_bytes(400_000)
500000
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    model_validator,
)
from pydantic_core import PydanticCustomError


class StrictModel(BaseModel):
    """Base for every user-facing model: unknown keys are errors, models are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


Priority = Annotated[int, Field(ge=0, le=7, description="802.1p / PFC priority 0-7")]
Dscp = Annotated[int, Field(ge=0, le=63, description="DSCP code point 0-63")]
TrafficClass = Annotated[int, Field(ge=0, le=7, description="switch traffic class 0-7")]
QueueId = Annotated[int, Field(ge=0, le=7, description="egress queue 0-7")]
Mtu = Annotated[int, Field(ge=1280, le=9216, description="L3/L2 MTU in bytes")]
def whole_number(value: Any) -> Any:
    """Strict mode still lets ``true`` and ``2.0`` equal a Literal's 1 and 2: refuse them before the Literal does."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"must be a whole number, got {value!r}")
    return value


RoceMtu = Annotated[Literal[256, 512, 1024, 2048, 4096], BeforeValidator(whole_number)]
Percent = Annotated[int, Field(ge=0, le=100)]
Weight = Annotated[int, Field(ge=1, le=100, description="DWRR weight 1-100")]
CableLength = Annotated[int, Field(ge=1, le=100_000, description="cable length in metres")]


def _registered(kind: str | None) -> Any:
    """A validator accepting the names of registered platforms (of ``kind`` when given): the registry
    (roceops/platforms/registry.py) is the one list of platforms, so these types have no literals."""

    def check(name: str) -> str:
        from roceops import registry  # at validation time: the rooms import these models

        found = registry.kind_of(name)
        if found is None or (kind is not None and found != kind):
            quoted = [repr(n) for n in registry.names(kind)]
            expected = " or ".join(filter(None, [", ".join(quoted[:-1]), quoted[-1]]))
            raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": expected})
        return name

    check.registry_kind = kind  # type: ignore[attr-defined]  # read by roceops.reference_doc
    return AfterValidator(check)


Platform = Annotated[str, _registered(None), Field(description="a registered platform (roceops.platforms)")]
SwitchPlatform = Annotated[str, _registered("switch"), Field(description="a registered switch platform")]
HostPlatform = Annotated[str, _registered("host"), Field(description="a registered host platform")]
Role = Literal["leaf", "spine", "core", "host"]
SwitchRole = Literal["leaf", "spine", "core"]
Asn = Annotated[int, Field(ge=1, le=4_294_967_294)]

_SPEED_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([GM])(?:b(?:ps|/s)?)?\s*$", re.IGNORECASE)


def parse_speed(value: Any) -> int:
    """Return a port speed in Mb/s from ``400G``, ``100000`` or ``800Gbps``."""
    if isinstance(value, bool):
        raise ValueError("speed must be like 400G or a number of Mb/s")
    if isinstance(value, int):
        mbps = value
    else:
        m = _SPEED_RE.match(str(value))
        if not m:
            raise ValueError(f"speed {value!r} is not like 100G, 400G or 800G")
        mbps = int(float(m.group(1)) * (1000 if m.group(2).upper() == "G" else 1))
    if mbps not in {10_000, 25_000, 40_000, 50_000, 100_000, 200_000, 400_000, 800_000, 1_600_000}:
        raise ValueError(f"speed {value!r} is not an Ethernet rate (10G..1600G)")
    return mbps


def format_speed(mbps: int) -> str:
    return f"{mbps // 1000}G"


Speed = Annotated[
    int,
    BeforeValidator(parse_speed),
    PlainSerializer(format_speed, return_type=str, when_used="json"),
]

_BREAKOUT_RE = re.compile(r"^(\d+)x(\d+)G")


def breakout_parts(mode: str) -> tuple[int, int]:
    """(ports, Mb/s per port) of a breakout mode: a fabric's ``2x400G`` or a platform.json ``2x400G(8)``.

    >>> breakout_parts("2x400G"), breakout_parts("4x200G[100G](4)")
    ((2, 400000), (4, 200000))
    """
    m = _BREAKOUT_RE.match(mode)
    if m is None:
        raise ValueError(f"breakout mode {mode!r} is not like 2x400G")
    return int(m.group(1)), int(m.group(2)) * 1000


_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(B|KB|KIB|MB|MIB|US|µS|MS)?\s*$", re.IGNORECASE)
_SIZE_UNITS = {"B": 1, "KB": 1024, "KIB": 1024, "MB": 1024 * 1024, "MIB": 1024 * 1024}
_TIME_UNITS = {"US": 1, "µS": 1, "MS": 1000}


class Size(StrictModel):
    """A byte size written as ``150KB``, ``1.5MB`` or a bare number of bytes (KB = 1,024 B)."""

    bytes: Annotated[int, Field(ge=0)]

    @classmethod
    def parse(cls, value: Any) -> Size:
        if isinstance(value, Size):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return cls(bytes=value)
        m = _SIZE_RE.match(str(value))
        if not m or (m.group(2) or "B").upper() not in _SIZE_UNITS:
            raise ValueError(f"size {value!r} is not like 150KB, 1.5MB or 65536")
        return cls(bytes=round(float(m.group(1)) * _SIZE_UNITS[(m.group(2) or "B").upper()]))


class Threshold(StrictModel):
    """A queue-depth threshold: bytes (``150KB``) or time at port speed (``10us``).

    Time thresholds are converted to bytes at the port's line rate, so one
    policy can serve 100G and 400G ports.
    """

    value: Annotated[float, Field(gt=0)]
    unit: Literal["B", "KB", "MB", "us", "ms"]

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, data: Any) -> Any:
        if isinstance(data, bool):
            raise ValueError(f"threshold {data!r} is not like 150KB, 1.5MB or 10us")
        if isinstance(data, int | float):
            return {"value": data, "unit": "B"}
        if isinstance(data, str):
            m = _SIZE_RE.match(data)
            if not m:
                raise ValueError(f"threshold {data!r} is not like 150KB, 1.5MB or 10us")
            unit = (m.group(2) or "B").upper()
            if unit in _SIZE_UNITS:
                return {"value": float(m.group(1)), "unit": {"KIB": "KB", "MIB": "MB"}.get(unit, unit)}
            return {"value": float(m.group(1)), "unit": "ms" if unit == "MS" else "us"}
        return data

    @classmethod
    def parse(cls, value: Any) -> Threshold:
        return cls.model_validate(value)

    def to_bytes(self, speed_mbps: int) -> int:
        if self.unit in ("us", "ms"):
            micros = self.value * _TIME_UNITS[self.unit.upper()]
            return round(micros * speed_mbps / 8)  # Mb/s * us / 8 = bytes
        return round(self.value * _SIZE_UNITS[self.unit])

    def __str__(self) -> str:
        v = int(self.value) if self.value == int(self.value) else self.value
        return f"{v}{self.unit}"


ThresholdField = Annotated[
    Threshold,
    BeforeValidator(Threshold.parse),
    PlainSerializer(str, return_type=str, when_used="json"),
]
