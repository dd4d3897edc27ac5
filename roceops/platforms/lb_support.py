"""What each switch platform's rendering can express of the load-balancing intent, with the source of
that syntax or the reason it is missing (docs/platforms.md, "Load balancing").

Data only, read by lint (LB003): a setting a platform cannot render is an error, never a silent
omission. Whether the SKU's ASIC can do it at all is the hardware profile's business (LB004).
"""

from __future__ import annotations

from dataclasses import dataclass

from roceops.model.load_balancing import FIVE_TUPLE, HashField, LoadBalancingMode


@dataclass(frozen=True)
class LbSupport:
    hash_fields: frozenset[HashField]  # fields the rendered config can switch on and off
    hash_seed: bool
    modes: frozenset[LoadBalancingMode]
    why_not: str  # what is missing and why, for the lint message


LB_SUPPORT: dict[str, LbSupport] = {
    # SONiC: SWITCH_HASH|GLOBAL ecmp_hash is modelled by sonic-hash.yang upstream, but the YANG set roceops
    # validates CONFIG_DB against (shared/sonic-yang @ sonic-buildimage 086b03bd) has no sonic-hash module,
    # so GCU would refuse the table ("tables without YANG models"); no CONFIG_DB table for a seed, AR or DLB.
    "sonic": LbSupport(frozenset(), False, frozenset({"ecmp"}),
                       "SONiC: the SONiC YANG models roceops validates against define no hash, seed, AR or DLB "
                       "table (no sonic-hash.yang in the snapshot)"),
    # NVUE 5.x <= 5.14: `nv set system forwarding ecmp-hash <field> on|off` and `nv set router adaptive-routing
    # enable on` (docs.nvidia.com/networking-ethernet-software/nvue-reference/Set-and-Unset-Commands/
    # System-Forwarding/ and .../Adaptive-Routing/); no source found for a hash seed or a BTH/QP field.
    "cumulus": LbSupport(frozenset(FIVE_TUPLE), False, frozenset({"ecmp", "adaptive"}),
                         "Cumulus NVUE: no confirmed syntax for a hash seed, dynamic load balancing or hashing "
                         "on the RoCE destination QP"),
    # EOS: AVD models hash fields only for SAND (Jericho) platforms (load_balance.policies.sand_profiles,
    # EOS >= 4.33.1F); DLB exists (EOS 4.30.0F TOI) but its CLI is not confirmed by any source in hand.
    "eos": LbSupport(frozenset(), False, frozenset({"ecmp"}),
                     "EOS: no confirmed hash-field, seed, DLB or AR syntax for the modelled (non-SAND) switches"),
}
