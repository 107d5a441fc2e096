"""Where chunks run: threads of this process (``local``) or a ``dask.distributed`` cluster
(``dask``: a ``LocalCluster`` of ``workers`` single-threaded worker processes, or the running
scheduler at ``scheduler``). Both give futures with ``.result()``; the run's dataset does not
depend on which (every chunk is one :func:`vikingsim.studies.run.play_chunk` call).

Each chunk plays on one thread (the kernel releases the GIL), so ``workers`` chunks run at
once: threads for ``local``, worker processes of one thread each for a ``LocalCluster``.
"""
from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

from vikingsim.core import config
from vikingsim.core.errors import InputError

BACKENDS = ("local", "dask")
#: Dask settings for the LocalCluster (inherited by its workers): no statistical profiler
#: (a stack sample every 10 ms per worker) and slower event-loop and system monitors. An idle
#: 2-worker cluster took 11% of a core with the defaults, 1.5% with these (measured here).
QUIET_DASK = {"distributed.worker.profile.enabled": False,
              "distributed.admin.tick.interval": "500ms",
              "distributed.admin.system-monitor.interval": "5s",
              "distributed.worker.preload": [__name__]}      # dask_setup below, per worker
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def dask_setup(worker) -> None:
    """Dask's preload hook, run in every LocalCluster worker process at start: Ctrl-C (SIGINT
    to the terminal's whole process group) is for the vikingsim process, which shuts the
    cluster down; a worker that took it too would print its own traceback."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _quiet_worker() -> None:
    """Run on each worker before the cluster closes: no log lines about the scheduler going
    away (heartbeats that fail, streams closed)."""
    logging.getLogger("distributed").setLevel(logging.CRITICAL + 1)


@contextlib.contextmanager
def _signals_held():
    """Hold SIGINT and SIGTERM sent to this process while a LocalCluster starts (a cluster
    stopped half-built prints an AssertionError traceback at exit); yields the list of the
    signals that arrived. (A signal to the whole process group also reaches the worker
    processes, which take SIGINT as their own until ``dask_setup`` has run.)"""
    arrived: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield arrived
        return
    old = {sig: signal.signal(sig, lambda sig, frame: arrived.append(sig))
           for sig in STOP_SIGNALS}
    try:
        yield arrived
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def check_backend(name: str, workers: int | None, scheduler: str | None) -> None:
    """InputError for an unknown backend, a bad worker count or a misplaced scheduler."""
    if name not in BACKENDS:
        raise InputError(f"unknown backend {name!r}; allowed: {', '.join(BACKENDS)}")
    if workers is not None and (isinstance(workers, bool) or not 1 <= workers <= 1024):
        raise InputError(f"--workers must be an integer in [1, 1024], got {workers!r}")
    if scheduler is not None and name != "dask":
        raise InputError("--scheduler needs --backend dask")


def make_backend(name: str, workers: int | None = None, scheduler: str | None = None):
    """The backend called ``name`` (see :func:`check_backend`)."""
    check_backend(name, workers, scheduler)
    if name == "local":
        return LocalBackend(workers or os.cpu_count() or 1)
    return DaskBackend(workers, scheduler)


class LocalBackend:
    """A thread pool: ``workers`` chunks at once in this process."""

    def __init__(self, workers: int):
        self.workers = workers
        self.pool = ThreadPoolExecutor(max_workers=workers)

    def submit(self, fn, task):
        return self.pool.submit(fn, task)

    def wait(self, futures) -> set:
        """The futures that are done (at least one; blocks until then)."""
        return wait(futures, return_when=FIRST_COMPLETED).done

    def close(self, cancel: bool = False) -> None:
        """Running chunks always finish (each writes its files atomically)."""
        self.pool.shutdown(wait=True, cancel_futures=cancel)


class DaskBackend:
    """A ``dask.distributed`` client of a new ``LocalCluster`` or of ``scheduler``."""

    def __init__(self, workers: int | None, scheduler: str | None):
        from dask.distributed import Client

        self.cluster, self.client = None, None
        self._pending = set()
        if scheduler is None:
            with _signals_held() as arrived:
                self.cluster = _local_cluster(workers)
                self.client = Client(self.cluster, timeout=f"{config.DASK_CONNECT_S}s")
            if arrived:                        # stopped while starting: now stop cleanly
                self.close(cancel=True)
                signal.raise_signal(arrived[0])
        else:
            try:
                self.client = Client(scheduler, timeout=f"{config.DASK_CONNECT_S}s")
            except OSError as e:
                raise InputError(f"cannot reach the Dask scheduler {scheduler!r}: {e}") from None
        self.workers = max(1, sum(self.client.nthreads().values()))

    def submit(self, fn, task):
        fut = self.client.submit(fn, task, pure=False)
        self._pending.add(fut)
        return fut

    def wait(self, futures) -> set:
        from dask.distributed import wait as dask_wait

        done = set(dask_wait(futures, return_when="FIRST_COMPLETED").done)
        self._pending -= done
        return done

    def close(self, cancel: bool = False) -> None:
        """Close the client (and the LocalCluster); ``cancel``: drop the chunks not yet done
        and shut down without log lines (the run says in one line what is saved)."""
        from distributed.utils import silence_logging_cmgr

        with silence_logging_cmgr(logging.CRITICAL + 1) if cancel else contextlib.nullcontext():
            if cancel and self._pending:
                self.client.cancel(list(self._pending))
            if cancel and self.cluster is not None:
                self.client.run(_quiet_worker, on_error="ignore")
            self.client.close()
            if self.cluster is not None:
                self.cluster.close()


def _local_cluster(workers: int | None):
    import dask
    from dask.distributed import LocalCluster

    with dask.config.set(QUIET_DASK):      # the scheduler's HTTP routes on a free local port:
        return LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                            processes=True, dashboard_address=None,   # (8787 may be taken)
                            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                            silence_logs=logging.ERROR)
