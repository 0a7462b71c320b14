"""The API's JSON parser: text that is not valid Unicode is refused at the door.

JSON can spell a lone surrogate (``"\\ud800"``): Python reads it into a ``str`` that no
UTF-8 encoder accepts (the database's, the answer's, a cache key's), so the first one to
meet it failed with a server error. Such text is bad input: a 400 naming the field (its
path in the body, as the error shape names fields), before any serializer, throttle or
service sees it. Bytes that are not UTF-8 never get this far: DRF's decoder refuses them
(a 400 ``parse_error`` that names the byte and its position).
"""

from __future__ import annotations

import codecs
import io
import re
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from rest_framework import exceptions, parsers

# Any surrogate code point in a parsed str is a lone one: the JSON decoder joins a
# well-formed pair ("\ud83d\ude00") into the one character it spells.
SURROGATE = re.compile("[\ud800-\udfff]")
# In UTF-8 a parsed string can hold a surrogate only where the text escapes one.
ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")


def lone_surrogate(data: Any) -> tuple[str, str] | None:
    """The first string of ``data`` holding a surrogate: (its field's name in the error
    shape's spelling, ``ratings[0].list``; the code point), or None."""
    pending: list[tuple[str, Any]] = [("", data)]
    while pending:
        name, value = pending.pop()
        if isinstance(value, str):
            found = SURROGATE.search(value)
            if found is not None:
                return name or "non_field_errors", f"U+{ord(found.group()):04X}"
        elif isinstance(value, dict):
            for key, item in value.items():
                inner = f"{name}.{key}" if name else str(key)
                found = SURROGATE.search(key)
                if found is not None:
                    return (
                        f"{name or 'non_field_errors'} (a field's name)",
                        f"U+{ord(found.group()):04X}",
                    )
                pending.append((inner, item))
        elif isinstance(value, list):
            pending.extend((f"{name}[{index}]", item) for index, item in enumerate(value))
    return None


class JSONParser(parsers.JSONParser):
    def parse(
        self,
        stream: Any,
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        raw: bytes = stream.read()
        data = super().parse(io.BytesIO(raw), media_type, parser_context)
        encoding = (parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET
        if codecs.lookup(encoding).name == "utf-8" and ESCAPED_SURROGATE.search(raw) is None:
            # No escape that spells a surrogate: nothing to look for (walking a 10,000-game
            # bulk create's strings took 4 times its parse).
            return data
        found = lone_surrogate(data)
        if found is not None:
            name, code_point = found
            message = f"Not valid Unicode: a lone surrogate ({code_point}). Send UTF-8 text."
            raise exceptions.ValidationError({name: [message]})
        return data
