"""Checking one assistant answer against the offered tools.

Pure functions: an assistant message (as a dict) in, validated calls and problems out.
Arguments are decoded within the bounds of `_limits` (size, depth, number length, finite
numbers only): whatever the model sends becomes a problem to feed back, never an exception.
A validator that raises something other than `ValueError`/`AssertionError` is a bug in the
tool, not a mistake of the model: it raises `ToolValidatorError`.
"""

from __future__ import annotations

import json
import math
import types
import typing
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from toolcall_sdk._errors import ModelRetry, ToolValidatorError
from toolcall_sdk._feedback import CUT_OFF, field_errors_from_pydantic, fields_summary
from toolcall_sdk._limits import (
    MAX_ARGUMENTS_CHARS,
    MAX_ARGUMENTS_DEPTH,
    MAX_NUMBER_CHARS,
    MAX_QUOTED_NAME_CHARS,
    shorten,
)
from toolcall_sdk._results import Problem, ToolCall
from toolcall_sdk._tools import Tool
from toolcall_sdk.parsing._json import too_deep
from toolcall_sdk.parsing.repair import repair_arguments

__all__ = ["check_answer", "drop_null_defaults", "no_call_problem", "read_arguments"]


def check_answer(
    message: Mapping[str, Any],
    tools: Mapping[str, Tool[..., Any]],
    *,
    context: Any = None,
    schemas: Mapping[str, Mapping[str, Any]] | None = None,
    finish_reason: str | None = None,
    repairs: list[str] | None = None,
) -> tuple[list[ToolCall], list[Problem]]:
    """Validate every tool call of an assistant message.

    Before validation, each call's argument text gets the deterministic repairs of
    `toolcall_sdk.parsing.repair` (a JSON string inside JSON, lossless scalar strings, a
    closing brace lost at a clean stop); none of them changes a value's meaning.

    Args:
        message: The assistant message, with `tool_calls` in OpenAI form.
        tools: The tools that were offered, by name.
        context: Passed to Pydantic as the validation context.
        schemas: The parameters schema sent for each tool (enables scalar repairs).
        finish_reason: The choice's finish reason (closing a truncated object needs "stop").
        repairs: Receives `tool:repair` for each repair made.

    Returns:
        The calls that passed and the problems of those that did not. An answer with no
        tool call at all gives one `no_tool_call` problem. When the answer ran into the token
        limit (`finish_reason == "length"`), a `no_tool_call` or `invalid_json` problem's
        message starts with `CUT_OFF`, and its feedback says the call was cut off.
    """
    raw_calls = message.get("tool_calls") or []
    if not raw_calls:
        return [], [no_call_problem(finish_reason)]
    calls: list[ToolCall] = []
    problems: list[Problem] = []
    for index, raw in enumerate(raw_calls):
        function = raw.get("function") or {}
        call_id = str(raw.get("id") or f"call_{index}")
        name = function.get("name")
        arguments = function.get("arguments")
        raw_arguments = arguments if isinstance(arguments, str) else _as_text(arguments)
        if isinstance(arguments, dict):
            # Some servers send the arguments as an object: read them again from their JSON
            # text, so the same bounds (finite numbers, depth, number length) apply.
            arguments = raw_arguments
        tool = tools.get(name) if isinstance(name, str) else None
        if tool is None:
            quoted = shorten(name, MAX_QUOTED_NAME_CHARS) if isinstance(name, str) else name
            problems.append(
                Problem(
                    kind="unknown_tool",
                    message=f"no tool named {quoted!r}",
                    tool_name=name if isinstance(name, str) else None,
                    call_id=call_id,
                    raw_arguments=raw_arguments,
                )
            )
            continue
        oversized = isinstance(arguments, str) and len(arguments) > MAX_ARGUMENTS_CHARS
        if isinstance(arguments, str) and arguments.strip() and not oversized:
            schema = (schemas or {}).get(tool.name)
            arguments, made = repair_arguments(
                arguments, schema, finish_reason=finish_reason, name=tool.name
            )
            if repairs is not None:
                repairs.extend(f"{tool.name}:{repair}" for repair in made)
        data, json_error = read_arguments(arguments, finish_reason=finish_reason)
        if json_error is not None:
            problems.append(
                Problem(
                    kind="invalid_json",
                    message=json_error,
                    tool_name=tool.name,
                    call_id=call_id,
                    raw_arguments=raw_arguments,
                )
            )
            continue
        try:
            instance = tool.args_model.model_validate(
                drop_null_defaults(tool.args_model, data), context=context
            )
        except ValidationError as exc:
            fields = field_errors_from_pydantic(exc.errors(include_url=False))
            problems.append(
                Problem(
                    kind="invalid_arguments",
                    message=fields_summary(fields),
                    tool_name=tool.name,
                    call_id=call_id,
                    raw_arguments=raw_arguments,
                    fields=fields,
                )
            )
            continue
        except ModelRetry as signal:  # a validator may ask for another call, like the tool
            problems.append(
                Problem(
                    kind="tool_retry",
                    message=signal.message,
                    tool_name=tool.name,
                    call_id=call_id,
                    raw_arguments=raw_arguments,
                )
            )
            continue
        except Exception as exc:
            raise ToolValidatorError(
                f"a validator of tool {tool.name!r} raised {type(exc).__name__}: {exc} "
                f"(call {call_id}). Validators must raise ValueError or AssertionError for "
                "input the model should correct; anything else is a bug in the tool",
                tool_name=tool.name,
                call_id=call_id,
            ) from exc
        calls.append(
            ToolCall(id=call_id, name=tool.name, arguments=instance, raw_arguments=raw_arguments)
        )
    return calls, problems


def no_call_problem(finish_reason: str | None) -> Problem:
    """The `no_tool_call` problem of an answer without a call (cut off, or in text)."""
    return Problem(
        kind="no_tool_call", message=_marked("the answer has no tool call", finish_reason)
    )


def read_arguments(
    arguments: Any, *, finish_reason: str | None = None
) -> tuple[dict[str, Any], str | None]:
    """Decode a call's arguments within the bounds of `_limits`.

    The one reading of arguments, so that every path names a failure alike: the client's
    validation, and the eval's raw pipelines, which take calls as they come.

    Args:
        arguments: The call's `arguments` (JSON text; "" or None for no parameters).
        finish_reason: The choice's finish reason.

    Returns:
        The object and None, or `{}` and the message of an `invalid_json` problem; it
        starts with `CUT_OFF` when the answer ran into the token limit.
    """
    data, error = _parse_arguments(arguments)
    return data, None if error is None else _marked(error, finish_reason)


def _marked(message: str, finish_reason: str | None) -> str:
    """A problem's message, marked when the answer was cut off at the token limit."""
    return f"{CUT_OFF}: {message}" if finish_reason == "length" else message


def _as_text(arguments: Any) -> str:
    try:
        return json.dumps(arguments, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return "<arguments that are not JSON>"  # fails to decode: fed back as invalid JSON


def _parse_arguments(arguments: Any) -> tuple[dict[str, Any], str | None]:
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        # Servers send "" (or nothing) for a call without parameters.
        return {}, None
    if not isinstance(arguments, str):
        return {}, f"expected a JSON object, got {type(arguments).__name__}"
    if len(arguments) > MAX_ARGUMENTS_CHARS:
        return {}, (
            f"{len(arguments)} characters, over the {MAX_ARGUMENTS_CHARS}-character limit; "
            "send shorter arguments"
        )
    # Checked before decoding: the standard decoder recurses once per level.
    if too_deep(arguments):
        return {}, f"nested deeper than {MAX_ARGUMENTS_DEPTH} levels"
    try:
        data = _DECODER.decode(arguments)
    except json.JSONDecodeError as exc:
        return {}, f"{exc.msg} at character {exc.pos}"
    except _Refused as exc:
        return {}, str(exc)
    except RecursionError:  # a deep stack at the caller; the depth check keeps us far from it
        return {}, f"nested deeper than {MAX_ARGUMENTS_DEPTH} levels"
    if not isinstance(data, dict):
        return {}, f"expected a JSON object, got a JSON {type(data).__name__}"
    return data, None


class _Refused(ValueError):
    """A value the bounded decoder will not produce; the message is the model's feedback."""


def _bounded_int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise _Refused(f"a number longer than {MAX_NUMBER_CHARS} characters")
    return int(text)


def _bounded_float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise _Refused(f"a number longer than {MAX_NUMBER_CHARS} characters")
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"{text} is beyond the range of a float; send a finite number")
    return value


def _refuse_constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON value; send a finite number")


# Standard JSON only, every number finite and of bounded length, so a float parameter never
# sees NaN or an infinity and no integer conversion can fail or take quadratic time.
_DECODER = json.JSONDecoder(
    parse_int=_bounded_int, parse_float=_bounded_float, parse_constant=_refuse_constant
)


def drop_null_defaults(model: type[BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    """Remove `null` values sent for optional fields that do not accept None.

    In strict form an optional field is required but nullable, so a model that wants the
    default sends `null`. Removing the key lets Pydantic apply the default; a field whose
    type admits None keeps the explicit null.
    """
    out = dict(data)
    for name, field in model.model_fields.items():
        key = field.alias or name
        if key not in out:
            continue
        value = out[key]
        if value is None:
            if not field.is_required() and not _admits_none(field.annotation):
                del out[key]
            continue
        nested = _model_of(field.annotation)
        if nested is None:
            continue
        if isinstance(value, dict):
            out[key] = drop_null_defaults(nested, value)
        elif isinstance(value, list):
            out[key] = [
                drop_null_defaults(nested, item) if isinstance(item, dict) else item
                for item in value
            ]
    return out


def _admits_none(annotation: Any) -> bool:
    if annotation is None or annotation is type(None) or annotation is Any:
        return True
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _admits_none(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return any(_admits_none(arg) for arg in typing.get_args(annotation))
    return False


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The Pydantic model inside `Model`, `Model | None`, `list[Model]`, if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_of(arg)
        if found is not None:
            return found
    return None
