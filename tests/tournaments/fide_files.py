"""FIDE rating list files written for the tests (and the benchmark): the TXT with FIDE's
header and fixed columns, the XML, either zipped."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass

# FIDE's TXT header as downloaded (players_list_foa.txt): the reader takes its offsets.
TXT_HEADER = (
    "ID Number      Name                                                         Fed Sex Tit "
    " WTit OTit           FOA SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag"
)
_STARTS = {label: TXT_HEADER.index(label) for label in ("Name", "Fed", "Sex")}
_STARTS |= {"Tit": TXT_HEADER.index(" Tit ") + 1, "WTit": TXT_HEADER.index("WTit")}
_STARTS |= {
    label: TXT_HEADER.index(label) for label in ("SRtng", "RRtng", "BRtng", "B-day", "Flag")
}


@dataclass(frozen=True)
class Row:
    fide_id: int
    name: str
    fed: str
    sex: str = "M"
    title: str = ""
    women_title: str = ""
    standard: int | None = None
    rapid: int | None = None
    blitz: int | None = None
    birth_year: int | None = None
    flag: str = ""


def txt_line(row: Row) -> str:
    cells = [" "] * len(TXT_HEADER)

    def put(label: str, text: str) -> None:
        start = _STARTS[label] if label != "ID" else 0
        for offset, char in enumerate(text):
            if start + offset < len(cells):
                cells[start + offset] = char
            else:
                cells.append(char)

    put("ID", str(row.fide_id))
    put("Name", row.name)
    put("Fed", row.fed)
    put("Sex", row.sex)
    put("Tit", row.title)
    put("WTit", row.women_title)
    put("SRtng", str(row.standard or ""))
    put("RRtng", str(row.rapid or ""))
    put("BRtng", str(row.blitz or ""))
    put("B-day", str(row.birth_year or "0000"))
    put("Flag", row.flag)
    return "".join(cells).rstrip()


def txt(rows: Iterable[Row]) -> bytes:
    return ("\n".join([TXT_HEADER, *(txt_line(row) for row in rows)]) + "\n").encode()


def xml(rows: Iterable[Row]) -> bytes:
    def player(row: Row) -> str:
        def cell(tag: str, value: object) -> str:
            return f"<{tag}>{'' if value is None else value}</{tag}>"

        return (
            "<player>"
            + cell("fideid", row.fide_id)
            + cell("name", row.name)
            + cell("country", row.fed)
            + cell("sex", row.sex)
            + cell("title", row.title)
            + cell("w_title", row.women_title)
            + cell("o_title", "")
            + cell("foa_title", "")
            + cell("rating", row.standard)
            + cell("games", 0)
            + cell("k", 20)
            + cell("rapid_rating", row.rapid)
            + cell("rapid_games", 0)
            + cell("rapid_k", 20)
            + cell("blitz_rating", row.blitz)
            + cell("blitz_games", 0)
            + cell("blitz_k", 20)
            + cell("birthday", row.birth_year or "")
            + cell("flag", row.flag)
            + "</player>\n"
        )

    body = "".join(player(row) for row in rows)
    return f'<?xml version="1.0" encoding="utf-8"?>\n<playerslist>\n{body}</playerslist>\n'.encode()


def zipped(name: str, data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, data)
    return out.getvalue()
