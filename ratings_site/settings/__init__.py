"""Settings: ``base`` for every environment, ``production`` for deployments."""
