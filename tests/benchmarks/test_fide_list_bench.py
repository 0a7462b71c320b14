"""How fast FIDE's full rating list goes through a club (figures printed, not asserted).

A generated list of FIDE's size (1,900,000 players; BENCH_SCALE=small: 19,000) as the TXT
(FIDE's header and fixed columns), the same zipped, and the XML, read into a club that has
20,000 of those players (small: 200) with FIDE IDs. Each prints one JSON line: {"name":
"fide_list_txt" | "fide_list_txt_zip" | "fide_list_xml", "players_in_file", "club_players",
"seconds", "baseline_seconds", "ratio", "peak_mb", "peak_scope": "process", "file_mb"}.
``baseline_seconds`` is a minimal read of the same file (every line's ID sliced, or
every XML element parsed and cleared by ElementTree's iterparse) in the same process, after
the import (so ``peak_mb``, the process's peak when the import ends, is the generation's
and the import's); ``ratio`` = seconds / baseline.
The issue's target: under 60 s and 300 MB for the full list. Run one at a time (``-k``) for
a ``peak_mb`` of its own (``report.py``).
"""

from __future__ import annotations

import io
import os
import time
import zipfile
from pathlib import Path
from typing import IO
from xml.etree.ElementTree import iterparse

import pytest
from django.contrib.auth import get_user_model

from players.services import club_create, players_add_bulk
from tests.benchmarks.report import emit, process_peak_mb, ratio
from tests.tournaments.fide_files import TXT_HEADER, Row, txt_line, xml
from tournaments.services.fide_list import fide_list_import

SMALL = os.environ.get("BENCH_SCALE", "") == "small"
PLAYERS = 19_000 if SMALL else 1_900_000
CLUB = 200 if SMALL else 20_000
FEDERATIONS = ("NOR", "SWE", "GER", "FRA", "IND", "USA", "ESP", "RUS", "ITA", "POL")
FIRST_ID = 100_000


def _row(index: int) -> Row:
    return Row(
        fide_id=FIRST_ID + index,
        name=f"Player{index:07d}, Given{index % 997}",
        fed=FEDERATIONS[index % len(FEDERATIONS)],
        sex="F" if index % 7 == 0 else "M",
        title="FM" if index % 101 == 0 else "",
        standard=1400 + index % 1400,
        rapid=1450 + index % 1300 if index % 3 else None,
        blitz=1500 + index % 1200 if index % 4 else None,
        birth_year=1940 + index % 70,
    )


def _write(kind: str, folder: Path) -> Path:
    """The generated list in one format (written when a test first asks for it)."""
    txt_path = folder / "players_list_foa.txt"
    if kind in ("txt", "txt_zip") and not txt_path.exists():
        with txt_path.open("w", encoding="utf-8") as out:
            out.write(TXT_HEADER + "\n")
            for start in range(0, PLAYERS, 10_000):
                stop = min(PLAYERS, start + 10_000)
                out.write("".join(txt_line(_row(i)) + "\n" for i in range(start, stop)))
    if kind == "txt":
        return txt_path
    if kind == "txt_zip":
        zip_path = folder / "players_list_foa.zip"
        with zipfile.ZipFile(zip_path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.write(txt_path, "players_list_foa.txt")
        return zip_path
    xml_path = folder / "players_list_xml_foa.xml"
    with xml_path.open("wb") as out:
        out.write(b'<?xml version="1.0" encoding="utf-8"?>\n<playerslist>\n')
        for start in range(0, PLAYERS, 10_000):
            chunk = xml(_row(i) for i in range(start, min(PLAYERS, start + 10_000)))
            # The rows only: the generator's document head and tail are written once.
            out.write(chunk.split(b"<playerslist>\n", 1)[1].rsplit(b"</playerslist>", 1)[0])
        out.write(b"</playerslist>\n")
    return xml_path


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fide")


def _baseline(kind: str, path: Path) -> float:
    started = time.perf_counter()
    if kind == "xml":
        events = iterparse(str(path), events=("start", "end"))  # noqa: S314 - generated above
        _, root = next(events)
        for event, element in events:
            if event == "end":
                element.clear()
                # Cleared elements stay the root's children until it lets them go.
                root.clear()
    else:
        with path.open("rb") as raw:
            stream: IO[bytes] = raw
            if kind == "txt_zip":
                stream = zipfile.ZipFile(raw).open("players_list_foa.txt")  # noqa: SIM115 - read whole below, closed with raw
            text = io.TextIOWrapper(stream, encoding="utf-8")
            next(text)
            for line in text:
                line[0:15].strip()
    return time.perf_counter() - started


@pytest.mark.benchmark
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", ["txt", "txt_zip", "xml"])
def test_fide_list_speed(folder: Path, kind: str) -> None:
    owner = get_user_model().objects.create_user(f"bench-fide-{kind}")
    club = club_create(
        name=f"Bench FIDE {kind}", slug=f"bench-fide-{kind.replace('_', '-')}", by=owner
    )
    # Every 95th player of the list is a club member (spread through the file).
    step = PLAYERS // CLUB
    players_add_bulk(
        club=club,
        by=owner,
        players=[{"name": f"Member {i}", "fide_id": FIRST_ID + i * step} for i in range(CLUB)],
    )
    path = _write(kind, folder)
    started = time.perf_counter()
    with path.open("rb") as stream:
        report = fide_list_import(club=club, stream=stream, by=owner)
    seconds = time.perf_counter() - started
    # Before the baseline, which has its own peak: the import's peak is what is asked for.
    peak = process_peak_mb()
    baseline = _baseline(kind, path)
    emit(
        {
            "name": f"fide_list_{kind}",
            "players_in_file": PLAYERS,
            "club_players": CLUB,
            "seconds": round(seconds, 3),
            "baseline_seconds": round(baseline, 3),
            "ratio": ratio(seconds, baseline),
            "peak_mb": peak,
            "peak_scope": "process",
            "file_mb": round(path.stat().st_size / 2**20, 1),
        }
    )
    assert report.found == CLUB
    assert len(report.updated) == CLUB
    assert len(report.disagreements) == CLUB  # "Member i" is not the FIDE name
