"""Render DeviceIntents into configuration files through each platform's templates. No device I/O."""

from roceops.render.engine import RenderedDevice, render_device, templates_dir

__all__ = ["RenderedDevice", "render_device", "templates_dir"]
