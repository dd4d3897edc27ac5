"""What a deploy moves and reads back: a device's configuration snapshot, a change to send, the facts a device
reports about itself, the errors a driver raises, and a device's rendered files."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any


class DriverError(Exception):
    """A device refused or failed an operation; the message is safe to show (no secrets)."""


class BackupRefused(DriverError):
    """The platform refused to take its pre-change backup (SONiC ``config checkpoint``): nothing was applied."""


class ConfirmNotTaken(DriverError):
    """The platform reported success but read-back shows the change was reverted or is still pending."""


@dataclass(frozen=True)
class Snapshot:
    """A device's configuration at one moment, exactly as read: the backup that restores it.

    ``text`` is stored verbatim in the journal; ``format`` says how to read it.
    """

    format: str  # the room's name for how ``text`` is written (a CONFIG_DB JSON document, a CLI config, ...)
    text: str


@dataclass(frozen=True)
class Change:
    """What ``apply`` will send, and the diff an operator reviews in a dry run."""

    diff: str  # human-readable: JSON Patch, hier_config remediation, nv config diff, before/after values
    payload: Any  # platform-specific: patch ops, CLI lines, nv commands, shell commands
    summary: dict[str, int] = field(default_factory=dict)  # e.g. {"add": 3, "replace": 1, "remove": 0}

    @property
    def empty(self) -> bool:
        return not self.payload


@dataclass(frozen=True)
class DeviceFacts:
    """What a switch says it is, read before anything is pushed (``Driver.read_facts``).

    ``hardware`` is the identity the NOS reports and a fabric's ``hwsku`` names: SONiC ``HwSKU``, NVUE
    ``platform``, EOS ``modelName``. ``ports`` are the front-panel ports the device has (None: not readable).
    """

    nos_version: str | None
    hardware: str | None
    ports: frozenset[str] | None


@dataclass(frozen=True)
class RenderedDevice:
    """One device's rendered files (file name -> text), as its platform's templates wrote them."""

    name: str
    platform: str
    files: dict[str, str]
    skip: tuple[str, ...] = ()  # rendered files a deploy leaves alone (e.g. firmware without --firmware)

    def hashes(self) -> dict[str, str]:
        return {f: hashlib.sha256(text.encode()).hexdigest() for f, text in sorted(self.files.items())}
