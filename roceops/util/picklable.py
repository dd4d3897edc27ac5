"""Exceptions that survive the way back from a forked worker process.

A worker's exception is pickled to reach the parent, and unpickling calls ``cls(*exc.args)``. An exception whose
own ``__init__`` takes other arguments than the ``args`` it passes on (``WriteRefused(path, reason)``,
``NoVendorHeadroom(message, *, hwsku=...)``) then fails in the parent: the pool reports a broken process and the
user sees a traceback instead of the message. :class:`PicklableError` pickles such an exception as its class, its
``args`` and its attributes, and rebuilds it without calling ``__init__``.
"""

from __future__ import annotations

from typing import Any


class PicklableError(Exception):
    """Base (or mixin, before a built-in exception base) of every roceops exception with its own ``__init__``."""

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuilt, (type(self), self.args), self.__dict__


def _rebuilt(cls: type[BaseException], args: tuple[Any, ...]) -> BaseException:
    """An instance of ``cls`` with ``args``, its ``__init__`` not called (pickle then restores its attributes)."""
    exc = cls.__new__(cls, *args)
    exc.args = args
    return exc
