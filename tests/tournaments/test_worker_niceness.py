"""The worker's niceness (``--nice``, ``WORKER_NICE``): background work yields the CPU to
the web. A worker process at the setting's niceness, every thread of it, is tested with
real processes in tests/tournaments/test_workers.py; here what needs none."""

from __future__ import annotations

import os

import pytest
from django.core.management import CommandError, call_command

from ratings_site.management.commands import worker as worker_module

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("queued_jobs")]


@pytest.mark.django_db(transaction=True)  # the worker closes its connections at the end
def test_called_from_another_program_the_worker_leaves_its_priority_alone() -> None:
    # A test or a script that runs the queue in its own process keeps its niceness: only
    # a worker started as a program (manage.py worker) takes WORKER_NICE.
    before = os.getpriority(os.PRIO_PROCESS, 0)
    call_command("worker", batch=True, verbosity=0)
    assert os.getpriority(os.PRIO_PROCESS, 0) == before


@pytest.mark.parametrize("nice", [-1, 20])
def test_a_niceness_out_of_range_is_refused(nice: int) -> None:
    with pytest.raises(CommandError, match="from 0 to 19"):
        call_command("worker", batch=True, nice=nice, verbosity=0)


def test_the_niceness_is_only_ever_lowered(monkeypatch: pytest.MonkeyPatch) -> None:
    # Raising a process's priority needs privileges: a worker already started at a lower
    # priority (nice 15 by its service) stays there.
    niceness = {0: 15}
    set_to: list[int] = []

    def setpriority(which: int, who: int, value: int) -> None:
        set_to.append(value)
        niceness[who] = value

    monkeypatch.setattr(os, "getpriority", lambda which, who: niceness.get(who, niceness[0]))
    monkeypatch.setattr(os, "setpriority", setpriority)
    monkeypatch.setattr(worker_module.Path, "is_dir", lambda self: False)  # one thread: 0
    assert worker_module.lower_priority(10) == 15
    assert set_to == []
    assert worker_module.lower_priority(19) == 19
    assert set_to == [19]
