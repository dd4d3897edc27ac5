"""NIC hardware profiles: ConnectX-7, ConnectX-8 and BlueField-3, each fact with the document it comes from.

The fabric names a NIC model (``node.nic_model``); lint, plan and render read its profile here instead of
guessing from a speed. ``firmware_keys`` are the mlxconfig (NVCONFIG) parameters roceops manages for RoCE on
that model, suffixed per port (``_P1``); ``planes_max`` is how many planes one NIC can serve (multi-plane
fabrics; read by the load-balancing rules).
"""

from __future__ import annotations

from dataclasses import dataclass

OPERATOR = ("Mellanox/nic-configuration-operator@8bfbeb34ba25215dd06402cd01bae0108341a8d4 "
            "pkg/consts/consts.go 92-113, README.md 88-96")
CX7_OCP_MANUAL = "https://docs.nvidia.com/networking/display/connectx7vpiocp3/supported+interfaces"
CX7_TRANSCEIVER = "https://docs.nvidia.com/networking/display/mms4x00ns400/overview"
CX8_FW_NOTES = "https://docs.nvidia.com/networking/display/connectx8firmwarev40440208/changes+and+new+features"
BF3_FW_NOTES = ("https://docs.nvidia.com/networking/display/bluefield3firmwarev32398002lts/"
                "firmware+compatible+products")
BF3_SKUS = "https://docs.nvidia.com/doca/archive/2-9-0/NVIDIA+DOCA+Installation+Guide+for+Linux"
MFT_MLXCONFIG = "https://docs.nvidia.com/networking/display/mftv4330/using+mlxconfig"


@dataclass(frozen=True)
class Fact:
    value: object
    source: str


@dataclass(frozen=True)
class NicProfile:
    model: str
    ports_max: int  # network ports on the largest card of the family the sources name
    speed_max: int  # Mb/s per Ethernet port
    planes_max: int  # planes one NIC can serve (1: no multi-plane)
    firmware_keys: tuple[str, ...]  # mlxconfig parameters without the _P<port> suffix
    sources: dict[str, str]  # field -> where it comes from

    def fact(self, field: str) -> Fact:
        return Fact(getattr(self, field), self.sources[field])


# The RoCE parameters NVIDIA's operator sets ("roceOptimized": ROCE_CC_PRIO_MASK, CNP_DSCP, CNP_802P_PRIO
# for both ports, only with linkType=Ethernet -> LINK_TYPE); the same list for every model it supports.
ROCE_FIRMWARE_KEYS = ("LINK_TYPE", "ROCE_CC_PRIO_MASK", "CNP_DSCP", "CNP_802P_PRIO")

PROFILES: dict[str, NicProfile] = {
    "ConnectX-7": NicProfile(
        model="ConnectX-7", ports_max=2, speed_max=400_000, planes_max=1, firmware_keys=ROCE_FIRMWARE_KEYS,
        sources={
            "ports_max": f"{CX7_OCP_MANUAL} (single-port OSFP and dual-port QSFP112 cards)",
            "speed_max": f"{CX7_TRANSCEIVER} (400Gb/s ConnectX-7/OSFP cards)",
            "planes_max": f"{OPERATOR}: multiplaneMode/numberOfPlanes only for ConnectX-8, ConnectX-9, "
                          "BlueField-3 SuperNIC",
            "firmware_keys": OPERATOR,
        }),
    "ConnectX-8": NicProfile(
        model="ConnectX-8", ports_max=2, speed_max=400_000, planes_max=4, firmware_keys=ROCE_FIRMWARE_KEYS,
        sources={
            "ports_max": f"{CX8_FW_NOTES} (800Gb/s XDR IB or 2 x 400GbE)",
            "speed_max": f"{CX8_FW_NOTES} (800GbE is not supported on a single port: 400GbE per port)",
            "planes_max": f"{OPERATOR}: spectrumXOptimized numberOfPlanes 1|2|4 on ConnectX-8 (nicType 1023)",
            "firmware_keys": OPERATOR,
        }),
    "BlueField-3": NicProfile(
        model="BlueField-3", ports_max=2, speed_max=400_000, planes_max=4, firmware_keys=ROCE_FIRMWARE_KEYS,
        sources={
            "ports_max": f"{BF3_SKUS} (B3240/B3220: dual-port QSFP112)",
            "speed_max": f"{BF3_FW_NOTES} (Ethernet up to 400GbE)",
            "planes_max": f"{OPERATOR}: spectrumXOptimized numberOfPlanes 1|2|4 on BlueField-3 SuperNIC "
                          "(nicType a2dc); not confirmed for the DPU mode",
            "firmware_keys": OPERATOR,
        }),
}

# mlxconfig LINK_TYPE_P<n> values: 1 = InfiniBand, 2 = Ethernet (MFT "Using mlxconfig"; BF3 query `ETH(2)`).
LINK_TYPE_ETH = 2


class UnknownNic(KeyError):
    pass


def nic_profile(model: str) -> NicProfile:
    """The profile of ``model`` (exact name, e.g. ``ConnectX-7``); UnknownNic names the known ones."""
    try:
        return PROFILES[model]
    except KeyError:
        raise UnknownNic(f"no NIC profile for {model!r}; known: {', '.join(sorted(PROFILES))}") from None
