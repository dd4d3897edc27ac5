"""What survives a reboot of the simulated host, and the tools that manage it: ``systemctl``, ``netplan``,
``mlxconfig`` (NVCONFIG), ``show_gids``; :func:`reboot` (the ``reboot`` fault).

A reboot drops every runtime setting (:meth:`Nic.power_on`, routes, rules, sysctls, configfs), makes the
firmware's next-boot values current, then boots as systemd would: sysctl.d drop-ins, netplan files, then
every enabled unit's ``ExecStart`` script (as root, line by line, stopping at the first failure like
``set -e``). The lab reads those files itself (:mod:`files`, and its own unit reader): it never uses the
product's renderer or driver.

Output formats: ``systemctl show -p`` prints ``Key=Value`` lines; ``mlxconfig -e query`` the Default /
Current / Next Boot table of MFT (captures in Mellanox/nic-configuration-operator pkg/nvconfig/utils_test.go);
``show_gids`` the tab-separated table of MLNX_OFED's script (copy in IBM/DPFS experiments/scripts/show_gids.sh).
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING, Any

from yaml import YAMLError

from roceops.lab.devices.linux_mlx5.files import netplan_commands, script_commands, sysctl_conf_commands
from roceops.lab.devices.linux_mlx5.model import DEVICE_TYPE, NVCONFIG_ENUMS, PART_NAME, RDMA_PORT, Nic
from roceops.lab.devices.linux_mlx5.shell import Commands, Program, Result, Shell, fail

if TYPE_CHECKING:
    from roceops.lab.devices.linux_mlx5.state import LinuxMlx5StateCore as LinuxMlx5State

UNIT_DIR = "/etc/systemd/system/"
WANTS = "/etc/systemd/system/multi-user.target.wants/"


# ------------------------------------------------------------------------------------ systemd


def _unit_files(st: LinuxMlx5State) -> dict[str, str]:
    return {p[len(UNIT_DIR):]: text for p, (text, _) in st.host.files.items()
            if p.startswith(UNIT_DIR) and p.endswith(".service") and "/" not in p[len(UNIT_DIR):]}


def _exec_start(unit_text: str) -> str | None:
    for line in unit_text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "ExecStart":
            return value.strip()
    return None


def run_unit(st: LinuxMlx5State, unit: str, commands: Commands) -> None:
    """Run a oneshot unit's ExecStart script as root; its Result/ExecMainStatus as systemd records them."""
    host = st.host
    script = _exec_start(host.unit_loaded.get(unit, ""))
    entry = host.files.get(script or "")
    if script is None or entry is None:
        host.unit_result[unit] = ("exit-code", 203)  # EXIT_EXEC: the program could not be run
        return
    shell = Shell(st, "root", commands)
    for line in script_commands(entry[0]):
        res = shell.run_line(line)
        if res.status != 0:
            host.unit_result[unit] = ("exit-code", res.status)
            return
    host.unit_result[unit] = ("success", 0)


def _show(st: LinuxMlx5State, unit: str, props: list[str]) -> str:
    host = st.host
    loaded = unit in host.unit_loaded
    result = host.unit_result.get(unit)
    active = "inactive" if result is None else "active" if result[0] == "success" else "failed"
    values = {
        "Id": unit, "LoadState": "loaded" if loaded else "not-found",
        "UnitFileState": host.unit_enabled.get(unit, "disabled") if loaded else "",
        "ActiveState": active, "SubState": {"inactive": "dead", "active": "exited", "failed": "failed"}[active],
        "Result": result[0] if result else "success", "ExecMainStatus": str(result[1] if result else 0),
    }
    keys = props or list(values)
    return "".join(f"{k}={values.get(k, '')}\n" for k in keys)


def _props(args: list[str]) -> tuple[list[str], list[str]]:
    props: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-p", "--property") and i + 1 < len(args):
            props += args[i + 1].split(",")
            i += 2
            continue
        if a.startswith("--property="):
            props += a.split("=", 1)[1].split(",")
        elif not a.startswith("-"):
            rest.append(a)
        i += 1
    return props, rest


def systemctl(sh: Shell, argv: list[str], stdin: str) -> Result:
    st, host = sh.state, sh.state.host
    props, args = _props(argv[1:])
    if not args:
        return fail("systemctl: a verb is required in this lab")
    verb, units = args[0], args[1:]
    if verb == "show":
        return Result(out="".join(_show(st, u, props) for u in units))
    if verb == "is-enabled":
        unit = units[0] if units else ""
        if unit not in _unit_files(st):
            return fail(f"Failed to get unit file state for {unit}: No such file or directory")
        state = host.unit_enabled.get(unit, "disabled")
        return Result(out=f"{state}\n", status=0 if state == "enabled" else 1)
    if verb not in ("daemon-reload", "enable", "disable", "start", "restart"):
        return fail(f"systemctl {verb}: not simulated in this lab")
    if not sh.can_write or ("reject_systemctl" in st.faults.extra and verb == "enable"):
        return fail(f"Failed to {verb.replace('daemon-', 'reload daemon').replace('-', ' ')}: Access denied")
    if verb == "daemon-reload":
        host.unit_loaded = _unit_files(st)
        return Result()
    err = ""
    for unit in units:
        if unit not in _unit_files(st):
            err += f"Failed to {verb} unit: Unit file {unit} does not exist.\n"
        elif verb == "enable":
            if host.unit_enabled.get(unit) != "enabled":
                err += f"Created symlink {WANTS}{unit} \u2192 {UNIT_DIR}{unit}.\n"  # systemd prints it to stderr
            host.unit_enabled[unit] = "enabled"
        elif verb == "disable":
            if host.unit_enabled.get(unit) == "enabled":
                err += f"Removed \"{WANTS}{unit}\".\n"
            host.unit_enabled[unit] = "disabled"
        else:
            run_unit(st, unit, sh.commands)
            if host.unit_result[unit][0] != "success":
                err += f"Job for {unit} failed because the control process exited with error code.\n"
    failed = "Failed to" in err or "Job for" in err
    return Result(err=err, status=1 if failed else 0)


# ------------------------------------------------------------------------------------ netplan and sysctl.d


def _netplan_files(st: LinuxMlx5State) -> list[tuple[str, str]]:
    return sorted((p, text) for p, (text, _) in st.host.files.items()
                  if p.startswith("/etc/netplan/") and p.endswith(".yaml"))


def netplan(sh: Shell, argv: list[str], stdin: str) -> Result:
    """``netplan generate`` checks every file; ``netplan apply`` also brings the runtime state to them."""
    verb = argv[1] if len(argv) > 1 else ""
    if verb not in ("generate", "apply"):
        return fail(f"netplan {verb}: not simulated in this lab")
    if not sh.can_write:
        return fail("Permission denied")
    plans: list[str] = []
    for path, text in _netplan_files(sh.state):
        try:
            plans += netplan_commands(text)
        except (YAMLError, ValueError, KeyError, TypeError, AttributeError) as exc:
            return fail(f"{path}: Invalid YAML or netplan schema: {type(exc).__name__}")
    if verb == "apply":
        for line in plans:
            sh.run_line(line)
    return Result()


# ------------------------------------------------------------------------------------ firmware (mlxconfig)


def _nv_value(name: str, value: int) -> str:
    enum = NVCONFIG_ENUMS.get(name)
    return f"{enum[value]}({value})" if enum and value in enum else str(value)


def _nv_parse(name: str, text: str) -> int | None:
    enum = {v.upper(): k for k, v in NVCONFIG_ENUMS.get(name, {}).items()}
    if text.upper() in enum:
        return enum[text.upper()]
    try:
        return int(text, 0)
    except ValueError:
        return None


def _query(nic: Nic, extended: bool, names: list[str]) -> Result:
    rows = names or list(nic.nvconfig)
    unknown = [n for n in rows if n not in nic.nvconfig]
    if unknown:
        return fail(f"-E- The Device doesn't support {unknown[0]} parameter")
    kind = "BlueField3" if "INTERNAL_CPU_MODEL" in nic.nvconfig else DEVICE_TYPE  # the dpu_mode fault's BlueField
    head = f"\nDevice #1:\n----------\n\nDevice type:    {kind}\nName:           {PART_NAME}\n" \
           f"Description:    NVIDIA ConnectX-7 HHHL Adapter Card; 400GbE (default mode) / NDR IB; single-port " \
           f"OSFP; PCIe 5.0 x16\nDevice:         {nic.rdma_dev}\n\n"
    if extended:
        lines = [f"{'Configurations:':<45}{'Default':<16}{'Current':<16}Next Boot"]
        for n in rows:
            d, c, x = nic.nvconfig[n]
            star = "*" if x != d or x != c else " "
            lines.append(f"{star:<9}{n:<36}{_nv_value(n, d):<16}{_nv_value(n, c):<16}{_nv_value(n, x)}")
        lines.append("The '*' shows parameters with next value different from default/current value.")
    else:
        lines = [f"{'Configurations:':<45}Next Boot", *(f"{'':<9}{n:<36}{_nv_value(n, nic.nvconfig[n][2])}"
                                                         for n in rows)]
    return Result(out=head + "\n".join(lines) + "\n")


def mlxconfig(sh: Shell, argv: list[str], stdin: str) -> Result:
    args = argv[1:]
    dev = args[args.index("-d") + 1] if "-d" in args and args.index("-d") + 1 < len(args) else None
    words = [a for i, a in enumerate(args) if not a.startswith("-") and (i == 0 or args[i - 1] != "-d")]
    nic = sh.state.host.by_rdma.get(dev or "")
    if not sh.root:
        return fail("-E- Failed to open the device: Permission denied")
    if nic is None:
        return fail(f"-E- Failed to open the device: {dev}: No such device")
    if not words or words[0] not in ("q", "query", "s", "set"):
        return fail("-E- Unknown command, see mlxconfig -h")
    if words[0] in ("q", "query"):
        return _query(nic, "-e" in args, words[1:])
    changes: dict[str, int] = {}
    for word in words[1:]:
        name, _, text = word.partition("=")
        value = _nv_parse(name, text)
        if name not in nic.nvconfig:
            return fail(f"-E- The Device doesn't support {name} parameter")
        if value is None:
            return fail(f"-E- Bad value for {name}: {text}")
        changes[name] = value
    if sh.state.rejecting:
        return fail("-E- Failed to set configuration: Operation not permitted")
    table = "\n".join(f"{'':9}{n:<36}{_nv_value(n, nic.nvconfig[n][2]):<16}{_nv_value(n, v)}"
                      for n, v in changes.items())
    for name, value in changes.items():
        nic.nvconfig[name][2] = value
    return Result(out=f"\nDevice #1:\n----------\n\nDevice type:    {DEVICE_TYPE}\nDevice:         {nic.rdma_dev}\n\n"
                      f"Configurations:                              Next Boot       New\n{table}\n\n"
                      " Apply new Configuration? (y/n) [n] : y\nApplying... Done!\n"
                      "-I- Please reboot machine to load new configurations.\n")


# ------------------------------------------------------------------------------------ GID table


def _eui64_gid(mac: str) -> str:
    b = [int(x, 16) for x in mac.split(":")]
    iid = [b[0] ^ 0x02, b[1], b[2], 0xFF, 0xFE, b[3], b[4], b[5]]
    return "fe80:0000:0000:0000:" + ":".join(f"{iid[i]:02x}{iid[i + 1]:02x}" for i in range(0, 8, 2))


def gid_table(nic: Nic) -> list[tuple[int, str, str]]:
    """(index, GID, type) as the kernel's RoCE GID cache fills it: link-local v1/v2, then v1/v2 per IPv4."""
    rows = [(0, _eui64_gid(nic.mac), "IB/RoCE v1"), (1, _eui64_gid(nic.mac), "RoCE v2")]
    for ip, _ in nic.addrs:
        packed = ipaddress.IPv4Address(ip).packed
        gid = "0000:0000:0000:0000:0000:ffff:" + f"{packed[0]:02x}{packed[1]:02x}:{packed[2]:02x}{packed[3]:02x}"
        index = len(rows)
        rows += [(index, gid, "IB/RoCE v1"), (index + 1, gid, "RoCE v2")]
    return rows


def show_gids(sh: Shell, argv: list[str], stdin: str) -> Result:
    host = sh.state.host
    devs = argv[1:] or sorted(host.by_rdma)
    lines = ["DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4 \t\tVER\tDEV",
             "---\t----\t-----\t---\t\t\t\t\t------------ \t---\t---"]
    count = 0
    for dev in devs:
        nic = host.by_rdma.get(dev)
        if nic is None:
            return fail(f"ls: cannot access '/sys/class/infiniband/{dev}/ports/': No such file or directory")
        for index, gid, kind in gid_table(nic):
            ver = kind[kind.index("v"):]
            if gid.startswith("0000"):
                p = [int(gid[30:32], 16), int(gid[32:34], 16), int(gid[35:37], 16), int(gid[37:39], 16)]
                lines.append(f"{dev}\t{RDMA_PORT}\t{index}\t{gid}\t{'.'.join(map(str, p))} \t{ver}\t{nic.name}")
            else:
                lines.append(f"{dev}\t{RDMA_PORT}\t{index}\t{gid}\t\t\t{ver}\t{nic.name}")
            count += 1
    return Result(out="\n".join(lines) + f"\nn_gids_found={count}\n")


# ------------------------------------------------------------------------------------ the reboot


def _firmware_to_runtime(nic: Nic) -> None:
    """Boot defaults the NIC takes from its NVCONFIG: DCQCN priorities and the CNP DSCP/priority."""
    current = {name: values[1] for name, values in nic.nvconfig.items()}
    mask = current.get("ROCE_CC_PRIO_MASK_P1", 255)
    nic.np_en = nic.rp_en = mask & 0xFF
    for key, param in (("CNP_DSCP_P1", "roce_np/cnp_dscp"), ("CNP_802P_PRIO_P1", "roce_np/cnp_802p_prio")):
        if key in current:
            nic.params[param] = current[key]


def boot(st: LinuxMlx5State, commands: Commands) -> list[str]:
    """Boot from the installed files; the lines that failed (for the lab's own log)."""
    host = st.host
    shell = Shell(st, "root", commands)
    failed: list[str] = []
    lines = [line for path, (text, _) in sorted(host.files.items())
             if path.startswith("/etc/sysctl.d/") and path.endswith(".conf") for line in sysctl_conf_commands(text)]
    for _, text in _netplan_files(st):
        try:
            lines += netplan_commands(text)
        except (YAMLError, ValueError, KeyError, TypeError, AttributeError):
            failed.append("netplan: invalid file")
    for line in lines:
        if shell.run_line(line).status != 0:
            failed.append(line)
    host.unit_loaded = _unit_files(st)
    for unit in sorted(host.unit_loaded):
        if host.unit_enabled.get(unit) == "enabled":
            run_unit(st, unit, commands)
    return failed


def reboot(st: LinuxMlx5State, commands: Commands) -> None:
    host = st.host
    for nic in host.nics.values():
        nic.power_on()
        for values in nic.nvconfig.values():
            values[1] = values[2]
        _firmware_to_runtime(nic)
    host.routes, host.rules, host.sysctl, host.configfs = [], [], {}, set()
    host.unit_result = {}
    boot(st, commands)


def preload_install(st: LinuxMlx5State, files: dict[str, Any]) -> None:
    """Files installed as a deploy would (path -> [text, mode]), every unit among them enabled and loaded."""
    for path, (text, mode) in files.items():
        st.host.files[str(path)] = (str(text), int(mode))
    st.host.unit_loaded = _unit_files(st)
    for unit in st.host.unit_loaded:
        st.host.unit_enabled[unit] = "enabled"


PROGRAMS: dict[str, Program] = {
    "systemctl": systemctl,
    "netplan": netplan,
    "mlxconfig": mlxconfig,
    "show_gids": show_gids,
}
