"""Work spread over processes (``--jobs``), with results in input order.

Workers are forked, so each starts with the run's state already in memory (the files read,
the index of every object) and only results travel back, pickled. Results come back in the
order of the work, so nothing a user sees depends on the number of jobs.

Where processes cannot be forked (Windows, or a platform that forbids it) the work runs in
this process, which gives the same results, only later.
"""

from __future__ import annotations

import multiprocessing
import os
from typing import Callable, Generator, TypeVar

T = TypeVar("T")

#: The task of the pool being started; forked workers inherit it, so it is never pickled.
_TASK: Callable[[int], object] | None = None


def available_cpus() -> int:
    """CPUs this process may run on (a container's limit, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _call(index: int) -> object:
    assert _TASK is not None
    return _TASK(index)


def ordered_map(task: Callable[[int], T], count: int, jobs: int) -> Generator[T, None, None]:
    """``task(0) .. task(count - 1)``, on up to ``jobs`` processes, yielded in that order."""
    global _TASK
    jobs = min(jobs, count)
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        for index in range(count):
            yield task(index)
        return
    _TASK = task
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            # Small chunks keep the workers evenly loaded; each result is one file or one
            # slice of objects, large enough that the hand-over is a small part of its cost.
            yield from pool.imap(_call, range(count), chunksize=1)
    finally:
        _TASK = None
