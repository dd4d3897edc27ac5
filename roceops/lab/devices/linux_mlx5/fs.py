"""The simulated host's files: sysfs (netdev, ECN/DCQCN, RDMA hw_counters), configfs rdma_cm, /proc/sys, /etc.

Paths are resolved on demand from the state (nothing is stored as text). ``read`` returns the
file content including its newline, ``listdir`` the entries of a directory (None for a file),
``write`` applies a value as the kernel would or raises :class:`FsError` with the errno text.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from roceops.lab.devices.linux_mlx5.model import (
    EACCES,
    EINVAL,
    EISDIR,
    ENOENT,
    HW_COUNTERS,
    NET_FILES,
    PARAM_MAX,
    PARAM_RANGES,
    PRIOS,
    RDMA_PORT,
    ROCE_MODES,
    SIDE_DEFAULTS,
    SYSCTL_CONF_PARAMS,
    SYSCTL_GLOBALS,
    FsError,
    Nic,
    norm_sysctl_key,
)

if TYPE_CHECKING:
    from roceops.lab.devices.linux_mlx5.state import LinuxMlx5StateCore

OS_RELEASE = """PRETTY_NAME="Ubuntu 22.04.4 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
VERSION="22.04.4 LTS (Jammy Jellyfish)"
VERSION_CODENAME=jammy
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"
UBUNTU_CODENAME=jammy
"""
KERNEL = "5.15.0-113-generic"
_DIR = object()


@cache
def _static_dirs() -> dict[tuple[str, ...], list[str]]:
    out: dict[tuple[str, ...], list[str]] = {
        (): ["etc", "proc", "sys"], ("etc",): ["hostname", "os-release"], ("proc",): ["sys"],
        ("proc", "sys"): ["kernel", "net"], ("proc", "sys", "kernel"): ["hostname"],
        ("sys",): ["class", "kernel"], ("sys", "class"): ["infiniband", "net"], ("sys", "kernel"): ["config"],
        ("sys", "kernel", "config"): ["rdma_cm"],
    }
    for key in SYSCTL_GLOBALS:
        if key.startswith("net."):
            parts = key.split(".")
            for i in range(1, len(parts)):
                entries = out.setdefault(("proc", "sys", *parts[:i]), [])
                if parts[i] not in entries:
                    entries.append(parts[i])
    out[("proc", "sys", "net", "ipv4")].insert(0, "conf")
    return out


# ---- regular files (Host.files): /etc, /usr/local/sbin, /tmp; programs in lab_files

STORE_ROOTS = ("/etc/netplan/", "/etc/systemd/", "/etc/sysctl.d/", "/etc/roceops/", "/etc/nccl.conf",
               "/usr/local/sbin/", "/tmp/")
NEW_FILE_MODE = 0o644  # root's umask 022


def is_store_path(path: str) -> bool:
    return path.startswith(STORE_ROOTS)


def store_read(st: LinuxMlx5StateCore, path: str, root: bool = True) -> str:
    """Content of a stored file; FsError ENOENT when absent, EACCES when ``root`` is False and it is not
    world-readable."""
    entry = st.host.files.get(path)
    if entry is None:
        raise FsError(ENOENT)
    text, mode = entry
    if not root and not mode & 0o004:
        raise FsError(EACCES)
    return text


def store_write(st: LinuxMlx5StateCore, path: str, data: str, append: bool) -> None:
    old = st.host.files.get(path)
    mode = old[1] if old else NEW_FILE_MODE
    st.host.files[path] = ((old[0] if old and append else "") + data, mode)


def store_listdir(st: LinuxMlx5StateCore, path: str) -> list[str] | None:
    """Entries of a directory that holds stored files (None when none does)."""
    prefix = path.rstrip("/") + "/"
    names = sorted({p[len(prefix):].split("/", 1)[0] for p in st.host.files if p.startswith(prefix)})
    return names or None



def split(path: str) -> list[str]:
    return [p for p in path.split("/") if p and p != "."]


# hw_counters file -> (physical counter, divisor); every other counter file reads 0
_HW_SOURCES: dict[str, tuple[str, int]] = {
    "np_cnp_sent": ("cnp_sent", 1), "rp_cnp_handled": ("cnp_handled", 1),
    "np_ecn_marked_roce_packets": ("ecn_marked", 1), "out_of_sequence": ("crc_errors", 4),
    "packet_seq_err": ("crc_errors", 8), "rx_write_requests": ("rx_packets", 3),
    "rx_read_requests": ("rx_packets", 50),
}
_HW_FIXED: dict[str, int] = {"lifespan": 10}


def hw_counter(st: LinuxMlx5StateCore, nic: Nic, name: str) -> int:
    """RDMA port counters, driven by the shared physical layer (CNP/ECN rates, errors)."""
    source = _HW_SOURCES.get(name)
    base = _HW_FIXED.get(name, 0) if source is None else st.physical.value(nic.name, source[0]) // source[1]
    return base + st.wire.added(nic.name, name)


def hw_counters(st: LinuxMlx5StateCore, nic: Nic) -> list[tuple[str, int]]:
    """Every file of ``hw_counters`` with its value, in listing order, from one read of the physical layer."""
    c = st.physical.snapshot(nic.name)
    return [(name, (c[source[0]] // source[1] if (source := _HW_SOURCES.get(name)) else _HW_FIXED.get(name, 0))
             + st.wire.added(nic.name, name)) for name in HW_COUNTERS]


def net_file(st: LinuxMlx5StateCore, name: str, file: str) -> str | None:
    if name == "lo":
        values = {"address": "00:00:00:00:00:00", "carrier": "1", "carrier_changes": "0", "mtu": "65536",
                  "operstate": "unknown", "speed": None}
        value = values.get(file)
        if value is None:
            raise FsError(EINVAL)
        return value
    if name == "eno1":
        return {"address": "3c:ec:ef:00:10:01", "carrier": "1", "carrier_changes": "1", "mtu": "1500",
                "operstate": "up", "speed": "1000"}.get(file)
    nic = st.host.nics[name]
    up = st.nic_up(nic)
    if file == "address":
        return nic.mac
    if file == "mtu":
        return str(nic.mtu)
    if file == "operstate":
        return "up" if up else "down"
    if file == "carrier":
        if not nic.admin_up:
            raise FsError(EINVAL)
        return "1" if up else "0"
    if file == "carrier_changes":
        return str(st.physical.value(nic.name, "carrier_changes"))
    if file == "speed":
        if not nic.admin_up:
            raise FsError(EINVAL)
        return str(nic.speed if up else -1)
    return None


def _ecn_node(nic: Nic, parts: list[str]) -> object | str | None:
    """parts below /sys/class/net/<nic>/ecn: _DIR for a directory, text for a file, None if absent."""
    if not parts:
        return _DIR
    side, rest = parts[0], parts[1:]
    if side not in SIDE_DEFAULTS:
        return None
    if not rest:
        return _DIR
    if rest[0] == "enable":
        if len(rest) == 1:
            return _DIR
        if len(rest) == 2 and rest[1].isdigit() and int(rest[1]) in PRIOS:
            return str(nic.ecn_enabled(side, int(rest[1])))
        return None
    if len(rest) == 1 and rest[0] in SIDE_DEFAULTS[side]:
        return str(nic.ecn_get(side, rest[0]))
    return None


def listdir(st: LinuxMlx5StateCore, path: str) -> list[str] | None:
    """Entries of a directory (in the order the kernel lists them), or None if ``path`` is not one."""
    return _listdir(st, split(path))


def _listdir(st: LinuxMlx5StateCore, p: list[str]) -> list[str] | None:
    host = st.host
    if host.files and p[:1] in (["etc"], ["usr"], ["tmp"]) and (stored := store_listdir(st, "/" + "/".join(p))):
        return stored if p != ["etc"] else sorted({*_static_dirs()[("etc",)], *stored})
    static = _static_dirs().get(tuple(p))
    if static is not None:
        return static
    if p[:3] == ["sys", "class", "net"]:
        if len(p) == 3:
            return ["lo", "eno1", *host.nics]
        if p[3] not in host.nics and p[3] not in ("lo", "eno1"):
            return None
        if len(p) == 4:
            return [*NET_FILES, "ecn"] if p[3] in host.nics else list(NET_FILES)
        if p[4] == "ecn" and p[3] in host.nics:
            node = _ecn_node(host.nics[p[3]], p[5:])
            if node is not _DIR:
                return None
            rest = p[5:]
            if not rest:
                return ["roce_np", "roce_rp"]
            if len(rest) == 1:
                return ["enable", *SIDE_DEFAULTS[rest[0]]]
            return [str(i) for i in PRIOS]
        return None
    if p[:3] == ["sys", "class", "infiniband"]:
        if len(p) == 3:
            return list(host.by_rdma)
        if p[3] not in host.by_rdma:
            return None
        tail = p[4:]
        layout: dict[tuple[str, ...], list[str]] = {
            (): ["fw_ver", "node_type", "ports"], ("ports",): [str(RDMA_PORT)],
            ("ports", str(RDMA_PORT)): ["hw_counters", "phys_state", "rate", "state"],
            ("ports", str(RDMA_PORT), "hw_counters"): list(HW_COUNTERS),
        }
        return layout.get(tuple(tail))
    if p[:4] == ["sys", "kernel", "config", "rdma_cm"]:
        tail = p[4:]
        if not tail:
            return sorted(host.configfs)
        if tail[0] not in host.configfs:
            return None
        return {1: ["ports"], 2: [str(RDMA_PORT)] if tail[1:] == ["ports"] else None,
                3: ["default_roce_mode", "default_roce_tos"] if tail[1:] == ["ports", str(RDMA_PORT)] else None
                }.get(len(tail))
    if p[:5] == ["proc", "sys", "net", "ipv4", "conf"]:
        if len(p) == 5:
            return ["all", "default", "lo", "eno1", *host.nics]
        if len(p) == 6 and (p[5] in host.nics or p[5] in ("lo", "eno1", "all", "default")):
            return list(SYSCTL_CONF_PARAMS)
        return None
    return None


def read(st: LinuxMlx5StateCore, path: str) -> str:
    """File content (with trailing newline); raises FsError (ENOENT, EISDIR, EINVAL)."""
    p = split(path)
    if _listdir(st, p) is not None:
        raise FsError(EISDIR)
    return _read_file(st, p)


def _read_file(st: LinuxMlx5StateCore, p: list[str]) -> str:
    """``read`` of a path known not to be a directory."""
    host = st.host
    value: str | None = None
    stored = host.files.get("/" + "/".join(p)) if host.files else None
    if stored is not None:
        return stored[0]
    if p == ["etc", "os-release"]:
        return OS_RELEASE
    if p == ["etc", "hostname"]:
        value = host.hostname
    elif len(p) == 5 and p[:3] == ["sys", "class", "net"] and p[3] in ("lo", "eno1", *host.nics):
        value = net_file(st, p[3], p[4])
    elif len(p) >= 6 and p[:3] == ["sys", "class", "net"] and p[4] == "ecn" and p[3] in host.nics:
        node = _ecn_node(host.nics[p[3]], p[5:])
        value = node if isinstance(node, str) else None
    elif p[:3] == ["sys", "class", "infiniband"] and len(p) >= 5 and p[3] in host.by_rdma:
        nic = host.by_rdma[p[3]]
        tail = p[4:]
        if tail == ["fw_ver"]:
            value = nic.fw_version
        elif tail == ["node_type"]:
            value = "1: CA"
        elif tail == ["ports", str(RDMA_PORT), "state"]:
            value = "4: ACTIVE" if st.nic_up(nic) else "1: DOWN"
        elif tail == ["ports", str(RDMA_PORT), "phys_state"]:
            value = "5: LinkUp" if st.nic_up(nic) else "3: Disabled"
        elif tail == ["ports", str(RDMA_PORT), "rate"]:
            value = f"{nic.speed // 1000} Gb/sec (4X NDR)"
        elif len(tail) == 4 and tail[:3] == ["ports", str(RDMA_PORT), "hw_counters"] and tail[3] in HW_COUNTERS:
            value = str(hw_counter(st, nic, tail[3]))
    elif p[:4] == ["sys", "kernel", "config", "rdma_cm"] and len(p) == 8 and p[4] in host.configfs \
            and p[5:7] == ["ports", str(RDMA_PORT)] and p[4] in host.by_rdma:
        nic = host.by_rdma[p[4]]
        value = {"default_roce_mode": nic.roce_mode, "default_roce_tos": str(nic.roce_tos)}.get(p[7])
    elif p[:3] == ["proc", "sys", "net"] or p[:3] == ["proc", "sys", "kernel"]:
        value = host.sysctl_get(".".join(p[2:]))
    if value is None:
        raise FsError(ENOENT)
    return value + "\n"


def _int(data: str) -> int:
    text = data.strip()
    if not text or not text.lstrip("-").isdigit():
        raise FsError(EINVAL)
    return int(text)


def write(st: LinuxMlx5StateCore, path: str, data: str) -> None:
    """Store ``data`` (as written by ``echo``) the way the kernel would; raises FsError.

    Permission (root, ``reject_config``) is checked by the caller when it opens the file.
    """
    p = split(path)
    host = st.host
    if _listdir(st, p) is not None:
        raise FsError(EISDIR)
    if len(p) >= 7 and p[:3] == ["sys", "class", "net"] and p[4] == "ecn" and p[3] in host.nics:
        nic = host.nics[p[3]]
        node = _ecn_node(nic, p[5:])
        if not isinstance(node, str):
            raise FsError(ENOENT)
        side, rest = p[5], p[6:]
        value = _int(data)
        if rest[0] == "enable":
            if value not in (0, 1):
                raise FsError(EINVAL)
            bit = 1 << int(rest[1])
            if side == "roce_np":
                nic.np_en = nic.np_en | bit if value else nic.np_en & ~bit
            else:
                nic.rp_en = nic.rp_en | bit if value else nic.rp_en & ~bit
            return
        lo, hi = PARAM_RANGES.get(rest[0], (0, PARAM_MAX))
        if not lo <= value <= hi:
            raise FsError(EINVAL)
        key = f"{side}/{rest[0]}"
        if value == SIDE_DEFAULTS[side][rest[0]]:
            nic.params.pop(key, None)
        else:
            nic.params[key] = value
        return
    if p[:4] == ["sys", "kernel", "config", "rdma_cm"] and len(p) == 8 and p[4] in host.configfs \
            and p[5:7] == ["ports", str(RDMA_PORT)]:
        nic = host.by_rdma[p[4]]
        if p[7] == "default_roce_mode":
            mode = data.strip()
            if mode not in ROCE_MODES:
                raise FsError(EINVAL)
            nic.roce_mode = mode
            return
        if p[7] == "default_roce_tos":
            tos = _int(data)
            if not 0 <= tos <= 255:
                raise FsError(EINVAL)
            nic.roce_tos = tos
            return
    if p[:2] == ["proc", "sys"]:
        key = norm_sysctl_key(".".join(p[2:]))
        if host.sysctl_default(key) is None:
            raise FsError(ENOENT)
        host.sysctl[key] = data.strip()
        return
    try:
        read(st, path)
    except FsError:
        raise
    raise FsError(EACCES)  # read-only attribute (no store method): even root gets EACCES


def exists(st: LinuxMlx5StateCore, path: str) -> bool:
    p = split(path)
    if _listdir(st, p) is not None:
        return True
    try:
        _read_file(st, p)
    except FsError as exc:
        return exc.strerror != ENOENT
    return True


def walk(st: LinuxMlx5StateCore, path: str) -> list[str]:
    """Every file under ``path`` (recursively), in listing order; ``path`` itself if it is a file."""
    return [name for name, _ in read_tree(st, path)]


def read_tree(st: LinuxMlx5StateCore, path: str) -> list[tuple[str, str | FsError]]:
    """``(file, content or the FsError reading it raises)`` for every file of :func:`walk`, in one pass."""
    out: list[tuple[str, str | FsError]] = []
    _read_tree(st, path, split(path), out)
    return out


def _read_tree(st: LinuxMlx5StateCore, path: str, p: list[str], out: list[tuple[str, str | FsError]]) -> None:
    entries = _listdir(st, p)
    if entries is None:
        try:
            out.append((path, _read_file(st, p)))
        except FsError as exc:
            out.append((path, exc))
        return
    base = path.rstrip("/")
    if _bulk(st, p, base, out):
        return
    for e in entries:
        _read_tree(st, f"{base}/{e}", [*p, e], out)


def _bulk(st: LinuxMlx5StateCore, p: list[str], base: str, out: list[tuple[str, str | FsError]]) -> bool:
    """The files of the directories an audit reads whole (a NIC's ``ecn/`` tree, ``hw_counters``), listed and
    read in one loop with the same names, order and content as the generic walk; False for other directories."""
    host = st.host
    if len(p) in (5, 6) and p[4] == "ecn" and p[:3] == ["sys", "class", "net"] and p[3] in host.nics:
        nic = host.nics[p[3]]  # ecn/ itself or one of its sides (a directory: p[5] is a side)
        sides = [(side, f"{base}/{side}") for side in SIDE_DEFAULTS] if len(p) == 5 else [(p[5], base)]
        for side, at in sides:
            out += [(f"{at}/enable/{prio}", f"{nic.ecn_enabled(side, prio)}\n") for prio in PRIOS]
            out += [(f"{at}/{name}", f"{nic.ecn_get(side, name)}\n") for name in SIDE_DEFAULTS[side]]
        return True
    if len(p) == 7 and p[4:] == ["ports", str(RDMA_PORT), "hw_counters"] and p[:3] == ["sys", "class", "infiniband"] \
            and p[3] in host.by_rdma:
        out.extend((f"{base}/{name}", f"{value}\n") for name, value in hw_counters(st, host.by_rdma[p[3]]))
        return True
    return False
