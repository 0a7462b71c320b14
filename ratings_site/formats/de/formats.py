"""German dates on the pages: "6. Februar 2026", as German clubs write them."""

DATE_FORMAT = "j. F Y"
