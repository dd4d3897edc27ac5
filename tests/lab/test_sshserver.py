"""The lab's SSH transport, control channel and runtime, exercised over loopback only."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from labtools import free_endpoint_base
from netmiko import ConnectHandler
from netmiko.exceptions import NetmikoAuthenticationException, NetmikoTimeoutException, ReadTimeout

from roceops.lab.control import ControlClient, control_socket_path
from roceops.lab.personality import DeviceState, LabError, UnknownFault
from roceops.lab.runtime import LabThread, lab_status, read_overlay, running_pid, start_lab, stop_lab
from roceops.lab.ssh_lib import asyncssh
from roceops.lab.sshserver import InputLine, LabDeviceSpec, LineBuffer, allocate_address, assign_endpoints

pytestmark = pytest.mark.lab

STRESS_SESSIONS = 200


def _specs(n: int, prefix: str = "dev") -> list[LabDeviceSpec]:
    return [LabDeviceSpec(name=f"{prefix}{i}", platform="echo") for i in range(n)]


def _connect(ep: dict[str, Any], **kwargs: Any) -> Any:
    params: dict[str, Any] = {
        "device_type": "linux",
        "host": ep["host"],
        "port": ep["port"],
        "username": ep["username"],
        "use_keys": True,
        "key_file": ep["key_file"],
        "allow_agent": False,
        "conn_timeout": 10,
    }
    params.update(kwargs)
    return ConnectHandler(**params)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One detached lab process (its own core) for the whole module."""
    state_dir = tmp_path_factory.mktemp("lab") / "state"
    base, port = free_endpoint_base()
    specs = _specs(STRESS_SESSIONS + 20)
    started = start_lab(specs, state_dir, port, detach=True, base_address=base)
    try:
        yield {"state_dir": state_dir, "started": started, "overlay": read_overlay(state_dir), "port": port}
    finally:
        if running_pid(state_dir) is not None:
            stop_lab(state_dir)


@pytest.fixture
def control(lab: dict[str, Any]) -> Iterator[ControlClient]:
    client = ControlClient(lab["state_dir"])
    yield client
    client.clear()


# --------------------------------------------------------------------------- pure units


def test_address_allocation() -> None:
    assert allocate_address(0) == "127.10.0.1"
    assert allocate_address(253) == "127.10.0.254"
    assert allocate_address(254) == "127.10.1.1"
    assert allocate_address(254 * 256) == "127.11.0.1"
    specs = assign_endpoints(_specs(3), port=3000, per_port=True)
    assert [(s.address, s.port) for s in specs] == [
        ("127.0.0.1", 3000),
        ("127.0.0.1", 3001),
        ("127.0.0.1", 3002),
    ]
    with pytest.raises(ValueError, match="loopback"):
        LabDeviceSpec(name="x", platform="echo", address="10.0.0.1")
    with pytest.raises(LabError, match="duplicate"):
        assign_endpoints([*_specs(1), *_specs(1)])


def test_line_buffer_split_and_joined_lines() -> None:
    buf = LineBuffer()
    assert buf.feed("a\r") == ["a\r\n", InputLine("a")]
    assert buf.feed("\nb") == ["b"]  # LF completing a CRLF split across chunks is swallowed
    assert buf.feed("c\nd\r\ne\n") == [
        "c\r\n",
        InputLine("bc"),
        "d\r\n",
        InputLine("d"),
        "e\r\n",
        InputLine("e"),
    ]
    assert buf.feed("\n") == ["\r\n", InputLine("")]


def test_drop_on_a_command_resets_at_that_line_whatever_came_before() -> None:
    state = DeviceState("leaf1", "echo")
    state.apply_fault("drop", on="configure session")
    assert state.faults.active() == {"drop": {"on": "configure session"}}
    lines = ["terminal length 0", "enable", "enable", "show running-config", "  configure session s1", "show x"]
    assert [state.consume_command(line) for line in lines] == [False, False, False, False, True, False]
    assert state.faults.active() == {}  # one-shot: the device came back
    with pytest.raises(LabError, match=r"either after= .* or on="):
        state.apply_fault("drop", on="show", after=2)
    state.apply_fault("drop", after=1)
    state.apply_fault("drop", on="show")  # the later arming replaces the earlier
    assert state.faults.active() == {"drop": {"on": "show"}}


def test_fault_api_errors() -> None:
    state = DeviceState("leaf1", "echo")
    state.apply_fault("Slow", ms=250)
    state.apply_fault("auth-reject")
    state.apply_fault("drop_after", after=1)
    assert state.faults.active() == {"slow": {"ms": 250}, "auth_reject": {}, "drop": {"after": 1}}
    with pytest.raises(UnknownFault, match="unknown fault 'melt' for device leaf1"):
        state.apply_fault("melt")
    with pytest.raises(LabError, match="integer"):
        state.apply_fault("slow", ms=-1)
    with pytest.raises(LabError, match="takes ms"):
        state.apply_fault("slow", seconds=1)
    assert [state.consume_command(), state.consume_command()] == [False, True]
    state.clear_faults()
    assert state.faults.active() == {}


# --------------------------------------------------------------------------- sessions


def test_netmiko_commands(lab: dict[str, Any]) -> None:
    ep = lab["overlay"]["dev1"]
    conn = _connect(ep)
    try:
        assert conn.find_prompt() == "admin@dev1:~$"
        assert conn.send_command("hostname") == "dev1"
        assert conn.send_command("echo hello   lab") == "hello lab"
        assert conn.send_command("set color blue") == ""
        assert "command not found" in conn.send_command("frobnicate")
        out = conn.send_config_set(["echo one", "echo two"], enter_config_mode=False, exit_config_mode=False)
        assert "one" in out and "two" in out
    finally:
        conn.disconnect()
    second = _connect(ep)  # device state is shared between sessions
    try:
        assert second.send_command("get color") == "blue"
    finally:
        second.disconnect()


def test_exec_mode_via_asyncssh(lab: dict[str, Any]) -> None:
    ep = lab["overlay"]["dev2"]

    async def run() -> list[tuple[str, int | None]]:
        async with asyncssh.connect(
            ep["host"], ep["port"], username="admin", client_keys=[ep["key_file"]], known_hosts=None
        ) as conn:
            results = []
            for cmd in ("hostname", "echo exec works", "nope"):
                res = await conn.run(cmd)
                results.append((str(res.stdout), res.exit_status))
            return results

    assert asyncio.run(run()) == [
        ("dev2\n", 0),
        ("exec works\n", 0),
        ("-bash: nope: command not found\n", 127),
    ]


def test_password_auth_from_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = f"pw-{random.randint(0, 10**9)}"
    monkeypatch.setenv("ROCEOPS_LAB_PASSWORD", secret)
    base, port = free_endpoint_base()
    with LabThread(_specs(1), tmp_path / "state", port=port, base_address=base) as lab:
        ep = lab.overlay["dev0"]
        conn = ConnectHandler(
            device_type="linux",
            host=ep["host"],
            port=port,
            username="admin",
            password=secret,
            use_keys=False,
            allow_agent=False,
        )
        assert conn.send_command("hostname") == "dev0"
        conn.disconnect()
        with pytest.raises(NetmikoAuthenticationException):
            ConnectHandler(
                device_type="linux",
                host=ep["host"],
                port=port,
                username="admin",
                password="wrong",
                use_keys=False,
                allow_agent=False,
            )
        files = [p for p in (tmp_path / "state").iterdir() if p.is_file()]
        assert all(secret.encode() not in p.read_bytes() for p in files)
    assert running_pid(tmp_path / "state") is None


# --------------------------------------------------------------------------- faults


def test_fault_refuse(lab: dict[str, Any], control: ControlClient) -> None:
    ep = lab["overlay"]["dev3"]
    control.inject("dev3", "refuse")
    assert control.status("dev3")["devices"][0]["listening"] is False
    for _ in range(3):  # a real "connection refused", every time
        t0 = time.monotonic()
        with pytest.raises(NetmikoTimeoutException, match="TCP connection to device failed"):
            _connect(ep)
        assert time.monotonic() - t0 < 5
    control.clear("dev3")
    assert control.status("dev3")["devices"][0]["listening"] is True
    conn = _connect(ep)
    assert conn.send_command("hostname") == "dev3"
    conn.disconnect()


def test_fault_slow(lab: dict[str, Any], control: ControlClient) -> None:
    conn = _connect(lab["overlay"]["dev4"])
    try:
        t0 = time.monotonic()
        assert conn.send_command("hostname") == "dev4"
        fast = time.monotonic() - t0
        control.inject("dev4", "slow", ms=600)
        t0 = time.monotonic()
        assert conn.send_command("hostname") == "dev4"
        slow = time.monotonic() - t0
    finally:
        conn.disconnect()
    assert slow >= 0.6 > fast


def test_fault_auth_reject(lab: dict[str, Any], control: ControlClient) -> None:
    control.inject("dev5", "auth_reject")
    with pytest.raises(NetmikoAuthenticationException):
        _connect(lab["overlay"]["dev5"])


def test_fault_drop_after(lab: dict[str, Any], control: ControlClient) -> None:
    conn = _connect(lab["overlay"]["dev6"])
    try:
        control.inject("dev6", "drop", after=2)
        assert conn.send_command("echo 1") == "1"
        assert conn.send_command("echo 2") == "2"
        # Like a real device dying: netmiko only notices through its read timeout.
        with pytest.raises((EOFError, OSError, ReadTimeout)):
            conn.send_command("echo 3", read_timeout=3)
        assert not conn.is_alive()
    finally:
        conn.disconnect()
    assert control.status("dev6")["devices"][0]["faults"] == {}  # one-shot


# --------------------------------------------------------------------------- control


def test_control_status_inject_clear(lab: dict[str, Any], control: ControlClient) -> None:
    status = control.status()
    assert status["pid"] == lab["started"].pid
    assert status["device_count"] == len(status["devices"]) == STRESS_SESSIONS + 20
    assert status["uptime_s"] > 0
    first = status["devices"][0]
    assert (first["name"], first["host"], first["port"]) == (
        "dev0",
        lab["overlay"]["dev0"]["host"],
        lab["port"],
    )
    assert control.inject("dev7", "slow", ms=5)["faults"] == {"slow": {"ms": 5}}
    control.inject("dev8", "refuse")
    with pytest.raises(LabError, match="unknown fault 'melt' for device dev7"):
        control.inject("dev7", "melt")
    with pytest.raises(LabError, match="no lab device named 'nope'"):
        control.inject("nope", "refuse")
    with pytest.raises(LabError, match="unknown op"):
        control.request("explode")
    faulted = {d["name"]: d["faults"] for d in control.status()["devices"] if d["faults"]}
    assert faulted == {"dev7": {"slow": {"ms": 5}}, "dev8": {"refuse": {}}}
    assert control.clear("dev7")["cleared"] == ["dev7"]
    control.clear()
    assert not [d for d in control.status()["devices"] if d["faults"]]


# --------------------------------------------------------------------------- stress


@pytest.mark.slow
def test_stress_concurrent_netmiko_sessions(lab: dict[str, Any]) -> None:
    overlay = lab["overlay"]
    barrier = threading.Barrier(STRESS_SESSIONS, timeout=50)
    peak: list[int] = []

    def worker(i: int) -> list[str]:
        name = f"dev{i + 10}"
        conn = _connect(overlay[name], conn_timeout=30, banner_timeout=30, auth_timeout=30)
        try:
            if barrier.wait() == 0:  # every session is open at this point
                peak.append(ControlClient(lab["state_dir"]).status()["sessions"])
            return [
                conn.send_command("hostname"),
                conn.send_command(f"echo {name} says hi"),
                conn.send_command(f"set k{i} v{i}"),
                conn.send_command(f"get k{i}"),
                conn.send_command("sleep-ms 20"),
            ]
        finally:
            conn.disconnect()

    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=STRESS_SESSIONS) as pool:
        results = list(pool.map(worker, range(STRESS_SESSIONS)))
    wall = time.monotonic() - t0
    for i, out in enumerate(results):
        name = f"dev{i + 10}"
        assert out == [name, f"{name} says hi", "", f"v{i}", ""], (name, out)
    assert peak and peak[0] >= STRESS_SESSIONS
    assert wall < 60, f"{STRESS_SESSIONS} sessions took {wall:.1f} s"


# --------------------------------------------------------------------------- runtime


def test_runtime_files(lab: dict[str, Any]) -> None:
    state_dir: Path = lab["state_dir"]
    for name in ("host_key", "lab_client_key", "lab_client_key.pub"):
        assert stat.S_IMODE((state_dir / name).stat().st_mode) == 0o600
    overlay = json.loads((state_dir / "overlay.json").read_text())
    assert set(overlay["dev0"]) == {"host", "port", "username", "key_file"}
    assert int((state_dir / "lab.pid").read_text()) == lab["started"].pid == running_pid(state_dir)
    assert lab_status(state_dir, "dev0")["devices"][0]["name"] == "dev0"


def test_start_twice_is_a_clear_error(lab: dict[str, Any]) -> None:
    with pytest.raises(LabError, match=rf"lab already running, pid {lab['started'].pid}, stop it with"):
        start_lab(_specs(2), lab["state_dir"], lab["port"] + 1, detach=True)


def test_down_when_nothing_runs(tmp_path: Path) -> None:
    with pytest.raises(LabError, match="no lab is running"):
        stop_lab(tmp_path / "state")
    with pytest.raises(LabError, match="no lab is running"):
        lab_status(tmp_path / "state")


def test_port_in_use_is_a_clear_error(tmp_path: Path) -> None:
    base, port = free_endpoint_base()
    with socket.socket() as squatter:
        squatter.bind((allocate_address(1, base), port))
        squatter.listen()
        t0 = time.monotonic()
        with pytest.raises(
            LabError, match=rf"port already in use: {allocate_address(1, base)}:{port} \(device dev1\)"
        ):
            start_lab(_specs(3), tmp_path / "state", port, detach=True, base_address=base)
        assert time.monotonic() - t0 < 10
    assert running_pid(tmp_path / "state") is None


def test_detached_start_stop_and_control_stop(tmp_path: Path) -> None:
    state_dir = tmp_path / "s"
    base, port = free_endpoint_base()
    started = start_lab(_specs(5), state_dir, port, detach=True, base_address=base)
    assert started.devices == 5 and started.pid != os.getpid()
    conn = _connect(read_overlay(state_dir)["dev4"])
    assert conn.send_command("hostname") == "dev4"
    conn.disconnect()
    assert stop_lab(state_dir) == started.pid
    assert running_pid(state_dir) is None
    assert not (state_dir / "overlay.json").exists() and not control_socket_path(state_dir).exists()
    with pytest.raises(LabError, match="no lab is running"):
        stop_lab(state_dir)
    again = start_lab(_specs(2), state_dir, port, detach=True, base_address=base)  # restart reuses keys
    assert ControlClient(state_dir).stop()["stopping"] is True
    deadline = time.monotonic() + 10
    while running_pid(state_dir) is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert running_pid(state_dir) is None
    assert _gone(again.pid)


def _gone(pid: int, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except (OSError, IndexError):
            return True
        time.sleep(0.05)
    return False


def test_foreground_main_runs_until_sigterm(tmp_path: Path) -> None:
    base, port = free_endpoint_base()
    spec = tmp_path / "spec.json"
    devices = assign_endpoints(_specs(2), port=port, base_address=base)
    spec.write_text(json.dumps({"devices": [d.model_dump() for d in devices]}))
    state_dir = tmp_path / "state"
    cmd = [sys.executable, "-m", "roceops.lab", "--spec", str(spec), "--state-dir", str(state_dir)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                assert ControlClient(state_dir).status()["pid"] == proc.pid
                break
            except LabError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.05)
        assert read_overlay(state_dir)["dev1"]["port"] == port
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
    assert running_pid(state_dir) is None and not (state_dir / "overlay.json").exists()


def test_foreground_main_bad_spec_is_one_line(tmp_path: Path) -> None:
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"devices": [{"name": "x", "platform": "echo", "address": "192.0.2.1"}]}))
    cmd = [sys.executable, "-m", "roceops.lab", "--spec", str(spec), "--state-dir", str(tmp_path / "s")]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    assert res.returncode == 1
    assert res.stderr.strip().count("\n") == 0
    assert res.stderr.startswith("roceops lab: error: invalid lab spec") and "loopback" in res.stderr


def test_long_state_dir_uses_short_control_socket(tmp_path: Path) -> None:
    state_dir = tmp_path / ("x" * 60) / ("y" * 60)
    assert len(str(control_socket_path(state_dir))) <= 100
    base, port = free_endpoint_base()
    with LabThread(_specs(1), state_dir, port=port, base_address=base):
        assert ControlClient(state_dir).status()["device_count"] == 1
        assert stop_lab(state_dir) == os.getpid()  # control `stop` works in-process too
    assert not control_socket_path(state_dir).exists()


def test_in_process_refuse_closes_listener_and_direct_flag_resets(tmp_path: Path) -> None:
    base, port = free_endpoint_base()
    with LabThread(_specs(1), tmp_path / "state", port=port, base_address=base) as lab:
        assert lab.server is not None
        endpoint = (lab.overlay["dev0"]["host"], port)
        lab.inject("dev0", "refuse")
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(endpoint, timeout=5).close()
        lab.clear("dev0")
        with socket.create_connection(endpoint, timeout=5) as sock:
            assert sock.recv(4) == b"SSH-"
        # A personality setting the flag directly (no listener change): reset before the banner.
        faults = lab.server.device("dev0").state.faults
        lab.call(lambda: setattr(faults, "refuse", True))
        with socket.create_connection(endpoint, timeout=5) as sock:
            try:
                data = sock.recv(4)
            except ConnectionResetError:
                data = b""
            assert data == b""
