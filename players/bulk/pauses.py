"""What a bulk job pauses: its writes between COPY chunks (the pause its caller set), and
the cyclic garbage collector while it runs."""

from __future__ import annotations

import contextvars
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_pause: contextvars.ContextVar[Callable[[], None] | None] = contextvars.ContextVar(
    "bulk_pause", default=None
)


@contextmanager
def between_chunks(pause: Callable[[], None]) -> Iterator[None]:
    """Call ``pause`` between the chunks of every COPY inside the block (and before each
    audit ``INSERT ... SELECT``): it may wait, the write's transaction (and a COPY in
    progress) held open meanwhile, the database server idle for it."""
    token = _pause.set(pause)
    try:
        yield
    finally:
        _pause.reset(token)


def pause_between_chunks() -> None:
    """The pause set by :func:`between_chunks`, if any: called by every writer between
    its chunks."""
    pause = _pause.get()
    if pause is not None:
        pause()


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a bulk job runs (a close, an import). Such a
    job allocates millions of small objects that all live until it ends; the collector
    would walk them again and again for nothing (it doubled a federation-sized close's CPU
    time, and was a tenth of a 100,000-game import). Entered before the transaction so
    that it is left after the commit: a collection set off by the commit's own work would
    walk them all once more. The first collection after it walks every object still alive
    that was made meanwhile (they are all in the youngest generation): a caller lets its
    large objects go before leaving it (0.2 s for a close's plan at 200,000 players)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
