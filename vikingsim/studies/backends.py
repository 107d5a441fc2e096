"""Where chunks run: threads of this process (``local``) or a ``dask.distributed`` cluster
(``dask``: a ``LocalCluster`` of ``workers`` single-threaded worker processes, or the running
scheduler at ``scheduler``). Both give futures with ``.result()``; the run's dataset does not
depend on which (every chunk is one :func:`vikingsim.studies.run.play_chunk` call).

Each chunk plays on one thread (the kernel releases the GIL), so ``workers`` chunks run at
once: threads for ``local``, worker processes of one thread each for a ``LocalCluster``.
"""
from __future__ import annotations

import os
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

from vikingsim.core.errors import InputError

BACKENDS = ("local", "dask")
#: Dask settings for the LocalCluster (inherited by its workers): no statistical profiler
#: (a stack sample every 10 ms per worker) and slower event-loop and system monitors. An idle
#: 2-worker cluster took 11% of a core with the defaults, 1.5% with these (measured here).
QUIET_DASK = {"distributed.worker.profile.enabled": False,
              "distributed.admin.tick.interval": "500ms",
              "distributed.admin.system-monitor.interval": "5s"}


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
        import logging

        import dask
        from dask.distributed import Client, LocalCluster

        self.cluster = None
        try:
            if scheduler is None:
                with dask.config.set(QUIET_DASK):
                    self.cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1,
                                                threads_per_worker=1, processes=True,
                                                dashboard_address=None,
                                                silence_logs=logging.ERROR)
            self.client = Client(self.cluster or scheduler, timeout="20s")
        except OSError as e:
            raise InputError(f"cannot reach the Dask scheduler {scheduler!r}: {e}") from None
        self.workers = max(1, sum(self.client.nthreads().values()))
        self._pending = set()

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
        if cancel and self._pending:
            self.client.cancel(list(self._pending))
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()
