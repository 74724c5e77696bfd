"""gunicorn's configuration for the web processes (``gunicorn -c python:mascarade_site.gunicorn
mascarade_site.wsgi``; the command line's options still apply, and win).

Connections kept alive: the threaded worker (``gthread``) keeps each client's connection open
between its requests (HTTP/1.1 keep-alive; gunicorn's default sync worker closes it after every
answer, so that each request paid for a new TCP connection); an idle connection waits in the
worker's poller, not in a thread. ``GUNICORN_THREADS`` threads per worker (2 by default: the
README's "Load and cost" says how 1, 2 and 4 compared); each thread has its own database
connection (Django's are per thread), so a web process holds up to that many PostgreSQL
connections, each with its own prepared statements. ``GUNICORN_KEEPALIVE``: the seconds an idle
connection is kept (75 by default: longer than the proxy keeps its idle connections to web,
60 s, docker/nginx.conf, so that the proxy closes them, never gunicorn under its feet).

One listening socket per worker: a kept-alive connection stays with the worker that accepted it,
and with one socket shared by the workers (gunicorn's way) whichever worker wakes first accepts
nearly all the connections that arrive together (50 clients connecting at once all went to one
of the two workers, which then served them on one core). :func:`post_fork` gives each worker a
socket of its own on the same address (``SO_REUSEPORT``, which ``reuse_port`` sets on the
master's too), among which the kernel spreads new connections evenly; the worker still accepts
on the master's socket too, which keeps the kernel's share of it (a worker being replaced).
It sets the worker's ``sockets`` before it starts, the list a gunicorn worker serves.

``post_worker_init`` runs in each worker once it has loaded the application: its long-lived
objects go out of the garbage collector's way (:mod:`mascarade_site.memory`).
"""

from __future__ import annotations

import os
import socket

worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS", "2"))
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", "75"))
reuse_port = True


def own_sockets(listeners, backlog: int) -> list[socket.socket]:
    """A listening socket bound to the address of each TCP listener, with ``SO_REUSEPORT`` and
    the listener's options (``TCP_NODELAY``, an IPv6 socket's ``IPV6_V6ONLY``)."""
    out = []
    if not hasattr(socket, "SO_REUSEPORT"):
        return out
    for listener in listeners:
        family = listener.family
        if family not in (socket.AF_INET, socket.AF_INET6):
            continue  # (a Unix socket: the shared one only)
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        for level, option in ((socket.IPPROTO_TCP, socket.TCP_NODELAY),
                              *([(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY)]
                                if family == socket.AF_INET6 else [])):
            sock.setsockopt(level, option, listener.getsockopt(level, option))
        sock.bind(listener.getsockname())
        sock.listen(backlog)
        out.append(sock)
    return out


def post_fork(server, worker) -> None:
    from gunicorn.workers.sync import SyncWorker

    # (not for the sync worker, ``--worker-class sync``: it closes each connection after its
    # answer, and each worker taking the next one when it is free spreads them best)
    if worker.cfg.reuse_port and not isinstance(worker, SyncWorker):
        worker.sockets = [*own_sockets(worker.sockets, worker.cfg.backlog), *worker.sockets]


def post_worker_init(worker) -> None:
    from mascarade_site.memory import freeze_after_first_request

    freeze_after_first_request()
