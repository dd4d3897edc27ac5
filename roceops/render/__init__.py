"""Render a fabric's DeviceIntents into a build folder (:mod:`.build`), each device through its platform's
templates (:mod:`roceops.platforms.templating`). No device I/O."""
