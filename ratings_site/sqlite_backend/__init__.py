"""Django's SQLite backend, whose table rebuilds keep the schema's triggers (base.py)."""
