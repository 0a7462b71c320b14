"""Rating list (CSV, fixed-width TXT) and player history (CSV) exports."""

from __future__ import annotations

import csv
import io
from fractions import Fraction

from tournaments.interchange import (
    HistoryRow,
    ListRow,
    StateValue,
    write_history_csv,
    write_list_csv,
    write_list_txt,
)
from tournaments.interchange.exports import LIST_TXT_COLUMNS

ROWS = [
    ListRow(
        player_id=17,
        name="Petrov, Ivan",
        title="GM",
        federation="RUS",
        rating=2580,
        games=9,
        birth_year=1985,
        flag="",
        k=10,
        fide_id=4100011,
        sex="m",
    ),
    ListRow(
        player_id=203,
        name='=HYPERLINK("x")',
        title="",
        federation="ENG",
        rating=None,
        games=0,
        birth_year=None,
        flag="wi",
        k=40,
        sex="w",
    ),
]


def test_list_csv() -> None:
    rows = list(csv.reader(io.StringIO(write_list_csv(ROWS))))
    assert rows == [
        [
            "id",
            "fide_id",
            "name",
            "title",
            "federation",
            "sex",
            "rating",
            "games",
            "birth_year",
            "flag",
            "k",
            "fide_rating",
            "fide_month",
        ],
        ["17", "4100011", "Petrov, Ivan", "GM", "RUS", "m", "2580", "9", "1985", "", "10", "", ""],
        # A name that a spreadsheet would run as a formula is defused; unrated is blank.
        ["203", "", '\'=HYPERLINK("x")', "", "ENG", "w", "", "0", "", "wi", "40", "", ""],
    ]


def test_list_txt_columns() -> None:
    """FIDE's list's labels and widths (left-aligned, as FIDE's), the FIDE ID in ``ID
    Number`` (blank without one), our id last in its own column."""
    lines = write_list_txt(ROWS).splitlines()
    starts = [0]
    for _header, width, _right in LIST_TXT_COLUMNS:
        starts.append(starts[-1] + width)
    assert lines[0].startswith("ID Number      Name")
    assert lines[0].split() == [
        "ID", "Number", "Name", "Fed", "Sex", "Tit", "SRtng", "SGm", "SK", "B-day", "Flag",
        "Club-ID",
    ]  # fmt: skip
    petrov = lines[1]

    def cell(line: str, index: int) -> str:
        return line[starts[index] : starts[index + 1]].strip()

    count = len(LIST_TXT_COLUMNS)
    assert [cell(petrov, i) for i in range(count)] == [
        "4100011",
        "Petrov, Ivan",
        "RUS",
        "M",
        "GM",
        "2580",
        "9",
        "10",
        "1985",
        "",
        "17",
    ]
    assert petrov[starts[5] : starts[6]] == "2580  "  # left-aligned, as FIDE's
    unrated = lines[2]
    assert [cell(unrated, i) for i in range(count)] == [
        "",
        '=HYPERLINK("x")',
        "ENG",
        "W",
        "",
        "",
        "0",
        "40",
        "",
        "wi",
        "203",
    ]
    assert len(petrov) == starts[-2] + len("17")  # trailing blanks trimmed


def test_list_txt_rating_columns_name_the_kind() -> None:
    header = write_list_txt(ROWS, kind="rapid").splitlines()[0].split()
    assert header[6:9] == ["RRtng", "RGm", "RK"]
    assert write_list_txt(ROWS, kind="blitz").splitlines()[0].split()[6:9] == [
        "BRtng",
        "BGm",
        "BK",
    ]


def test_history_csv() -> None:
    text = write_history_csv(
        [
            HistoryRow(
                period="2026-10",
                list_kind="standard",
                rating_before=None,
                rating_after=1712,
                change=None,
                change_unrounded=None,
                games=7,
                score=Fraction(9, 2),
                expected=None,
                k=40,
                k_reason="new_player",
                note="first rating",
            ),
            HistoryRow(
                period="2026-11",
                list_kind="standard",
                rating_before=1712,
                rating_after=1698,
                change=-14,
                change_unrounded=Fraction(-1405, 100),
                games=5,
                score=Fraction(2),
                expected=Fraction(2351, 1000),
                k=40,
                k_reason="new_player",
            ),
        ]
    )
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[1] == [
        "2026-10",
        "standard",
        "",
        "1712",
        "",
        "",
        "7",
        "4.5",
        "",
        "40",
        "new_player",
        "first rating",
    ]
    # Fractions are rounded exactly, half away from zero: -14.05 stays, 2.351 -> 2.35.
    assert rows[2] == [
        "2026-11",
        "standard",
        "1712",
        "1698",
        "-14",
        "-14.05",
        "5",
        "2.0",
        "2.35",
        "40",
        "new_player",
        "",
    ]


def test_history_csv_header_is_the_fide_one_without_glicko2_rows() -> None:
    fide = HistoryRow(
        period="2026-10",
        list_kind="blitz",
        rating_before=1800,
        rating_after=1790,
        change=-10,
        change_unrounded=Fraction(-10),
        games=1,
        score=Fraction(0),
        expected=Fraction(1, 2),
        k=20,
        k_reason="rated_30_games",
    )
    plain = list(csv.reader(io.StringIO(write_history_csv([fide]))))
    assert plain[0][-1] == "note"
    assert len(plain[1]) == len(plain[0])
    glicko = HistoryRow(
        period="2026-10",
        list_kind="arena",
        rating_before=1500,
        rating_after=1464,
        change=-36,
        change_unrounded=None,
        games=3,
        score=Fraction(1),
        expected=None,
        k=None,
        k_reason="",
        state_before=(StateValue("rd", 200.0, 2), StateValue("volatility", 0.06, 6)),
        state_after=(StateValue("rd", 151.52, 2), StateValue("volatility", 0.059996, 6)),
    )
    mixed = list(csv.reader(io.StringIO(write_history_csv([fide, glicko]))))
    assert mixed[0][-5:] == [
        "note",
        "rd_before",
        "rd_after",
        "volatility_before",
        "volatility_after",
    ]
    # The FIDE row's Glicko-2 cells are blank; the Glicko-2 row's are at the published
    # precision (RD two decimals, volatility six).
    assert mixed[1][-4:] == ["", "", "", ""]
    assert mixed[2][-4:] == ["200.00", "151.52", "0.060000", "0.059996"]
    assert mixed[2][1] == "arena"
