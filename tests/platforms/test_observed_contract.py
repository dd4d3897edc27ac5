"""The observed side's contract (DESIGN.md, "The one idea"): parsers see device output only, never the intent;
``Driver.observe`` takes only the outputs and returns an Observed model of the DeviceIntent's shape; audit
compares model with model and reports every departing port at its port."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import typing
from types import ModuleType

import pytest
from pydantic import BaseModel

from roceops import registry
from roceops.device import intent as intent_model
from roceops.device import observed as obs
from roceops.device.compare import compare
from roceops.device.oper import OperState
from roceops.platforms.base import get_platform

# every DeviceIntent class and the Observed class that mirrors it
PAIRS: list[tuple[type[BaseModel], type[BaseModel]]] = [
    (intent_model.EcnProfile, obs.ObservedEcn), (intent_model.QueueIntent, obs.ObservedQueue),
    (intent_model.BufferPool, obs.ObservedBufferPool), (intent_model.BufferProfile, obs.ObservedBufferProfile),
    (intent_model.PfcWatchdogIntent, obs.ObservedPfcWatchdog), (intent_model.SwitchQos, obs.ObservedQos),
    (intent_model.Headroom, obs.ObservedHeadroom), (intent_model.SwitchPort, obs.ObservedSwitchPort),
    (intent_model.BgpNeighbor, obs.ObservedBgpNeighbor), (intent_model.Bgp, obs.ObservedBgp),
    (intent_model.LoadBalancingIntent, obs.ObservedLoadBalancing), (intent_model.SwitchIntent, obs.ObservedSwitch),
    (intent_model.DcqcnIntent, obs.ObservedDcqcn), (intent_model.Route, obs.ObservedRoute),
    (intent_model.NicIntent, obs.ObservedNic), (intent_model.NcclIntent, obs.ObservedNccl),
    (intent_model.FirmwareIntent, obs.ObservedFirmware), (intent_model.BootIntent, obs.ObservedBoot),
    (intent_model.HostIntent, obs.ObservedHost),
]
INTENT_CLASSES = {cls.__name__ for cls in vars(intent_model).values()
                  if isinstance(cls, type) and issubclass(cls, BaseModel) and cls.__module__ == intent_model.__name__}
FORBIDDEN_PARAMS = ("intent", "want", "expected", "expect")


def test_every_intent_class_has_its_observed_mirror() -> None:
    mirrored = {i.__name__ for i, _ in PAIRS}
    assert INTENT_CLASSES - {"_M"} <= mirrored, f"no Observed class for {sorted(INTENT_CLASSES - mirrored - {'_M'})}"


@pytest.mark.parametrize(("intent_cls", "observed_cls"), PAIRS, ids=lambda c: c.__name__)
def test_observed_class_has_the_intent_shape_with_every_field_optional(intent_cls: type[BaseModel],
                                                                     observed_cls: type[BaseModel]) -> None:
    missing = set(intent_cls.model_fields) - set(observed_cls.model_fields)
    assert not missing, f"{observed_cls.__name__} lacks {sorted(missing)}"
    required = [n for n, f in observed_cls.model_fields.items() if f.is_required()]
    assert not required, f"{observed_cls.__name__}: {required} must be optional"
    assert observed_cls().model_fields_set == set()
    assert observed_cls.model_config.get("extra") == "forbid"


def _room_modules(name: str) -> list[ModuleType]:
    package = importlib.import_module(type(get_platform(name).code.driver).__module__.rsplit(".", 1)[0])
    return [importlib.import_module(f"{package.__name__}.{m.name}") for m in pkgutil.iter_modules(package.__path__)]


def _parser_modules() -> list[ModuleType]:
    out = []
    for name in registry.names():
        out += [m for m in _room_modules(name) if m.__name__.rsplit(".", 1)[1].startswith(("parsers", "observe"))]
    return out


def _functions(module: ModuleType) -> list[tuple[str, typing.Callable[..., object]]]:
    out: list[tuple[str, typing.Callable[..., object]]] = []
    for name, value in vars(module).items():
        if getattr(value, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(value):
            out.append((name, value))
        elif inspect.isclass(value) and not issubclass(value, BaseModel):
            out += [(f"{name}.{m}", f) for m, f in vars(value).items() if inspect.isfunction(f)]
    return out


def test_the_rooms_have_parser_modules() -> None:
    rooms = {m.__name__.split(".")[2] for m in _parser_modules()}
    assert rooms >= {"sonic", "cumulus", "eos", "linux_mlx5"}


@pytest.mark.parametrize("module", _parser_modules(), ids=lambda m: m.__name__)
def test_parsers_never_receive_the_intent(module: ModuleType) -> None:
    offenders = []
    for name, func in _functions(module):
        for param in inspect.signature(func).parameters.values():
            annotation = str(param.annotation)
            if param.name.lower().startswith(FORBIDDEN_PARAMS) or any(
                    cls in annotation.replace(".", " ").replace("|", " ").split() for cls in INTENT_CLASSES):
                offenders.append(f"{name}({param.name}: {annotation})")
    assert not offenders, f"{module.__name__}: parsers must see device output only: {offenders}"


@pytest.mark.parametrize("platform", registry.names())
def test_driver_observe_takes_only_the_outputs_and_returns_an_observed_model(platform: str) -> None:
    driver = get_platform(platform).code.driver
    params = list(inspect.signature(driver.observe).parameters)
    assert params == ["outputs"], f"{platform}: observe{tuple(params)}"
    hints = typing.get_type_hints(driver.observe)
    assert hints["return"] in (obs.ObservedSwitch, obs.ObservedHost), hints["return"]
    assert typing.get_type_hints(driver.expected)["return"] is hints["return"]


@pytest.mark.parametrize("platform", registry.names())
def test_driver_operational_takes_only_the_outputs(platform: str) -> None:
    """Operational state is parsed from device output alone, like ``observe``; the caller keeps what the intent
    plans (``roceops.device.oper.for_intent``)."""
    driver = get_platform(platform).code.driver
    params = list(inspect.signature(driver.operational).parameters)
    assert params == ["outputs"], f"{platform}: operational{tuple(params)}"
    assert typing.get_type_hints(driver.operational)["return"] is OperState


def _port(queue_ecn_min: int, mtu: int = 9100) -> obs.ObservedSwitchPort:
    queue = obs.ObservedQueue(scheduler="dwrr", weight=50, lossless=True,
                              ecn=obs.ObservedEcn(min_bytes=queue_ecn_min, max_bytes=1_536_000, probability=100))
    return obs.ObservedSwitchPort(mtu=mtu, pfc_priorities=[3], queues={3: queue})


def test_per_port_drift_on_two_ports_is_two_drifts_each_at_its_port() -> None:
    expected = obs.ObservedSwitch(ports={f"Ethernet{i}": _port(153_600) for i in (0, 8, 16)})
    observed = obs.ObservedSwitch(ports={"Ethernet0": _port(1_000), "Ethernet8": _port(153_600),
                                         "Ethernet16": _port(2_000, mtu=1500), "Ethernet24": _port(7)})
    drift = compare(expected, observed)
    assert [(d.path, d.expected, d.observed) for d in drift] == [
        ("ports[Ethernet0].queues[3].ecn.min_bytes", 153_600, 1_000),
        ("ports[Ethernet16].mtu", 9100, 1500),
        ("ports[Ethernet16].queues[3].ecn.min_bytes", 153_600, 2_000),
    ]  # Ethernet24 is not roceops' port (ports is an open map): not drift


def test_unset_is_not_observable_but_none_is_absent() -> None:
    expected = obs.ObservedQueue(scheduler="dwrr", weight=50, lossless=True,
                                 ecn=obs.ObservedEcn(min_bytes=1, max_bytes=2, probability=100))
    assert compare(expected, obs.ObservedQueue(scheduler="dwrr")) == []
    [drift] = compare(expected, obs.ObservedQueue(ecn=None))
    assert (drift.path, drift.expected, drift.observed) == ("ecn", {"min_bytes": 1, "max_bytes": 2,
                                                                   "probability": 100}, None)


def test_closed_maps_report_missing_and_unexpected_entries() -> None:
    expected = obs.ObservedQos(dscp_to_tc={26: 3, 48: 6})
    drift = compare(expected, obs.ObservedQos(dscp_to_tc={26: 3, 10: 1}))
    assert [(d.path, d.kind) for d in drift] == [("dscp_to_tc[48]", "missing"), ("dscp_to_tc[10]", "unexpected")]


def test_open_maps_nested_values_are_open_too() -> None:
    expected = obs.ObservedFirmware(devices={"mlx5_0": {"ROCE_CC_PRIO_MASK_P1": 255}})
    observed = obs.ObservedFirmware(devices={"mlx5_0": {"ROCE_CC_PRIO_MASK_P1": 8, "LINK_TYPE_P1": 2},
                                             "mlx5_9": {"X": 1}})
    assert [(d.path, d.observed) for d in compare(expected, observed)] == [
        ("devices[mlx5_0][ROCE_CC_PRIO_MASK_P1]", 8)]


def test_skip_leaves_top_level_fields_out() -> None:
    expected = obs.ObservedHost(sysctls={"a": "1"}, roce_mtu=4200)
    observed = obs.ObservedHost(sysctls={"a": "2"}, roce_mtu=1500)
    assert [d.path for d in compare(expected, observed, skip=("sysctls",))] == ["roce_mtu"]


@pytest.mark.parametrize("platform", registry.names())
def test_every_room_driver_has_the_whole_protocol(platform: str) -> None:
    from roceops.platforms.driver import Driver

    members = [n for n in vars(Driver) if not n.startswith("_")]
    assert {"collect", "observe", "expected", "diff", "apply", "verify", "restore"} <= set(members)
    driver = get_platform(platform).code.driver
    assert not [n for n in members if not callable(getattr(driver, n, None))], platform
