"""Lab device specs, loopback address allocation, the lab state dir and its SSH keys."""

from __future__ import annotations

import contextlib
import ipaddress
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from roceops.lab.personality import LabError

DEFAULT_PORT = 2222
DEFAULT_BASE_ADDRESS = "127.10.0.1"
DEFAULT_USERNAME = "admin"
PASSWORD_ENV = "ROCEOPS_LAB_PASSWORD"
HOST_KEY_FILE = "host_key"
CLIENT_KEY_FILE = "lab_client_key"


# --------------------------------------------------------------------------- device specs


class LabDeviceSpec(BaseModel):
    """One simulated device. ``address``/``port`` may be left empty for :func:`assign_endpoints`."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]*$")
    platform: str = Field(min_length=1)
    address: str | None = None
    port: int | None = Field(default=None, ge=1, le=65535)
    extra: dict[str, Any] = Field(default_factory=dict)

    @field_validator("address")
    @classmethod
    def _loopback_only(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            ip = ipaddress.ip_address(value)
        except ValueError:
            raise ValueError(f"not an IP address: {value!r}") from None
        if not ip.is_loopback:
            raise ValueError(f"lab devices bind loopback addresses only (127.0.0.0/8), got {value}")
        return str(ip)


def allocate_address(index: int, base: str = DEFAULT_BASE_ADDRESS) -> str:
    """Deterministic loopback address for device ``index``: ``base`` + index host slots,
    skipping addresses whose last octet is 0 or 255 (127.10.0.254 is followed by 127.10.1.1)."""
    start = int(ipaddress.IPv4Address(base))
    if start & 0xFF in (0, 255) or (start >> 24) != 127:
        raise LabError(f"base address {base} must be a 127.x.y.z host address (last octet 1-254)")
    ordinal = (start >> 8) * 254 + (start & 0xFF) - 1 + index
    addr = ((ordinal // 254) << 8) | (ordinal % 254 + 1)
    if index < 0 or (addr >> 24) != 127:
        raise LabError(f"device index {index} does not fit in 127.0.0.0/8 from base {base}")
    return str(ipaddress.IPv4Address(addr))


def assign_endpoints(
    devices: Iterable[LabDeviceSpec],
    *,
    port: int = DEFAULT_PORT,
    per_port: bool = False,
    base_address: str = DEFAULT_BASE_ADDRESS,
) -> list[LabDeviceSpec]:
    """Fill in missing addresses/ports and check names and endpoints are unique.

    Default: device *i* listens on ``allocate_address(i)`` at ``port``. With ``per_port`` every
    device listens on 127.0.0.1 at ``port + i``.
    """
    out: list[LabDeviceSpec] = []
    names: set[str] = set()
    endpoints: dict[tuple[str, int], str] = {}
    for index, dev in enumerate(devices):
        if dev.name in names:
            raise LabError(f"duplicate lab device name: {dev.name}")
        names.add(dev.name)
        if per_port:
            address, dport = dev.address or "127.0.0.1", dev.port or port + index
        else:
            address, dport = dev.address or allocate_address(index, base_address), dev.port or port
        if dport > 65535:
            raise LabError(f"port {dport} for device {dev.name} is above 65535; use a lower base port")
        if (address, dport) in endpoints:
            raise LabError(f"devices {endpoints[address, dport]} and {dev.name} both use {address}:{dport}")
        endpoints[address, dport] = dev.name
        out.append(dev.model_copy(update={"address": address, "port": dport}))
    return out


# --------------------------------------------------------------------------- keys


@dataclass(frozen=True)
class LabKeys:
    host_key: Path
    client_key: Path
    client_pub: Path


def _write_private(path: Path, data: bytes) -> None:
    """Create ``path`` with mode 0600 atomically; keep an existing file (another process won)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        with contextlib.suppress(FileExistsError):
            os.link(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def ensure_state_dir(state_dir: Path) -> Path:
    state_dir = Path(state_dir).absolute()
    state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    return state_dir


def ensure_lab_keys(state_dir: Path) -> LabKeys:
    """Create the shared ed25519 host key and the client key pair on first use (mode 0600)."""
    from roceops.lab.ssh_lib import asyncssh  # here, not at the top: only a starting lab needs asyncssh

    state_dir = ensure_state_dir(state_dir)
    keys = LabKeys(
        state_dir / HOST_KEY_FILE, state_dir / CLIENT_KEY_FILE, state_dir / f"{CLIENT_KEY_FILE}.pub"
    )
    if not keys.host_key.exists():
        host = asyncssh.generate_private_key("ssh-ed25519", comment="roceops-lab-host")
        _write_private(keys.host_key, host.export_private_key("openssh"))
    if not keys.client_key.exists() or not keys.client_pub.exists():
        client = asyncssh.generate_private_key("ssh-ed25519", comment="roceops-lab-client")
        keys.client_pub.unlink(missing_ok=True)
        keys.client_key.unlink(missing_ok=True)
        _write_private(keys.client_key, client.export_private_key("openssh"))
        pub = asyncssh.read_private_key(keys.client_key).export_public_key("openssh")
        _write_private(keys.client_pub, pub)
    for path in (keys.host_key, keys.client_key, keys.client_pub):
        path.chmod(0o600)
    return keys
