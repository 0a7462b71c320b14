"""Claims of player records: a member claims, an officer of that club decides; the link is
the officer's link by hand; the refusals write nothing; the audit trail has it all."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction

from players.errors import ConflictError, NotFoundError, PermissionDeniedError, ValidationFailed
from players.models import ClaimStatus, Club, Player, PlayerClaim, Role
from players.selectors import (
    claim_choice,
    claim_get_visible,
    claim_to_decide,
    claims_of_club,
    claims_of_user,
    claims_to_decide,
)
from players.services import (
    claim_create,
    claim_decide,
    club_create,
    membership_set,
    player_create,
    player_update,
)
from tests.api.conftest import db_snapshot

pytestmark = pytest.mark.django_db


def _user(name: str) -> Any:
    return get_user_model().objects.create_user(name)


@dataclass
class Two:
    north: Club  # private
    south: Club  # public
    officers: dict[str, Any]
    arbiter: Any
    ann: Any  # member of both clubs
    bob: Any  # member of north only
    players: dict[str, Player]


@pytest.fixture
def two() -> Two:
    owner_n, owner_s = _user("owner-n"), _user("owner-s")
    north = club_create(name="North", slug="north", public=False, by=owner_n)
    south = club_create(name="South", slug="south", public=True, by=owner_s)
    officer_n, officer_s, arbiter = _user("officer-n"), _user("officer-s"), _user("arbiter-n")
    ann, bob = _user("ann"), _user("bob")
    membership_set(club=north, user=officer_n, role=Role.OFFICER, by=owner_n)
    membership_set(club=south, user=officer_s, role=Role.OFFICER, by=owner_s)
    membership_set(club=north, user=arbiter, role=Role.ARBITER, by=owner_n)
    for club, owner in ((north, owner_n), (south, owner_s)):
        membership_set(club=club, user=ann, role=Role.VIEWER, by=owner)
    membership_set(club=north, user=bob, role=Role.VIEWER, by=owner_n)
    players = {
        key: player_create(club=club, by=owner, name=name)
        for key, club, owner, name in (
            ("ann_n", north, owner_n, "Ann Archer"),
            ("other_n", north, owner_n, "Otto Other"),
            ("third_n", north, owner_n, "Tom Third"),
            ("ann_s", south, owner_s, "Ann Archer"),
        )
    }
    return Two(
        north,
        south,
        {"north": officer_n, "south": officer_s, "owner_n": owner_n},
        arbiter,
        ann,
        bob,
        players,
    )


def test_claims_across_two_clubs_each_decided_by_its_own_officers(two: Two) -> None:
    in_north = claim_create(club=two.north, player_id=two.players["ann_n"].pk, by=two.ann)
    in_south = claim_create(club=two.south, player_id=two.players["ann_s"].pk, by=two.ann)
    assert in_north.status == in_south.status == ClaimStatus.PENDING
    # South's officer cannot decide north's claim (north is private to them: 404), nor
    # may north's arbiter (a role below officer).
    with pytest.raises(NotFoundError):
        claim_decide(claim=in_north, by=two.officers["south"], approve=True)
    with pytest.raises(PermissionDeniedError):
        claim_decide(claim=in_north, by=two.arbiter, approve=True)
    assert PlayerClaim.objects.get(pk=in_north.pk).status == ClaimStatus.PENDING

    claim_decide(claim=in_north, by=two.officers["north"], approve=True)
    claim_decide(claim=in_south, by=two.officers["south"], approve=False, note="Not you: born 1950")
    two.players["ann_n"].refresh_from_db()
    two.players["ann_s"].refresh_from_db()
    assert two.players["ann_n"].user_id == two.ann.pk
    assert two.players["ann_s"].user_id is None
    south = PlayerClaim.objects.get(pk=in_south.pk)
    assert (south.status, south.note, south.decided_by_id) == (
        ClaimStatus.DECLINED,
        "Not you: born 1950",
        two.officers["south"].pk,
    )
    # Declined: the member may claim again (one account, one record per club still).
    again = claim_create(club=two.south, player_id=two.players["ann_s"].pk, by=two.ann)
    assert again.status == ClaimStatus.PENDING


def test_a_claim_of_a_linked_record_is_refused_naming_the_player(two: Two) -> None:
    player_update(player=two.players["other_n"], by=two.officers["north"], user="bob")
    before = db_snapshot()
    with pytest.raises(ConflictError) as other:
        claim_create(club=two.north, player_id=two.players["other_n"].pk, by=two.ann)
    assert other.value.fields == {
        "player": ["This record is linked to another member's account already."]
    }
    with pytest.raises(ConflictError) as own:
        claim_create(club=two.north, player_id=two.players["other_n"].pk, by=two.bob)
    assert own.value.fields == {"player": ["This record is linked to your account already."]}
    assert db_snapshot() == before


def test_one_account_one_record_per_club(two: Two) -> None:
    player_update(player=two.players["ann_n"], by=two.officers["north"], user="ann")
    before = db_snapshot()
    with pytest.raises(ConflictError) as linked:
        claim_create(club=two.north, player_id=two.players["other_n"].pk, by=two.ann)
    assert "Ann Archer" in linked.value.fields["player"][0]
    assert "one record per club" in linked.value.fields["player"][0]
    assert db_snapshot() == before
    # A waiting claim counts too: bob cannot claim a second record of north meanwhile.
    claim_create(club=two.north, player_id=two.players["other_n"].pk, by=two.bob)
    before = db_snapshot()
    with pytest.raises(ConflictError) as waiting:
        claim_create(club=two.north, player_id=two.players["third_n"].pk, by=two.bob)
    assert "waiting" in waiting.value.fields["player"][0]
    assert db_snapshot() == before


def test_the_database_holds_one_waiting_claim_per_account_and_club(two: Two) -> None:
    claim_create(club=two.north, player_id=two.players["ann_n"].pk, by=two.ann)
    with pytest.raises(IntegrityError), transaction.atomic():
        PlayerClaim.objects.create(club=two.north, player=two.players["other_n"], user=two.ann)
    with pytest.raises(IntegrityError), transaction.atomic():
        # A decided claim carries its decision's time.
        PlayerClaim.objects.create(
            club=two.south, player=two.players["ann_s"], user=two.ann, status="approved"
        )


def test_other_refusals(two: Two) -> None:
    stranger = _user("stranger")
    before = db_snapshot()
    with pytest.raises(NotFoundError):  # north is private: a stranger does not see it
        claim_create(club=two.north, player_id=two.players["ann_n"].pk, by=stranger)
    with pytest.raises(PermissionDeniedError):  # south is public, but not their club
        claim_create(club=two.south, player_id=two.players["ann_s"].pk, by=stranger)
    with pytest.raises(PermissionDeniedError):  # bob is no member of south
        claim_create(club=two.south, player_id=two.players["ann_s"].pk, by=two.bob)
    with pytest.raises(ValidationFailed) as foreign:  # a player of another club
        claim_create(club=two.north, player_id=two.players["ann_s"].pk, by=two.ann)
    assert set(foreign.value.fields) == {"player"}
    assert db_snapshot() == before


def test_approval_declines_the_other_claims_of_the_record_and_decided_is_final(
    two: Two,
) -> None:
    ann = claim_create(club=two.north, player_id=two.players["ann_n"].pk, by=two.ann)
    bob = claim_create(club=two.north, player_id=two.players["ann_n"].pk, by=two.bob)
    claim_decide(claim=ann, by=two.officers["owner_n"], approve=True)
    bob.refresh_from_db()
    assert bob.status == ClaimStatus.DECLINED
    assert "Another member's claim" in bob.note
    before = db_snapshot()
    with pytest.raises(ConflictError) as decided:
        claim_decide(claim=bob, by=two.officers["north"], approve=True)
    assert set(decided.value.fields) == {"status"}
    assert db_snapshot() == before


def test_approval_refused_when_the_record_was_linked_meanwhile(two: Two) -> None:
    claim = claim_create(club=two.north, player_id=two.players["other_n"].pk, by=two.ann)
    player_update(player=two.players["other_n"], by=two.officers["north"], user="bob")
    before = db_snapshot()
    with pytest.raises(ConflictError) as refused:
        claim_decide(claim=claim, by=two.officers["north"], approve=True)
    assert set(refused.value.fields) == {"player"}
    assert db_snapshot() == before


def test_the_audit_trail_records_the_claim_and_the_link(two: Two) -> None:
    claim = claim_create(club=two.north, player_id=two.players["ann_n"].pk, by=two.ann)
    claim_decide(claim=claim, by=two.officers["north"], approve=True, note="welcome")
    rows = list(PlayerClaim.history.filter(id=claim.pk).order_by("history_id"))
    assert [(r.history_type, r.status) for r in rows] == [("+", "pending"), ("~", "approved")]
    assert rows[-1].decided_by_id == two.officers["north"].pk
    link = Player.history.filter(id=two.players["ann_n"].pk).order_by("history_id").last()
    assert link is not None
    assert link.user_id == two.ann.pk


def test_who_sees_which_claims(two: Two) -> None:
    north = claim_create(club=two.north, player_id=two.players["ann_n"].pk, by=two.ann)
    south = claim_create(club=two.south, player_id=two.players["ann_s"].pk, by=two.ann)
    bobs = claim_create(club=two.north, player_id=two.players["other_n"].pk, by=two.bob)
    assert set(claims_of_club(club=two.north)) == {north, bobs}
    assert set(claims_of_user(user=two.ann)) == {north, south}
    assert set(claims_of_user(user=two.bob)) == {bobs}
    assert set(claims_to_decide(user=two.officers["north"])) == {north, bobs}
    assert set(claims_to_decide(user=two.officers["south"])) == {south}
    assert claims_to_decide(user=two.arbiter) == []
    assert claims_to_decide(user=two.ann) == []
    assert claim_get_visible(club=two.north, claim_id=bobs.pk, user=two.bob) == bobs
    assert claim_get_visible(club=two.north, claim_id=bobs.pk, user=two.officers["north"]) == bobs
    with pytest.raises(PermissionDeniedError):
        claim_get_visible(club=two.north, claim_id=bobs.pk, user=two.ann)
    with pytest.raises(NotFoundError):  # another club's claim through this club
        claim_get_visible(club=two.north, claim_id=south.pk, user=two.officers["north"])
    with pytest.raises(NotFoundError):
        claim_to_decide(claim_id=north.pk, user=two.officers["south"])
    with pytest.raises(NotFoundError):
        claim_to_decide(claim_id=north.pk, user=two.ann)
    assert claim_to_decide(claim_id=north.pk, user=two.officers["owner_n"]) == north


def test_what_the_player_page_offers(two: Two) -> None:
    ann_n, other_n = two.players["ann_n"], two.players["other_n"]
    assert claim_choice(user=two.ann, player=ann_n) == "claim"
    assert claim_choice(user=_user("stranger"), player=ann_n) == ""
    claim_create(club=two.north, player_id=ann_n.pk, by=two.ann)
    assert claim_choice(user=two.ann, player=ann_n) == "waiting"
    assert claim_choice(user=two.ann, player=other_n) == ""
    player_update(player=other_n, by=two.officers["north"], user="bob")
    other_n.refresh_from_db()
    assert claim_choice(user=two.officers["north"], player=other_n) == ""


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("postgres_only")
def test_two_claims_of_one_account_at_once_one_is_kept(
    two: Two, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both requests pass the service's checks before either writes (the barrier): the
    database's one-waiting-claim constraint keeps one, and the other is refused cleanly."""
    barrier = threading.Barrier(2, timeout=10)
    original = PlayerClaim.objects.create

    def create_together(**kwargs: Any) -> PlayerClaim:
        barrier.wait()
        return original(**kwargs)

    monkeypatch.setattr(PlayerClaim.objects, "create", create_together)

    def claim(key: str) -> Any:
        try:
            return claim_create(club=two.north, player_id=two.players[key].pk, by=two.ann)
        except Exception as error:  # the thread's answer, asserted below
            return error
        finally:
            connection.close()

    threads = [
        threading.Thread(target=lambda k=k: results.append(claim(k))) for k in ("ann_n", "other_n")
    ]
    results: list[Any] = []
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    kept = [r for r in results if isinstance(r, PlayerClaim)]
    refused = [r for r in results if isinstance(r, ConflictError)]
    assert (len(kept), len(refused)) == (1, 1), results
    assert set(refused[0].fields) == {"player"}
    assert PlayerClaim.objects.filter(user=two.ann).count() == 1
