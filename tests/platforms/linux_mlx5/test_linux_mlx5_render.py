"""linux_mlx5 rendering: scripts are valid bash, line-by-line safe, and say exactly what NicIntent says.

The round-trip tests parse the rendered commands back (a small parser for the handful of
command shapes the templates emit; anything else fails the test) and compare with the intent.
"""

from __future__ import annotations

import configparser
import doctest
import re
import shlex
import shutil
import subprocess
from collections import Counter, defaultdict
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import example_dict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roceops.device.intent import HostIntent, NicIntent
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.base import get_platform
from roceops.platforms.linux_mlx5 import INSTALL_TARGETS, PLATFORM, PREAMBLE, ScriptError, script_commands
from roceops.platforms.linux_mlx5 import render as mlx5_render
from roceops.platforms.linux_mlx5.render import render_context, simple_command_problem
from roceops.platforms.templating import render_device
from roceops.topology.expand import expand
from roceops.topology.fabric import Host

SCRIPTS = ("roce-setup.sh", "roce-setup-dcb.sh")
ROCE_MODES = {1: "IB/RoCE v1", 2: "RoCE v2"}
ECN_PATH = re.compile(
    r"/sys/class/net/(?P<dev>[^/]+)/ecn/roce_(?P<side>np|rp)/(?:enable/(?P<prio>[0-7])|(?P<name>\w+))"
)


@cache
def host_intents(example: str) -> tuple[HostIntent, ...]:
    fab = expand(FabricIntent.model_validate(example_dict(example)))
    intents = (plan(fab, d.name) for d in fab.devices() if isinstance(d, Host))
    return tuple(i for i in intents if isinstance(i, HostIntent))


@cache
def rendered(example: str) -> tuple[tuple[HostIntent, dict[str, str]], ...]:
    return tuple((h, render_device(h).files) for h in host_intents(example))


def all_rendered() -> list[tuple[HostIntent, dict[str, str]]]:
    return [pair for example in ("lab-mini", "fabric") for pair in rendered(example)]


def variant(host: HostIntent, sysctls: dict[str, str] | None = None, **nic_updates: Any) -> HostIntent:
    """``host`` with every NIC updated (model_copy: no re-validation, like a hand-edited intent)."""
    nics = {name: nic.model_copy(update=nic_updates) for name, nic in host.nics.items()}
    return host.model_copy(update={"nics": nics, "sysctls": sysctls if sysctls is not None else host.sysctls})


LAB_HOST = host_intents("lab-mini")[0]
PCP_HOST = variant(LAB_HOST, trust="pcp")
SPACED_SYSCTL_HOST = variant(LAB_HOST, sysctls={**LAB_HOST.sysctls, "net.ipv4.tcp_rmem": "4096 87380 6291456"})


# --------------------------------------------------------------------------------------------
# the tiny parser: rendered commands -> NicIntent-shaped facts
# --------------------------------------------------------------------------------------------


def _nic_facts() -> dict[str, Any]:
    return {"dscp_sets": Counter(), "dscp_to_priority": {}, "dcqcn": {"np_enabled": [], "rp_enabled": [],
                                                                      "np": {}, "rp": {}}}


def _dcb_map(items: list[str]) -> dict[int, str]:
    """iproute2 dcb array syntax: ``all:V`` then ``K:V`` overrides."""
    out: dict[int, str] = {}
    for item in items:
        key, value = item.split(":")
        for k in range(8) if key == "all" else [int(key)]:
            out[k] = value
    return out


def _dcb_sections(args: list[str], names: tuple[str, ...]) -> dict[str, dict[int, str]]:
    sections: dict[str, list[str]] = {}
    current = ""
    for arg in args:
        if arg in names:
            current = arg
            sections[current] = []
        else:
            sections[current].append(arg)
    return {name: _dcb_map(items) for name, items in sections.items()}


def _set_ets(nic: dict[str, Any], prio_tc: dict[int, str], tsa: dict[int, str], bw: dict[int, str]) -> None:
    nic["prio_tc"] = {p: int(tc) for p, tc in sorted(prio_tc.items())}
    nic["strict_tcs"] = sorted(tc for tc, t in tsa.items() if t == "strict")
    assert set(tsa.values()) <= {"strict", "ets"}
    nic["tc_bandwidth"] = {tc: int(b) for tc, b in sorted(bw.items())}


def parse_script(text: str) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]], dict[str, str], list[str]]:
    """(per-netdev facts, per-rdma-dev facts, sysctls, command kinds in order). Fails on any unknown command."""
    nics: dict[str, dict[str, Any]] = defaultdict(_nic_facts)
    rdma: dict[str, dict[str, Any]] = defaultdict(dict)
    sysctls: dict[str, str] = {}
    order: list[str] = []
    for line in script_commands(text):
        argv = shlex.split(line)
        match argv:
            case ["ip", "link", "set", "dev", dev, "mtu", mtu]:
                nics[dev]["mtu"] = int(mtu)
                order.append(f"mtu {dev}")
            case ["ethtool", "-A", dev, "rx", "off", "tx", "off"]:
                nics[dev]["global_pause"] = "off"
                order.append(f"pause {dev}")
            case ["mlnx_qos", "-i", dev, "--trust", trust]:
                nics[dev]["trust"] = trust
            case ["mlnx_qos", "-i", dev, "--dscp2prio", *rest]:
                specs = ["--dscp2prio", *rest][1::2]
                assert ["--dscp2prio", *rest][0::2] == ["--dscp2prio"] * len(specs)
                for spec in specs:
                    action, dscp, prio = spec.split(",")
                    assert action == "set"
                    nics[dev]["dscp_sets"][int(dscp)] += 1
                    nics[dev]["dscp_to_priority"][int(dscp)] = int(prio)
            case ["mlnx_qos", "-i", dev, "--pfc", csv]:
                flags = [int(x) for x in csv.split(",")]
                assert len(flags) == 8 and set(flags) <= {0, 1}
                nics[dev]["pfc_priorities"] = [p for p, on in enumerate(flags) if on]
                order.append(f"pfc {dev}")
            case ["mlnx_qos", "-i", dev, "--prio_tc", prio_tc, "--tsa", tsa, "--tcbw", bw]:
                lists = [dict(enumerate(x.split(","))) for x in (prio_tc, tsa, bw)]
                assert all(len(x) == 8 for x in lists)
                _set_ets(nics[dev], *lists)
            case ["dcb", "app", "replace", "dev", dev, "dscp-prio", *pairs]:
                nics[dev]["trust"] = "dscp"
                for dscp, prio in _dcb_map(pairs).items():
                    nics[dev]["dscp_sets"][dscp] += 1
                    nics[dev]["dscp_to_priority"][dscp] = int(prio)
            case ["dcb", "app", "flush", "dev", dev, "dscp-prio"]:
                nics[dev]["trust"] = "pcp"
            case ["dcb", "pfc", "set", "dev", dev, "prio-pfc", *items]:
                pfc = _dcb_map(items)
                assert sorted(pfc) == list(range(8)) and set(pfc.values()) <= {"on", "off"}
                nics[dev]["pfc_priorities"] = [p for p, v in sorted(pfc.items()) if v == "on"]
                order.append(f"pfc {dev}")
            case ["dcb", "ets", "set", "dev", dev, *args]:
                sec = _dcb_sections(args, ("prio-tc", "tc-tsa", "tc-bw"))
                assert all(sorted(m) == list(range(8)) for m in sec.values())
                _set_ets(nics[dev], sec["prio-tc"], sec["tc-tsa"], sec["tc-bw"])
            case ["echo", value, ">", path] if (m := ECN_PATH.fullmatch(path)):
                dcqcn = nics[m["dev"]]["dcqcn"]
                if m["prio"] is not None:
                    assert value in {"0", "1"}
                    if value == "1":
                        dcqcn[f"{m['side']}_enabled"].append(int(m["prio"]))
                elif m["side"] == "np" and m["name"] == "cnp_dscp":
                    nics[m["dev"]]["cnp_dscp"] = int(value)
                elif m["side"] == "np" and m["name"] == "cnp_802p_prio":
                    nics[m["dev"]]["cnp_priority"] = int(value)
                else:
                    dcqcn[m["side"]][m["name"]] = int(value)
            case ["cma_roce_mode", "-d", dev, "-p", "1", "-m", mode]:
                rdma[dev]["roce_mode"] = ROCE_MODES[int(mode)]
            case ["cma_roce_tos", "-d", dev, "-p", "1", "-t", tos]:
                rdma[dev]["roce_tos"] = int(tos)
            case ["sysctl", "-w", assignment]:
                key, value = assignment.split("=", 1)
                sysctls[key] = value
            case _:
                pytest.fail(f"unrecognised command in rendered script: {line!r}")
    return nics, rdma, sysctls, order


def expected_nic(nic: NicIntent) -> dict[str, Any]:
    out: dict[str, Any] = {
        "mtu": nic.mtu, "global_pause": "off", "trust": nic.trust, "pfc_priorities": sorted(nic.pfc_priorities),
        "prio_tc": dict(sorted(nic.prio_tc.items())), "strict_tcs": sorted(nic.strict_tcs),
        "tc_bandwidth": {tc: nic.tc_bandwidth.get(tc, 0) for tc in range(8)},
        "dcqcn": {"np_enabled": sorted(nic.dcqcn.np_enabled), "rp_enabled": sorted(nic.dcqcn.rp_enabled),
                  "np": dict(nic.dcqcn.np), "rp": dict(nic.dcqcn.rp)},
        "cnp_dscp": nic.cnp_dscp, "cnp_priority": nic.cnp_priority, "roce_tos": nic.roce_tos,
        "roce_mode": nic.roce_mode,
        "dscp_to_priority": dict(sorted(nic.dscp_to_priority.items())) if nic.trust == "dscp" else {},
    }
    return out


def assert_round_trip(host: HostIntent, text: str) -> None:
    nics, rdma, sysctls, order = parse_script(text)
    assert sorted(nics) == sorted(host.nics)
    assert sysctls == host.sysctls
    for name, nic in host.nics.items():
        got = dict(nics[name])
        counts = got.pop("dscp_sets")
        assert set(counts.values()) <= {1}, f"{name}: a DSCP was mapped twice"
        got.update(rdma[nic.rdma_dev])
        got["dscp_to_priority"] = dict(sorted(got["dscp_to_priority"].items()))
        assert got == expected_nic(nic), name
        # documented ordering: global pause goes off before PFC comes on
        assert order.index(f"pause {name}") < order.index(f"pfc {name}")


# --------------------------------------------------------------------------------------------
# platform wiring
# --------------------------------------------------------------------------------------------


def test_platform_is_registered_with_outputs_and_netmiko_data() -> None:
    assert get_platform("linux_mlx5") is PLATFORM
    assert PLATFORM.device_kind == "host"
    assert [o.filename for o in PLATFORM.outputs] == [*SCRIPTS, "netplan.yaml", "roceops-roce.service",
                                                      "sysctl.conf", "nccl.conf", "nccl.env", "mlxconfig.sh"]
    assert PLATFORM.netmiko.device_type == "linux"
    # mlxconfig.sh is run by deploy --firmware, never installed
    assert set(INSTALL_TARGETS) == {o.filename for o in PLATFORM.outputs} - {"mlxconfig.sh"}
    with pytest.raises(TypeError):
        PLATFORM.render_context(object())


def test_module_doctests() -> None:
    result = doctest.testmod(mlx5_render)
    assert result.attempted and not result.failed


# --------------------------------------------------------------------------------------------
# bash validity and the line-by-line constraint
# --------------------------------------------------------------------------------------------


def _script_files(tmp_path: Path) -> list[Path]:
    hosts = [*all_rendered(), (PCP_HOST, render_device(PCP_HOST).files),
             (SPACED_SYSCTL_HOST, render_device(SPACED_SYSCTL_HOST).files)]
    paths = []
    for i, (host, files) in enumerate(hosts):
        for script in SCRIPTS:
            path = tmp_path / f"{i:03d}-{host.name}-{script}"
            path.write_text(files[script])
            paths.append(path)
    return paths


def test_every_script_passes_bash_n(tmp_path: Path) -> None:
    for path in _script_files(tmp_path):
        proc = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True, check=False)
        assert proc.returncode == 0, f"{path.name}: {proc.stderr}"


def test_every_script_passes_shellcheck(tmp_path: Path) -> None:
    """Every script, checked once per distinct non-comment body (hosts differ only in comments).

    Comments cannot change shellcheck's verdict unless they hold ``# shellcheck`` directives,
    which the templates never emit (asserted); ``bash -n`` above still reads every file.
    """
    shellcheck = shutil.which("shellcheck")
    if not shellcheck:
        pytest.skip("shellcheck not installed (Debian package `shellcheck`)")
    distinct: dict[tuple[str, ...], Path] = {}
    for path in _script_files(tmp_path):
        lines = path.read_text().splitlines()
        assert not any("shellcheck" in ln for ln in lines if ln.lstrip().startswith("#")), path.name
        distinct.setdefault(tuple(ln for ln in lines[1:] if not ln.lstrip().startswith("#")), path)
    assert len(distinct) >= 2 * 4  # both examples, both variants, pcp and spaced-sysctl hosts
    proc = subprocess.run([shellcheck, "-s", "bash", *map(str, distinct.values())], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stdout[:4000]


def test_every_script_is_simple_commands_after_shebang_and_preamble() -> None:
    for host, files in all_rendered():
        for script in SCRIPTS:
            text = files[script]
            lines = text.splitlines()
            assert lines[:2] == ["#!/usr/bin/env bash", PREAMBLE], f"{host.name} {script}"
            commands = script_commands(text)
            body = [ln for ln in lines if ln.strip() and not ln.startswith("#")]
            assert commands == body[1:], f"{host.name} {script}: only the preamble may be skipped"
            assert all(simple_command_problem(c) is None for c in commands)


GOOD_LINES = [
    "ip link set dev eth0 mtu 9000",
    "mlnx_qos -i eth0 --dscp2prio set,26,3",
    "mlnx_qos -i eth0 --dscp2prio set,26,3 --dscp2prio set,48,6",
    "echo 1 > /sys/class/net/eth0/ecn/roce_np/enable/3",
    "dcb app replace dev eth0 dscp-prio 0:0 26:3",
    "sysctl -w 'net.ipv4.tcp_rmem=4096 87380 6291456'",
    "sysctl -w net.ipv4.conf.all.arp_ignore=1",
    "echo 'RoCE v2' > /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode",
]
BAD_LINES = {
    "pipe": "mlnx_qos -i eth0 | grep trust",
    "and-list": "mlnx_qos -i eth0 --trust dscp && echo ok",
    "or-list": "ethtool -A eth0 rx off tx off || true",
    "sequence": "echo 1 > /a; echo 2 > /b",
    "background": "sleep 1 &",
    "command substitution": "echo $(cat /sys/class/net/eth0/mtu)",
    "backquotes": "echo `hostname`",
    "variable": "echo $HOME",
    "braced variable": "ip link set dev ${IF} up",
    "assignment": "IF=eth0",
    "assignment prefix": "LC_ALL=C sysctl -a",
    "for loop": "for i in 0 1 2; do echo $i; done",
    "if": "if true",
    "function": "setup() { echo hi; }",
    "subshell": "(cd /tmp)",
    "brace group": "{ echo a; }",
    "double quotes": 'echo "1" > /sys/x',
    "glob": "cat /sys/class/net/*/mtu",
    "history expansion": "echo hi!",
    "append redirect": "echo 1 >> /sys/x",
    "fd redirect": "mlnx_qos -i eth0 2>&1",
    "glued redirect": "echo 1>/sys/x",
    "input redirect": "cat < /etc/hosts",
    "heredoc": "cat <<EOF",
    "two redirects": "echo 1 > /a > /b",
    "word after target": "echo 1 > /a b",
    "unterminated quote": "echo 'abc",
    "trailing comment": "echo 1 # note",
    "cd": "cd /sys/class/net",
    "set": "set -x",
    "export": "export A=1",
    "source": ". /etc/profile",
}


@pytest.mark.parametrize("line", GOOD_LINES)
def test_simple_command_accepts(line: str) -> None:
    assert simple_command_problem(line) is None


@pytest.mark.parametrize("line", list(BAD_LINES.values()), ids=list(BAD_LINES))
def test_simple_command_refuses(line: str) -> None:
    assert simple_command_problem(line) is not None
    with pytest.raises(ScriptError):
        script_commands(f"#!/usr/bin/env bash\n{PREAMBLE}\n{line}\n")


def test_script_commands_skips_comments_and_preamble_and_reports_line_numbers() -> None:
    text = "#!/usr/bin/env bash\nset -euo pipefail\n\n# comment\n  ip link set dev eth0 mtu 9000\n"
    assert script_commands(text) == ["ip link set dev eth0 mtu 9000"]
    with pytest.raises(ScriptError) as err:
        script_commands("ip link set dev eth0 mtu 9000\nset -euo pipefail\nip link set dev eth1 \\\n mtu 9000\n")
    assert [(n, reason) for n, _, reason in err.value.problems] == [(2, "'set' is a shell keyword or changes shell "
                                                                        "state"), (3, "line continuation")]


def test_render_refuses_a_script_the_deploy_cannot_send() -> None:
    checked = PLATFORM.code.postprocess.get(PLATFORM.outputs[0].filename)
    assert checked is not None
    assert checked("echo 1 > /sys/x\n") == "echo 1 > /sys/x\n"
    with pytest.raises(ScriptError):
        checked("echo 1 > /sys/x | tee\n")
    for line in BAD_LINES.values():
        with pytest.raises(ScriptError):
            checked(f"#!/usr/bin/env bash\n{PREAMBLE}\n# ok\necho 1 > /sys/x\n{line}\n")


def test_one_pass_script_check_accepts_rendered_scripts_and_nothing_the_line_check_refuses() -> None:
    """The postprocess's one-regex pass (_SIMPLE_SCRIPT) is only a fast path: whatever it accepts,
    script_commands() must accept too, and it must accept every rendered script (or it saves nothing)."""
    fast = mlx5_render._SIMPLE_SCRIPT
    for host, files in all_rendered():
        for script in SCRIPTS:
            assert fast.fullmatch(files[script]), f"{host.name} {script}"
    tricky = [*BAD_LINES.values(), *GOOD_LINES, *sorted(mlx5_render._NOT_SIMPLE), PREAMBLE, "a> b", "a >b",
              "a >", "> a", "x=1", "x+=1", "_x=1 cmd", "fi\tx", "do\t", ". x", "./x", "a \tb", "a\x0bb", "a\u2028b",
              "a\rb", "caf\u00e9", "echo \\", "# c \\", "  ", "\t", "", "echo 1 >  /x", "echo 1 > /x\t"]
    head = f"#!/usr/bin/env bash\n{PREAMBLE}\n"
    for a in tricky:
        for b in ("", " x", "\nset -euo pipefail", "\necho ok"):
            for end in ("\n", "", " \n"):
                text = head + a + b + end
                if fast.fullmatch(text):
                    script_commands(text)  # must not raise
                    script_commands(a + b + end)


# --------------------------------------------------------------------------------------------
# round trip: rendered values == NicIntent
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("script", SCRIPTS)
def test_scripts_round_trip_for_every_host_of_both_examples(script: str) -> None:
    for host, files in all_rendered():
        assert_round_trip(host, files[script])


@pytest.mark.parametrize("script", SCRIPTS)
def test_pcp_trust_and_spaced_sysctl_round_trip(script: str) -> None:
    for host in (PCP_HOST, SPACED_SYSCTL_HOST):
        assert_round_trip(host, render_device(host).files[script])
    assert not [c for c in script_commands(render_device(PCP_HOST).files["roce-setup.sh"]) if "--dscp2prio" in c]


@st.composite
def ets(draw: st.DrawFn) -> tuple[list[int], dict[int, int]]:
    strict = sorted(draw(st.sets(st.integers(0, 7))))
    ets_tcs = [tc for tc in range(8) if tc not in strict]
    bw = dict.fromkeys(range(8), 0)
    if ets_tcs:
        cuts = sorted(draw(st.lists(st.integers(0, 100), min_size=len(ets_tcs) - 1, max_size=len(ets_tcs) - 1)))
        for tc, lo, hi in zip(ets_tcs, [0, *cuts], [*cuts, 100], strict=True):
            bw[tc] = hi - lo
    return strict, bw


prio_sets = st.sets(st.integers(0, 7)).map(sorted)
param_values = st.integers(0, 131071)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    dscp=st.lists(st.integers(0, 7), min_size=64, max_size=64),
    pfc=prio_sets, np_on=prio_sets, rp_on=prio_sets, ets_=ets(),
    prio_tc=st.lists(st.integers(0, 7), min_size=8, max_size=8),
    np_values=st.lists(param_values, min_size=1, max_size=1), rp_values=st.lists(param_values, min_size=16,
                                                                                 max_size=16),
    cnp_dscp=st.integers(0, 63), cnp_priority=st.integers(0, 7), tos=st.integers(0, 255),
    mtu=st.integers(1500, 9216), mode=st.sampled_from(sorted(ROCE_MODES.values())),
    trust=st.sampled_from(["dscp", "pcp"]),
)
def test_any_valid_nic_intent_round_trips(dscp: list[int], pfc: list[int], np_on: list[int], rp_on: list[int],
                                          ets_: tuple[list[int], dict[int, int]], prio_tc: list[int],
                                          np_values: list[int], rp_values: list[int], cnp_dscp: int,
                                          cnp_priority: int, tos: int, mtu: int, mode: str, trust: str) -> None:
    base = next(iter(LAB_HOST.nics.values()))
    dcqcn = base.dcqcn.model_copy(update={
        "np_enabled": np_on, "rp_enabled": rp_on, "np": dict(zip(base.dcqcn.np, np_values, strict=True)),
        "rp": dict(zip(base.dcqcn.rp, rp_values, strict=True))})
    host = variant(LAB_HOST, dscp_to_priority=dict(enumerate(dscp)), pfc_priorities=pfc, dcqcn=dcqcn,
                   strict_tcs=ets_[0], tc_bandwidth=ets_[1], prio_tc=dict(enumerate(prio_tc)), cnp_dscp=cnp_dscp,
                   cnp_priority=cnp_priority, roce_tos=tos, mtu=mtu, roce_mode=mode, trust=trust)
    files = render_device(host).files  # postprocess already ran script_commands on both scripts
    for script in SCRIPTS:
        assert_round_trip(host, files[script])


# --------------------------------------------------------------------------------------------
# netplan, systemd unit, sysctl.conf
# --------------------------------------------------------------------------------------------


def test_netplan_has_per_nic_addresses_routes_table_and_rule() -> None:
    for host, files in all_rendered():
        doc = yaml.safe_load(files["netplan.yaml"])
        assert doc["network"]["version"] == 2
        ethernets = doc["network"]["ethernets"]
        assert sorted(ethernets) == sorted(host.nics)
        tables = set()
        for name, nic in host.nics.items():
            eth = ethernets[name]
            rail = next(r for r in nic.routes if r.table is None)
            assert eth == {
                "mtu": nic.mtu,
                "addresses": [nic.address],
                "routes": [{"to": rail.to, "via": nic.gateway},
                           {"to": "default", "via": nic.gateway, "table": nic.table}],
                "routing-policy": [{"from": nic.address.split("/")[0], "table": nic.table}],
            }
            tables.add(nic.table)
        assert len(tables) == len(host.nics)


def test_unit_file_is_a_oneshot_that_runs_the_installed_script() -> None:
    for host, files in all_rendered():
        unit = configparser.ConfigParser(interpolation=None, strict=True)
        unit.optionxform = str  # type: ignore[assignment,method-assign]
        unit.read_string(files["roceops-roce.service"])
        assert unit["Service"]["Type"] == "oneshot"
        assert unit["Service"]["RemainAfterExit"] == "yes"
        assert unit["Service"]["ExecStart"] == INSTALL_TARGETS["roce-setup.sh"].path
        assert "network-online.target" in unit["Unit"]["After"].split()
        assert "openibd.service" in unit["Unit"]["After"].split()
        assert unit["Unit"]["Wants"] == "network-online.target"
        assert unit["Install"]["WantedBy"] == "multi-user.target", host.name


def test_sysctl_conf_matches_intent_and_script() -> None:
    for host, files in all_rendered():
        lines = [ln for ln in files["sysctl.conf"].splitlines() if ln and not ln.startswith("#")]
        conf = dict(ln.split(" = ", 1) for ln in lines)
        assert conf == host.sysctls
        assert parse_script(files["roce-setup.sh"])[2] == host.sysctls
    spaced = render_device(SPACED_SYSCTL_HOST).files["sysctl.conf"]
    assert "net.ipv4.tcp_rmem = 4096 87380 6291456\n" in spaced


# --------------------------------------------------------------------------------------------
# determinism and input validation
# --------------------------------------------------------------------------------------------


def test_rendering_is_deterministic_and_independent_of_nic_dict_order() -> None:
    first = [files for _, files in rendered("fabric")]
    fresh = expand(FabricIntent.model_validate(example_dict("fabric")))
    again = [render_device(plan(fresh, h.name)).files for h, _ in rendered("fabric")]
    assert first == again
    shuffled = LAB_HOST.model_copy(update={"nics": dict(reversed(list(LAB_HOST.nics.items())))})
    assert render_device(shuffled).files == render_device(LAB_HOST).files


def test_eight_nic_host_renders_every_rail_in_order() -> None:
    host, files = rendered("fabric")[0]
    assert len(host.nics) == 8
    mtu_lines = [c for c in script_commands(files["roce-setup.sh"]) if c.startswith("ip link set")]
    rails = sorted(host.nics.values(), key=lambda n: n.rail)
    assert mtu_lines == [f"ip link set dev {n.netdev} mtu {n.mtu}" for n in rails]


BAD_NIC_UPDATES: dict[str, dict[str, Any]] = {
    "netdev with slash": {"netdev": "eth0/x"},
    "netdev with space": {"netdev": "eth 0"},
    "rdma dev with dollar": {"rdma_dev": "mlx5_$0"},
    "63 DSCPs": {"dscp_to_priority": {d: 0 for d in range(63)}},
    "priority 8": {"pfc_priorities": [8]},
    "ETS sum 90": {"tc_bandwidth": {0: 30, 3: 60}},
    "strict TC with bandwidth": {"strict_tcs": [3]},
    "prio_tc missing priority": {"prio_tc": {p: 0 for p in range(7)}},
    "cnp dscp 64": {"cnp_dscp": 64},
}


@pytest.mark.parametrize("update", list(BAD_NIC_UPDATES.values()), ids=list(BAD_NIC_UPDATES))
def test_unrenderable_nic_intent_is_refused(update: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        render_context(variant(LAB_HOST, **update))


def test_unrenderable_dcqcn_and_sysctls_are_refused() -> None:
    nic = next(iter(LAB_HOST.nics.values()))
    for np in ({"cnp_dscp": 48}, {"../../x": 1}, {"min_time_between_cnps": -1}):
        with pytest.raises(ValueError):
            render_context(variant(LAB_HOST, dcqcn=nic.dcqcn.model_copy(update={"np": np})))
    for sysctls in ({"net.core.x": "it's"}, {"net.core.x": "1\n2"}, {"net core": "1"}):
        with pytest.raises(ValueError):
            render_context(variant(LAB_HOST, sysctls=sysctls))
    same_table = {name: n.model_copy(update={"table": 100}) for name, n in LAB_HOST.nics.items()}
    with pytest.raises(ValueError):
        render_context(LAB_HOST.model_copy(update={"nics": same_table}))


def _nccl_host(**node: object) -> HostIntent:
    data = example_dict("lab-mini")
    data["node"].update(node)
    return plan(expand(FabricIntent.model_validate(data)), "gpu001")


def test_nccl_conf_lists_the_rail_hcas_exactly_in_rail_order_with_the_roce_tos() -> None:
    host = _nccl_host()
    conf = render_device(host).files["nccl.conf"]
    lines = [line for line in conf.splitlines() if not line.startswith("#")]
    rails = sorted(host.nics.values(), key=lambda n: n.rail)
    assert lines[0] == "NCCL_IB_HCA==" + ",".join(n.rdma_dev for n in rails)  # '=' : exact names
    assert "NCCL_IB_TC=106" in lines  # DSCP 26 << 2 | ECT(0)
    assert "NCCL_IB_ROCE_VERSION_NUM=2" in lines and "NCCL_IB_ADDR_FAMILY=AF_INET" in lines
    assert not any(line.startswith("NCCL_SOCKET_IFNAME") for line in lines)
    assert all("=" not in line for line in conf.splitlines() if line.startswith("#"))  # old NCCL reads comments


def test_nccl_front_end_interface_and_env_file() -> None:
    files = render_device(_nccl_host(frontend_netdev="eno1")).files
    assert "NCCL_SOCKET_IFNAME==eno1" in files["nccl.conf"].splitlines()
    assert "export NCCL_SOCKET_IFNAME='=eno1'" in files["nccl.env"].splitlines()


def test_mlxconfig_script_only_when_the_fabric_manages_firmware() -> None:
    assert "mlxconfig -d" not in render_device(_nccl_host()).files["mlxconfig.sh"]
    script = render_device(_nccl_host(firmware=True)).files["mlxconfig.sh"]
    assert "mlxconfig -d mlx5_0 -y set CNP_802P_PRIO_P1=6 CNP_DSCP_P1=48 LINK_TYPE_P1=2 ROCE_CC_PRIO_MASK_P1=8" \
        in script.splitlines()


def test_qps_per_connection_follows_the_fabrics_entropy_setting() -> None:
    from roceops.plan.host import plan_nccl, qps_per_connection

    data = example_dict("lab-mini")
    assert qps_per_connection(FabricIntent.model_validate(data)) == 8  # lab-mini's load_balancing (issue 19)
    data["load_balancing"] = {"qps_per_connection": 1}
    one = FabricIntent.model_validate(data)
    host = expand(one).hosts[0]
    nccl = plan_nccl(one, host)
    assert (nccl.qps_per_connection, nccl.split_data_on_qps) == (1, 0)  # NCCL's defaults
    del data["load_balancing"]
    assert qps_per_connection(FabricIntent.model_validate(data)) == 1
