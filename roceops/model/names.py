"""Safe names: everything from the fabric that becomes a device name, a file or folder name, an interface name or a
word in a generated shell script is checked here, at load time, after formatting.

A name template (``gpu{node:03d}``, ``leaf-su{su}-r{rail}``, ``eth{port}``) may use only its own placeholders,
with at most a zero-padded width as format spec; it is formatted with the largest values a fabric allows, and the
result must match the name's safe pattern (which also bounds its length).

>>> check_template("gpu{node:03d}", NODE_KEYS, HOSTNAME)
>>> check_template("../../tmp/x{node}", NODE_KEYS, HOSTNAME)  # doctest: +ELLIPSIS
Traceback (most recent call last):
ValueError: '../../tmp/x{node}' gives '../../tmp/x999999', which is not a safe device name (...)
>>> check_template("eth{port}; rm -rf /", NIC_KEYS, NETDEV)  # doctest: +ELLIPSIS
Traceback (most recent call last):
ValueError: 'eth{port}; rm -rf /' gives 'eth99; rm -rf /', which is not a safe Linux interface name (...)
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass


@dataclass(frozen=True)
class SafeName:
    """A pattern for one kind of name, and the words that describe it in an error."""

    what: str
    pattern: re.Pattern[str]
    rule: str

    def check(self, value: str) -> str:
        if not self.pattern.fullmatch(value):
            raise ValueError(f"{value!r} is not a safe {self.what} ({self.rule})")
        return value


# Device names become folder names under `render --out`, Nornir host names and SSH log labels. 63 characters is
# one DNS label (RFC 1035 section 2.3.4); a leading letter or digit excludes '.', '..' and option-like '-x'.
HOSTNAME = SafeName("device name", re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}"),
                    "letters, digits, '.', '-' and '_', starting with a letter or digit, at most 63 characters")
# Linux refuses interface names of IFNAMSIZ (16) bytes or more, '/', ':' and whitespace
# (net/core/dev.c dev_valid_name, https://github.com/torvalds/linux/blob/master/net/core/dev.c).
NETDEV = SafeName("Linux interface name", re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,14}"),
                  "letters, digits, '.', '-' and '_', starting with a letter or digit, at most 15 characters")
# RDMA device names are at most IB_DEVICE_NAME_MAX (64) bytes with the NUL (include/rdma/ib_verbs.h) and appear in
# /sys/class/infiniband/<name> paths of the host scripts.
RDMA_DEV = SafeName("RDMA device name", re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}"),
                    "letters, digits, '.', '-' and '_', starting with a letter or digit, at most 63 characters")
# Front-panel port names: Ethernet0 (SONiC), swp1 / swp1s0 (Cumulus), Ethernet1/1 (EOS).
PORT = SafeName("port name", re.compile(r"[A-Za-z][A-Za-z0-9/_.:-]{0,31}"),
                "a letter, then letters, digits, '/', ':', '.', '-' and '_', at most 32 characters")
# Words written into configs unquoted (SONiC hwsku, NOS versions).
TOKEN = SafeName("word", re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}"),
                 "letters, digits, '.', '+', '-' and '_', starting with a letter or digit, at most 64 characters")

# Free-text labels (node and NIC models) that end up in comments of generated scripts: any printable text, no line
# breaks or other control characters (a newline in a shell comment starts a command).
LABEL = SafeName("label", re.compile(r"[^\x00-\x1f\x7f]{1,64}"), "printable text without line breaks, 1-64 characters")

# The placeholders each template may use. The sample value is above what any fabric reaches (512 SUs x 1,024 nodes
# is 524,288 nodes), so a template that passes gives a safe name for every device.
NODE_KEYS = frozenset({"node", "su"})
NIC_KEYS = frozenset({"port", "nic", "rail", "plane"})
TIER_KEYS = {
    "leaf": frozenset({"plane", "n", "su", "rail", "idx", "pod"}),
    "spine": frozenset({"plane", "n", "pod", "idx"}),
    "core": frozenset({"plane", "n", "group", "idx"}),
}
_SAMPLE = {"node": 999_999, "su": 999, "port": 99, "nic": 99, "rail": 99, "plane": 9,
           "n": 999_999, "idx": 9_999, "pod": 999, "group": 9_999}
_SPEC = re.compile(r"(?:0\d{1,2})?d?")  # '', 'd', '03d', '02': a zero-padded width up to 99 (never space-padded)


def check_template(template: str, keys: frozenset[str], kind: SafeName) -> None:
    """Raise ValueError saying what is wrong unless every name ``template`` can give is a safe ``kind``."""
    try:
        fields = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(template) if f is not None]
    except ValueError as exc:
        raise ValueError(f"{template!r} is not a name template: {exc}") from None
    for name, spec, conversion in fields:
        if name not in keys:
            raise ValueError(f"{template!r}: unknown placeholder {{{name}}} (use {', '.join(sorted(keys))})")
        if conversion or not _SPEC.fullmatch(spec or ""):
            raise ValueError(f"{template!r}: placeholder {{{name}{'!' + conversion if conversion else ''}"
                             f"{':' + spec if spec else ''}}} may only have a zero-padded width such as :03d")
    value = template.format(**{k: _SAMPLE[k] for k in keys})
    if not kind.pattern.fullmatch(value):
        raise ValueError(f"{template!r} gives {value!r}, which is not a safe {kind.what} ({kind.rule})")


def check_port_pattern(pattern: str) -> None:
    """A PortNaming pattern (``{n}`` replaced by a number) must give safe port names."""
    value = pattern.replace("{n}", "9999")
    if not PORT.pattern.fullmatch(value):
        raise ValueError(f"{pattern!r} gives {value!r}, which is not a safe {PORT.what} ({PORT.rule})")
