"""Option sets: options several commands take, declared once and added to each command's signature.

Why: the model connection (``--model``, ``--base-url``, ``--api-key``) was nine commands' three
parameters each, and ``verdict``'s four subcommands repeated one block of seven. A set is declared
here once; a command that takes it says ``@SET`` and gathers the values in ``**options``, so a new
shared option is one line in its set plus its use. The command's own function is what typer calls
(only its ``__signature__`` grows), so no wrapper frame sits between the CLI and a judgment.

A set may be declared by a frozen dataclass whose fields are the options (``OptionSet.of``): the
run options are ``RunOptions``'s fields, so a new run option is one field, and the command gathers
its values into one ``RunOptions``, never a dict of them.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class OptionSet:
    """Named options (a typer ``Annotated`` type and a default each), added as keyword-only
    parameters in place of the command's ``**options``."""

    def __init__(self, **options: tuple[Any, Any]) -> None:
        self.options = options
        self.place: str | None = None

    @classmethod
    def of(cls, fields: type, *, leave_out: Iterable[str] = ()) -> OptionSet:
        """The set a dataclass declares: one option per field (its ``Annotated`` type and its
        default), in field order, less the fields in ``leave_out``."""
        kinds = typing.get_type_hints(fields, include_extras=True)
        left_out = set(leave_out)
        return cls(**{field.name: (kinds[field.name], field.default) for field in dataclasses.fields(fields)
                      if field.name not in left_out})

    def after(self, name: str) -> OptionSet:
        """This set placed right after the command's parameter ``name``, not at the end: ``--help``
        lists a panel's options, and the panels, in signature order, so a set placed where its
        options were declared keeps the help as it was."""
        placed = OptionSet(**self.options)
        placed.place = name
        return placed

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.options)

    def __call__(self, command: F) -> F:
        signature = inspect.signature(command, eval_str=True)
        params = list(signature.parameters.values())
        if getattr(command, "__signature__", None) is not None:  # a second set: the first took the **options
            params.append(inspect.Parameter("options", inspect.Parameter.VAR_KEYWORD))
        if not params or params[-1].kind is not inspect.Parameter.VAR_KEYWORD:
            raise TypeError(f"{command.__name__} takes an option set: it needs a **options parameter to gather it")
        taken = [name for name in self.names if name in signature.parameters]
        if taken:
            raise TypeError(f"{command.__name__} declares {', '.join(taken)} itself and through an option set")
        added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=kind, default=default)
                 for name, (kind, default) in self.options.items()]
        kept = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
                else p for p in params[:-1]]
        names = [p.name for p in kept]
        if self.place is not None and self.place not in names:
            raise TypeError(f"{command.__name__} has no parameter {self.place} to place an option set after")
        at = len(kept) if self.place is None else names.index(self.place) + 1
        # typer reads this signature (without the **options, which it would take for an argument)
        # and calls the command itself with every value by keyword
        command.__signature__ = signature.replace(parameters=[*kept[:at], *added, *kept[at:]])  # type: ignore[attr-defined]
        return command

    def __add__(self, other: OptionSet) -> OptionSet:
        return OptionSet(**self.options, **other.options)

    def pick(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """This set's values out of a command's ``**options``."""
        return {name: values[name] for name in self.names if name in values}


__all__ = ["OptionSet"]
