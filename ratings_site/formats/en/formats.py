"""English dates on the pages: "6 Feb 2026" (day first, as the club's other papers)."""

DATE_FORMAT = "j M Y"
