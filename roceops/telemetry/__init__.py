"""``roceops telemetry``: a long-running collector that streams switch counters over gNMI (SAMPLE mode, pygnmi)
and samples hosts' NIC counters over SSH/sysfs, and exports them to Prometheus (prometheus-client).
grpc and pygnmi are imported only by the modules that talk gNMI, so the CLI starts without them."""
