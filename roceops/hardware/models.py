"""Switch hardware profiles: what a SKU's vendor files say the box can do.

A :class:`SwitchProfile` is data read from vendor files (sonic-buildimage
``port_config.ini``, ``hwsku.json``, ``platform.json``, buffer templates) by
:mod:`roceops.hardware.importer`; every fact carries where it came from
(:class:`SourceFile`, or a provenance string for facts that are not in the SKU
files, such as feature flags). Nothing here is derived from a port speed.

>>> FeatureFlags.unconfirmed().adaptive_routing
False
>>> FeatureFlags.unconfirmed().source_of("udf_hash")
'unconfirmed'
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from roceops.model.types import StrictModel

UNCONFIRMED = "unconfirmed"
FEATURE_NAMES: tuple[str, ...] = ("adaptive_routing", "dynamic_load_balancing", "udf_hash", "hash_seed")

Mbps = Annotated[int, Field(gt=0, description="speed in Mb/s")]
Bytes = Annotated[int, Field(ge=0, description="bytes")]


class SourceFile(StrictModel):
    """One vendor file a profile was read from: its path as given to the importer and its sha256."""

    path: str
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class BreakoutMode(StrictModel):
    """One ``platform.json`` breakout mode of a cage, e.g. ``2x400G[200G,100G]`` or ``1x400G(8)``.

    ``speeds`` are the speeds each sub-port can run in this mode (the first is the
    mode's own speed, the rest are the bracketed alternatives); ``lanes_per_port`` is
    the parenthesised lane count when the vendor states one, else the cage's lanes
    divided evenly.
    """

    name: str
    ports: Annotated[int, Field(ge=1)]
    speed: Mbps
    speeds: tuple[Mbps, ...]
    lanes_per_port: Annotated[int, Field(ge=1)]
    aliases: tuple[str, ...]


class Cage(StrictModel):
    """A physical front-panel port (``platform.json`` interface): its lanes and breakout modes."""

    name: str
    index: Annotated[int, Field(ge=0)]
    lanes: tuple[int, ...]
    breakout_modes: tuple[BreakoutMode, ...]
    default_breakout: str | None = Field(default=None, description="hwsku.json default_brkout_mode")

    def mode(self, name: str) -> BreakoutMode | None:
        return next((m for m in self.breakout_modes if m.name == name), None)


class SwitchPort(StrictModel):
    """One logical port of the SKU as ``port_config.ini`` lists it."""

    name: str
    lanes: tuple[int, ...]
    alias: str
    index: Annotated[int, Field(ge=0)]
    speed: Mbps
    speeds: tuple[Mbps, ...] = Field(description="speeds this port can run in the SKU's breakout mode")
    cage: str | None = Field(default=None, description="platform.json port the lanes belong to")
    breakout_modes: tuple[str, ...] = Field(default=(), description="breakout mode names of that cage")


class BufferPool(StrictModel):
    name: str
    type: Literal["ingress", "egress"]
    mode: Literal["static", "dynamic"]
    size: Bytes | None = None
    xoff: Bytes | None = None


class BufferProfile(StrictModel):
    name: str
    pool: str
    size: Bytes
    dynamic_th: int | None = None
    static_th: Bytes | None = None


class LosslessPgEntry(StrictModel):
    """One ``pg_profile_lookup.ini`` row: the lossless PG headroom for a speed and cable length."""

    speed: Mbps
    cable: str
    size: Bytes
    xon: Bytes
    xoff: Bytes
    threshold: int
    xon_offset: Bytes | None = None


class BufferSpec(StrictModel):
    """The SKU's default buffer configuration as its ``buffers_defaults_<topo>.j2`` renders it.

    ``model`` is the threshold model of the lossless egress pool: ``dynamic``
    (alpha, ``dynamic_th``; Mellanox SKUs) or ``static`` (``static_th``; the Broadcom
    SKUs here). ``dynamic_calculation`` says whether the SKU ships
    ``buffers_dynamic.json.j2`` (SONiC's buffermgrd computes headroom itself).
    """

    template: str = Field(description="the buffers_defaults_<topo>.j2 rendered, e.g. buffers_defaults_t1.j2")
    model: Literal["dynamic", "static"]
    dynamic_calculation: bool
    default_cable: str
    pools: tuple[BufferPool, ...]
    profiles: tuple[BufferProfile, ...]
    ingress_profile_list: tuple[str, ...] = Field(default=(), description="BUFFER_PORT_INGRESS_PROFILE_LIST")
    egress_profile_list: tuple[str, ...] = Field(default=(), description="BUFFER_PORT_EGRESS_PROFILE_LIST")
    lossless_queues: tuple[int, ...] = Field(default=(), description="queues the template gives a lossless profile")
    lossless_pgs: tuple[int, ...] = Field(default=(), description="PGs the template leaves for lossless headroom")
    lossy_queue_profile: str = Field(default="egress_lossy_profile", description="profile of the lossy queues")
    lossless_from: Literal["sku", "buffers_config.j2"] = Field(
        default="sku", description="who sets the lossless queues/PGs: the SKU's macros or the shared template")
    pg_lossless: tuple[LosslessPgEntry, ...] = ()

    def pool(self, name: str) -> BufferPool | None:
        return next((p for p in self.pools if p.name == name), None)

    def pg_row(self, speed: int, cable_m: int) -> LosslessPgEntry | None:
        """The ``pg_profile_lookup.ini`` row buffermgrd looks up for a port (speed in Mb/s, cable ``<n>m``)."""
        cable = f"{cable_m}m"
        return next((r for r in self.pg_lossless if r.speed == speed and r.cable == cable), None)

    def cable_lengths(self, speed: int) -> tuple[str, ...]:
        """The cable lengths the lookup table has a row for at ``speed``, shortest first."""
        rows = {r.cable for r in self.pg_lossless if r.speed == speed}
        return tuple(sorted(rows, key=lambda c: int(c.rstrip("m")) if c.rstrip("m").isdigit() else 0))

    def profile(self, name: str) -> BufferProfile | None:
        return next((p for p in self.profiles if p.name == name), None)


class VendorManagedBuffers(StrictModel):
    """A SKU whose files set no buffers: its image leaves them to the ASIC configuration, roceops renders none."""

    reason: str = Field(description="which file says so, e.g. 'buffers_defaults_t0.j2 renders no BUFFER_POOL'")


class FeatureFlags(StrictModel):
    """Load-balancing features of the ASIC/NOS, each with where that was confirmed.

    ``sources`` maps every flag to a vendor URL or repo path, or to
    ``"unconfirmed"``; a flag can only be True with a real source.
    """

    adaptive_routing: bool
    dynamic_load_balancing: bool
    udf_hash: bool = Field(description="RoCE BTH destination-QP hashing via UDF / custom hash fields")
    hash_seed: bool
    sources: dict[str, str]

    @model_validator(mode="after")
    def _every_flag_sourced(self) -> FeatureFlags:
        missing = [n for n in FEATURE_NAMES if not self.sources.get(n)]
        extra = sorted(set(self.sources) - set(FEATURE_NAMES))
        if missing or extra:
            raise ValueError(f"features.sources must name exactly {', '.join(FEATURE_NAMES)} "
                             f"(missing: {missing or 'none'}, unknown: {extra or 'none'})")
        claimed = [n for n in FEATURE_NAMES if getattr(self, n) and self.sources[n] == UNCONFIRMED]
        if claimed:
            raise ValueError(f"features {', '.join(claimed)} are True with an 'unconfirmed' source")
        return self

    def source_of(self, name: str) -> str:
        return self.sources[name]

    @classmethod
    def unconfirmed(cls) -> FeatureFlags:
        return cls(adaptive_routing=False, dynamic_load_balancing=False, udf_hash=False, hash_seed=False,
                   sources=dict.fromkeys(FEATURE_NAMES, UNCONFIRMED))


class Sourced(StrictModel):
    """A fact that is not in the SKU files, with where it was confirmed."""

    value: str
    source: str


class MtuRange(StrictModel):
    min: Annotated[int, Field(ge=1)]
    max: Annotated[int, Field(ge=1)]
    source: str


class SwitchProfile(StrictModel):
    """A switch SKU: ports, buffers, limits and features from vendor data."""

    name: str = Field(description="the hwsku (the SKU folder's name), e.g. Mellanox-SN5600-O128")
    vendor: str
    platform: str = Field(description="the SKU folder's platform string, e.g. x86_64-nvidia_sn5600-r0")
    asic_family: Sourced
    ports: tuple[SwitchPort, ...]
    cages: tuple[Cage, ...]
    buffers: dict[str, BufferSpec] = Field(default_factory=dict,
                                           description="topology (t0, t1) -> buffers_defaults_<topo>.j2")
    vendor_managed_buffers: VendorManagedBuffers | None = Field(
        default=None, description="set when the SKU's files define no buffers (then ``buffers`` is empty)")
    mtu: MtuRange
    features: FeatureFlags
    sources: tuple[SourceFile, ...]

    @model_validator(mode="after")
    def _buffers_or_vendor_managed(self) -> SwitchProfile:
        if self.buffers and self.vendor_managed_buffers is not None:
            raise ValueError("a profile with buffers is not vendor-managed (vendor_managed_buffers must be null)")
        return self

    def buffer_spec(self, topo: str) -> BufferSpec | None:
        """The SKU's buffers for ``topo`` (t0 for a ToRRouter, t1 for a LeafRouter), else its only one."""
        if topo in self.buffers:
            return self.buffers[topo]
        return next(iter(self.buffers.values()), None) if len(self.buffers) == 1 else None

    @property
    def buffer_bytes(self) -> int | None:
        """The largest pool size in the vendor's default templates: the shared buffer they hand out."""
        sizes = [p.size for spec in self.buffers.values() for p in spec.pools if p.size]
        return max(sizes) if sizes else None

    @property
    def lossless_classes(self) -> int | None:
        """How many lossless queues the vendor templates set up (the fewest over topologies), None if unknown."""
        counts = [len(spec.lossless_queues) for spec in self.buffers.values() if spec.lossless_queues]
        return min(counts) if counts else None

    def port(self, name: str) -> SwitchPort | None:
        return next((p for p in self.ports if p.name == name), None)

    def cage(self, name: str) -> Cage | None:
        return next((c for c in self.cages if c.name == name), None)

    def ports_at(self, speed: int) -> tuple[SwitchPort, ...]:
        """Ports whose SKU speed is ``speed`` (the SKU's own breakout, no re-breakout)."""
        return tuple(p for p in self.ports if p.speed == speed)
