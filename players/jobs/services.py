"""Jobs: starting them, running them in a worker, and taking back the ones a dead worker left.

A job kind is a name, the least role that may start it, and a function that does the work
(``job_kind`` registers it; ``tournaments/jobs.py`` has the close, replay, import and
export kinds). ``job_start`` writes the Job row and queues ``run_job`` (Django's tasks
framework) in the same transaction. A worker (``manage.py worker``) runs ``run_job``, which
claims the job with a compare-and-set (so a job runs once even if its task were handed out
twice), calls the kind's function, and stores its answer: ``result`` and the HTTP status of
the synchronous answer, or ``error`` in the API's error shape.

While the function runs, a thread writes the job's heartbeat and progress on its own
database connection (the work's own transaction would hide them until its commit). A
worker killed mid-job stops beating: ``jobs_reap`` (every worker runs it) queues the job
again, or marks it failed after ``JOBS_MAX_ATTEMPTS``. The work itself is one transaction
(the close's, the import's), so a killed attempt left nothing behind.

A worker may also die after the work committed and before the job's answer is stored. A
rating run (close, reopen, replay) records its job in its own transaction
(``_stamp_run``), so the next attempt finds the run and answers its result (the kind's
``recover``) instead of redoing the work, which would fail ("already closed").
"""

from __future__ import annotations

import contextvars
import logging
import os
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from datetime import timedelta
from typing import IO, Any

from django.conf import settings
from django.db import DatabaseError, connections, transaction
from django.db.models import (
    F,
)
from django.db.models.signals import pre_save
from django.dispatch import receiver
from django.utils import timezone
from django_tasks import TaskResultStatus, task, task_backends
from django_tasks_db import DatabaseBackend
from django_tasks_db.models import DBTaskResult

from players.errors import DomainError, ValidationFailed
from players.jobs.events import FINISHED, QUEUED, job_event
from players.jobs.files import _payload_store
from players.jobs.lanes import (
    DEADLINE_EXCEEDED,
    FILES,
    RATING,
    JobDeadlineExceeded,
    give_way,
    job_deadline,
    lane_priority,
    urgent_lanes,
)
from players.models import Club, Job, RatingRun, Role
from players.models.audit import Via, audit_context, audit_context_set
from players.selectors import User, require_role

logger = logging.getLogger(__name__)

#: The error of a job whose worker stopped before it finished, and of one that raised
#: something other than a domain error (a bug: the log has the traceback).
WORKER_LOST = "worker_lost"
UNEXPECTED = "job_failed"


class JobProgress:
    """What a job's function reports: ``total`` when it knows it, then as it goes either
    ``advance(n)`` (n more done: the close's callbacks, tqdm's ``update``) or ``reach(n)``
    (n done in all: the file parsers' line numbers)."""

    def __init__(self) -> None:
        self.done = 0
        self.total: int | None = None

    def advance(self, n: int = 1) -> None:
        self.done += n

    def reach(self, done: int) -> None:
        self.done = max(self.done, done)


@dataclass(frozen=True)
class JobOutcome:
    """A job's answer: the body and HTTP status the endpoint answered before it became a
    job, and a file for the job's download URL (an export)."""

    body: Any
    status: int = 200
    output: bytes | None = None
    output_name: str = ""


JobFunction = Callable[[Job, JobProgress], JobOutcome]
#: A finished job's result as lines for the admin's messages: (succeeded?, text).
JobSummary = Callable[[Any], list[tuple[bool, str]]]
#: The answer of a job whose work committed in an earlier attempt, from the runs it made.
JobRecover = Callable[[Job, list[RatingRun]], JobOutcome]


@dataclass(frozen=True)
class JobKind:
    name: str
    label: str
    role: Role
    run: JobFunction
    #: The queue lane its jobs wait in and run in (players/jobs/lanes.py).
    lane: str = FILES
    #: The admin's job page: the result's lines, a template that shows the result in
    #: full (it gets ``result``), and the error fields whose messages are listed.
    summary: JobSummary | None = None
    template: str = ""
    error_fields: tuple[str, ...] = ()
    #: For a kind whose work makes a rating run: its answer, rebuilt from the run(s), when
    #: an attempt finds that an earlier one committed the work.
    recover: JobRecover | None = None
    #: The body the endpoint answers when the job finished within ``?wait=``, when that is
    #: not the stored result (a close stores its counts and links; its synchronous answer
    #: lists every row, read from the database by the waiting call, not kept in the row).
    answer: Callable[[Job], Any] | None = None


#: Every kind of job, by name; filled when the apps load (``TournamentsConfig.ready``).
JOB_KINDS: dict[str, JobKind] = {}


def job_kind(
    name: str, *, label: str, role: Role, lane: str, **admin: Any
) -> Callable[[JobFunction], JobFunction]:
    """Register the decorated function as the job kind ``name``; ``role`` is the least
    role in the job's club that may start it (the function's services check again);
    ``lane`` the queue its jobs run in (``RATING``, ``REPLAYS``, ``FILES``: each is served
    by its own workers). ``admin``: JobKind's ``summary``, ``template``, ``error_fields``,
    ``recover`` and ``answer``."""
    if lane not in settings.JOBS_LANES:
        raise ValueError(f"job kind {name}: lane {lane!r} is not in JOBS_LANES")

    def register(run: JobFunction) -> JobFunction:
        JOB_KINDS[name] = JobKind(name=name, label=label, role=role, run=run, lane=lane, **admin)
        return run

    return register


def job_lane(kind: str) -> str:
    """The lane of ``kind`` (an unknown kind's job is failed by the files lane's worker)."""
    spec = JOB_KINDS.get(kind)
    return spec.lane if spec is not None else FILES


# -- starting ---------------------------------------------------------------------------------


def _queue_is_transactional() -> bool:
    """The database backend queues in the caller's transaction: the Job row and its task
    commit together or not at all. Another backend (the immediate one runs the job at
    once) is called after the Job row is committed."""
    return isinstance(task_backends[run_job.backend], DatabaseBackend)


def _enqueue(job_id: str, club_id: int, kind: str) -> None:
    """Queue ``run_job`` in the kind's lane, behind the club's own waiting jobs there."""
    lane = job_lane(kind)
    kinds = [name for name, spec in JOB_KINDS.items() if spec.lane == lane]
    priority = lane_priority(club_id=club_id, kinds=kinds, job_id=job_id)
    queued = run_job.using(queue_name=lane, priority=priority).enqueue(job_id)
    Job.objects.filter(pk=job_id).update(task_id=str(queued.id))
    if _queue_is_transactional():
        # Wakes the workers at this transaction's commit (PostgreSQL; they poll elsewhere).
        # The immediate backend has no workers: the job ran already.
        job_event(QUEUED, job_id)


def job_start(
    *,
    kind: str,
    club: Club,
    by: User,
    params: dict[str, Any] | None = None,
    payload: bytes | IO[bytes] | None = None,
) -> Job:
    """Queue a job of ``kind`` in ``club`` for ``by`` (who needs the kind's role).
    ``payload``: the job's input file, as bytes or as a seekable binary file (an upload,
    an open file), which is copied into the row a slice at a time (``_payload_store``)."""
    spec = JOB_KINDS.get(kind)
    if spec is None:
        raise ValidationFailed(f"kind: no job kind {kind!r}.", fields={"kind": ["Unknown."]})
    require_role(by, club, spec.role)
    transactional = _queue_is_transactional()
    with transaction.atomic(durable=True):
        job = Job.objects.create(
            club=club,
            kind=kind,
            params=params or {},
            payload=payload if payload is None or isinstance(payload, bytes) else None,
            created_by_id=by.pk,
        )
        if payload is not None and not isinstance(payload, bytes):
            _payload_store(job, payload)
        if transactional:
            _enqueue(str(job.pk), club.pk, kind)
    if not transactional:
        _enqueue(str(job.pk), club.pk, kind)
    # The files stay in the row: reading them back here would hold the whole upload.
    job = Job.objects.defer("payload", "output").get(pk=job.pk)
    return job


#: How much of a job's input is written or fetched per query, and how much of it is kept
#: in memory before the copy spills to a temporary file.
def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


@task(queue_name=RATING)
def run_job(job_id: str) -> None:
    """The one task of every job kind: run the job ``job_id``. Queued in the kind's lane
    (``_enqueue``); the decorator's lane is only the default."""
    job_run(job_id=job_id)


def job_run(*, job_id: str) -> None:
    """Claim the queued job, run its kind's function, store the answer.

    The claim and the answer are compare-and-set updates on (status, attempts): a job the
    reaper took back from this attempt is not overwritten by it.
    """
    now = timezone.now()
    claimed = Job.objects.filter(pk=job_id, status=Job.Status.QUEUED).update(
        status=Job.Status.RUNNING,
        started=now,
        heartbeat=now,
        attempts=F("attempts") + 1,
        worker=worker_name(),
    )
    if claimed != 1:
        logger.warning("Job %s is not queued any more; not running it again.", job_id)
        return
    # The input file stays in the row: the kind reads it in slices (job_payload).
    job = Job.objects.select_related("club", "created_by").defer("payload", "output").get(pk=job_id)
    progress = JobProgress()
    # In a worker nothing says through what the changes come: the audit trail records
    # "job" and the user who started it. Run inside a request (the immediate backend),
    # the request's own interface stands. An import sets "import" itself either way.
    channel = (
        nullcontext()
        if audit_context_set()
        else audit_context(via=Via.JOB, user_id=job.created_by_id)
    )
    with channel, _heartbeat(job, progress), _running_job(job):
        try:
            # A worker's job has a deadline; one run inside a web request (the immediate
            # backend) has the request's own bounds, and the web server's signals.
            in_worker = _queue_is_transactional()
            bounded = job_deadline(job.kind) if in_worker else nullcontext()
            # A worker's job of a lane that gives way pauses its COPY writes while a job of
            # a more urgent lane runs (docs/reference/queue.md); a request's job does not wait.
            polite = give_way(_urgent_kinds(job.kind)) if in_worker else nullcontext()
            with bounded, polite as pause:
                fields = _execute(job, progress)
            if pause is not None and pause.waited:
                logger.info("Job %s (%s) gave way %.1f s", job.pk, job.kind, pause.waited)
        except JobDeadlineExceeded as late:
            fields = _past_deadline(job, late)
    mine = Job.objects.filter(pk=job.pk, status=Job.Status.RUNNING, attempts=job.attempts)
    with transaction.atomic():
        stored = mine.update(
            **fields,
            finished=timezone.now(),
            payload=None,
            progress_done=progress.done,
            progress_total=progress.total,
        )
        if stored and _queue_is_transactional():
            # Wakes the API calls waiting for this job (?wait=) at the commit. A job run
            # by the immediate backend ended before anyone could wait for it.
            job_event(FINISHED, str(job.pk))
    if stored != 1:
        logger.warning("Job %s was taken back while it ran; its answer is dropped.", job_id)


def _urgent_kinds(kind: str) -> list[str]:
    """The job kinds that a job of ``kind`` gives way to: those of the lanes its lane
    names in ``JOBS_GIVE_WAY``."""
    spec = JOB_KINDS.get(kind)
    lanes = urgent_lanes(spec.lane) if spec is not None else ()
    return [other.name for other in JOB_KINDS.values() if other.lane in lanes]


def _execute(job: Job, progress: JobProgress) -> dict[str, Any]:
    spec = JOB_KINDS.get(job.kind)
    try:
        if spec is None:
            raise ValidationFailed(f"kind: no job kind {job.kind!r}.", fields={"kind": ["?"]})
        runs = _committed_runs(job) if spec.recover is not None else []
        if runs:
            # An earlier attempt's work committed and its worker died before the answer
            # was stored: the answer, not the work again.
            logger.warning("Job %s: attempt %s answers the committed work", job.pk, job.attempts)
            outcome = spec.recover(job, runs)  # type: ignore[misc]
        else:
            outcome = spec.run(job, progress)
    except DomainError as error:
        body = {"code": error.code, "message": error.message, "fields": error.fields}
        return {"status": Job.Status.FAILED, "error": body, "error_status": error.status}
    except Exception:
        # A bug, not a refusal: the traceback goes to the log (and Sentry), the caller gets
        # the error shape without internals.
        logger.exception("Job %s (%s) failed", job.pk, job.kind)
        body = {
            "code": UNEXPECTED,
            "message": "The job failed; the server log says why.",
            "fields": {},
        }
        return {"status": Job.Status.FAILED, "error": body, "error_status": 500}
    return _succeeded(outcome)


def _succeeded(outcome: JobOutcome) -> dict[str, Any]:
    return {
        "status": Job.Status.SUCCEEDED,
        "result": outcome.body,
        "result_status": outcome.status,
        "output": outcome.output,
        "output_name": outcome.output_name,
    }


def _past_deadline(job: Job, late: JobDeadlineExceeded) -> dict[str, Any]:
    """The answer of a job stopped at its deadline. A rating run that committed just
    before it (the deadline struck while the answer was being built) is answered as done:
    its work is kept, and "nothing was kept" would be false."""
    logger.warning("Job %s (%s) stopped at its deadline (%g s)", job.pk, job.kind, late.seconds)
    spec = JOB_KINDS.get(job.kind)
    runs = list(RatingRun.objects.filter(job_id=job.pk).order_by("pk"))
    if runs and spec is not None and spec.recover is not None:
        return _succeeded(spec.recover(job, runs))
    body = {"code": DEADLINE_EXCEEDED, "message": late.message, "fields": {}}
    return {"status": Job.Status.FAILED, "error": body, "error_status": 503}


#: The job this thread runs; a rating run created while it runs records it.
_running: contextvars.ContextVar[Job | None] = contextvars.ContextVar("running_job", default=None)


@contextmanager
def _running_job(job: Job) -> Iterator[None]:
    token = _running.set(job)
    try:
        yield
    finally:
        _running.reset(token)


@receiver(pre_save, sender=RatingRun)
def _stamp_run(sender: Any, instance: RatingRun, **kwargs: Any) -> None:
    """Bookkeeping, not a rule (like the audit trail's stamp): the run's row says which job
    made it, written in the run's own transaction, so the job's record of its work commits
    with the work or not at all."""
    job = _running.get()
    if job is not None and instance._state.adding and instance.job_id is None:
        instance.job_id = job.pk


def _committed_runs(job: Job) -> list[RatingRun]:
    """The runs an earlier attempt of ``job`` committed (none on a first attempt)."""
    if job.attempts <= 1:
        return []
    return list(RatingRun.objects.filter(job_id=job.pk).order_by("pk"))


@contextmanager
def _heartbeat(job: Job, progress: JobProgress) -> Iterator[None]:
    interval = float(settings.JOBS_HEARTBEAT_SECONDS)
    if interval <= 0:
        yield
        return
    stop = threading.Event()

    def beat() -> None:
        mine = Job.objects.filter(pk=job.pk, status=Job.Status.RUNNING, attempts=job.attempts)
        try:
            while not stop.wait(interval):
                try:
                    mine.update(
                        heartbeat=timezone.now(),
                        progress_done=progress.done,
                        progress_total=progress.total,
                    )
                except DatabaseError:
                    # SQLite: the work's write transaction holds the file; the next beat
                    # will do (the lease is many beats long).
                    logger.info("Job %s: heartbeat skipped (database busy)", job.pk)
        finally:
            connections.close_all()  # this thread's connections only

    thread = threading.Thread(target=beat, name=f"job-heartbeat-{job.pk}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


# -- taking back what dead workers left -------------------------------------------------------


def jobs_reap(*, lease_seconds: float | None = None, max_attempts: int | None = None) -> int:
    """Running jobs whose heartbeat is older than the lease: their worker is gone. Each is
    queued again, or failed once it has had ``max_attempts``. Returns how many."""
    lease = float(settings.JOBS_LEASE_SECONDS if lease_seconds is None else lease_seconds)
    attempts_allowed = int(settings.JOBS_MAX_ATTEMPTS if max_attempts is None else max_attempts)
    cutoff = timezone.now() - timedelta(seconds=lease)
    stale = Job.objects.filter(status=Job.Status.RUNNING, heartbeat__lt=cutoff)
    taken = 0
    for pk, attempts, task_id, club_id, kind in stale.values_list(
        "pk", "attempts", "task_id", "club_id", "kind"
    ):
        # Work that committed is not lost with its worker: one more attempt answers it
        # (the kind's recover), even when the attempts are used up.
        committed = RatingRun.objects.filter(job_id=pk).exists()
        again = attempts < attempts_allowed or (committed and attempts <= attempts_allowed)
        queue = (club_id, kind)
        if _reap_one(str(pk), attempts, task_id, cutoff, again, committed, queue):
            taken += 1
    return taken


def _reap_one(
    pk: str,
    attempts: int,
    task_id: str,
    cutoff: Any,
    again: bool,
    committed: bool,
    queue: tuple[int, str],
) -> bool:
    transactional = _queue_is_transactional()
    # Compare-and-set: two workers reaping at once take a job back once.
    same = Job.objects.filter(
        pk=pk, status=Job.Status.RUNNING, attempts=attempts, heartbeat__lt=cutoff
    )
    with transaction.atomic():
        if again:
            taken = same.update(status=Job.Status.QUEUED, heartbeat=None, worker="")
            if taken and transactional:
                _enqueue(pk, *queue)
        else:
            message = (
                f"The worker running this job stopped (killed or crashed) {attempts} time(s) "
                "before it finished; nothing it did was kept. Start the job again."
                if not committed
                else f"The worker running this job stopped {attempts} time(s): its work was "
                "done and kept (see the list's runs), but its answer could not be written."
            )
            taken = same.update(
                status=Job.Status.FAILED,
                finished=timezone.now(),
                payload=None,
                error={"code": WORKER_LOST, "message": message, "fields": {}},
                error_status=500,
            )
            if taken:
                job_event(FINISHED, pk)
        if taken:
            _task_failed(task_id)
    if taken and again and not transactional:
        _enqueue(pk, *queue)
    if taken:
        logger.warning("Job %s lost its worker; %s.", pk, "queued again" if again else "failed")
    return bool(taken)


def _task_failed(task_id: str) -> None:
    """The dead worker's task row says running for ever otherwise."""
    if not task_id or not _queue_is_transactional():
        return
    DBTaskResult.objects.filter(id=task_id, status=TaskResultStatus.RUNNING).update(
        status=TaskResultStatus.FAILED,
        finished_at=timezone.now(),
        exception_class_path="players.jobs.services.WorkerLost",
        traceback="The worker stopped while running this task.",
    )
