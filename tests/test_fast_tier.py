"""The fast tier (``make test-fast``, docs/developers/testing.md) starts no process: tests/conftest.py
makes every way of starting one fail a test that has none of the markers that leave it
out. This file's tests are in the tier, so each start below must fail there."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import subprocess
import sys
import threading
from collections.abc import Callable

import pytest

from tests.conftest import NOT_FAST


def _subprocess_run() -> None:
    subprocess.run([sys.executable, "-c", "pass"], check=False)


def _os_system() -> None:
    os.system("true")  # noqa: S605 - must not start at all


def _asyncio_subprocess() -> None:
    async def start() -> None:
        process = await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")
        await process.wait()

    # In a thread of its own: once a browser test ran in this worker, the session's
    # Playwright (its sync API) keeps an event loop running in the main thread, where
    # asyncio.run refuses to start ("cannot be called from a running event loop"), a
    # failure that came and went with the order of the files.
    raised: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(start())
        except BaseException as error:  # handed back to the test's thread
            raised.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if raised:
        raise raised[0]


def _multiprocessing(method: str) -> Callable[[], None]:
    def start() -> None:
        process = multiprocessing.get_context(method).Process(target=int)
        process.start()
        process.join()

    return start


@pytest.mark.parametrize(
    "start",
    [
        _subprocess_run,
        _os_system,
        _asyncio_subprocess,
        _multiprocessing("fork"),
        _multiprocessing("spawn"),
        _multiprocessing("forkserver"),
    ],
    ids=["subprocess", "os.system", "asyncio", "fork", "spawn", "forkserver"],
)
def test_a_fast_tier_test_that_starts_a_process_fails(start: Callable[[], None]) -> None:
    with pytest.raises(pytest.fail.Exception, match="started a process"):
        start()


def test_this_file_is_in_the_fast_tier(request: pytest.FixtureRequest) -> None:
    # Otherwise the test above would pass without the guard ever being tried.
    assert not any(request.node.get_closest_marker(name) for name in NOT_FAST)
