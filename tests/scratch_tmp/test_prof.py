import cProfile, pstats, time, io, os
import pytest
from django.test import Client
from django.core.cache import cache
from tests.benchmarks.test_pages_bench import build
from tournaments.models import Tournament

pytestmark = [pytest.mark.django_db(transaction=True)]


def test_prof(settings):
    settings.PUBLISHED_CACHE_SECONDS = 0
    club, player = build(int(os.environ.get("P", "5000")))
    t = Tournament.objects.filter(club=club).order_by("start_date").first()
    c = Client()
    urls = [
        f"/clubs/{club.slug}/tournaments/{t.pk}/",
        f"/clubs/{club.slug}/tournaments/{t.pk}/?page=20",
        f"/api/v1/clubs/{club.slug}/lists/standard/ratings.csv",
        f"/clubs/{club.slug}/lists/standard/export.csv",
    ]
    for u in urls[:2]:
        cache.clear()
        t0 = time.perf_counter()
        r = c.get(u)
        print(u, "cold", r.status_code, len(r.content), time.perf_counter() - t0)
        for i in range(3):
            t0 = time.perf_counter()
            r = c.get(u)
            print(u, r.status_code, len(r.content), time.perf_counter() - t0)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    c.get(urls[0])
    with CaptureQueriesContext(connection) as q:
        pr = cProfile.Profile()
        pr.enable()
        c.get(urls[0])
        pr.disable()
    for x in q.captured_queries:
        print(x["time"], x["sql"][:150])
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(60)
    print(s.getvalue())
    for u in urls[2:]:
        pr = cProfile.Profile()
        pr.enable()
        c.get(u)
        pr.disable()
        s = io.StringIO()
        pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(15)
        print(s.getvalue())
