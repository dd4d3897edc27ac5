"""``roceops verify routing``: the fabric's routing plane on real FRR in network namespaces."""
