"""CLI commands; each module has ``register(app)`` and is listed in ``cli.COMMAND_MODULES``."""

__all__: list[str] = []
