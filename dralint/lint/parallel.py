"""Work spread over processes (``--jobs``), with results in input order.

Workers are forked, so each starts with the run's state already in memory (the files read,
the index of every object) and only results travel back, pickled. Results come back in the
order of the work, so nothing a user sees depends on the number of jobs.

Where processes cannot be forked (Windows, or a platform that forbids it) the work runs in
this process, which gives the same results, only later.
"""

from __future__ import annotations

import os
from typing import Callable, Generator, TypeVar

T = TypeVar("T")

#: The task of the pool being started; forked workers inherit it, so it is never pickled.
_TASK: Callable[[int], object] | None = None
#: Hand-overs per worker ``chunk_size`` aims at: enough to keep the workers evenly loaded to
#: the end, few enough that the pool's own cost per hand-over (a pickled message each way and a
#: wake-up of the parent's threads, about half a millisecond of the parent's CPU) stays small.
_HANDOVERS_PER_WORKER = 16


def available_cpus() -> int:
    """CPUs this process may run on (a container's limit, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


#: glibc's mallopt parameter for the size from which allocations get their own mapping.
_M_MMAP_THRESHOLD = -3
_buffers_returned = False


def return_large_buffers() -> bool:
    """Have buffers of 128 KiB and more mapped on their own, so freeing one returns it to the
    system; True when the C library took the setting (glibc).

    Each result from a worker arrives as one buffer (a parsed file of 10,000 documents is
    some 15 MiB, a slice of checked objects a few hundred KiB). glibc starts at this threshold
    but raises it to the largest buffer freed so far, so from the second result on such
    buffers come from the heap, whose freed space the process keeps: 20 MiB more peak memory
    on 50,000 documents in 5 files. Fixing the threshold keeps glibc's starting value.
    """
    global _buffers_returned
    if not _buffers_returned:
        try:
            import ctypes

            _buffers_returned = ctypes.CDLL(None).mallopt(_M_MMAP_THRESHOLD, 128 << 10) == 1
        except (OSError, AttributeError):  # not glibc
            pass
    return _buffers_returned


def _call(index: int) -> object:
    assert _TASK is not None
    return _TASK(index)


def chunk_size(count: int, jobs: int) -> int:
    """Tasks per hand-over for ``count`` small tasks (files) on ``jobs`` workers.

    500 small files handed over one by one cost the parent as much CPU as a worker spends
    parsing a quarter of them. Large tasks (slices of objects) go one by one: their results
    are large, and a few at once would raise the parent's peak memory.
    """
    return max(1, count // (jobs * _HANDOVERS_PER_WORKER))


def ordered_map(task: Callable[[int], T], count: int, jobs: int, chunksize: int = 1) -> Generator[T, None, None]:
    """``task(0) .. task(count - 1)``, on up to ``jobs`` processes, yielded in that order;
    ``chunksize`` tasks go to a worker at a time."""
    global _TASK
    jobs = min(jobs, count)
    if jobs > 1:
        import multiprocessing  # 5 ms of a 160 ms start (pre-commit, one file): only runs with workers pay it

        if "fork" not in multiprocessing.get_all_start_methods():
            jobs = 1
    if jobs <= 1:
        for index in range(count):
            yield task(index)
        return
    _TASK = task
    return_large_buffers()
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            yield from pool.imap(_call, range(count), chunksize=chunksize)
    finally:
        _TASK = None
