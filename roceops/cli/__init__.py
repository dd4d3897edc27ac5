"""The ``roceops`` command line (typer + rich)."""
