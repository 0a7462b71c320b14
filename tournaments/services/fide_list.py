"""Reading FIDE's monthly rating list into a club (rating officer).

``fide_list_import`` is a plain service: keyword-only, one durable transaction for the
writes (the file is read before it opens, so the slow part holds no lock), an optional
progress callback, a dry run that rolls back. The command, the API and the admin call it
synchronously; a background job can call it the same way.

For the club's players with a FIDE ID it fills in or updates title, women's title,
federation, sex and birth year, and keeps FIDE's standard, rapid and blitz ratings with
the list's month beside the club's own; it reports players whose name (by name key) or
birth year disagree with FIDE's. ``add_federation`` creates the federation's players the
club does not have, matched first as the imports match a file's players
(``fide_list_match``: a club player without a FIDE ID but with the same name key and birth
year gets the FIDE ID, a possible match is reported and not created). ``seed_ratings``
starts players unrated on a club's Elo list (with nothing published there yet) at their
FIDE rating of that kind, the reason in their history's entry and in the K history when
it changed their K (``fide_list_seed``; Glicko-2 lists keep their own start).
"""

from __future__ import annotations

import datetime
import re
from dataclasses import asdict, dataclass, field
from typing import IO, Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from players.bulk import history_rows_copy_ids, update_rows
from players.errors import invalid_field
from players.models import (
    Club,
    Player,
    Role,
    Title,
    month_label,
    month_start,
)
from players.names import name_key
from players.rating.k_factor import has_reached_2400
from players.selectors import User, require_role
from players.services import club_published_changed, players_add_bulk
from players.webhooks import players_changed
from tournaments.interchange.bounds import KB, MB, ZipLimits, zip_problem
from tournaments.interchange.fide_list import (
    FideLimits,
    FideListError,
    FideProgress,
    FideRecord,
    read_fide_list,
)
from tournaments.services.fide_list_match import fide_birth_year, fide_players_match
from tournaments.services.fide_list_seed import (
    seed_existing,
    seeded_lists_of,
    seeded_new_players_note,
)

_TITLES = frozenset(Title.values)  # Title.values builds a new list on every access
_UPDATED = (
    "title",
    "women_title",
    "federation",
    "sex",
    "birth_year",
    "fide_standard",
    "fide_rapid",
    "fide_blitz",
    "fide_list_month",
)


@dataclass
class FideListReport:
    """What the FIDE list import did (or, in a dry run, would do)."""

    club: str
    month: str
    dry_run: bool
    #: Club players with a FIDE ID, and how many of them the list has.
    club_fide_ids: int = 0
    found: int = 0
    #: Players whose details or FIDE ratings changed: {"player", "name", "fields"}.
    updated: list[dict[str, Any]] = field(default_factory=list)
    #: FIDE IDs of the club that the list lacks: {"player", "name", "fide_id"}.
    not_in_list: list[dict[str, Any]] = field(default_factory=list)
    #: {"player", "name", "fide_name", "birth_year", "fide_birth_year", "what"}.
    disagreements: list[dict[str, Any]] = field(default_factory=list)
    #: Created by add_federation: {"player" (None in a dry run), "name", "fide_id"}.
    added: list[dict[str, Any]] = field(default_factory=list)
    #: add_federation: club players without a FIDE ID who are FIDE's player by name key and
    #: birth year, given the FIDE ID and FIDE's details: {"player", "name", "fide_id",
    #: "fide_name"}.
    matched: list[dict[str, Any]] = field(default_factory=list)
    #: add_federation: same name key, no birth year on one side (or two of FIDE's players
    #: for one club player): neither linked nor created. {"player", "name", "birth_year",
    #: "fide_id", "fide_name", "fide_birth_year"}.
    possible_matches: list[dict[str, Any]] = field(default_factory=list)
    #: Started at their FIDE rating: {"player", "name", "list", "rating"}.
    seeded: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        verb = "would update" if self.dry_run else "updated"
        return (
            f"{'Dry run: ' if self.dry_run else ''}FIDE list of {self.month}: {self.found} of "
            f"{self.club_fide_ids} club FIDE IDs found; {verb} {len(self.updated)} players; "
            f"{len(self.disagreements)} disagreements; {len(self.added)} added; "
            f"{len(self.matched)} matched by name and birth year; "
            f"{len(self.possible_matches)} possible matches not added; "
            f"{len(self.seeded)} ratings seeded; {len(self.not_in_list)} not in the list."
        )


class _Rollback(Exception):
    pass


def fide_upload_too_large(size: int) -> str:
    """Why an upload of FIDE's list of ``size`` bytes is refused before it is read ("" when
    it is not): above the FIDE_LIST_MAX_UPLOAD_MB setting."""
    limit_mb: int = settings.FIDE_LIST_MAX_UPLOAD_MB
    if size > limit_mb * 1024 * 1024:
        return f"The file is larger than {limit_mb} MB."
    return ""


def fide_limits() -> FideLimits:
    """The reader's bounds, from the FIDE_LIST_MAX_* settings (docs/reference/security.md)."""
    return FideLimits(
        zip=ZipLimits(
            max_unpacked=settings.FIDE_LIST_MAX_UNZIPPED_MB * MB,
            max_ratio=settings.FIDE_LIST_MAX_ZIP_RATIO,
            max_members=settings.FIDE_LIST_MAX_ZIP_MEMBERS,
        ),
        max_line=settings.FIDE_LIST_MAX_LINE_KB * KB,
        max_element=settings.FIDE_LIST_MAX_ELEMENT_KB * KB,
    )


def fide_upload_problem(upload: IO[bytes]) -> str:
    """Why an upload of FIDE's list is refused at the door, before a job is queued ("" when
    it is not): its size, and for a ZIP what its directory declares (members, unpacked size,
    ratio). What only reading shows (a line or an element too long) fails the job."""
    upload.seek(0, 2)
    if too_large := fide_upload_too_large(upload.tell()):
        return too_large
    upload.seek(0)
    if upload.read(2) != b"PK":
        upload.seek(0)
        return ""
    if problem := zip_problem(upload, fide_limits().zip):
        return f"Not FIDE's rating list: {problem}."
    return ""


def _records_read(
    stream: IO[bytes],
    players: dict[int, Player],
    federation: str,
    progress: FideProgress | None,
) -> dict[int, FideRecord]:
    """The list's records of the club's FIDE IDs and of ``federation``. The club's are as
    many as its players (a repeated ID keeps one record); a federation's are bounded by
    FIDE_LIST_MAX_FEDERATION_PLAYERS (the largest are about 100,000): a file of millions of
    one federation's lines would otherwise be held whole."""
    limit: int = settings.FIDE_LIST_MAX_FEDERATION_PLAYERS
    records: dict[int, FideRecord] = {}
    others: set[int] = set()  # the federation's players the club does not have
    for record in read_fide_list(
        stream,
        wanted=players.keys(),
        federation=federation,
        progress=progress,
        limits=fide_limits(),
    ):
        records[record.fide_id] = record
        if record.fide_id not in players:
            others.add(record.fide_id)
        if len(others) > limit:
            raise FideListError(
                f"more than {limit} players of {federation} (the limit of a federation)"
            )
    return records


def fide_list_import(
    *,
    club: Club,
    stream: IO[bytes],
    by: User,
    month: datetime.date | None = None,
    add_federation: str = "",
    seed_ratings: bool = False,
    dry_run: bool = False,
    progress: FideProgress | None = None,
) -> FideListReport:
    """Read FIDE's list from ``stream`` (TXT or XML, plain or zipped; seekable) into
    ``club``; see the module. ``month``: the list's month (default: the current one).
    Raises ValidationFailed naming ``file`` for a file that is not FIDE's list, naming
    ``add_federation`` for a code that is not three capitals."""
    require_role(by, club, Role.OFFICER)
    add_federation = add_federation.strip().upper()
    if add_federation and not re.fullmatch(r"[A-Z]{3}", add_federation):
        raise invalid_field("add_federation", "A federation is three letters, e.g. NOR.")
    month = month_start(month or timezone.localdate())
    report = FideListReport(club=club.slug, month=month_label(month), dry_run=dry_run)
    players: dict[int, Player] = {
        p.fide_id: p for p in Player.objects.filter(club=club, fide_id__isnull=False) if p.fide_id
    }
    report.club_fide_ids = len(players)
    try:
        records = _records_read(stream, players, add_federation, progress)
    except (FideListError, UnicodeError) as error:
        raise invalid_field("file", f"Not FIDE's rating list: {error}") from None
    try:
        with transaction.atomic(durable=True):
            _update(players, records, month, report, by)
            if add_federation:
                new = _match(club, by, records, players, add_federation, month, report)
                _add(club, by, new, month, seed_ratings, report)
            if seed_ratings:
                seeded, warnings = seed_existing(
                    club=club, players=players, records=records, month=month, by=by
                )
                report.seeded += seeded
                report.warnings += warnings
            if dry_run:
                raise _Rollback
            club_published_changed(club_id=club.pk)
            if report.updated:
                updated = [entry["player"] for entry in report.updated]
                players_changed(club_id=club.pk, action="updated", players=updated)
    except _Rollback:
        for entry in report.added:
            entry["player"] = None
    return report


def _update(
    players: dict[int, Player],
    records: dict[int, FideRecord],
    month: datetime.date,
    report: FideListReport,
    by: User,
) -> None:
    changed: list[Player] = []
    for fide_id, player in sorted(players.items(), key=lambda item: item[1].pk):
        record = records.get(fide_id)
        if record is None:
            report.not_in_list.append(
                {"player": player.pk, "name": player.name, "fide_id": fide_id}
            )
            continue
        report.found += 1
        _note_disagreement(player, record, report)
        year = record.birth_year
        # A birth date with another year stays: the officer decides which is right.
        if player.birth_date is not None and year is not None and player.birth_date.year != year:
            year = player.birth_year
        values = _details(record, month) | {"birth_year": year or player.birth_year}
        fields = [name for name, value in values.items() if getattr(player, name) != value]
        if fields:
            for name in fields:
                setattr(player, name, values[name])
            changed.append(player)
            if fields != ["fide_list_month"]:
                report.updated.append({"player": player.pk, "name": player.name, "fields": fields})
    _write(changed, by)


def _note_disagreement(player: Player, record: FideRecord, report: FideListReport) -> None:
    """Where the club's player and FIDE's record of their FIDE ID disagree (name, birth
    year), for the officer to look at."""
    what = []
    if name_key(player.name) != name_key(record.name):
        what.append("name")
    year = record.birth_year
    if year is not None and player.birth_year not in (None, year):
        what.append("birth year")
    if what:
        report.disagreements.append(
            {
                "player": player.pk,
                "name": player.name,
                "fide_name": record.name,
                "birth_year": player.birth_year,
                "fide_birth_year": year,
                "what": " and ".join(what),
            }
        )


def _write(players: list[Player], by: User, fields: tuple[str, ...] = _UPDATED) -> None:
    """Store the FIDE fields of ``players`` (each changed) and their audit rows: the
    bulk UPDATE skips the ORM's saves, so the rows are copied in bulk afterwards."""
    update_rows(Player, fields, ([p.pk, *(getattr(p, f) for f in fields)] for p in players))
    history_rows_copy_ids(Player, [p.pk for p in players], by_id=by.pk)


def _details(record: FideRecord, month: datetime.date) -> dict[str, Any]:
    """The player's fields as FIDE's record gives them. A TRF has one title column: the
    open title, else the women's title."""
    title = record.title if record.title in _TITLES else ""
    women = record.women_title if record.women_title in _TITLES else ""
    return {
        "title": title or women,
        "women_title": women,
        "federation": record.federation[:3],
        "sex": record.sex if record.sex in ("M", "F") else "",
        "fide_standard": record.standard,
        "fide_rapid": record.rapid,
        "fide_blitz": record.blitz,
        "fide_list_month": month,
    }


def _match(
    club: Club,
    by: User,
    records: dict[int, FideRecord],
    players: dict[int, Player],
    federation: str,
    month: datetime.date,
    report: FideListReport,
) -> list[FideRecord]:
    """The federation's records the club has no FIDE ID for, less those it has under a
    record without one: those players get the FIDE ID and FIDE's details (and join
    ``players``, to be seeded like the others). Returns the records to create."""
    found = fide_players_match(
        club=club,
        records=(
            r for r in records.values() if r.federation == federation and r.fide_id not in players
        ),
    )
    linked: list[Player] = []
    for player, record in found.linked:
        # Same birth year or none here (a birth date agrees by its year): FIDE's fills in.
        values = _details(record, month) | {
            "fide_id": record.fide_id,
            "birth_year": player.birth_year or fide_birth_year(record),
        }
        for name, value in values.items():
            setattr(player, name, value)
        linked.append(player)
        players[record.fide_id] = player
        report.matched.append(
            {
                "player": player.pk,
                "name": player.name,
                "fide_id": record.fide_id,
                "fide_name": record.name,
            }
        )
    _write(linked, by, ("fide_id", *_UPDATED))
    report.possible_matches += found.doubtful
    report.warnings += found.warnings
    return found.new


def _add(
    club: Club,
    by: User,
    new: list[FideRecord],
    month: datetime.date,
    seed: bool,
    report: FideListReport,
) -> None:
    seeded_lists = seeded_lists_of(club) if seed else []
    created = players_add_bulk(
        club=club,
        by=by,
        players=[
            {
                "name": record.name or f"FIDE {record.fide_id}",
                "fide_id": record.fide_id,
                "federation": record.federation,
                "sex": _details(record, month)["sex"],
                "title": _details(record, month)["title"],
                "birth_year": fide_birth_year(record),
                "ratings": [
                    {
                        "list": rating_list.slug,
                        "rating": getattr(record, rating_list.kind),
                        "reached_2400": has_reached_2400(False, getattr(record, rating_list.kind)),
                    }
                    for rating_list in seeded_lists
                    if getattr(record, rating_list.kind) is not None
                ],
            }
            for record in new
        ],
    )
    for player, record in zip(created, new, strict=True):
        for name, value in _details(record, month).items():
            setattr(player, name, value)
        report.added.append({"player": player.pk, "name": player.name, "fide_id": record.fide_id})
        report.seeded += [
            {
                "player": player.pk,
                "name": player.name,
                "list": rating_list.slug,
                "rating": getattr(record, rating_list.kind),
            }
            for rating_list in seeded_lists
            if getattr(record, rating_list.kind) is not None
        ]
    _write(created, by)
    seeded_new_players_note(
        started={
            rating_list.pk: [
                player.pk
                for player, record in zip(created, new, strict=True)
                if getattr(record, rating_list.kind) is not None
            ]
            for rating_list in seeded_lists
        },
        month=month,
    )
