"""Rendered monitoring for a fabric: Prometheus alert rules (with their promtool tests), a Grafana dashboard and
a scrape config for ``roceops telemetry``. Everything here is pure: text from the fabric, no I/O."""

from roceops.monitoring.files import MONITORING_DIR, monitoring_files

__all__ = ["MONITORING_DIR", "monitoring_files"]
