"""Load: gunicorn (4 sync workers) on PostgreSQL serving the pages benchmark's club,
driven from a second process at many concurrent connections.

``make bench PYTEST_ARGS="-k load"`` with ``DATABASE_URL`` on PostgreSQL. Full size: 5,000
players, 32 connections, 20 s per endpoint; ``BENCH_SCALE=small``: 500 players, 8
connections, 5 s. ``LOAD_CONNECTIONS``, ``LOAD_SECONDS`` and ``LOAD_WORKERS`` override.

Two runs of every endpoint, each against its own gunicorn: ``cache`` ``on`` (the cache of
public views as configured) and ``off`` (``PUBLISHED_CACHE_SECONDS=0``: every answer
computed, the first visit after a close). Each endpoint is asked anonymously, by a
signed-in member (``member_*``: their session cookie) or with an API token (``token_*``).
One JSON line per endpoint and run: ``{"name": "load_list", "cache": "on", "rps", "p50_ms",
"p99_ms", "errors", "requests", ...}``, with ``rps_ratio`` = rps / the rps of
``load_not_found`` (a 404: middleware and URL resolution only) in the same run. Errors are
asserted to be zero (a failed request is a bug, not a figure); timings are not asserted.

``test_load_through_a_close``: a second, federation-sized club (``LOAD_CLOSE_PLAYERS``,
100,000, with five games a player a month; small: 5,000) made public with one month
published; its pages, the 404 and a member's page are driven, cache on, while its next
month is closed the way a rating officer closes it: the API call (``POST .../close/?wait=0``
with the officer's token, to the same gunicorn) queues the job and a real ``manage.py
worker`` process, started with the server and idle until then, runs it. One line per
endpoint and window: ``before`` (the seconds before the close, after a warm-up), ``during`` (from the
API call until the job's end) and ``after`` (the 10 s after it), with ``p99_ratio`` = the
window's p99 / the ``before`` window's p99 of the same endpoint, and ``rps_ratio`` to the
404 of the same window; ``close_seconds``, the job's ``queued_seconds`` and
``run_seconds``, ``committed_seconds`` (when the close's transaction ended: the club's
cached pages are retired there, and rebuilt by the next requests), the worker's
``worker_nice`` and ``worker_cpu_seconds`` in the close, the CPU seconds of the close's
database backend and of all the test database's backends (``close_backend_cpu_seconds``,
``database_cpu_seconds``), and ``primed_seconds`` (each target asked once, before the load:
the cold pages). ``LOAD_SAMPLES=FILE`` keeps every request (target, start, seconds) there,
to see when the slow ones came. The worker runs at ``WORKER_NICE`` from the environment,
else the setting's default (10): ``WORKER_NICE=0`` for the web's priority.

PostgreSQL only: gunicorn's processes must open the test database (SQLite's is in memory).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client

from players.models import Club, Job, Player, RatingPeriod, RatingRun
from players.services import api_token_create, membership_set
from tests.benchmarks.load_driver import figures
from tests.benchmarks.report import emit
from tests.benchmarks.test_pages_bench import YEAR, build
from tests.conftest import postgres_server_url
from tournaments.models import Tournament
from tournaments.services import period_close

pytestmark = [pytest.mark.benchmark, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SMALL = os.environ.get("BENCH_SCALE") == "small"
PLAYERS = 500 if SMALL else 5000
CONNECTIONS = int(os.environ.get("LOAD_CONNECTIONS", "8" if SMALL else "32"))
SECONDS = float(os.environ.get("LOAD_SECONDS", "5" if SMALL else "20"))
WORKERS = int(os.environ.get("LOAD_WORKERS", "4"))
CLOSE_PLAYERS = int(os.environ.get("LOAD_CLOSE_PLAYERS", "5000" if SMALL else "100000"))
# The close run's windows: a warm-up (caches filled), the "before" window, and the window
# after the close (a minute at full size: the pages a close retires are rebuilt in it).
WARM_UP, BEFORE = 3.0, 8.0
AFTER = float(os.environ.get("LOAD_AFTER_SECONDS", "10" if SMALL else "60"))
# The slices of the after window whose p99 is each held against the before window's.
SLICE = 10.0
ROOT = Path(__file__).resolve().parents[2]
# What a CSV client sends (the driver's default Accept names HTML and JSON only).
ANY = {"Accept": "*/*"}
MANAGE = (sys.executable, "manage.py")
GUNICORN = (sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _database_url() -> str:
    """The test database's URL, for the processes a benchmark starts (the queue's too)."""
    return f"{postgres_server_url()}/{connection.settings_dict['NAME']}"


def _env(**extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "DJANGO_SETTINGS_MODULE": "ratings_site.settings.base",
        "DEBUG": "0",
        **extra,
    }


@contextmanager
def _gunicorn(**extra: str) -> Iterator[str]:
    """A gunicorn serving the test database (``extra``: more environment); yields its base
    URL once /healthz answers."""
    port = _free_port()
    env = _env(GUNICORN_BIND=f"127.0.0.1:{port}", GUNICORN_WORKERS=str(WORKERS), **extra)
    server = subprocess.Popen(
        [*GUNICORN, "--access-logfile", "/dev/null", "ratings_site.wsgi"],
        cwd=ROOT,
        env=env,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{base}/healthz", timeout=2)  # noqa: S310
                break
            except OSError:
                time.sleep(0.2)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


def start_worker(log: Path, **extra: str) -> subprocess.Popen[bytes]:
    """A ``manage.py worker`` on the test database and the database queue (``extra``: more
    environment), its output into ``log``."""
    env = _env(**extra)
    env.pop("TASKS_BACKEND", None)
    return subprocess.Popen(
        [*MANAGE, "worker", "--no-reload", "--no-startup-delay"],
        cwd=ROOT,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )


def _stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command's name (the first is field 3)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid`` (Linux /proc)."""
    fields = _stat(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def nice_of(pid: int) -> int:
    """The niceness of process ``pid`` (its main thread's)."""
    return int(_stat(pid)[16])


def _backends_cpu() -> dict[int, float]:
    """CPU seconds of each PostgreSQL backend on the test database but this process's own
    (the database server on this machine: its processes' /proc)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        )
        pids = [row[0] for row in cursor.fetchall()]
    found = {}
    for pid in pids:
        try:
            found[pid] = cpu_seconds(pid)
        except OSError:
            continue  # ended, or on another machine
    return found


def _spec(base: str, targets: dict[str, tuple[str, int, dict[str, str]]]) -> list[dict[str, Any]]:
    return [
        {"name": name, "url": base + path, "expect": status, "headers": headers}
        for name, (path, status, headers) in targets.items()
    ]


def driver_until_stopped(spec: dict[str, Any]) -> subprocess.Popen[str]:
    """The load driver started on ``spec`` with ``seconds`` 0: it runs until
    ``communicate("stop\\n")``, which returns its JSON line."""
    return subprocess.Popen(
        [sys.executable, "-m", "tests.benchmarks.load_driver", json.dumps(spec)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def _drive(targets: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    spec = {"targets": targets, "connections": CONNECTIONS, "seconds": seconds}
    done = subprocess.run(
        [sys.executable, "-m", "tests.benchmarks.load_driver", json.dumps(spec)],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _load_info() -> dict[str, Any]:
    """What else the shared machine was doing: its load averages when the line was taken."""
    return {"loadavg": [round(x, 2) for x in os.getloadavg()]}


def _member(club: Club, player: Player) -> tuple[dict[str, str], dict[str, str]]:
    """A viewer of the club linked to ``player``: the headers of their signed-in pages
    (the session cookie) and of their API token."""
    users = get_user_model().objects
    owner = users.get(username="bench-owner")
    member = users.create_user("bench-member", password="bench-member-password-1")
    membership_set(club=club, user=member, role="viewer", by=owner)
    Player.objects.filter(pk=player.pk).update(user=member)
    browser = Client()
    browser.force_login(member)
    _, raw = api_token_create(user=member, name="load benchmark")
    return (
        {"Cookie": f"sessionid={browser.cookies['sessionid'].value}"},
        {"Authorization": f"Token {raw}", "Accept": "application/json"},
    )


def _targets(
    club: Club, player: Player, session: dict[str, str], token: dict[str, str]
) -> dict[str, tuple[str, int, dict[str, str]]]:
    base = f"/clubs/{club.slug}"
    api = f"/api/v1/clubs/{club.slug}"
    tournament = Tournament.objects.filter(club=club).order_by("start_date").first()
    assert tournament is not None
    return {
        "load_not_found": ("/load-baseline-not-found/", 404, {}),
        "load_club_home": (f"{base}/", 200, {}),
        "load_list": (f"{base}/lists/standard/", 200, {}),
        "load_player": (f"{base}/players/{player.pk}/", 200, {}),
        "load_period_report": (f"{base}/lists/standard/periods/{YEAR}-06/", 200, {}),
        "load_tournament": (f"{base}/tournaments/{tournament.pk}/", 200, {}),
        "load_ratings_api": (f"{api}/lists/standard/ratings/", 200, {}),
        "load_ratings_csv": (f"{api}/lists/standard/ratings.csv", 200, ANY),
        "load_ratings_format_csv": (f"{api}/lists/standard/ratings/?format=csv", 200, ANY),
        "load_list_export_csv": (f"{base}/lists/standard/export.csv", 200, ANY),
        "load_players_api": (f"{api}/players/", 200, {}),
        "load_member_list": (f"{base}/lists/standard/", 200, session),
        "load_member_player": (f"{base}/players/{player.pk}/", 200, session),
        "load_token_ratings_api": (f"{api}/lists/standard/ratings/", 200, token),
        "load_token_players_api": (f"{api}/players/", 200, token),
    }


def _signed_in(base: str, path: str, headers: dict[str, str]) -> bool:
    """Whether gunicorn took the session cookie: the page links the member's account."""
    request = urllib.request.Request(base + path, headers=headers)  # noqa: S310
    with urllib.request.urlopen(request, timeout=60) as answer:  # noqa: S310
        return b'href="/accounts/"' in answer.read()


@pytest.mark.usefixtures("database_cache_table")
def test_load_under_gunicorn() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: gunicorn's processes must open the test database")
    club, player = build(PLAYERS)
    session, token = _member(club, player)
    targets = _targets(club, player, session, token)
    failed: list[tuple[str, str, object]] = []
    for cache, extra in (("on", {}), ("off", {"PUBLISHED_CACHE_SECONDS": "0"})):
        with _gunicorn(**extra) as base:
            assert _signed_in(base, targets["load_member_player"][0], session)
            baseline_rps = 0.0
            for name, target in targets.items():
                figures_ = _drive(_spec(base, {name: target}), SECONDS)["targets"][name]
                rps = float(figures_["rps"])
                if name == "load_not_found":
                    baseline_rps = rps
                emit(
                    {
                        "name": name,
                        "cache": cache,
                        "players": PLAYERS,
                        "connections": CONNECTIONS,
                        "seconds": SECONDS,
                        "gunicorn_workers": WORKERS,
                        **figures_,
                        "rps_ratio": round(rps / baseline_rps, 3) if baseline_rps else None,
                        **_load_info(),
                    }
                )
                if figures_["errors"]:
                    failed.append((name, cache, figures_["statuses"]))
    # After every line is printed: one endpoint's errors (a timeout) do not hide the rest.
    assert not failed, failed


def _federation(players: int) -> tuple[Club, Player, RatingPeriod, Any]:
    """A public club of ``players`` players, five games each a month: September published,
    October open (the close the run watches); and its owner."""
    from ratings_site.workshop.bench_data import generate

    rating_list, user = generate(
        players=players, games=players * 5 // 2, seed=7, quiet=True, months=2
    )
    club = rating_list.club
    Club.objects.filter(pk=club.pk).update(public=True)
    first, second = RatingPeriod.objects.filter(rating_list=rating_list).order_by("month")
    with connection.cursor() as cursor:
        # As after any bulk load (autovacuum would have): without statistics the close's
        # UPDATE of the players' ratings takes a plan that runs for many minutes.
        cursor.execute("VACUUM ANALYZE")
    period_close(period=first, by=user)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    player = Player.objects.filter(club=club).order_by("pk").first()
    assert player is not None
    return club, player, second, user


def _windows(result: dict[str, Any], close: tuple[float, float], began: float) -> dict[str, Any]:
    """The samples cut into before / during / after windows, per target."""
    start, end = close
    bounds = {
        "before": (began + WARM_UP, start),
        "during": (start, end),
        "after": (end, end + AFTER),
    }
    names = list(result["targets"])
    out: dict[str, Any] = {}
    for window, (low, high) in bounds.items():
        for index, name in enumerate(names):
            mine = [s for s in result["samples"] if s[0] == index and low <= s[1] < high]
            line = figures([s[2] for s in mine], high - low)
            line["max_ms"] = round(max((s[2] for s in mine), default=0.0) * 1000, 1)
            line["errors"] = sum(1 for s in mine if not s[3])
            out.setdefault(window, {})[name] = line
    return out


def _dark_and_slices(
    result: dict[str, Any], names: list[str], close: tuple[float, float], began: float
) -> dict[str, Any]:
    """The seconds from the warm-up's end to the after window's end in which no request
    got its answer (by when each ended), and per target the after window's slices of
    ``SLICE`` seconds, each slice's p99 over the before window's."""
    start, end = close
    low, high = began + WARM_UP, end + AFTER
    answered = {int(s[1] + s[2] - low) for s in result["samples"] if s[3]}
    dark = [second for second in range(int(high - low)) if second not in answered]
    slices: dict[str, list[float | None]] = {}
    for index, name in enumerate(names):
        mine = [s for s in result["samples"] if s[0] == index]
        before = figures([s[2] for s in mine if low <= s[1] < start], start - low)["p99_ms"]
        ratios: list[float | None] = []
        edge = end
        while edge < high - 0.5:
            inside = [s[2] for s in mine if edge <= s[1] < edge + SLICE]
            p99 = figures(inside, SLICE)["p99_ms"] if inside else None
            ratios.append(round(p99 / before, 2) if p99 is not None and before else None)
            edge += SLICE
        slices[name] = ratios
    return {"dark_seconds": dark, "p99_ratio_by_slice": slices}


def _post(url: str, headers: dict[str, str]) -> tuple[int, dict[str, Any], str]:
    """POST ``url``: its status, JSON body and Location header (an error status too)."""
    request = urllib.request.Request(url, data=b"", method="POST", headers=headers)  # noqa: S310
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:  # noqa: S310
            return answer.status, json.loads(answer.read()), answer.headers.get("Location", "")
    except urllib.error.HTTPError as error:
        return error.code, {"error": error.read().decode(errors="replace")}, ""


def _prime(base: str, targets: dict[str, tuple[str, int, dict[str, str]]]) -> float:
    """Each target asked once, one after another, before the load starts: the cached pages
    stored (a federation's first list page is computed once, for a long time under load,
    while the load's connections would all queue behind it). Returns the seconds taken."""
    clock = time.perf_counter()
    for path, status, headers in targets.values():
        request = urllib.request.Request(base + path, headers={**ANY, **headers})  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=600) as answer:  # noqa: S310
                answer.read()
                got = answer.status
        except urllib.error.HTTPError as error:
            got = error.code
        assert got == status, (path, got)
    return time.perf_counter() - clock


def _close_through_the_queue(
    base: str, federation: Club, period: RatingPeriod, token: dict[str, str]
) -> Job:
    """The officer's API call that queues the close (``?wait=0``: answered at once); waits
    for the worker to finish the job (read from the database: the test process's look
    adds no request to the measured load). Returns the finished job."""
    url = (
        f"{base}/api/v1/clubs/{federation.slug}/lists/standard/periods/{period.label}/close/?wait=0"
    )
    status, body, _ = _post(url, token)
    assert status == 202, (status, body)
    deadline = time.monotonic() + 1800
    while time.monotonic() < deadline:
        job = Job.objects.get(pk=body["id"])
        if job.status in Job.FINISHED:
            assert job.status == Job.Status.SUCCEEDED, job.error
            return job
        time.sleep(0.05)
    raise AssertionError("the close did not end within 30 minutes")


@pytest.mark.usefixtures("database_cache_table")
def test_load_through_a_close(tmp_path: Path) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: gunicorn's processes must open the test database")
    club, player = build(PLAYERS // 10)
    session, _ = _member(club, player)
    federation, someone, period, owner = _federation(CLOSE_PLAYERS)
    _, raw = api_token_create(user=owner, name="load benchmark: the close")
    officer = {"Authorization": f"Token {raw}", "Accept": "application/json"}
    fed = f"/clubs/{federation.slug}"
    targets = {
        "load_not_found": ("/load-baseline-not-found/", 404, {}),
        "load_club_home": (f"{fed}/", 200, {}),
        "load_list": (f"{fed}/lists/standard/", 200, {}),
        "load_player": (f"{fed}/players/{someone.pk}/", 200, {}),
        "load_ratings_api": (f"/api/v1/clubs/{federation.slug}/lists/standard/ratings/", 200, {}),
        "load_member_list": (f"/clubs/{club.slug}/lists/standard/", 200, session),
        "load_member_player": (f"/clubs/{club.slug}/players/{player.pk}/", 200, session),
    }
    log = tmp_path / "worker.log"
    worker = start_worker(log)
    try:
        with _gunicorn() as base:
            # Started and waiting: it has looked at the queue (its first reap) once.
            for _ in range(600):
                if log.stat().st_size > 0 or worker.poll() is not None:
                    break
                time.sleep(0.1)
            assert worker.poll() is None, log.read_text()
            primed = _prime(base, targets)
            spec = {
                "targets": _spec(base, targets),
                "connections": CONNECTIONS,
                "seconds": 0,
                "samples": True,
            }
            began = time.time()
            driver = driver_until_stopped(spec)
            time.sleep(WARM_UP + BEFORE)
            worker_cpu, database_cpu = cpu_seconds(worker.pid), _backends_cpu()
            start = time.time()
            job = _close_through_the_queue(base, federation, period, officer)
            worker_cpu = cpu_seconds(worker.pid) - worker_cpu
            spent = {pid: cpu - database_cpu.get(pid, 0.0) for pid, cpu in _backends_cpu().items()}
            assert job.started is not None
            assert job.finished is not None
            end = job.finished.timestamp()
            time.sleep(max(0.0, end + AFTER + 0.5 - time.time()))
            out, _ = driver.communicate("stop\n", timeout=120)
            nice = nice_of(worker.pid)
    finally:
        worker.terminate()
        worker.wait(timeout=60)
    result = json.loads(out)
    run = RatingRun.objects.get(job=job)
    assert run.finished is not None
    if os.environ.get("LOAD_SAMPLES"):
        # Every request, to look at when the slow ones came: [target, start, seconds, ok].
        Path(os.environ["LOAD_SAMPLES"]).write_text(
            json.dumps({**result, "names": list(targets), "close": [start, end]})
        )
    windows = _windows(result, (start, end), began)
    for window, lines in windows.items():
        baseline = lines["load_not_found"]["rps"] or 0
        for name, line in lines.items():
            before = windows["before"][name]["p99_ms"]
            emit(
                {
                    "name": name,
                    "run": "through_a_close",
                    "window": window,
                    "close_players": CLOSE_PLAYERS,
                    "close_seconds": round(end - start, 2),
                    "queued_seconds": round(job.started.timestamp() - start, 3),
                    # When the close's transaction ended (its run's end, just before the
                    # commit), from the call: the club's cached pages retired there.
                    "committed_seconds": round(run.finished.timestamp() - start, 2),
                    "run_seconds": round((job.finished - job.started).total_seconds(), 2),
                    "worker_nice": nice,
                    "worker_cpu_seconds": round(worker_cpu, 2),
                    # The database's side: its busiest backend in the close (the worker's),
                    # and all of the test database's backends (the pages' too).
                    "close_backend_cpu_seconds": round(max(spent.values(), default=0.0), 2),
                    "database_cpu_seconds": round(sum(spent.values()), 2),
                    "primed_seconds": round(primed, 2),
                    "connections": CONNECTIONS,
                    "gunicorn_workers": WORKERS,
                    **line,
                    "rps_ratio": round(line["rps"] / baseline, 3) if baseline else None,
                    "p99_ratio": round(line["p99_ms"] / before, 2) if before else None,
                    **_load_info(),
                }
            )
    after = _dark_and_slices(result, list(targets), (start, end), began)
    emit(
        {
            "name": "through_a_close_after",
            "close_players": CLOSE_PLAYERS,
            "after_seconds": AFTER,
            "slice_seconds": SLICE,
            **after,
            # The bar (issue 36): no dark second, the player page's p99 within 3x.
            "player_p99_ratio_max": max(
                (r for r in after["p99_ratio_by_slice"]["load_player"] if r is not None),
                default=None,
            ),
            **_load_info(),
        }
    )
    for name, line in result["targets"].items():
        assert line["errors"] == 0, (name, line)
