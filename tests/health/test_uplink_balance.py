"""Uplink balance from two counter samples: even uplinks are ok, one hot uplink is a warning naming it,
idle leaves are not judged, missing counters are unknown, SONiC-style ECN marks stand in for TX."""

from __future__ import annotations

from conftest import example_dict

from roceops.device.intent import SwitchIntent
from roceops.device.oper import OperState, PortOper
from roceops.health.balance import uplink_balance, uplinks
from roceops.health.catalog import Sample
from roceops.health.model import Thresholds
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.topology.expand import expand

LEAF = "leaf-su1-r1"


def _leaf() -> SwitchIntent:
    leaf = plan(expand(FabricIntent.model_validate(example_dict("lab-mini"))), LEAF)
    assert isinstance(leaf, SwitchIntent)
    return leaf


def _sample(rates: dict[str, float], counter: str = "tx_packets", window: float = 2.0) -> Sample:
    first = OperState(device=LEAF, ports={p: PortOper(name=p, counters={counter: 1000}) for p in rates})
    second = OperState(device=LEAF, ports={p: PortOper(name=p, counters={counter: 1000 + int(r * window)})
                                           for p, r in rates.items()})
    return Sample(first=first, second=second, window_s=window)


def test_even_uplinks_are_ok_and_one_hot_uplink_warns() -> None:
    leaf = _leaf()
    ups = uplinks(leaf)
    assert len(ups) == 4
    even = uplink_balance(leaf, _sample(dict.fromkeys(ups, 1_150_000.0)), Thresholds())
    assert (even.status, even.hot) == ("ok", [])
    skewed = {**dict.fromkeys(ups, 1_150_000.0), ups[2]: 4_600_000.0}  # the lab's hash_polarized: 4x one port
    result = uplink_balance(leaf, _sample(skewed), Thresholds())
    assert (result.status, result.hot) == ("warn", [ups[2]])
    assert LEAF in result.message and f"{ups[2]} 2.3x" in result.message  # 4.6M / mean 2.01M


def test_idle_missing_and_ecn_marks() -> None:
    leaf = _leaf()
    ups = uplinks(leaf)
    idle = {**dict.fromkeys(ups, 10.0), ups[0]: 1000.0}
    assert uplink_balance(leaf, _sample(idle), Thresholds()).status == "ok"  # below the busy floor
    partial = _sample(dict.fromkeys(ups[:3], 1_150_000.0))
    assert uplink_balance(leaf, partial, Thresholds()).status == "unknown"
    marks = {**dict.fromkeys(ups, 40.0), ups[1]: 160.0}
    result = uplink_balance(leaf, _sample(marks, counter="ecn_marked"), Thresholds())
    assert (result.status, result.counter, result.hot) == ("warn", "ecn_marked", [ups[1]])
    loose = Thresholds(uplink_imbalance_max=2.0)  # 160 / mean 70 = 2.3x: hot only above 3x
    assert uplink_balance(leaf, _sample(marks, counter="ecn_marked"), loose).status == "ok"
