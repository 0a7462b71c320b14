"""Every URL pattern the site serves, at a phone's size (390 x 844), over the demo club.

The patterns come from the URL configuration (ratings_site/urls.py's resolvers, walked),
not from a hand-kept list: a page added tomorrow is measured tomorrow. Each pattern's
parameters are filled from the demo's world (its most active player, a frequent opponent,
a tournament, a closed period, an invitation, a password-reset link); a pattern the walk
cannot fill, or cannot reach, fails the test. Pages that answer GET only to POST (the
member's tokens, log out) are reached through the form that posts to them.

Every HTML page, anonymous and signed in, fits 390 px without sideways scrolling, and each
of its tables keeps its caption, its key column (the row headers) and any "Change" column
in view. The player page of the demo's most active player is at most 3,000 px tall, with
chart labels of at least 11 px, months on one line and older periods folded; its
screenshots at 390 and 1,366 px go to test-artifacts/screenshots/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.core.management import call_command
from django.db.models import Count, Q
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from players.emails.services import unsubscribe_token
from players.models import Club, Player, RatingList, RatingPeriod
from players.services.claims import claim_create
from players.services.clubs import club_create
from players.services.invitations import invitation_create
from players.services.tokens import api_token_create
from tests.browser.conftest import SCREENSHOTS
from tournaments.models import Game, Tournament

pytestmark = pytest.mark.django_db(transaction=True)
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}
MAX_PHONE_HEIGHT = 3000
PASSWORD = "phone-walk-Passw0rd"

# What the walk leaves out, by route prefix, and why. Everything else that the URL
# configuration serves is visited (HTML) or fetched (downloads).
NOT_PAGES = {
    "admin/": "Django's admin: its own responsive layout, walked by test_admin_browser.py",
    "api/v1/": "the API answers JSON, not pages (its shapes are tests/api's)",
    "api/schema/": "the OpenAPI document (YAML), not a page",
    "api/(": "the API's last route: the JSON 404 of an address no API view answers",
    "healthz": "the health check answers JSON for the load balancer, not a page",
    "favicon.ico": "a redirect to the site's icon (an image)",
}
# Files, not pages: each is fetched (200 and a body), not measured.
DOWNLOAD = re.compile(r"\.(csv|txt|pgn|trf)$")


@dataclass(frozen=True)
class Route:
    route: str  # the whole route, prefixes joined: "clubs/<slug:club>/players/<int:player_id>/"
    name: str  # "namespace:name", or "" for an unnamed pattern
    params: tuple[str, ...]
    defaults: tuple[tuple[str, object], ...]


def _params(pattern: Any) -> list[str]:
    return list(pattern.regex.groupindex)


def walk(patterns: Any = None, prefix: str = "", namespace: str = "") -> Iterator[Route]:
    """Every URL pattern under the root configuration, with its full route and name."""
    if patterns is None:
        patterns = get_resolver().url_patterns
    for entry in patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from walk(entry.url_patterns, prefix + str(entry.pattern), inner)
        elif isinstance(entry, URLPattern):
            route = prefix + str(entry.pattern)
            params = tuple(re.findall(r"<(?:\w+:)?(\w+)>", route)) or tuple(
                re.findall(r"\(\?P<(\w+)>", route)
            )
            yield Route(
                route,
                f"{namespace}{entry.name}" if entry.name else "",
                params,
                tuple(sorted(entry.default_args.items())),
            )


def excluded(route: Route) -> str | None:
    for prefix, reason in NOT_PAGES.items():
        if route.route.startswith(prefix) or route.route.lstrip("^").startswith(prefix):
            return reason
    return None


@dataclass
class World:
    club: Club
    player: Player
    opponent: Player
    tournament: Tournament
    period: RatingPeriod
    rating_list: RatingList
    username: str
    invitation_secret: str
    reset_uid: str
    reset_token: str
    token_digest: str
    invitation_id: int
    unsubscribe_token: str
    claim_id: int

    def fill(self, route: Route) -> dict[str, object]:
        """The route's parameters from the demo. ``id`` means what the segment before it
        names (``players/<id>``, ``tournaments/<id>``)."""
        by_name: dict[str, object] = {
            "club": self.club.slug,
            "kind": self.rating_list.kind,
            "list": self.rating_list.kind,
            "player_id": self.player.pk,
            "opponent_id": self.opponent.pk,
            "tournament_id": self.tournament.pk,
            "month": self.period.label,
            "secret": self.invitation_secret,
            "uidb64": self.reset_uid,
            "token": self.reset_token,
            "digest": self.token_digest,
            "invitation_id": self.invitation_id,
            "claim_id": self.claim_id,
        }
        # ``token`` is also the signed token of a rating email's unsubscribe link.
        by_route: dict[str, dict[str, object]] = {
            "unsubscribe": {"token": self.unsubscribe_token},
        }
        by_name = {**by_name, **by_route.get(route.name, {})}
        by_collection: dict[str, object] = {
            "players": self.player.pk,
            "tournaments": self.tournament.pk,
        }
        values: dict[str, object] = {}
        for param in route.params:
            if param in by_name:
                values[param] = by_name[param]
                continue
            before = re.search(rf"([\w-]+)/<(?:\w+:)?{param}>", route.route)
            if before is None or before.group(1) not in by_collection:
                raise LookupError(f"{route.route}: no value for <{param}>")
            values[param] = by_collection[before.group(1)]
        return values


@pytest.fixture
def world() -> World:
    call_command("load_demo", verbosity=0)
    club = Club.objects.get(slug="riverside")
    games = Count("games_as_white", distinct=True) + Count("games_as_black", distinct=True)
    player = Player.objects.filter(club=club).annotate(n=games).order_by("-n", "pk").first()
    assert player is not None
    opponents = (
        Player.objects.filter(club=club)
        .exclude(pk=player.pk)
        .annotate(
            met=Count("games_as_white", filter=Q(games_as_white__black=player), distinct=True)
            + Count("games_as_black", filter=Q(games_as_black__white=player), distinct=True)
        )
        .order_by("-met", "pk")
    )
    opponent = opponents.first()
    assert opponent is not None
    game = Game.objects.filter(white=player, tournament__isnull=False).order_by("-date").first()
    assert game is not None
    assert game.tournament is not None
    rating_list = RatingList.objects.get(club=club, kind="standard")
    period = RatingPeriod.objects.filter(
        rating_list=rating_list, status=RatingPeriod.Status.CLOSED
    ).latest("month")
    user = get_user_model()._default_manager.get(username="officer")
    user.set_password(PASSWORD)
    user.save()
    owner = get_user_model()._default_manager.get(username="admin")
    _, secret = invitation_create(
        club=club, by=owner, role="viewer", email="new.member@example.org", accept_url=str
    )
    token, _ = api_token_create(user=user, name="club website")
    # An invitation to the officer's account: the member home's button to join posts it.
    harbour = club_create(name="Harbour Chess", slug="harbour", by=owner)
    invited, _ = invitation_create(
        club=harbour, by=owner, role="viewer", username="officer", accept_url=str
    )
    # The arbiter's claim of the opponent's record: the officer's home offers to decide it
    # (the walk approves it); the player's page offers the officer "this is me".
    arbiter = get_user_model()._default_manager.get(username="arbiter")
    claim = claim_create(club=club, player_id=opponent.pk, by=arbiter)
    return World(
        club=club,
        player=player,
        opponent=opponent,
        tournament=game.tournament,
        period=period,
        rating_list=rating_list,
        username="officer",
        invitation_secret=secret,
        reset_uid=urlsafe_base64_encode(force_bytes(user.pk)),
        reset_token=default_token_generator.make_token(user),
        token_digest=token.digest,
        invitation_id=invited.pk,
        unsubscribe_token=unsubscribe_token(user.pk),
        claim_id=claim.pk,
    )


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True
    )
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


# What "fits" means, measured in the page: the document's width, and for every table in
# view its caption, first row header and "Change" header inside the viewport.
FIT_REPORT = """(limit) => {
  const out = {width: document.documentElement.scrollWidth, problems: []};
  const shown = (el) => el.getClientRects().length > 0 && !el.closest('details:not([open])')
    && !el.classList.contains('vh');
  const outside = (el) => { const r = el.getBoundingClientRect(); return r.left < -1 || r.right > limit + 1; };
  for (const table of document.querySelectorAll('table')) {
    if (!shown(table)) continue;
    const name = table.id || table.className || 'table';
    const caption = table.querySelector(':scope > caption');
    if (caption && shown(caption) && outside(caption)) out.problems.push(name + ': caption cut');
    const key = table.querySelector(':scope > tbody > tr > th[scope=row]');
    if (key && shown(key) && outside(key)) out.problems.push(name + ': key column off-screen');
    for (const th of table.querySelectorAll(':scope > thead th')) {
      if (th.textContent.trim() === 'Change' && shown(th) && outside(th))
        out.problems.push(name + ': "Change" off-screen');
    }
  }
  return out;
}"""


def check_fits(page: Any, where: str) -> None:
    report = page.evaluate(FIT_REPORT, PHONE["width"])
    assert report["width"] <= PHONE["width"], f"{where} is {report['width']} px wide"
    assert not report["problems"], f"{where}: {report['problems']}"


def sign_in(page: Any, base: str, world: World) -> None:
    page.goto(f"{base}{reverse('login')}")
    page.fill("input[name=username]", world.username)
    page.fill("input[name=password]", PASSWORD)
    page.locator("main form button[type=submit], main form input[type=submit]").first.click()
    page.wait_for_load_state()
    assert "/login/" not in page.url, "the walk could not sign in"


def forms_on(page: Any) -> dict[str, str]:
    """The route each POST form of the page reaches -> the form's action."""
    found = {}
    for action in page.eval_on_selector_all(
        "form[method=post i]", "forms => forms.map(f => f.getAttribute('action') || '')"
    ):
        path = urlparse(action).path
        if not path:
            continue
        match = resolve(path)
        found[match.route] = action
    return found


def submit(page: Any, action: str) -> None:
    """Fill a form's empty required text fields and send it, the way a member would."""
    form = page.locator(f'form[action="{action}"]').first
    for field in form.locator("input[required]:not([type=hidden])").all():
        if not field.input_value():
            field.fill("phone walk")
    form.locator("button[type=submit], input[type=submit]").first.click()
    page.wait_for_load_state()


def visit_all(page: Any, base: str, world: World, *, signed_in: bool) -> list[str]:
    """Every pattern once (GET), then the POST-only ones through their forms (signed in:
    they are a member's; anonymous, their GET's 405 is all there is); returns the routes
    visited. Fails on a pattern it cannot fill or reach."""
    label = "signed in" if signed_in else "anonymous"
    visited: list[str] = []
    post_only: list[Route] = []
    forms: dict[str, tuple[str, str]] = {}  # route -> (page it is on, action)
    routes = [r for r in walk() if excluded(r) is None]
    assert routes, "the walk found no patterns"
    for route in routes:
        assert route.name, f"{route.route} has no name: the walk cannot reverse it"
        kwargs = world.fill(route)
        url = reverse(route.name, kwargs=kwargs or None)
        if DOWNLOAD.search(route.route):
            response = page.request.get(f"{base}{url}")
            assert response.status == 200, f"{label} {url}: {response.status}"
            assert response.body(), f"{label} {url} is empty"
            visited.append(route.route)
            continue
        # Chromium shows nothing for an empty 405: ask first, then open the page.
        if page.request.get(f"{base}{url}", max_redirects=0).status == 405:
            post_only.append(route)
            continue
        response = page.goto(f"{base}{url}")
        assert response is not None
        assert response.status < 400, f"{label} {url}: {response.status}"
        check_fits(page, f"{label} {url}")
        visited.append(route.route)
        for reached, action in forms_on(page).items():
            forms.setdefault(reached, (page.url, action))
    if not signed_in:
        return visited + [route.route for route in post_only]
    # Log out ends the session the others need: last.
    post_only.sort(key=lambda r: r.name == "logout")
    for route in post_only:
        # A form may appear only after another was sent (a token's revoke button).
        if route.route not in forms:
            page.goto(f"{base}{reverse('account-home')}")
            for reached, action in forms_on(page).items():
                forms.setdefault(reached, (page.url, action))
        assert route.route in forms, f"{label}: no page has a form that posts to {route.route}"
        where, action = forms[route.route]
        page.goto(where)
        submit(page, action)
        check_fits(page, f"{label} {route.route} (after sending its form: {page.url})")
        visited.append(route.route)
        for reached, found in forms_on(page).items():
            forms.setdefault(reached, (page.url, found))
    return visited


def test_every_url_pattern_fits_a_phone(phone: Any, live_server: Any, world: World) -> None:
    all_routes = list(walk())
    anonymous = visit_all(phone, live_server.url, world, signed_in=False)
    sign_in(phone, live_server.url, world)
    signed_in = visit_all(phone, live_server.url, world, signed_in=True)
    expected = {r.route for r in all_routes if excluded(r) is None}
    assert set(anonymous) == expected
    assert set(signed_in) == expected
    # The member home with a token on it (the walk created one) was measured above; the
    # Glicko-2 calculator too. Both by name, so a rename cannot quietly drop them.
    assert {"accounts/tokens/", "calculator/glicko2/"} <= set(signed_in)
    # Only what NOT_PAGES names was left out.
    left_out = {r.route for r in all_routes} - expected
    assert all(excluded(r) for r in all_routes if r.route in left_out)


def _chart_label_sizes(page: Any) -> list[float]:
    return page.eval_on_selector_all(
        "svg.history-chart",
        """svgs => svgs.filter(s => s.getClientRects().length).flatMap(s => {
          const scale = s.getBoundingClientRect().width / s.viewBox.baseVal.width;
          return [...s.querySelectorAll('.grid text, .xlabels text')].map(
            t => parseFloat(getComputedStyle(t).fontSize) * scale);
        })""",
    )


def test_player_page_on_a_phone_and_a_desktop(
    browser: Any, phone: Any, live_server: Any, world: World
) -> None:
    url = f"{live_server.url}{reverse('player', args=[world.club.slug, world.player.pk])}"
    phone.goto(url)
    height = phone.evaluate("document.documentElement.scrollHeight")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    phone.screenshot(path=str(SCREENSHOTS / "player-phone-390.png"), full_page=True)
    print(f"player page of {world.player.name} at 390 px: {height} px tall")
    assert height <= MAX_PHONE_HEIGHT, f"the player page is {height} px tall at 390 px"
    check_fits(phone, "player page")
    # Current ratings first.
    assert phone.locator("#ratings-heading").is_visible()
    # The chart's labels are readable: at least 11 px as drawn.
    sizes = _chart_label_sizes(phone)
    assert sizes, "no chart is shown"
    assert min(sizes) >= 11, f"chart labels of {min(sizes):.1f} px"
    # Months are never broken across lines ("2026-/11").
    months = phone.locator("table.history tbody th[scope=row] a")
    assert months.count() > 0
    for month in months.all():
        if month.is_visible():
            assert month.evaluate("a => a.getClientRects().length") == 1, month.inner_text()
    # The latest periods in view, older ones folded and opened without JavaScript.
    older = phone.locator("details.older-periods").first
    assert older.get_attribute("open") is None
    assert not older.locator("table.history").is_visible()
    older.locator(":scope > summary").click()
    assert older.locator("table.history").is_visible()

    context = browser.new_context(viewport=DESKTOP)
    desktop = context.new_page()
    desktop.goto(url)
    wide_height = desktop.evaluate("document.documentElement.scrollHeight")
    desktop.screenshot(path=str(SCREENSHOTS / "player-desktop-1366.png"), full_page=True)
    print(f"player page of {world.player.name} at 1366 px: {wide_height} px tall")
    wide_sizes = _chart_label_sizes(desktop)
    assert wide_sizes
    assert min(wide_sizes) >= 11
    context.close()
    (SCREENSHOTS / "player-page-heights.txt").write_text(
        f"{world.player.name}: 390 px wide -> {height} px tall; "
        f"1366 px wide -> {wide_height} px tall\n"
    )
