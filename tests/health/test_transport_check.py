"""nic.transport on sampled counters (no lab): a rate above the fabric's bound fails, an unread counter is
unknown with its reason, quiet counters pass; the bounds come from fabric.yaml's ``health.transport``."""

from __future__ import annotations

from conftest import example_dict

from roceops.device.intent import HostIntent
from roceops.device.oper import OperState, PortOper
from roceops.health.catalog import Sample
from roceops.health.transport import transport_results
from roceops.model.health import TransportBounds
from roceops.model.intent import FabricIntent
from roceops.plan import plan
from roceops.platforms.linux_mlx5.hw_counters import TRANSPORT_COUNTERS
from roceops.topology.expand import expand

FABRIC = expand(FabricIntent.model_validate(example_dict("lab-mini")))
HOST = plan(FABRIC, "gpu001")
assert isinstance(HOST, HostIntent)


def sample(first: dict[str, int], second: dict[str, int], unread: dict[str, str] | None = None) -> Sample:
    def state(counters: dict[str, int]) -> OperState:
        return OperState(device="gpu001", ports={n: PortOper(name=n, counters=counters, unread=unread or {})
                                                 for n in HOST.nics})
    return Sample(first=state(first), second=state(second), window_s=2.0)


def test_quiet_counters_pass_and_a_rate_over_its_bound_fails() -> None:
    quiet = dict.fromkeys(TRANSPORT_COUNTERS, 5)
    assert {r.status for r in transport_results("gpu001", HOST, sample(quiet, quiet), TransportBounds())} == {"ok"}
    noisy = {**quiet, "out_of_sequence": 805, "rnr_nak_retry_err": 6}  # 400/s and 0.5/s over 2 s
    results = transport_results("gpu001", HOST, sample(quiet, noisy), TransportBounds())
    assert {r.status for r in results} == {"fail"} and len(results) == len(HOST.nics)
    assert "out_of_sequence 400/s (limit 1)" in results[0].message
    assert "rnr_nak_retry_err 0.5/s (limit 0)" in results[0].message


def test_bounds_come_from_the_fabric() -> None:
    data = example_dict("lab-mini")
    data["health"] = {"transport": {"out_of_sequence_per_s": 1000}}
    bounds = FabricIntent.model_validate(data).health.transport
    quiet = dict.fromkeys(TRANSPORT_COUNTERS, 5)
    noisy = {**quiet, "out_of_sequence": 805}
    assert {r.status for r in transport_results("gpu001", HOST, sample(quiet, noisy), bounds)} == {"ok"}


def test_an_unread_counter_is_unknown_never_zero() -> None:
    some = {c: 0 for c in TRANSPORT_COUNTERS if c != "out_of_buffer"}
    why = {"out_of_buffer": "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer not readable"}
    results = transport_results("gpu001", HOST, sample(some, some, why), TransportBounds())
    assert {r.status for r in results} == {"unknown"}
    assert "out_of_buffer not readable" in results[0].message
    [not_sampled, *_] = transport_results("gpu001", HOST, Sample(error="gpu001 did not answer"), TransportBounds())
    assert not_sampled.status == "unknown" and not_sampled.message == "gpu001 did not answer"
