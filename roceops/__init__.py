"""roceops: model, render, push and audit RoCEv2 lossless backend fabrics."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("roceops")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0.0.0+src"
