"""A client generated from our OpenAPI schema with openapi-python-client runs every
operation against a live server.

API consumers generate their clients this way; an operation the generator cannot express
is left out of the client (with only a warning), and a response declared in two media
types makes the client fail at run time. The operations are read from the schema, so a
new endpoint without a call below fails ``test_every_operation_has_a_call``.
"""

from __future__ import annotations

import datetime
import importlib
import io
import json
import subprocess
import sys
import types
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.core.management import call_command

from players.models import ApiToken, RatingPeriod
from players.services import membership_set
from players.webhooks.send import Outcome
from ratings_site.wsgi import application
from tests.api.conftest import PASSWORD, World
from tests.tournaments.fide_files import Row, txt
from tournaments import services as game_services
from tournaments.services.club_archive import MANIFEST

# Runs openapi-python-client in a subprocess.
pytestmark = pytest.mark.slow

TRF = Path(__file__).parent.parent / "tournaments" / "files" / "round_robin_trf26.trf"
PACKAGE = "ratings_api_client"
# No post-generation hooks: they would run ruff on the generated code, which is not ours
# to lint and needs no formatting to be imported. A job's download is bytes in each of its
# media types; the generator reads only JSON, text/* and octet-stream, so a zip is mapped
# to bytes (the line docs/reference/api.md gives integrators).
GENERATOR_CONFIG = (
    "post_hooks: []\ncontent_type_overrides:\n  application/zip: application/octet-stream\n"
)


@dataclass
class Generated:
    schema: dict[str, Any]
    package: types.ModuleType
    output: str

    def operation(self, operation_id: str) -> types.ModuleType:
        tag = self.tags[operation_id]
        return importlib.import_module(f"{PACKAGE}.api.{tag}.{operation_id}")

    @property
    def tags(self) -> dict[str, str]:
        return {
            op["operationId"]: op["tags"][0]
            for operations in self.schema["paths"].values()
            for op in operations.values()
        }

    @property
    def models(self) -> Any:
        return importlib.import_module(f"{PACKAGE}.models")

    def model(self, name: str, data: dict[str, Any]) -> Any:
        return getattr(self.models, name).from_dict(data)

    def file(self, payload: bytes, name: str) -> Any:
        file_type = importlib.import_module(f"{PACKAGE}.types").File
        return file_type(payload=io.BytesIO(payload), file_name=name, mime_type="text/plain")


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Generated]:
    folder = tmp_path_factory.mktemp("client")
    schema_file = folder / "openapi.json"
    call_command("spectacular", "--format", "openapi-json", "--file", str(schema_file))
    config = folder / "config.yaml"
    config.write_text(GENERATOR_CONFIG)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "openapi_python_client",
            "generate",
            "--path",
            str(schema_file),
            "--meta",
            "none",
            "--config",
            str(config),
            "--output-path",
            str(folder / PACKAGE),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    sys.path.insert(0, str(folder))
    try:
        yield Generated(
            schema=json.loads(schema_file.read_text()),
            package=importlib.import_module(PACKAGE),
            output=output,
        )
    finally:
        sys.path.remove(str(folder))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


@dataclass
class Context:
    world: World
    gen: Generated
    job_id: str = ""
    game_id: int = 0
    token: str = ""
    site: str = ""  # the live server's address


Call = Callable[[Context], dict[str, Any]]


def north(**values: Any) -> Call:
    """Path values of the private fixture club ``north`` and its standard list."""
    return lambda ctx: {"club": ctx.world.north.slug, **values}


def on_list(**values: Any) -> Call:
    return north(list_="standard", **values)


def player(index: int, **values: Any) -> Call:
    return lambda ctx: {**north(**values)(ctx), "id": ctx.world.north.players[index].pk}


def with_body(path: Call, model: str, body: Callable[[Context], dict[str, Any]]) -> Call:
    return lambda ctx: {**path(ctx), "body": ctx.gen.model(model, body(ctx))}


def stranger_joined(call: Call) -> Call:
    """``stranger`` made a viewer of north first (the test is about the client, not about
    joining): the call then changes a member's role, the 200 the client parses. Adding a
    non-member answers 202, an invitation (tests/accounts/test_member_invitations.py)."""

    def joined(ctx: Context) -> dict[str, Any]:
        owner = ctx.world.north.users["owner"]
        membership_set(club=ctx.world.north.club, user=ctx.world.stranger, role="viewer", by=owner)
        return call(ctx)

    return joined


def webhook(ctx: Context) -> dict[str, Any]:
    return {"club": ctx.world.north.slug, "id": ctx.world.north.extra["webhook"].pk}


def delivery(ctx: Context) -> dict[str, Any]:
    north = ctx.world.north
    return {
        "club": north.slug,
        "webhook": north.extra["webhook"].pk,
        "id": str(north.extra["delivery"].pk),
    }


def created_game(ctx: Context) -> dict[str, Any]:
    return {"club": ctx.world.north.slug, "id": ctx.game_id}


# In the order they run: what a call changes must not stop a later one (games change before
# their period closes, deletions come last, logout ends a token of its own).
CALLS: dict[str, Call] = {
    # The public club's list page, on the server the client talks to: its widget.
    "oembed": lambda ctx: {"url_query": f"{ctx.site}/clubs/{ctx.world.south.slug}/lists/standard/"},
    "calculate": lambda ctx: {
        "body": ctx.gen.model(
            "CalculateInRequest",
            {
                "rating": 1850,
                "k_factor": 20,
                "games": [
                    {"opponent_rating": 1792, "result": "1"},
                    {"opponent_rating": 1911, "result": "1/2"},
                    {"opponent_rating": 2010, "result": "loss"},
                ],
            },
        )
    },
    "calculate_glicko2": lambda ctx: {
        "body": ctx.gen.model(
            "Glicko2InRequest",
            {"rating": 1500, "rd": 200, "games": [{"opponent_rating": 1400, "result": "1"}]},
        )
    },
    "clubs_list": lambda ctx: {},
    "clubs_create": lambda ctx: {
        "body": ctx.gen.model("ClubCreateRequest", {"name": "Harbour", "slug": "harbour"})
    },
    "clubs_read": north(),
    "clubs_update": with_body(north(), "PatchedClubUpdateRequest", lambda ctx: {"name": "North"}),
    "members_list": north(),
    "members_set": stranger_joined(
        with_body(
            north(), "MemberSetRequest", lambda ctx: {"username": "stranger", "role": "viewer"}
        )
    ),
    "members_read": north(username="stranger"),
    "members_update": with_body(
        north(username="stranger"), "PatchedMemberRoleRequest", lambda ctx: {"role": "arbiter"}
    ),
    "invitations_list": north(),
    "invitations_create": with_body(
        north(), "InvitationInRequest", lambda ctx: {"email": "new@example.org", "role": "viewer"}
    ),
    "invitations_read": lambda ctx: {
        "club": ctx.world.north.slug,
        "id": ctx.world.north.extra["invitation"].pk,
    },
    # The owner claims a record of north; the claimant's waiting claim is decided.
    "claims_create": with_body(
        north(), "ClaimInRequest", lambda ctx: {"player": ctx.world.north.players[2].pk}
    ),
    "claims_list": north(),
    "claims_mine": lambda ctx: {},
    "claims_read": lambda ctx: {
        "club": ctx.world.north.slug,
        "id": ctx.world.north.extra["claim"].pk,
    },
    "claims_decide": lambda ctx: {
        "club": ctx.world.north.slug,
        "id": ctx.world.north.extra["claim"].pk,
        "body": ctx.gen.model("DecisionInRequest", {"decision": "approve"}),
    },
    "webhooks_list": north(),
    "webhooks_create": with_body(
        north(),
        "WebhookInRequest",
        lambda ctx: {"url": "https://93.184.215.14/generated", "events": ["period.closed"]},
    ),
    "webhooks_read": webhook,
    "webhooks_update": with_body(
        webhook, "PatchedWebhookPatchRequest", lambda ctx: {"active": True}
    ),
    "webhooks_ping": webhook,
    "webhook_deliveries_list": webhook,
    "webhook_deliveries_read": delivery,
    "webhook_deliveries_redeliver": delivery,
    "lists_list": north(),
    "lists_create": with_body(
        north(),
        "RatingListCreateRequest",
        lambda ctx: {"slug": "online", "kind": "blitz", "system": "glicko2", "tau": 0.6},
    ),
    "lists_read": on_list(),
    "players_list": north(),
    "players_create": with_body(
        north(),
        "PlayerCreateRequest",
        lambda ctx: {
            "name": "New Player",
            "ratings": [{"list": "standard", "rating": 1600, "rated_games": 3}],
        },
    ),
    "players_read": player(0),
    "players_update": with_body(
        player(3), "PatchedPlayerUpdateRequest", lambda ctx: {"city": "Bergen"}
    ),
    "players_history": player(0),
    "players_k_history": player(0),
    "players_k_override": with_body(
        player(0), "KOverrideInRequest", lambda ctx: {"list": "standard", "k": 30, "note": "asked"}
    ),
    "players_duplicates": north(),
    "players_merge": lambda ctx: {
        "club": ctx.world.north.slug,
        "id": ctx.world.north.players[3].pk,
        "dry_run": True,
        "body": ctx.gen.model("MergeInRequest", {"duplicate": ctx.world.north.spare_player.pk}),
    },
    "tournaments_list": north(),
    "tournaments_create": with_body(
        north(),
        "TournamentInRequest",
        lambda ctx: {
            "name": "Spring Open",
            "list": "standard",
            "start_date": "2026-04-01",
            "end_date": "2026-04-03",
        },
    ),
    "tournaments_read": lambda ctx: {
        "club": ctx.world.north.slug,
        "id": ctx.world.north.tournament.pk,
    },
    "tournaments_update": lambda ctx: {
        "club": ctx.world.north.slug,
        "id": ctx.world.north.tournament.pk,
        "body": ctx.gen.model("PatchedTournamentInRequest", {"city": "Ghent"}),
    },
    "games_list": north(),
    "games_create": with_body(
        north(),
        "ClubGameInRequest",
        lambda ctx: {
            "list": "blitz",
            "date": "2026-04-05",
            "white": ctx.world.north.players[0].pk,
            "black": ctx.world.north.players[1].pk,
            "result": "1-0",
        },
    ),
    "games_read": lambda ctx: {"club": ctx.world.north.slug, "id": ctx.world.north.open_game.pk},
    "games_update": lambda ctx: {
        "club": ctx.world.north.slug,
        "id": ctx.world.north.open_game.pk,
        "body": ctx.gen.model("PatchedClubGameInRequest", {"result": "1/2-1/2"}),
    },
    "games_delete": created_game,
    "imports_create": lambda ctx: {
        "club": ctx.world.north.slug,
        "body": ctx.gen.models.ImportInRequest(
            file=ctx.gen.file(TRF.read_bytes(), "masters.trf"),
            format_=ctx.gen.models.FormatEnum("trf"),
            dry_run=True,
        ),
    },
    "fide_list_import": lambda ctx: {
        "club": ctx.world.north.slug,
        "body": ctx.gen.models.FideListInRequest(
            file=ctx.gen.file(txt([Row(1503014, "Carlsen, Magnus", "NOR")]), "players.txt"),
            dry_run=True,
        ),
    },
    "audit_list": lambda ctx: {
        "club": ctx.world.north.slug,
        "model": ctx.gen.models.AuditListModel("game"),
    },
    # Before the close, which publishes a row for every player of the list.
    "players_delete": lambda ctx: {
        "club": ctx.world.north.slug,
        "id": ctx.world.north.spare_player.pk,
    },
    "periods_list": on_list(),
    "periods_open": with_body(on_list(), "PeriodOpenRequest", lambda ctx: {"period": "2026-05"}),
    "periods_read": on_list(period="2026-02"),
    "periods_preview": on_list(period="2026-02"),
    "ratings_live": on_list(),
    "ratings_live_csv": on_list(),
    "players_live": player(0),
    "players_forecast": lambda ctx: {
        **player(0)(ctx),
        "opponent": ctx.world.north.players[1].pk,
    },
    "tournaments_entries": lambda ctx: {
        "club": ctx.world.north.slug,
        "id": ctx.world.north.tournament.pk,
    },
    "tournaments_entries_set": lambda ctx: {
        "club": ctx.world.north.slug,
        "id": ctx.world.north.tournament.pk,
        "body": ctx.gen.model(
            "EntriesInRequest", {"players": [p.pk for p in ctx.world.north.players]}
        ),
    },
    "tournaments_forecast": lambda ctx: {
        "club": ctx.world.north.slug,
        "id": ctx.world.north.tournament.pk,
    },
    "periods_close": on_list(period="2026-02"),
    "periods_changes": on_list(period="2026-02"),
    "ratings_list": on_list(),
    "statistics_read": on_list(),
    "ratings_csv": on_list(period="2026-02"),
    "periods_reopen": on_list(period="2026-02"),
    "lists_replay": on_list(),
    "lists_update": with_body(
        on_list(), "PatchedRatingListUpdateRequest", lambda ctx: {"apply_400_rule": False}
    ),
    "lists_history_export": on_list(),
    "clubs_export": lambda ctx: {"club": ctx.world.north.slug},
    "jobs_read": lambda ctx: {"id": ctx.job_id},
    "jobs_download": lambda ctx: {"id": ctx.job_id},
    "invitations_revoke": lambda ctx: {
        "club": ctx.world.north.slug,
        "id": ctx.world.north.extra["invitation"].pk,
    },
    "members_remove": north(username="stranger"),
    "webhooks_delete": webhook,
    "tournaments_delete": lambda ctx: {
        "club": ctx.world.north.slug,
        "id": ctx.world.north.tournament.pk,
    },
    "auth_token": lambda ctx: {
        "body": ctx.gen.model("TokenInRequest", {"username": "north-viewer", "password": PASSWORD})
    },
    "auth_logout": lambda ctx: {},
}


def schema_operations(schema: dict[str, Any]) -> dict[str, set[int]]:
    """Each operation's documented success statuses (a job's 202 "still running" left
    out: the test's jobs run at once and must answer their own result; an operation whose
    only success is 202, a webhook's ping or redelivery, keeps it)."""

    def successes(responses: dict[str, Any]) -> set[int]:
        done = {int(code) for code in responses if code in {"200", "201", "204"}}
        return done or {int(code) for code in responses if code == "202"}

    return {
        op["operationId"]: successes(op["responses"])
        for operations in schema["paths"].values()
        for op in operations.values()
    }


def test_the_generator_leaves_nothing_out(generated: Generated) -> None:
    # openapi-python-client skips what it cannot express with a warning, not an error.
    assert "WARNING" not in generated.output.upper(), generated.output
    for operation_id in schema_operations(generated.schema):
        assert hasattr(generated.operation(operation_id), "sync_detailed"), operation_id


def test_every_operation_has_a_call(generated: Generated) -> None:
    assert set(CALLS) == set(schema_operations(generated.schema))


def test_every_operation_answers_through_the_client(
    generated: Generated, world: World, live_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The live server commits: the fixture's webhook would be sent the close's event and
    # the ping for real. No request leaves the machine; the receiver "answers" 200.
    monkeypatch.setattr(
        "players.webhooks.delivery.post_once",
        lambda hook, delivery: Outcome(200, 1, "", "ok"),
    )
    statuses = schema_operations(generated.schema)
    _, token = ApiToken.objects.create(world.north.users["owner"])
    client_module = importlib.import_module(f"{PACKAGE}.client")
    owner = client_module.AuthenticatedClient(
        base_url=live_server.url, token=token, prefix="Token", raise_on_unexpected_status=True
    )
    ctx = Context(world=world, gen=generated, site=live_server.url)
    for operation_id, call in CALLS.items():
        client = owner
        if operation_id == "auth_logout":
            # Sign out a token of its own (from auth_token), not the one the calls use.
            client = client_module.AuthenticatedClient(
                base_url=live_server.url, token=ctx.token, prefix="Token"
            )
        response = generated.operation(operation_id).sync_detailed(client=client, **call(ctx))
        assert response.status_code in statuses[operation_id], (
            operation_id,
            response.status_code,
            response.content[:300],
        )
        parsed = response.parsed
        if response.status_code == 204:
            continue
        assert parsed is not None, (operation_id, response.content[:300])
        assert type(parsed).__name__ != "Error", (operation_id, parsed)
        if operation_id == "games_create":
            ctx.game_id = parsed[0].id if isinstance(parsed, list) else parsed.id
        elif operation_id == "lists_history_export":
            ctx.job_id = parsed.download.rstrip("/").split("/")[-2]
        elif operation_id == "auth_token":
            ctx.token = parsed.token
        elif operation_id == "ratings_live":
            assert parsed.period == "2026-02", parsed
            assert parsed.results, parsed
        elif operation_id in ("ratings_live_csv", "ratings_csv"):
            assert parsed.startswith("rank,player,name"), parsed[:100]
        elif operation_id == "jobs_download":
            # The history export's CSV, handed back as the bytes served.
            assert parsed.payload.read().startswith(b"player,"), operation_id


def in_process(gen: Generated, user: Any) -> Any:
    """A generated client whose requests the WSGI application answers in this process, in
    the test's transaction (a live server would need the rows committed)."""
    _, token = ApiToken.objects.create(user)
    client = importlib.import_module(f"{PACKAGE}.client").AuthenticatedClient(
        base_url="http://testserver", token=token, prefix="Token", raise_on_unexpected_status=True
    )
    client.set_httpx_client(
        httpx.Client(
            base_url="http://testserver",
            transport=httpx.WSGITransport(app=application),
            headers={"Authorization": f"Token {token}"},
        )
    )
    return client


def test_the_client_pages_through_a_long_history(
    generated: Generated, world: World, keep_test_connection: None
) -> None:
    """63 closed months: the server answers 50 a page; the client asks for the next page
    (``page``, declared in the schema) until ``next`` is null and gets every month."""
    north = world.north
    first, second = north.players[0], north.players[1]
    months = [datetime.date(2020 + n // 12, n % 12 + 1, 10) for n in range(63)]
    for day in months:
        game_services.game_create(
            club=north.club,
            by=north.users["owner"],
            list="blitz",
            date=day,
            white=first.pk,
            black=second.pk,
            result="1/2-1/2",
        )
        period = RatingPeriod.objects.get(
            rating_list__club=north.club, rating_list__kind="blitz", month=day.replace(day=1)
        )
        game_services.period_close(period=period, by=north.users["officer"])
    client = in_process(generated, north.users["viewer"])
    history = generated.operation("players_history")
    seen: list[str] = []
    page = 1
    while True:
        answer = history.sync(client=client, club=north.slug, id=first.pk, list_="blitz", page=page)
        assert type(answer).__name__ == "HistoryPage", answer
        seen += [row.period for row in answer.results]
        if not answer.next_:
            break
        page += 1
    assert page == 2
    assert seen == [f"{day:%Y-%m}" for day in months]
    assert answer.count == len(months)


def test_the_client_saves_a_club_export_that_zipfile_opens(
    generated: Generated, world: World, keep_test_connection: None, tmp_path: Path
) -> None:
    client = in_process(generated, world.north.users["owner"])
    done = generated.operation("clubs_export").sync(client=client, club=world.north.slug)
    job = done.download.rstrip("/").split("/")[-2]
    file = generated.operation("jobs_download").sync(client=client, id=job)
    saved = tmp_path / "north.zip"
    saved.write_bytes(file.payload.read())
    with zipfile.ZipFile(saved) as archive:
        assert MANIFEST in archive.namelist()
        manifest = json.loads(archive.read(MANIFEST))
    assert manifest["club"]["slug"] == world.north.slug
