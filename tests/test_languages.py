"""The pages in English and German: the browser's Accept-Language picks the language,
every visible text is translated, figures and dates are written the language's way, and
machine outputs (the API, the exports) stay as they are whatever the browser asks for.

Also the German catalog itself: complete, no fuzzy entries, and the committed .mo file is
the compiled .po (a fresh machine has no msgfmt to make it)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import polib
import pytest
from django.conf import settings
from django.test import Client

from players.rating.classes import CLASSES
from players.rating.differences import NOTE_FAST_GAP, NOTE_FORFEIT, NOTE_UNRATED_OPPONENT
from players.rating.types import KReason
from ratings_site.pages.engine_text import FIXED, engine_text
from tests.conftest import built_once_per_module
from tests.pages_data import ClubData, build_club

pytestmark = pytest.mark.django_db

GERMAN = {"HTTP_ACCEPT_LANGUAGE": "de-DE,de;q=0.9,en;q=0.5"}
ENGLISH = {"HTTP_ACCEPT_LANGUAGE": "en-GB,en;q=0.9"}
CATALOG = Path(settings.BASE_DIR) / "locale" / "de" / "LC_MESSAGES" / "django.po"

# Words that read the same in both languages (names of systems, formats, tie-breaks and
# abbreviations every German club member uses too). Anything else a page shows in the
# same words in English and German was not translated.
SAME_IN_BOTH = {
    "elo",
    "fide",
    "fide-id",
    "buchholz",
    "sonneborn-berger",
    "trf",
    "pgn",
    "csv",
    "txt",
    "api",
    "token",
    "tokens",
    "k",
    "rd",
    "r",
    "p",
    "dp",
    "ra",
    "bh",
    "glicko-2",
    "linear",
    "plus",
    "in",
    "c",
    "standard",
    "blitz",
    "name",
    "status",
    "gm",
    "im",
    "fm",
    "cm",
    "nor",
    "ger",
    "utc",
    "x",
    "v",
    "δ",
    "tau",
    "w",
    "b",
    "–",
    "−",
    "+",
    "·",
    "\u203a",  # the pager's arrows
    "\u2039",
    "±",
    "→",
    "▲",
    "▼",
    "*",
    "#",
    "=",
    "%",
    "½",
    # The statistics' words that German spells the same: a month, and the middle rating.
    "april",
    "median",
}


# Built once for the module (a deepcopy for each test, its changes rolled back).
_built_for_module, data = built_once_per_module("data", build_club)


def pages(data: ClubData) -> dict[str, str]:
    """Every public page a visitor reads, by a short name."""
    club = data.club.slug
    nina, omar = data.players["nina"], data.players["omar"]
    assert data.tournament is not None
    return {
        "home": "/",
        "clubs": "/clubs/",
        "club": f"/clubs/{club}/",
        "list": f"/clubs/{club}/lists/standard/",
        "player": f"/clubs/{club}/players/{omar.pk}/",
        "new player": f"/clubs/{club}/players/{nina.pk}/",
        "head-to-head": f"/clubs/{club}/players/{nina.pk}/vs/{omar.pk}/",
        "tournaments": f"/clubs/{club}/tournaments/",
        "tournament": f"/clubs/{club}/tournaments/{data.tournament.pk}/",
        "period report": f"/clubs/{club}/lists/standard/periods/2026-02/",
        "statistics": f"/clubs/{club}/lists/standard/statistics/",
        "calculator": "/calculator/",
        "glicko-2": "/calculator/glicko2/",
        "search": "/players/?q=Novak",
        "login": "/accounts/login/",
        "password reset": "/accounts/password/reset/",
        "not found": "/no-such-page/",
    }


class _Text(HTMLParser):
    """The text a visitor reads: text nodes outside script and style, plus the
    attributes a screen reader says or a pointer shows (title, aria-label, placeholder,
    alt) and the captions of buttons (value)."""

    SPOKEN = ("title", "aria-label", "placeholder", "alt")

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "code", "template"):
            self._skip += 1
        for name, value in attrs:
            if value and (name in self.SPOKEN or (name == "value" and tag == "input")):
                if name == "value" and dict(attrs).get("type") not in ("submit", "button"):
                    continue
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "code", "template") and self._skip:
            self._skip -= 1

    def handle_data(self, text: str) -> None:
        if not self._skip:
            self.parts.append(text)


def visible_words(html: str, names: set[str]) -> list[str]:
    """The page's words, without figures, dates, names and the shared words above."""
    parser = _Text()
    parser.feed(html)
    text = " ".join(parser.parts)
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    words = []
    for word in re.split(r"[\s,;:.()“”„\"!?]+", text):
        bare = word.strip("'\u2019")
        if not bare or re.search(r"\d", bare) or bare.lower() in SAME_IN_BOTH:
            continue
        words.append(bare)
    return words


def names_of(data: ClubData) -> set[str]:
    """Player, club, tournament and place names (the same in every language), and the
    months' names, which the dates show."""
    assert data.tournament is not None
    names = {p.name for p in (*data.players.values(), *data.crowd)}
    names |= {data.club.name, data.tournament.name, data.tournament.city, data.club.slug}
    names |= {"Riverside", "Mark Glickman's", "Mark Glickmans", "Novak", "/no-such-page/"}
    return names


def test_pages_answer_in_the_browsers_language(client: Client, data: ClubData) -> None:
    """German with Accept-Language: de, English without it; real strings, figures and
    dates the language's way."""
    urls = pages(data)
    expectations: dict[str, tuple[list[str], list[str]]] = {
        # page: (German strings, English strings)
        "home": (["Vereinswertungen", "Öffnen Sie den Wertungsrechner"], ["Club ratings"]),
        "clubs": (["Vereine", "öffentlich"], ["public"]),
        "club": (["Wertungslisten", "Letzte Turniere", "6. Februar 2026"], ["Rating lists"]),
        "list": (["Liste Standard", "nach den Partien vom März 2026", "Platz"], ["Rank"]),
        "player": (["Aktuelle Wertungen", "Wertungsverlauf (CSV)"], ["Current ratings"]),
        "new player": (["Erstwertung", "Gespielte Turniere"], ["Tournaments played"]),
        "head-to-head": (["Verwendete Wertungen", "6. Februar 2026"], ["Ratings used"]),
        "tournaments": (["Turniere", "neueste zuerst"], ["newest first"]),
        "tournament": (["Rangliste", "Kreuztabelle"], ["Standings", "Crosstable"]),
        "period report": (["Liste Standard: Februar 2026", "Erstwertungen"], ["February 2026"]),
        "statistics": (["Liste Standard in Zahlen", "Wertungsklassen"], ["Rating classes"]),
        "calculator": (["Wertungsrechner", "Erwartungswert", "0,24"], ["Expected score", "0.24"]),
        "glicko-2": (["Glicko-2-Rechner", "1464,05"], ["Glicko-2 calculator", "1464.05"]),
        "search": (["Spieler/in suchen"], ["Find a player"]),
        "login": (["Anmelden", "Passwort vergessen?"], ["Forgotten your password?"]),
        "password reset": (["Passwort zurücksetzen"], ["Reset your password"]),
        "not found": (["Nicht gefunden", "Zu den Vereinen"], ["Not found"]),
    }
    assert set(expectations) == set(urls)
    for page, url in urls.items():
        german, english = expectations[page]
        de = client.get(url, **GERMAN)
        en = client.get(url, **ENGLISH)
        plain = client.get(url)
        for response in (de, en, plain):
            assert response.status_code in (200, 404), (page, response.status_code)
        assert de["Content-Language"] == "de", page
        assert 'lang="de"' in de.content.decode(), page
        for text in german:
            assert text in de.content.decode(), (page, text)
        for text in english:
            assert text in en.content.decode(), (page, text)
            assert text in plain.content.decode(), (page, text)


def test_every_visible_text_is_translated(client: Client, data: ClubData) -> None:
    """Each page in English and in German: no word a visitor reads is the same in both,
    apart from names, figures, dates and the short list of shared words. An unmarked
    text, or a marked one nobody translated, shows up here."""
    names = names_of(data)
    found: dict[str, list[str]] = {}
    for page, url in pages(data).items():
        english = visible_words(client.get(url, **ENGLISH).content.decode(), names)
        german = set(visible_words(client.get(url, **GERMAN).content.decode(), names))
        same = {word for word in english if word in german}
        if same:
            found[page] = sorted(same)
    assert found == {}, "\n".join(f"{page}: {words}" for page, words in found.items())


def test_the_checker_sees_an_untranslated_text(client: Client, data: ClubData) -> None:
    """The check above catches a text left in English (a page without German)."""
    names = names_of(data)
    english = visible_words(client.get("/calculator/", **ENGLISH).content.decode(), names)
    assert "Calculate" in english
    assert "Opponent" in english


def test_the_language_switch_needs_no_url_prefix(client: Client) -> None:
    """The URLs stay as they are: the same address answers in either language."""
    assert client.get("/calculator/", **GERMAN).status_code == 200
    assert client.get("/de/calculator/").status_code == 404
    response = client.get("/calculator/", **GERMAN)
    assert "Accept-Language" in response["Vary"]


def test_the_api_stays_english(client: Client, data: ClubData) -> None:
    response = client.get("/api/v1/clubs/no-such-club/", **GERMAN)
    assert response.status_code == 404
    body = response.json()
    assert body["error"]["message"] == "No club 'no-such-club'."
    calculated = client.post(
        "/api/v1/calculate/",
        {"rating": 1500, "k_factor": 20, "games": [{"opponent_rating": 1700, "result": 1}]},
        content_type="application/json",
        **GERMAN,
    ).json()
    assert calculated["summary"].startswith("With a rating of 1500 and K = 20")
    bad = client.post("/api/v1/calculate/", {}, content_type="application/json", **GERMAN)
    assert "This field is required." in bad.content.decode()


def test_exports_are_never_localized(client: Client, data: ClubData) -> None:
    """The CSV's decimals keep their point under German (a machine format)."""
    club = data.club.slug
    omar = data.players["omar"]
    english = client.get(f"/clubs/{club}/players/{omar.pk}/history.csv", **ENGLISH)
    german = client.get(f"/clubs/{club}/players/{omar.pk}/history.csv", **GERMAN)
    assert german.status_code == 200
    assert b"".join(german.streaming_content if german.streaming else [german.content]) == (
        b"".join(english.streaming_content if english.streaming else [english.content])
    )
    rows = list(csv.reader(io.StringIO(german.content.decode() if not german.streaming else "")))
    decimals = [cell for row in rows[1:] for cell in row if re.fullmatch(r"-?\d+[.,]\d+", cell)]
    assert decimals, rows[:3]
    assert all("," not in cell for cell in decimals)
    listing_de = client.get(f"/clubs/{club}/lists/standard/export.csv", **GERMAN).content
    listing_en = client.get(f"/clubs/{club}/lists/standard/export.csv", **ENGLISH).content
    assert listing_de == listing_en
    assert data.tournament is not None
    for kind in ("trf", "pgn"):
        url = f"/clubs/{club}/tournaments/{data.tournament.pk}/export.{kind}"
        assert _body(client.get(url, **GERMAN)) == _body(client.get(url, **ENGLISH))


def _body(response: Any) -> bytes:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content)
    return bytes(response.content)


def test_chart_geometry_keeps_its_decimal_points(client: Client, data: ClubData) -> None:
    """SVG coordinates are read by the browser, not by people: never "12,5"."""
    omar = data.players["omar"]
    html = client.get(f"/clubs/{data.club.slug}/players/{omar.pk}/", **GERMAN).content.decode()
    coordinates = re.findall(r'\b(?:cx|cy|x|y|y1|y2)="([^"]+)"', html)
    assert coordinates
    assert all("," not in value for value in coordinates)
    assert re.search(r'cx="\d+\.\d"', html)


# -- the catalog --------------------------------------------------------------------------


def _entries() -> Iterator[polib.POEntry]:
    yield from polib.pofile(str(CATALOG))


def test_german_catalog_is_complete() -> None:
    catalog = polib.pofile(str(CATALOG))
    assert len(catalog) > 400
    assert catalog.untranslated_entries() == []
    assert catalog.fuzzy_entries() == []
    assert catalog.metadata["Plural-Forms"] == "nplurals=2; plural=(n != 1);"
    for entry in catalog:
        if entry.msgid_plural:
            assert all(entry.msgstr_plural.values()), entry.msgid


def test_committed_mo_is_the_compiled_po() -> None:
    """The .mo committed is what the .po compiles to (same messages, same plurals)."""
    catalog = polib.pofile(str(CATALOG))
    compiled = polib.mofile(str(CATALOG.with_suffix(".mo")))

    def key(entry: polib.POEntry | polib.MOEntry) -> tuple[str | None, str]:
        return entry.msgctxt, entry.msgid

    po = {key(e): (e.msgstr, dict(e.msgstr_plural)) for e in catalog if not e.obsolete}
    mo = {key(e): (e.msgstr, dict(e.msgstr_plural)) for e in compiled if e.msgid}
    assert mo == po


def test_every_engine_sentence_is_known() -> None:
    """Each fixed sentence the rules engine writes is in the page's list (a new one
    would otherwise show in English on a German page)."""
    engine = {
        NOTE_FORFEIT,
        NOTE_UNRATED_OPPONENT,
        NOTE_FAST_GAP,
        *(reason.sentence for reason in KReason),
        *(band.description for band in CLASSES),
    }
    assert engine <= set(FIXED)


def test_engine_sentences_with_figures_are_translated() -> None:
    from django.utils import translation

    with translation.override("de"):
        summary = engine_text(
            "With a rating of 1500 and K = 20, your rating changes by 12 to 1512."
        )
        notes = engine_text(
            "No first rating yet: 3 games against rated opponents; a first rating needs 5"
        )
        k = engine_text("40: fewer than 30 rated games; 40 x 20 games is over 700, so K = 35")
    assert summary == (
        "Bei einer Wertung von 1500 und K = 20 ändert sich Ihre Wertung um 12 auf 1512."
    )
    assert notes == (
        "Noch keine Erstwertung: 3 Partien gegen gewertete Gegner; eine Erstwertung braucht 5"
    )
    assert k == (
        "40: weniger als 30 gewertete Partien; 40 \u00d7 20 Partien ist über 700, also K = 35"
    )


def test_account_pages_are_translated_too(client: Client, data: ClubData) -> None:
    """A member's own pages: their home (clubs, player records, tokens) and the password
    change, with the same check as the public pages."""
    client.force_login(data.owner)
    names = names_of(data) | {data.owner.get_username()}
    client.post("/accounts/tokens/", {"name": "laptop"})
    found: dict[str, list[str]] = {}
    for url in ("/accounts/", "/accounts/password/change/"):
        german_page = client.get(url, **GERMAN).content.decode()
        assert "Abmelden" in german_page
        english = visible_words(client.get(url, **ENGLISH).content.decode(), names | {"laptop"})
        german = set(visible_words(german_page, names | {"laptop"}))
        same = sorted({word for word in english if word in german})
        if same:
            found[url] = same
    assert found == {}
    home = client.get("/accounts/", **GERMAN).content.decode()
    assert "Ihre Vereine" in home
    assert "Inhaber" in home  # the role, a model choice
