"""The lab's cross-device cabling fault (roceops/lab/rewire.py): rail_swap moves both ends of two cables and
restore puts every end back; bad requests are refused with the cabled ports named."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from roceops.lab.personality import LabError
from roceops.lab.physical import Physical
from roceops.lab.rewire import restore, swap_cables


def states() -> dict[str, SimpleNamespace]:
    host = Physical("gpu002", [{"name": "eth0", "neighbor": ["leaf-a", "Ethernet4"]},
                               {"name": "eth1", "neighbor": ["leaf-b", "Ethernet4"]}])
    a = Physical("leaf-a", [{"name": "Ethernet4", "neighbor": ["gpu002", "eth0"]}])
    b = Physical("leaf-b", [{"name": "Ethernet4", "neighbor": ["gpu002", "eth1"]}])
    return {"gpu002": SimpleNamespace(physical=host), "leaf-a": SimpleNamespace(physical=a),
            "leaf-b": SimpleNamespace(physical=b)}


def neighbors(st: dict[str, SimpleNamespace]) -> dict[tuple[str, str], tuple[str, str] | None]:
    return {(d, p): port.neighbor for d, s in st.items() for p, port in s.physical.ports.items()}


def test_swap_moves_both_ends_and_restore_undoes_it() -> None:
    st = states()
    before = neighbors(st)
    moved = swap_cables(st, "gpu002", {})
    after = neighbors(st)
    assert after[("gpu002", "eth0")] == ("leaf-b", "Ethernet4") and after[("gpu002", "eth1")] == ("leaf-a", "Ethernet4")
    assert after[("leaf-a", "Ethernet4")] == ("gpu002", "eth1") and after[("leaf-b", "Ethernet4")] == ("gpu002", "eth0")
    restore(st, moved)
    assert neighbors(st) == before


def test_bad_ports_are_refused() -> None:
    with pytest.raises(LabError, match=r"cabled: eth0, eth1"):
        swap_cables(states(), "gpu002", {"a": "eth0", "b": "eth0"})
    with pytest.raises(LabError, match="no cabled ports"):
        swap_cables({"x": SimpleNamespace()}, "x", {})
