"""The widgets on a club's website, in headless Chromium: a page served from another
origin frames them with one line each (plus the optional embed.js that sizes the frames).
From an origin the club's owner listed they show and grow to their content, on a phone
and on a desktop; from an origin not listed the browser refuses them (frame-ancestors).

The club's website is a real second (and third) HTTP server on this machine: only a
different origin makes the browser apply the policy. Screenshots in
test-artifacts/screenshots/.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import HTTPServer, SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from players.services import club_update
from tests.browser.conftest import SCREENSHOTS
from tests.pages_data import ClubData, build_club

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1366, "height": 900}}
# Each frame starts this short; embed.js makes it as tall as its widget says.
START_HEIGHT = 40


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def websites(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """Two club websites on their own ports (two origins), serving ``tmp_path``."""
    servers = []
    for _ in range(2):
        server = HTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(tmp_path)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    yield tuple(f"http://127.0.0.1:{s.server_address[1]}" for s in servers)  # type: ignore[misc]
    for server in servers:
        server.shutdown()
        server.server_close()


def club_website(folder: Path, site: str, data: ClubData) -> None:
    magnus = data.players["magnus"].pk
    frames = {
        "top": f"{site}/embed/clubs/riverside/lists/standard/?n=5&theme=dark&accent=1a7f37",
        "live": f"{site}/embed/clubs/riverside/lists/standard/live/?n=5",
        "card": f"{site}/embed/clubs/riverside/players/{magnus}/",
    }
    lines = "\n".join(
        f'<iframe id="{name}" src="{src}" title="{name}" '
        f'style="border:0;width:100%;height:{START_HEIGHT}px"></iframe>'
        for name, src in frames.items()
    )
    (folder / "index.html").write_text(
        "<!doctype html><html><head><meta name='viewport' content='width=device-width'>"
        "<title>Riverside Chess Club</title></head><body><h1>Our club</h1>"
        f"{lines}<script src='{site}/static/embed.js' async></script></body></html>"
    )


@pytest.mark.parametrize("size", SIZES)
def test_widgets_on_a_listed_website_show_and_size_themselves(
    browser: Any, live_server: Any, websites: tuple[str, str], tmp_path: Path, size: str
) -> None:
    data = build_club(crowd=6)
    allowed, _ = websites
    club_update(club=data.club, by=data.owner, embed_origins=[allowed])
    club_website(tmp_path, live_server.url, data)
    context = browser.new_context(viewport=SIZES[size])
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        page.goto(f"{allowed}/index.html")
        top = page.frame_locator("#top")
        assert "Magnus Berg" in top.locator("table").inner_text()
        assert "Magnus Berg" in page.frame_locator("#card").locator("h1").inner_text()
        page.frame_locator("#live").locator("main").wait_for()
        # embed.js took each widget's height: taller than the frame's start, nothing cut.
        for name in ("top", "card", "live"):
            page.wait_for_function(
                "([id, start]) => document.getElementById(id).getBoundingClientRect().height"
                " > start",
                arg=[name, START_HEIGHT],
            )
        inside = page.frame_locator("#top").locator("html")
        scroll = inside.evaluate("e => e.scrollHeight - window.innerHeight")
        assert scroll <= 1, f"the top widget is cut by {scroll} px"
        # The theme and accent asked for.
        colour = top.locator("a").first.evaluate("a => getComputedStyle(a).color")
        assert colour == "rgb(26, 127, 55)"
        # On a phone the widget fits the frame's width: nothing scrolls sideways.
        overflow = inside.evaluate("e => e.scrollWidth - e.clientWidth")
        assert overflow <= 0
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"widgets-embedded-{size}.png"), full_page=True)
    finally:
        context.close()


def test_widgets_on_a_website_not_listed_are_refused(
    browser: Any, live_server: Any, websites: tuple[str, str], tmp_path: Path
) -> None:
    data = build_club(crowd=2)
    allowed, other = websites
    club_update(club=data.club, by=data.owner, embed_origins=[allowed])
    club_website(tmp_path, live_server.url, data)
    context = browser.new_context(viewport=SIZES["desktop"])
    context.set_default_timeout(15_000)
    page = context.new_page()
    refused: list[str] = []
    page.on("console", lambda message: refused.append(message.text))
    try:
        page.goto(f"{other}/index.html", wait_until="load")
        page.wait_for_timeout(500)
        frames = [frame for frame in page.frames if frame is not page.main_frame]
        assert len(frames) == 3
        for frame in frames:
            # The browser shows its own error in place of the widget: none of ours loads.
            assert frame.query_selector("body.widget") is None, frame.url
        assert any("frame-ancestors" in text for text in refused), refused
        # Nothing came back to size the frames.
        height = page.evaluate("document.getElementById('top').getBoundingClientRect().height")
        assert height == START_HEIGHT
        # The same widget on the listed site, in the same browser, is shown.
        page.goto(f"{allowed}/index.html")
        assert "Magnus Berg" in page.frame_locator("#top").locator("table").inner_text()
    finally:
        context.close()
