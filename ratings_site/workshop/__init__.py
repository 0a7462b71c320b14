"""The workshop: what developers use and production never loads.

The demo loader (``load_demo``, which ``make run`` calls) and the benchmark commands
(``bench_close``, ``bench_replay``) with the data they generate and PostgreSQL's floor they
are measured against. The app is in INSTALLED_APPS of the development and test settings
(``ratings_site/settings/development.py``) only: under ``ratings_site.settings.production``
its commands do not exist. It sits on the top floor because it drives both apps' services.
"""
