"""The simulated switch's 5.15+ words, for its views: the applied tree in the <= 5.14 spelling the views read.

A 5.15+ switch stores what it was told (``qos roce state enabled``, ``interface swp1 ipv4 address ...``) and prints
that back in ``nv config show``; its effective-state views and ``nv show`` tables are built from this canonical
copy, so one set of views serves both releases. Renames: ``schema.RENAMED_515`` (source there).
"""

from __future__ import annotations

from roceops.lab.devices.cumulus.schema import MEMBER, Tree

_VALUES = {"enabled": "on", "disabled": "off"}


def _renamed_key(key: tuple[str, ...], value: str) -> tuple[tuple[str, ...], str]:
    n = len(key)
    if n >= 2 and key[-1] == "state" and (
            key[:-1] in (("qos", "roce"), ("router", "bgp"), ("router", "adaptive-routing"))
            or (key[0] == "vrf" and key[2:4] == ("router", "bgp")
                and (n == 5 or (n in (7, 9) and key[4] == "address-family")))
            or (key[0] == "interface" and key[2:4] == ("router", "adaptive-routing") and n == 5)):
        return (*key[:-1], "enable"), _VALUES.get(value, value)
    if (key[:3] == ("system", "forwarding", "ecmp-hash") and n == 4) or key[-3:] == ("multipath", "aspath-ignore"):
        return key, _VALUES.get(value, value)
    if key[0] == "interface" and n == 5 and key[2:4] == ("ipv4", "address") and value == MEMBER:
        return (key[0], key[1], "ip", "address", key[4]), value
    return key, value


def views_tree(tree: Tree, new_words: bool) -> Tree:
    """``tree`` with 5.15+ keys and values in the <= 5.14 spelling (``tree`` itself on an older release).

    >>> sorted(views_tree({("qos", "roce", "state"): "enabled", ("interface", "lo", "ipv4", "address", "10.0.0.1/32"):
    ...                    MEMBER}, True).items())[0:1]
    [(('interface', 'lo', 'ip', 'address', '10.0.0.1/32'), '\\x00member')]
    """
    if not new_words:
        return tree
    out: Tree = {}
    for key, value in tree.items():
        k, v = _renamed_key(key, value) if key else (key, value)
        out[k] = v
    return out
