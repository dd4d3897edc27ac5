"""The collector's ``/metrics`` endpoint: the store's counter text plus prometheus-client's exposition of its
registry, gzip-compressed (level 1: ~25 ms for 10 MiB) when the scraper accepts it, as Prometheus does."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Callable, Iterable
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from roceops.telemetry.store import Store

GZIP_LEVEL = 1


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # no access log on stderr
        return


def metrics_app(store: Store, registry: CollectorRegistry) -> Callable[..., Iterable[bytes]]:
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO", "/") not in ("/", "/metrics"):
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"not found\n"]
        body = store.counter_text().encode() + generate_latest(registry)
        headers = [("Content-Type", CONTENT_TYPE_LATEST)]
        if "gzip" in environ.get("HTTP_ACCEPT_ENCODING", ""):
            body = gzip.compress(body, GZIP_LEVEL)
            headers.append(("Content-Encoding", "gzip"))
        start_response("200 OK", headers)
        return [body]
    return app


def serve(store: Store, registry: CollectorRegistry, host: str, port: int) -> tuple[WSGIServer, threading.Thread]:
    """Start the endpoint on a daemon thread; ``server.shutdown()`` stops it."""
    server = make_server(host, port, metrics_app(store, registry), server_class=_Server, handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, name="metrics-http", daemon=True)
    thread.start()
    return server, thread
