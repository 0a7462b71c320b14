"""Who may do what: every operation of the generated schema, two clubs, every role.

The operations come from the OpenAPI schema itself, and ``test_every_operation_has_a_rule``
fails when the schema has one that ``RULES`` does not cover, so a new endpoint cannot
escape this matrix.

For each operation and each club (``north`` private, ``south`` public), every user kind
(owner, officer, arbiter, viewer of that club, the owner of the other club, a signed-in
stranger, anonymous) is checked against the rule: allowed -> the success status;
forbidden role -> 403; anonymous where a role is needed -> 401; a private club to a
non-member -> 404. A refused request must leave the database unchanged. List endpoints
must show none of the other club's rows; paths naming another club's object answer 404;
writes naming another club's object answer 400 naming the field.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator

from players.models import Role
from tests.api.conftest import (
    PASSWORD,
    ClubWorld,
    World,
    assert_error_shape,
    client_for,
    db_snapshot,
    make_user,
)

pytestmark = pytest.mark.django_db

WRITE_METHODS = {"POST", "PATCH", "PUT", "DELETE"}
READ = "read"  # anyone who may see the club
SIGNED_IN = "signed_in"
UNSCOPED = "unscoped"  # not under a club: checked by their own tests below

Body = Callable[[ClubWorld, ClubWorld], Any]


@dataclass(frozen=True)
class Rule:
    need: str  # READ, SIGNED_IN, UNSCOPED, or a Role value
    success: int = 200
    body: Body | None = None
    # Path values: {id} is the object the operation acts on; {list}/{period} choose the
    # list and month in the fixture's state where the operation can succeed.
    id: Callable[[ClubWorld], int] | None = None
    list: str = "standard"
    period: str = "2026-02"
    # For list endpoints: the identifiers of a club's rows, to prove no foreign row leaks.
    rows: Callable[[ClubWorld], set[Any]] | None = None
    row_key: str = "id"
    # A body naming the other club's objects -> 400 naming these fields.
    foreign: tuple[Body, set[str]] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def player_ids(cw: ClubWorld) -> set[int]:
    return {p.pk for p in cw.players} | {cw.spare_player.pk}


def game_ids(cw: ClubWorld) -> set[int]:
    return set(cw.club.games.values_list("pk", flat=True))


def tournament_ids(cw: ClubWorld) -> set[int]:
    return set(cw.club.tournaments.values_list("pk", flat=True))


def usernames(cw: ClubWorld) -> set[str]:
    return {u.username for u in cw.users.values()} | {cw.extra["claimant"].username}


def claim_ids(cw: ClubWorld) -> set[int]:
    return set(cw.club.player_claims.values_list("pk", flat=True))


def invitation_ids(cw: ClubWorld) -> set[int]:
    return set(cw.club.invitations.values_list("pk", flat=True))


def webhook_ids(cw: ClubWorld) -> set[int]:
    return set(cw.club.webhooks.values_list("pk", flat=True))


def delivery_ids(cw: ClubWorld) -> set[str]:
    return {str(d.pk) for d in cw.extra["webhook"].deliveries.all()}


def game_audit_ids(cw: ClubWorld) -> set[int]:
    from tournaments.models import Game

    return set(Game.history.filter(club_id=cw.club.pk).values_list("history_id", flat=True))


def new_game(cw: ClubWorld, other: ClubWorld) -> dict[str, Any]:
    p1, p2 = cw.players[0], cw.players[1]
    return {"list": "blitz", "date": "2026-04-05", "white": p1.pk, "black": p2.pk, "result": "1-0"}


RULES: dict[tuple[str, str], Rule] = {
    ("POST", "/api/v1/auth/token/"): Rule(UNSCOPED),
    ("POST", "/api/v1/auth/logout/"): Rule(UNSCOPED),
    ("POST", "/api/v1/calculate/"): Rule(UNSCOPED),
    ("POST", "/api/v1/calculate/glicko2/"): Rule(UNSCOPED),
    # Public pages only, whoever asks (tests/ratings_site/test_embed.py: a private club is 404).
    ("GET", "/api/v1/oembed/"): Rule(
        UNSCOPED, body=lambda cw, o: {"url": "http://testserver/clubs/south/lists/standard/"}
    ),
    ("GET", "/api/v1/clubs/"): Rule(UNSCOPED),
    ("POST", "/api/v1/clubs/"): Rule(UNSCOPED),
    ("GET", "/api/v1/clubs/{club}/"): Rule(READ),
    ("PATCH", "/api/v1/clubs/{club}/"): Rule(
        Role.OWNER, body=lambda cw, o: {"name": f"Renamed {cw.slug}"}
    ),
    ("GET", "/api/v1/clubs/{club}/members/"): Rule(Role.VIEWER, rows=usernames, row_key="username"),
    # A non-member is invited: 202 (tests/accounts/test_member_invitations.py).
    ("POST", "/api/v1/clubs/{club}/members/"): Rule(
        Role.OWNER, success=202, body=lambda cw, o: {"username": "stranger", "role": "viewer"}
    ),
    ("GET", "/api/v1/clubs/{club}/members/{username}/"): Rule(Role.VIEWER),
    ("PATCH", "/api/v1/clubs/{club}/members/{username}/"): Rule(
        Role.OWNER, body=lambda cw, o: {"role": "arbiter"}
    ),
    ("DELETE", "/api/v1/clubs/{club}/members/{username}/"): Rule(Role.OWNER, success=204),
    ("GET", "/api/v1/clubs/{club}/invitations/"): Rule(Role.OWNER, rows=invitation_ids),
    ("POST", "/api/v1/clubs/{club}/invitations/"): Rule(
        Role.OWNER, success=201, body=lambda cw, o: {"email": "new@example.org", "role": "viewer"}
    ),
    ("GET", "/api/v1/clubs/{club}/invitations/{id}/"): Rule(
        Role.OWNER, id=lambda cw: cw.extra["invitation"].pk
    ),
    ("DELETE", "/api/v1/clubs/{club}/invitations/{id}/"): Rule(
        Role.OWNER, success=204, id=lambda cw: cw.extra["invitation"].pk
    ),
    # A member claims the spare player; each role's own claims: tests/api/test_claims_api.py.
    ("GET", "/api/v1/clubs/{club}/claims/"): Rule(Role.OFFICER, rows=claim_ids),
    ("POST", "/api/v1/clubs/{club}/claims/"): Rule(
        Role.VIEWER,
        success=201,
        body=lambda cw, o: {"player": cw.spare_player.pk},
        foreign=(lambda cw, o: {"player": o.spare_player.pk}, {"player"}),
    ),
    # The claimant (none of the matrix's users) reads their own too.
    ("GET", "/api/v1/clubs/{club}/claims/{id}/"): Rule(
        Role.OFFICER, id=lambda cw: cw.extra["claim"].pk
    ),
    ("POST", "/api/v1/clubs/{club}/claims/{id}/decision/"): Rule(
        Role.OFFICER, id=lambda cw: cw.extra["claim"].pk, body=lambda cw, o: {"decision": "approve"}
    ),
    ("GET", "/api/v1/claims/"): Rule(UNSCOPED),
    ("GET", "/api/v1/clubs/{club}/lists/"): Rule(READ),
    ("POST", "/api/v1/clubs/{club}/lists/"): Rule(
        Role.OWNER,
        success=201,
        body=lambda cw, o: {"slug": "online", "kind": "blitz", "system": "glicko2", "tau": 0.6},
    ),
    ("GET", "/api/v1/clubs/{club}/lists/{list}/"): Rule(READ),
    ("PATCH", "/api/v1/clubs/{club}/lists/{list}/"): Rule(
        Role.OWNER, body=lambda cw, o: {"apply_400_rule": False}
    ),
    ("GET", "/api/v1/clubs/{club}/players/"): Rule(READ, rows=player_ids),
    ("POST", "/api/v1/clubs/{club}/players/"): Rule(
        Role.ARBITER,
        success=201,
        body=lambda cw, o: {
            "name": "New Player",
            "ratings": [{"list": "standard", "rating": 1600, "rated_games": 3}],
        },
    ),
    ("GET", "/api/v1/clubs/{club}/players/{id}/"): Rule(READ),
    ("PATCH", "/api/v1/clubs/{club}/players/{id}/"): Rule(
        Role.ARBITER, body=lambda cw, o: {"active": False}
    ),
    ("DELETE", "/api/v1/clubs/{club}/players/{id}/"): Rule(
        Role.ARBITER, success=204, id=lambda cw: cw.spare_player.pk
    ),
    ("GET", "/api/v1/clubs/{club}/players/{id}/history/"): Rule(READ),
    ("GET", "/api/v1/clubs/{club}/players/{id}/k-history/"): Rule(READ),
    ("POST", "/api/v1/clubs/{club}/players/{id}/k-override/"): Rule(
        Role.OFFICER, body=lambda cw, o: {"list": "standard", "k": 30, "note": "trainer asked"}
    ),
    ("GET", "/api/v1/clubs/{club}/players/duplicates/"): Rule(Role.OFFICER),
    ("POST", "/api/v1/clubs/{club}/players/{id}/merge/"): Rule(
        Role.OFFICER,
        body=lambda cw, o: {"duplicate": cw.spare_player.pk},
        foreign=(lambda cw, o: {"duplicate": o.spare_player.pk}, {"duplicate"}),
    ),
    ("GET", "/api/v1/clubs/{club}/tournaments/"): Rule(READ, rows=tournament_ids),
    ("POST", "/api/v1/clubs/{club}/tournaments/"): Rule(
        Role.ARBITER,
        success=201,
        body=lambda cw, o: {
            "name": "Spring Open",
            "list": "standard",
            "start_date": "2026-04-01",
            "end_date": "2026-04-03",
        },
    ),
    ("GET", "/api/v1/clubs/{club}/tournaments/{id}/"): Rule(READ, id=lambda cw: cw.tournament.pk),
    ("PATCH", "/api/v1/clubs/{club}/tournaments/{id}/"): Rule(
        Role.ARBITER, id=lambda cw: cw.tournament.pk, body=lambda cw, o: {"city": "Ghent"}
    ),
    ("DELETE", "/api/v1/clubs/{club}/tournaments/{id}/"): Rule(
        Role.ARBITER, success=204, id=lambda cw: cw.tournament.pk
    ),
    ("GET", "/api/v1/clubs/{club}/games/"): Rule(READ, rows=game_ids),
    ("POST", "/api/v1/clubs/{club}/games/"): Rule(
        Role.ARBITER,
        success=201,
        body=new_game,
        foreign=(
            lambda cw, o: [
                new_game(cw, o),
                {**new_game(cw, o), "black": o.players[0].pk, "tournament": o.tournament.pk},
            ],
            {"[1].tournament"},
        ),
    ),
    ("GET", "/api/v1/clubs/{club}/games/{id}/"): Rule(READ, id=lambda cw: cw.open_game.pk),
    ("PATCH", "/api/v1/clubs/{club}/games/{id}/"): Rule(
        Role.ARBITER,
        id=lambda cw: cw.open_game.pk,
        body=lambda cw, o: {"result": "1/2-1/2"},
        foreign=(lambda cw, o: {"white": o.players[0].pk}, {"white"}),
    ),
    ("DELETE", "/api/v1/clubs/{club}/games/{id}/"): Rule(
        Role.ARBITER, success=204, id=lambda cw: cw.open_game.pk
    ),
    ("GET", "/api/v1/clubs/{club}/lists/{list}/periods/"): Rule(READ),
    ("POST", "/api/v1/clubs/{club}/lists/{list}/periods/"): Rule(
        Role.ARBITER, success=201, body=lambda cw, o: {"period": "2026-05"}
    ),
    ("GET", "/api/v1/clubs/{club}/lists/{list}/periods/{period}/"): Rule(READ),
    ("GET", "/api/v1/clubs/{club}/lists/{list}/periods/{period}/preview/"): Rule(Role.VIEWER),
    ("GET", "/api/v1/clubs/{club}/lists/{list}/periods/{period}/changes/"): Rule(Role.VIEWER),
    ("POST", "/api/v1/clubs/{club}/lists/{list}/periods/{period}/close/"): Rule(Role.OFFICER),
    ("POST", "/api/v1/clubs/{club}/lists/{list}/periods/{period}/reopen/"): Rule(
        Role.OFFICER, period="2026-01"
    ),
    ("POST", "/api/v1/clubs/{club}/lists/{list}/replay/"): Rule(Role.OFFICER, list="rapid"),
    ("GET", "/api/v1/clubs/{club}/lists/{list}/ratings/"): Rule(
        READ, rows=player_ids, row_key="player"
    ),
    ("GET", "/api/v1/clubs/{club}/lists/{list}/ratings.csv"): Rule(READ),
    ("GET", "/api/v1/clubs/{club}/lists/{list}/live/"): Rule(
        READ, rows=player_ids, row_key="player"
    ),
    ("GET", "/api/v1/clubs/{club}/lists/{list}/live.csv"): Rule(READ),
    ("GET", "/api/v1/clubs/{club}/lists/{list}/statistics/"): Rule(READ),
    ("GET", "/api/v1/clubs/{club}/players/{id}/live/"): Rule(READ),
    ("GET", "/api/v1/clubs/{club}/tournaments/{id}/entries/"): Rule(
        READ, id=lambda cw: cw.tournament.pk
    ),
    ("PUT", "/api/v1/clubs/{club}/tournaments/{id}/entries/"): Rule(
        Role.OFFICER,
        id=lambda cw: cw.tournament.pk,
        body=lambda cw, o: {"players": [p.pk for p in cw.players]},
        foreign=(lambda cw, o: {"players": [o.players[0].pk]}, {"players"}),
    ),
    ("GET", "/api/v1/clubs/{club}/tournaments/{id}/forecast/"): Rule(
        READ, id=lambda cw: cw.tournament.pk
    ),
    ("GET", "/api/v1/clubs/{club}/players/{id}/forecast/"): Rule(
        READ, body=lambda cw, o: {"opponent": cw.players[1].pk}
    ),
    # A GET's body is its query string.
    ("GET", "/api/v1/clubs/{club}/audit/"): Rule(
        Role.OFFICER, body=lambda cw, o: {"model": "game"}, rows=game_audit_ids
    ),
    # A multipart upload (this matrix posts JSON): its roles, 404 for other clubs and
    # "a refused request writes nothing" are tested in tests/api/test_imports_api.py.
    ("POST", "/api/v1/clubs/{club}/imports/"): Rule(UNSCOPED),
    # Multipart too: roles and refusals in tests/tournaments/test_fide_list.py.
    ("POST", "/api/v1/clubs/{club}/fide-list/"): Rule(UNSCOPED),
    ("POST", "/api/v1/clubs/{club}/lists/{list}/history-export/"): Rule(Role.VIEWER),
    ("POST", "/api/v1/clubs/{club}/export/"): Rule(Role.OWNER),
    ("GET", "/api/v1/clubs/{club}/webhooks/"): Rule(Role.OWNER, rows=webhook_ids),
    ("POST", "/api/v1/clubs/{club}/webhooks/"): Rule(
        Role.OWNER,
        success=201,
        body=lambda cw, o: {"url": "https://93.184.215.14/new", "events": ["list.published"]},
    ),
    ("GET", "/api/v1/clubs/{club}/webhooks/{id}/"): Rule(
        Role.OWNER, id=lambda cw: cw.extra["webhook"].pk
    ),
    ("PATCH", "/api/v1/clubs/{club}/webhooks/{id}/"): Rule(
        Role.OWNER, id=lambda cw: cw.extra["webhook"].pk, body=lambda cw, o: {"active": True}
    ),
    ("DELETE", "/api/v1/clubs/{club}/webhooks/{id}/"): Rule(
        Role.OWNER, success=204, id=lambda cw: cw.extra["webhook"].pk
    ),
    ("POST", "/api/v1/clubs/{club}/webhooks/{id}/ping/"): Rule(
        Role.OWNER, success=202, id=lambda cw: cw.extra["webhook"].pk
    ),
    ("GET", "/api/v1/clubs/{club}/webhooks/{id}/deliveries/"): Rule(
        Role.OWNER, id=lambda cw: cw.extra["webhook"].pk, rows=delivery_ids
    ),
    ("GET", "/api/v1/clubs/{club}/webhooks/{webhook}/deliveries/{id}/"): Rule(
        Role.OWNER, id=lambda cw: cw.extra["delivery"].pk
    ),
    ("POST", "/api/v1/clubs/{club}/webhooks/{webhook}/deliveries/{id}/redeliver/"): Rule(
        Role.OWNER, success=202, id=lambda cw: cw.extra["delivery"].pk
    ),
    # Not under a club's path: scoped by the job's club, tested in tests/api/test_jobs_api.py.
    ("GET", "/api/v1/jobs/{id}/"): Rule(UNSCOPED),
    ("GET", "/api/v1/jobs/{id}/download/"): Rule(UNSCOPED),
}


def schema_operations() -> list[tuple[str, str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return [
        (method.upper(), path)
        for path, operations in schema["paths"].items()
        for method in operations
        if method in {"get", "post", "put", "patch", "delete"}
    ]


OPERATIONS = schema_operations()
SCOPED = [op for op in OPERATIONS if RULES.get(op, Rule(UNSCOPED)).need != UNSCOPED]


def test_every_operation_has_a_rule() -> None:
    assert set(OPERATIONS) == set(RULES), (
        f"not in RULES: {sorted(set(OPERATIONS) - set(RULES))}; "
        f"not in the schema: {sorted(set(RULES) - set(OPERATIONS))}"
    )


def url_for(path: str, rule: Rule, cw: ClubWorld, *, object_id: int | None = None) -> str:
    values = {
        "club": cw.slug,
        "list": rule.list,
        "period": rule.period,
        "username": cw.users["viewer"].username,
        "webhook": str(cw.extra["webhook"].pk),
    }
    if "{id}" in path:
        values["id"] = str(
            object_id if object_id is not None else (rule.id or (lambda c: c.players[0].pk))(cw)
        )
    return path.format(**values)


def request(method: str, url: str, user: Any | None, body: Any = None) -> Any:
    client = client_for(user)
    return getattr(client, method.lower())(url, body, format="json")


USER_KINDS = ("owner", "officer", "arbiter", "viewer", "other_club_owner", "stranger", "anonymous")


def user_of(kind: str, world: World, cw: ClubWorld) -> Any | None:
    if kind in cw.users:
        return cw.users[kind]
    if kind == "other_club_owner":
        return world.other(cw).users["owner"]
    if kind == "stranger":
        return world.stranger
    return None


def expected_status(rule: Rule, method: str, kind: str, cw: ClubWorld) -> int:
    anonymous = kind == "anonymous"
    member = kind in cw.users
    if not cw.club.public and not member:
        # Anonymous writes are refused before the club is looked up; both leak nothing.
        return 401 if anonymous and method in WRITE_METHODS else 404
    if rule.need == READ:
        return rule.success
    if anonymous:
        return 401
    if not member or not Role.includes(kind, rule.need):
        return 403
    return rule.success


def least_role(rule: Rule) -> str:
    return rule.need if rule.need != READ else "viewer"


@pytest.mark.parametrize(("method", "path"), SCOPED, ids=[f"{m} {p}" for m, p in SCOPED])
def test_roles_on_both_clubs(world: World, method: str, path: str) -> None:
    rule = RULES[(method, path)]
    for cw in (world.north, world.south):
        other = world.other(cw)
        url = url_for(path, rule, cw)
        body = rule.body(cw, other) if rule.body else None
        allowed: list[str] = []
        # Taken once: each refused request below is held to leave the rows just so.
        before = db_snapshot()
        for kind in USER_KINDS:
            status = expected_status(rule, method, kind, cw)
            if status == rule.success:
                allowed.append(kind)
                continue
            response = request(method, url, user_of(kind, world, cw), body)
            assert response.status_code == status, (kind, cw.slug, response.content[:300])
            assert_error_shape(response.json())
            assert db_snapshot() == before, (kind, cw.slug, "a refused request wrote")
        if method in WRITE_METHODS:
            # A write succeeds once; the higher roles are covered by test_higher_roles_write.
            allowed = [least_role(rule) if rule.need != READ else allowed[0]]
        for kind in allowed:
            response = request(method, url, user_of(kind, world, cw), body)
            assert response.status_code == rule.success, (kind, cw.slug, response.content[:300])
            if rule.rows is not None:
                rows = response.json()["results"]
                assert rows, "the fixture should give this list rows"
                shown = {row[rule.row_key] for row in rows}
                assert shown <= rule.rows(cw), (kind, shown - rule.rows(cw))
                assert not shown & rule.rows(other) - rule.rows(cw), (kind, "foreign rows")


WRITES_BY_HIGHER_ROLES = [
    (method, path, role)
    for method, path in SCOPED
    if method in WRITE_METHODS
    for role in Role.at_least(RULES[(method, path)].need)[1:]
]


@pytest.mark.parametrize(
    ("method", "path", "role"),
    WRITES_BY_HIGHER_ROLES,
    ids=[f"{m} {p} {r}" for m, p, r in WRITES_BY_HIGHER_ROLES],
)
def test_higher_roles_write(world: World, method: str, path: str, role: str) -> None:
    """Each role includes the rights of the ones below it (north, the private club)."""
    cw, other = world.north, world.south
    rule = RULES[(method, path)]
    body = rule.body(cw, other) if rule.body else None
    response = request(method, url_for(path, rule, cw), cw.users[role], body)
    assert response.status_code == rule.success, response.content[:300]


ID_OPERATIONS = [op for op in SCOPED if "{id}" in op[1] or "{username}" in op[1]]


@pytest.mark.parametrize(
    ("method", "path"), ID_OPERATIONS, ids=[f"{m} {p}" for m, p in ID_OPERATIONS]
)
def test_paths_naming_another_clubs_object_are_404(world: World, method: str, path: str) -> None:
    rule = RULES[(method, path)]
    cw, other = world.south, world.north
    # The owner of south, who may do anything in south, names north's object through south.
    if "{id}" in path:
        url = url_for(path, rule, cw, object_id=(rule.id or (lambda c: c.players[0].pk))(other))
    else:
        url = path.format(club=cw.slug, username=other.users["viewer"].username)
    body = rule.body(cw, other) if rule.body else None
    before = db_snapshot()
    response = request(method, url, cw.users["owner"], body)
    assert response.status_code == 404, response.content[:300]
    assert_error_shape(response.json())
    assert db_snapshot() == before


FOREIGN_WRITES = [op for op in SCOPED if RULES[op].foreign is not None]


@pytest.mark.parametrize(
    ("method", "path"), FOREIGN_WRITES, ids=[f"{m} {p}" for m, p in FOREIGN_WRITES]
)
def test_writes_naming_another_clubs_object_are_400(world: World, method: str, path: str) -> None:
    rule = RULES[(method, path)]
    assert rule.foreign is not None
    make_body, fields = rule.foreign
    for cw in (world.north, world.south):
        other = world.other(cw)
        before = db_snapshot()
        response = request(method, url_for(path, rule, cw), cw.users["owner"], make_body(cw, other))
        assert response.status_code == 400, response.content[:300]
        assert_error_shape(response.json())
        assert fields <= set(response.json()["error"]["fields"]), response.json()
        assert db_snapshot() == before


@pytest.mark.parametrize(
    ("field", "fields"),
    [("white", {"white"}), ("black", {"black"}), ("tournament", {"tournament"})],
)
def test_one_game_naming_another_clubs_object_is_400(
    world: World, field: str, fields: set[str]
) -> None:
    cw, other = world.north, world.south
    foreign = {"tournament": other.tournament.pk}.get(field, other.players[0].pk)
    body = {**new_game(cw, other), field: foreign}
    before = db_snapshot()
    response = request("POST", f"/api/v1/clubs/{cw.slug}/games/", cw.users["owner"], body)
    assert response.status_code == 400, response.content[:300]
    assert set(response.json()["error"]["fields"]) == fields
    assert db_snapshot() == before


# -- the operations outside a club -----------------------------------------------------------


def test_clubs_list_shows_only_visible_clubs(world: World) -> None:
    def slugs(user: Any | None) -> set[str]:
        response = client_for(user).get("/api/v1/clubs/")
        assert response.status_code == 200
        return {row["slug"] for row in response.json()["results"]}

    assert slugs(None) == {"south"}
    assert slugs(world.stranger) == {"south"}
    assert slugs(world.south.users["owner"]) == {"south"}
    assert slugs(world.north.users["viewer"]) == {"north", "south"}
    roles = {
        row["slug"]: row["role"]
        for row in client_for(world.north.users["arbiter"]).get("/api/v1/clubs/").json()["results"]
    }
    assert roles == {"north": "arbiter", "south": None}


def test_club_create_needs_a_signed_in_user(world: World) -> None:
    body = {"name": "East", "slug": "east"}
    before = db_snapshot()
    response = client_for(None).post("/api/v1/clubs/", body, format="json")
    assert response.status_code == 401
    assert_error_shape(response.json())
    assert db_snapshot() == before
    response = client_for(world.stranger).post("/api/v1/clubs/", body, format="json")
    assert response.status_code == 201
    assert response.json()["role"] == "owner"


def test_token_and_logout() -> None:
    make_user("dora")

    client = client_for(None)
    token = client.post("/api/v1/auth/token/", {"username": "dora", "password": PASSWORD})
    assert token.status_code == 200
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['token']}")
    assert client.post("/api/v1/auth/logout/").status_code == 204
    again = client.post("/api/v1/auth/logout/")
    assert again.status_code == 401
    assert_error_shape(again.json())
    anonymous = client_for(None).post("/api/v1/auth/logout/")
    assert anonymous.status_code == 401
    assert_error_shape(anonymous.json())


def test_calculator_stays_open_to_anonymous() -> None:
    body = {"rating": 1850, "k_factor": 20, "games": [{"opponent_rating": 1792, "result": "1"}]}
    assert client_for(None).post("/api/v1/calculate/", body, format="json").status_code == 200


def test_token_endpoint_is_throttled(settings: Any) -> None:
    # The address's count alone (the lockout and the per-username count are tested in
    # tests/accounts/test_doors.py): a different username each time.
    settings.AXES_ENABLED = False
    client = client_for(None)
    statuses = [
        client.post("/api/v1/auth/token/", {"username": f"erin{n}", "password": "x"}).status_code
        for n in range(31)
    ]
    assert statuses[:30] == [400] * 30
    assert statuses[30] == 429
    last = client.post("/api/v1/auth/token/", {"username": "erin", "password": "x"})
    assert_error_shape(last.json())
