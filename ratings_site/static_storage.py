"""The production storage of static files: WhiteNoise's compressed, hashed files, and,
before ``collectstatic`` has written its manifest, the files under their plain names.

Choosing the hashing storage only when ``staticfiles.json`` already existed meant that
``collectstatic`` itself (run before there is one) used the plain storage, which never
writes it: the site never served hashed files. This storage is chosen always; until the
manifest exists (and the process that serves was started after it was written) URLs keep
the plain names, which WhiteNoise serves from the apps (``WHITENOISE_USE_FINDERS``)."""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage  # type: ignore[import-untyped]


class StaticStorage(CompressedManifestStaticFilesStorage):  # type: ignore[misc]
    def stored_name(self, name: str) -> str:
        if not self.hashed_files:
            # Not collected yet: every page would answer 500 for a name without a hash.
            return name
        return str(super().stored_name(name))
