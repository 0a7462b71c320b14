"""Development and test settings: ``base`` and the workshop (the demo loader and the
benchmark commands, ratings_site/workshop), which production's settings do not load.

``manage.py`` and the test suite use these by default; a deployment names
``ratings_site.settings.production``.
"""

from __future__ import annotations

from ratings_site.settings.base import *  # noqa: F403
from ratings_site.settings.base import INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "ratings_site.workshop"]
