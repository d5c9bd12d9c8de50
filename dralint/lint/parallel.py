"""Work spread over processes (``--jobs``), with results in input order.

Workers are forked, so each starts with the run's state already in memory (the files read,
the index of every object) and only results travel back, pickled; this process does its share
of the work too. Results come back in the order of the work, so nothing a user sees depends on
the number of jobs.

Where processes cannot be forked (Windows, or a platform that forbids it) the work runs in
this process, which gives the same results, only later.
"""

from __future__ import annotations

import io
import os
import pickle
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

T = TypeVar("T")

#: Hand-overs per worker ``chunk_size`` aims at: enough to keep the workers evenly loaded to
#: the end, few enough that the cost of each (a message and a wake-up of the reading thread,
#: in the parent) stays small.
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


def chunk_size(count: int, jobs: int) -> int:
    """Tasks per hand-over for ``count`` small tasks (files) on ``jobs`` workers.

    500 small files handed over one by one (with a pool whose parent only received) cost the
    parent as much CPU as a worker spends parsing a quarter of them. Large tasks (slices of
    objects) go one by one: their results are large, and a few at once would raise the
    parent's peak memory.
    """
    return max(1, count // (jobs * _HANDOVERS_PER_WORKER))


def ordered_map(
    task: Callable[[int], T],
    count: int,
    jobs: int,
    chunksize: int = 1,
    send: Callable[[int, T], Any] | None = None,
    receive: Callable[[int, Any], T] | None = None,
) -> Generator[T, None, None]:
    """``task(0) .. task(count - 1)``, on up to ``jobs`` processes, yielded in that order.

    This process is one of the ``jobs``: it forks ``jobs - 1`` workers and takes chunks of
    ``chunksize`` tasks from the same counter as they do. What it computes itself is never
    pickled, and no third process competes with two workers for two CPUs: with a pool of
    ``jobs`` workers and a parent that only unpickled their results, two jobs spent 1.22-1.25x
    the CPU of one, now 1.04-1.12x.

    A worker's results cross as ``send(index, result)`` and come back as
    ``receive(index, sent)``, so a task can send a compact form of what it made (rows of
    diagnostics, say) that the receiving side rebuilds against what it holds itself.
    """
    chunks = [range(start, min(start + chunksize, count)) for start in range(0, count, chunksize)]
    jobs = min(jobs, len(chunks))
    if jobs > 1:
        import multiprocessing  # 5 ms of a 160 ms start (pre-commit, one file): only runs with workers pay it

        if "fork" not in multiprocessing.get_all_start_methods():
            jobs = 1
    if jobs <= 1:
        for index in range(count):
            yield task(index)
        return
    return_large_buffers()
    with _Workers(task, chunks, jobs - 1, send) as workers:
        for number, chunk in enumerate(chunks):
            mine, done = workers.results(number)
            if mine or receive is None:
                yield from done
            else:
                yield from (receive(index, item) for index, item in zip(chunk, done, strict=True))


#: Bytes before a worker's pickled results in its message: the chunk number, or -1 for a failure.
_HEADER = 8


class _Workers:
    """Forked workers and this process sharing out ``chunks`` of tasks (see ``ordered_map``).

    A counter in shared memory hands out chunk numbers. Each worker sends the results of every
    chunk it computed through a pipe of its own; a thread here reads the pipes as results come,
    so a worker never waits for this process to be ready. This process asks for chunks in
    order (``results``): it computes one that nobody has taken yet, and waits for one a
    worker took.
    """

    def __init__(
        self, task: Callable[[int], Any], chunks: list[range], workers: int, send: Callable[[int, Any], Any] | None
    ):
        import multiprocessing
        import threading

        context = multiprocessing.get_context("fork")
        self._task, self._chunks, self._send = task, chunks, send
        self._next = context.RawValue("q", 0)
        self._lock = context.Lock()
        self._own: dict[int, list] = {}
        #: Filled by the reading thread, under ``_changed``.
        self._arrived: dict[int, memoryview] = {}
        self._failure: BaseException | None = None
        self._running = workers
        self._changed = threading.Condition()
        self._processes, readers = [], []
        for _ in range(workers):
            reader, writer = context.Pipe(duplex=False)
            _widen(writer)
            process = context.Process(target=self._serve, args=(writer,), daemon=True)
            process.start()
            writer.close()  # the worker's end: once every worker closed it, the reader sees the end
            self._processes.append(process)
            readers.append(reader)
        self._reader = threading.Thread(target=self._collect, args=(readers,), daemon=True)
        self._reader.start()

    def __enter__(self) -> _Workers:
        return self

    def __exit__(self, *exc_info: object) -> None:
        for process in self._processes:
            if process.is_alive():  # the caller stopped early, or a chunk failed
                process.terminate()
            process.join()
        self._reader.join()

    def _claim(self) -> int | None:
        """The next chunk nobody has taken, now taken; None when all are."""
        with self._lock:
            number = self._next.value
            if number >= len(self._chunks):
                return None
            self._next.value = number + 1
            return number

    def _computed(self, number: int) -> list:
        return [self._task(index) for index in self._chunks[number]]

    def _serve(self, writer: Connection) -> None:
        """A worker's life: take chunks until none is left, sending each one's results."""
        try:
            while (number := self._claim()) is not None:
                done = self._computed(number)
                if self._send is not None:
                    done = [self._send(index, item) for index, item in zip(self._chunks[number], done, strict=True)]
                _send_message(writer, number, done)
        except BaseException as error:  # the parent raises it where it waits for this chunk
            _send_message(writer, -1, _portable(error))
        finally:
            writer.close()

    def _collect(self, readers: list[Connection]) -> None:
        """The reading thread: file each worker's results under their chunk number until every
        worker has closed its pipe (done, failed, or killed)."""
        from multiprocessing.connection import wait

        while readers:
            for reader in cast("list[Connection]", wait(readers)):
                try:
                    message = memoryview(reader.recv_bytes())
                except (EOFError, OSError):
                    readers.remove(reader)
                    with self._changed:
                        self._running -= 1
                        self._changed.notify()
                    continue
                number = int.from_bytes(message[:_HEADER], "little", signed=True)
                with self._changed:
                    if number < 0:
                        self._failure = pickle.loads(message[_HEADER:])
                    else:
                        self._arrived[number] = message[_HEADER:]
                    self._changed.notify()

    def results(self, number: int) -> tuple[bool, list]:
        """Chunk ``number``'s results, and whether this process computed them (a worker's come
        as it sent them). While a worker has the chunk, this process computes chunks nobody
        has taken yet, and waits only when none is left."""
        while True:
            if number in self._own:
                return True, self._own.pop(number)
            with self._changed:
                if self._failure is not None:
                    raise self._failure
                arrived = self._arrived.pop(number, None)
            if arrived is not None:
                return False, pickle.loads(arrived)
            mine = self._claim()
            if mine is not None:
                self._own[mine] = self._computed(mine)
                continue
            with self._changed:
                self._changed.wait_for(
                    lambda: number in self._arrived or self._failure is not None or not self._running
                )
                if number not in self._arrived and self._failure is None:
                    raise RuntimeError("a worker process ended without sending its results (killed, or out of memory?)")


#: Bytes a pipe from a worker holds (Linux's default limit for a process to ask, see
#: ``/proc/sys/fs/pipe-max-size``).
_PIPE_BYTES = 1 << 20


def _widen(pipe: Connection) -> None:
    """Let the pipe hold a whole message of a usual size (a slice's findings are some 250 KB),
    where Linux gives 64 KiB: a worker would otherwise wait, mid-message, for this process's
    reading thread, which needs the interpreter lock for each 64 KiB and waits up to a switch
    interval (5 ms) for it while this process computes. That waiting was a fifth of a
    worker's time."""
    try:
        import fcntl

        fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
    except (ImportError, AttributeError, OSError):  # not Linux, or over the system's limit: the pipe keeps its size
        pass


def _send_message(writer: Connection, number: int, payload: object) -> None:
    """One message: the chunk number (``_HEADER`` bytes), then ``payload`` pickled."""
    message = io.BytesIO()
    message.write(number.to_bytes(_HEADER, "little", signed=True))
    pickle.dump(payload, message, pickle.HIGHEST_PROTOCOL)
    writer.send_bytes(message.getbuffer())


def _portable(error: BaseException) -> BaseException:
    """``error`` with the worker's traceback as a note, or a RuntimeError with the same text
    when ``error`` does not pickle."""
    import traceback

    text = "".join(traceback.format_exception(error))
    error.add_note(f"raised in a worker process:\n{text}")
    try:
        pickle.dumps(error, pickle.HIGHEST_PROTOCOL)
    except Exception:
        return RuntimeError(f"a worker process failed:\n{text}")
    return error
