"""The live figures' ranking (``ranked``): ranks as a list gives them, and the order the
live API serves by default without sorting again (``ordering=rank``)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tournaments.api.live import ORDERINGS
from tournaments.services.live import LiveRow, ranked

_UNRANKED_FIELDS = len(LiveRow._fields) - 1


def _row(player_id: int, name: str, live_rating: int | None) -> tuple[object, ...]:
    fields = dict.fromkeys(LiveRow._fields[:_UNRANKED_FIELDS])
    fields.update(player_id=player_id, name=name, live_rating=live_rating, games=1, event="")
    return tuple(fields.values())


# Few names and ratings, so that ties (the cases the order must settle) are common.
_rows = st.lists(
    st.tuples(st.sampled_from(["Ann", "Bo", "Cy"]), st.none() | st.integers(1400, 1403)),
    max_size=30,
).map(lambda drawn: [_row(pid, name, rating) for pid, (name, rating) in enumerate(drawn, 1)])


@given(_rows)
def test_ranked_is_the_apis_default_order(rows: list[tuple[object, ...]]) -> None:
    out = ranked(rows)
    assert out == sorted(out, key=ORDERINGS["rank"])


@given(_rows)
def test_equal_live_ratings_share_a_rank_and_the_unrated_have_none(
    rows: list[tuple[object, ...]],
) -> None:
    out = ranked(rows)
    assert all(type(row) is LiveRow for row in out)
    assert sorted(tuple(row[:-1]) for row in out) == sorted(rows)
    for row in out:
        if row.live_rating is None:
            assert row.rank is None
        else:
            better = sum(
                1 for r in out if r.live_rating is not None and r.live_rating > row.live_rating
            )
            assert row.rank == better + 1
