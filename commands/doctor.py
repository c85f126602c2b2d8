"""``ragjury doctor``: can the judge reach its model and get typed output back?"""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any, TYPE_CHECKING

import typer

from ragjury.commands._common import (
    MODEL_CONNECTION,
    JsonOption,
    print_json,
    settings_for,
    stdout,
    user_errors,
)
from ragjury.rag_agent.core.sync import run_sync

if TYPE_CHECKING:
    from ragjury.config.settings import (
        RagjurySettings,  # annotations only: loading them here would cost every --help
    )
    from ragjury.rag_agent.judges.health import Check


@user_errors
@MODEL_CONNECTION
def doctor(
    json_output: JsonOption = False,
    **connection: Any,
) -> None:
    """Check that the model server is reachable, the model is there, and one structured call works.

    Each failed check prints a plain fix. Exit code 0 when all pass, 1 otherwise.
    """
    settings = settings_for(**connection)
    from ragjury.rag_agent.judges.health import run_checks  # deferred: pydantic-ai

    checks = [shown(check) for check in run_sync(run_checks(settings))]
    if json_output:
        print_json(doctor_payload(settings, checks), command="doctor")
    else:
        for check in checks:
            mark = "[green]ok[/]  " if check.ok else "[red]FAIL[/]"
            stdout.print(f"{mark} {check.name}: {check.detail}", highlight=False)
            if not check.ok and check.fix:
                stdout.print(f"     fix: {check.fix}", highlight=False)
    if not all(check.ok for check in checks):
        raise typer.Exit(1)


def shown(check: Check) -> Check:
    """A check as it may be printed: credentials in a URL (``user:pw@``, ``?token=``) hidden."""
    from ragjury.config.redaction import redact_secrets

    return replace(check, name=redact_secrets(check.name), detail=redact_secrets(check.detail), fix=redact_secrets(check.fix))


def doctor_payload(settings: RagjurySettings, checks: list[Check]) -> dict[str, object]:
    """One JSON object, like every other ``--json``: a script reads ``ok`` and needs no special
    case for a bare list."""
    from ragjury.config.redaction import redact_url

    where = settings.ollama_host if settings.targets_ollama else ",".join(map(redact_url, settings.base_urls))
    return {
        "ok": all(check.ok for check in checks),
        "model": settings.judge_model,
        "server": where,
        "checks": [asdict(check) for check in checks],
    }


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor)


__all__ = [
    "doctor",
    "doctor_payload",
    "register",
]
