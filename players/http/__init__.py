"""What every HTTP interface of the project shares, whichever app it serves: the API's
bases (:mod:`.api`: the error shape, pagination, the views under
``/api/v1/clubs/{club}/`` with their club lookup and role check), the admin's
(:mod:`.admin`: scoping by membership role, saves through services), the cache of public
pages and answers (:mod:`.cache`), and the API's parsers, renderers, schema extensions,
ordering, throttles and token authentication.

The domain's own endpoints and admin screens live with their app (``players/api/``,
``players/admin/``, ``tournaments/api/``...); they build on these.
"""
