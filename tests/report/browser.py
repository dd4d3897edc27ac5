"""Debian's headless Chromium for the report tests: the DOM after scripts, a screenshot, and a log of every
request the page tries (all traffic goes to a proxy on loopback that records and refuses it)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# operators-systems.md: as root Chromium needs --no-sandbox; the rest keeps it from calling home by itself
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
         "--disable-default-apps", "--disable-extensions", "--hide-scrollbars"]


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class RequestLog:
    """A proxy on 127.0.0.1 that records the first line of each request it receives and answers 403."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self._sock.settimeout(0.2)
        self.port = self._sock.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    first = conn.recv(4096).split(b"\r\n", 1)[0].decode(errors="replace")
                    conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                except OSError:
                    first = "<connection without a request line>"
                self.requests.append(first)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self._sock.close()


@contextmanager
def _browser_args(log: RequestLog) -> Iterator[list[str]]:
    with tempfile.TemporaryDirectory(prefix="roceops-chromium-") as profile:
        yield [chromium() or "chromium", *FLAGS, f"--user-data-dir={profile}",
               f"--proxy-server=http://127.0.0.1:{log.port}", "--proxy-bypass-list=<-loopback>"]


def _run(log: RequestLog, extra: list[str], page: Path) -> str:
    with _browser_args(log) as args:
        done = subprocess.run([*args, *extra, page.resolve().as_uri()], capture_output=True, text=True,
                              timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def dump_dom(page: Path, log: RequestLog, extra: list[str] | None = None) -> str:
    """The DOM after the page's scripts ran (``--dump-dom``); ``extra`` flags, e.g. a ``--screenshot`` in the
    same run."""
    return _run(log, ["--dump-dom", *(extra or [])], page)
