"""The API's JSON renderer: an answer is always valid UTF-8.

A lone surrogate in an answer's data (from input that escaped the parser's check, e.g. a
choice field's "not a valid choice" echoing the value) made DRF's ``.encode()`` fail,
and the answer became a server error. Such characters are written as U+FFFD, the
replacement character, as a UTF-8 encoder with ``errors="replace"`` would: every JSON
reader (strict ones too, which refuse an escaped lone surrogate) can read the answer.
Good answers render exactly as DRF renders them; the rewrite runs only after a failure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import renderers

from players.http.parsers import SURROGATE


def without_surrogates(data: Any) -> Any:
    """``data`` with every surrogate in its strings (keys too) replaced by U+FFFD."""
    if isinstance(data, str):
        return SURROGATE.sub("\ufffd", data)
    if isinstance(data, dict):
        return {without_surrogates(key): without_surrogates(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [without_surrogates(item) for item in data]
    return data


class JSONRenderer(renderers.JSONRenderer):
    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        try:
            rendered: bytes = super().render(data, accepted_media_type, renderer_context)
        except UnicodeEncodeError:
            rendered = super().render(
                without_surrogates(data), accepted_media_type, renderer_context
            )
        return rendered
