"""Settings: ``base`` for every environment, ``development`` (base and the workshop) for
manage.py and the tests, ``production`` (base, hardened) for deployments."""
