"""`@tool`: business functions (or Pydantic models) become tools the model can call.

The arguments model is a Pydantic model built from the function signature; the tool's
JSON schema, its validation and the call of the function all derive from that one model.
"""

from __future__ import annotations

import copy
import inspect
import re
import typing
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Generic, ParamSpec, TypeVar, overload

from pydantic import BaseModel, ConfigDict, Field, PydanticUserError, TypeAdapter, create_model
from pydantic_core import PydanticSerializationError, to_jsonable_python

from toolcall_sdk._context import RunContext, is_run_context
from toolcall_sdk._errors import ToolDefinitionError
from toolcall_sdk._schema import openai_tool_entry

if TYPE_CHECKING:
    import docstring_parser

__all__ = ["Tool", "build_tool", "tool"]

P = ParamSpec("P")
R = TypeVar("R")

# OpenAI and vLLM both accept function names of this form; anything else is rejected by
# some servers or mangled by some chat templates.
_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class Tool(Generic[P, R]):
    """A tool the model may call: a name, a description and a Pydantic arguments model.

    Created by `@tool`. Calling the object calls the wrapped function unchanged, so a
    decorated business function keeps working in ordinary code.

    Attributes:
        name: The function name the model sees.
        description: The description the model sees.
        args_model: The Pydantic model that validates the model's arguments.
        function: The business function, or None for a call-only tool made from a model.
        strict: True/False to force the strict schema form for this tool, None to follow
            the client's setting.
        timeout: Seconds `run()` waits for the function; None waits as long as it takes.
        requires_approval: `run()` pauses with `ApprovalRequired` before running it.
        examples: Hand-written argument examples, as JSON values; each stage-2 request that
            offers the tool shows them in its description.
    """

    def __init__(
        self,
        *,
        name: str,
        description: str,
        args_model: type[BaseModel],
        function: Callable[P, R] | None = None,
        strict: bool | None = None,
        model_parameter: str | None = None,
        timeout: float | None = None,
        requires_approval: bool = False,
        context_parameter: str | None = None,
        examples: Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        _check_name(name)
        _check_timeout(name, timeout)
        self.examples = _checked_examples(name, args_model, examples)
        self.name = name
        self.description = description
        self.args_model = args_model
        self.function = function
        self.strict = strict
        self.timeout = timeout
        self.requires_approval = requires_approval
        # Set when the function takes one Pydantic model: it gets the instance itself.
        self._model_parameter = model_parameter
        # Set when the function takes a RunContext: the caller's deps, never the model's.
        self._context_parameter = context_parameter
        self.is_async = function is not None and inspect.iscoroutinefunction(function)
        # `openai_schema()` entries already built, by what they are built from.
        self._schemas: dict[tuple[str, str, bool, type[BaseModel]], dict[str, Any]] = {}
        if function is not None:
            self.__doc__ = function.__doc__
            self.__wrapped__ = function

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        if self.function is None:
            raise ToolDefinitionError(
                f"tool {self.name!r} was defined from a model and has no function to call",
                tool_name=self.name,
            )
        return self.function(*args, **kwargs)

    def __repr__(self) -> str:
        kind = "async " if self.is_async else ""
        target = "call-only" if self.function is None else f"{kind}function"
        return f"<Tool {self.name!r} ({target})>"

    def openai_schema(self, *, strict: bool = True) -> dict[str, Any]:
        """The OpenAI `tools` entry for this tool.

        Args:
            strict: The client's default; the tool's own `strict` setting wins over it.

        Returns:
            `{"type": "function", "function": {"name", "description", "parameters", ...}}`.
        """
        use_strict = strict if self.strict is None else self.strict
        # Building the schema takes about a millisecond per tool (Pydantic's generator, then
        # the strict form); every client built on the tool, and the routers, ask again. The
        # key holds everything it is built from, so a changed attribute builds it anew.
        key = (self.name, self.description, use_strict, self.args_model)
        entry = self._schemas.get(key)
        if entry is None:
            entry = openai_tool_entry(
                name=self.name,
                description=self.description,
                parameters=self.args_model.model_json_schema(),
                strict=use_strict,
            )
            self._schemas[key] = entry
        return copy.deepcopy(entry)  # a caller may change its copy; the cached one stays

    @property
    def wants_context(self) -> bool:
        """Whether the function takes a `RunContext` parameter."""
        return self._context_parameter is not None

    def invoke(
        self, arguments: BaseModel, context: RunContext[Any] | None = None
    ) -> R | Awaitable[R]:
        """Call the business function with validated arguments.

        Args:
            arguments: The validated arguments model.
            context: Given to the function's `RunContext` parameter, if it has one (an
                empty `RunContext` when None).

        Returns the function's result, or an awaitable for an async function.
        """
        if self.function is None:
            raise ToolDefinitionError(
                f"tool {self.name!r} is call-only (defined from a model); it cannot be run",
                tool_name=self.name,
            )
        function: Callable[..., Any] = self.function
        if self._model_parameter is not None:
            values: dict[str, Any] = {self._model_parameter: arguments}
        else:
            values = {name: getattr(arguments, name) for name in type(arguments).model_fields}
        if self._context_parameter is not None:
            given = context if context is not None else RunContext(deps=None)
            values[self._context_parameter] = given
        return function(**values)  # type: ignore[no-any-return]


@overload
def tool(function: Callable[P, R], /) -> Tool[P, R]: ...


@overload
def tool(function: type[BaseModel], /) -> Tool[..., Any]: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    strict: bool | None = None,
    timeout: float | None = None,
    requires_approval: bool = False,
    examples: Sequence[Mapping[str, Any]] | None = None,
) -> Callable[[Callable[P, R]], Tool[P, R]]: ...


def tool(
    function: Callable[P, R] | type[BaseModel] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    strict: bool | None = None,
    timeout: float | None = None,
    requires_approval: bool = False,
    examples: Sequence[Mapping[str, Any]] | None = None,
) -> Tool[P, R] | Tool[..., Any] | Callable[[Callable[P, R]], Tool[P, R]]:
    """Turn a function (sync or async) or a Pydantic model into a tool.

    Use bare (`@tool`) or with options (`@tool(name=..., timeout=..., ...)`).
    Each parameter becomes a field of the arguments model: its annotation (including
    `Annotated[..., Field(...)]`), its default, and its line in the docstring's
    `Args:` section as the description. A function taking a single Pydantic model gets
    that model's fields as its arguments and is called with the validated instance.
    A parameter annotated `RunContext[...]` receives the run's dependencies and is not
    part of the arguments. A Pydantic model class on its own makes a call-only tool (no
    function to run).

    Args:
        function: The function or model (when used bare).
        name: The name the model sees; defaults to the function's `__name__`, or the
            model's class name in snake_case.
        description: Overrides the docstring's summary.
        strict: Force (True) or disable (False) the strict schema form for this tool;
            None follows the client.
        timeout: Seconds `run()` waits for the function. Past it, the call's `.error` is a
            `ToolTimeoutError`, the model is told, and the call is never run again. An
            async function is cancelled; a sync one runs in a worker thread that cannot
            be stopped: it finishes unwatched, its result dropped.
        requires_approval: `run()` stops with `ApprovalRequired` before running a call of
            this tool; `client.resume(state, approvals=...)` continues.
        examples: Argument examples written by hand, like Anthropic's `input_examples`:
            `[{"city": "Hanoi"}, {"city": "Oslo", "unit": "fahrenheit"}]`. Each stage-2
            request that offers the tool shows them in its description, one JSON line
            each. Checked here against the parameters' names (every required one given,
            no unknown one); the values are not validated (a rule about today's date would
            fail a good example later), but must be JSON values (dates become ISO text).

    Returns:
        A `Tool`, or a decorator producing one.
    """

    def build(target: Callable[P, R] | type[BaseModel]) -> Tool[P, R]:
        # The decorating frame's locals resolve string annotations of classes defined
        # next to the function (inside a test or a factory function).
        return build_tool(
            target,
            name=name,
            description=description,
            strict=strict,
            localns=_caller_locals(),
            timeout=timeout,
            requires_approval=requires_approval,
            examples=examples,
        )

    if function is None:
        return build
    return build_tool(
        function,
        name=name,
        description=description,
        strict=strict,
        localns=_caller_locals(),
        timeout=timeout,
        requires_approval=requires_approval,
        examples=examples,
    )


def _caller_locals() -> dict[str, Any]:
    frame = inspect.currentframe()
    try:
        caller = frame.f_back.f_back if frame and frame.f_back else None
        return dict(caller.f_locals) if caller is not None else {}
    finally:
        del frame


def build_tool(
    target: Callable[..., Any] | type[BaseModel],
    *,
    name: str | None,
    description: str | None,
    strict: bool | None,
    localns: dict[str, Any] | None = None,
    timeout: float | None = None,
    requires_approval: bool = False,
    examples: Sequence[Mapping[str, Any]] | None = None,
) -> Tool[Any, Any]:
    if isinstance(target, type) and issubclass(target, BaseModel):
        doc = _parse_docstring(target)
        model_name = name or _snake_case(target.__name__)
        _check_schema(target, model_name, "field")
        return Tool(
            name=model_name,
            description=description if description is not None else _summary(doc),
            args_model=target,
            strict=strict,
            timeout=timeout,
            requires_approval=requires_approval,
            examples=examples,
        )
    if not callable(target):
        raise ToolDefinitionError(f"@tool needs a function or a Pydantic model, got {target!r}")
    tool_name = name or getattr(target, "__name__", None)
    if not tool_name or tool_name == "<lambda>":
        raise ToolDefinitionError("a lambda or nameless callable needs @tool(name=...)")
    _check_name(tool_name)
    doc = _parse_docstring(target)
    args_model, model_parameter, context_parameter = _arguments_model(
        target, tool_name, doc, localns
    )
    return Tool(
        name=tool_name,
        description=description if description is not None else _summary(doc),
        args_model=args_model,
        function=target,
        strict=strict,
        model_parameter=model_parameter,
        timeout=timeout,
        requires_approval=requires_approval,
        context_parameter=context_parameter,
        examples=examples,
    )


def _arguments_model(
    function: Callable[..., Any],
    tool_name: str,
    doc: docstring_parser.Docstring,
    localns: dict[str, Any] | None,
) -> tuple[type[BaseModel], str | None, str | None]:
    """The arguments model, the single-model parameter and the `RunContext` parameter."""
    try:
        hints = typing.get_type_hints(function, localns=localns, include_extras=True)
    except NameError as exc:
        raise ToolDefinitionError(
            f"cannot resolve the annotations of {tool_name!r}: {exc}. Types used in annotations "
            "must be importable from the function's module (not defined inside a function) "
            "when the module uses `from __future__ import annotations`",
            tool_name=tool_name,
        ) from exc
    signature = inspect.signature(function)
    parameters = list(signature.parameters.values())
    contexts = [p.name for p in parameters if p.name in hints and is_run_context(hints[p.name])]
    if len(contexts) > 1:
        raise ToolDefinitionError(
            f"tool {tool_name!r}: parameters {contexts} all ask for the RunContext; keep one",
            tool_name=tool_name,
        )
    context_parameter = contexts[0] if contexts else None
    # The context comes from the caller, never from the model: not an argument.
    parameters = [p for p in parameters if p.name != context_parameter]
    for parameter in parameters:
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise ToolDefinitionError(
                f"tool {tool_name!r}: *args/**kwargs cannot be described to a model; "
                "name each parameter",
                tool_name=tool_name,
            )
        if parameter.kind is parameter.POSITIONAL_ONLY:
            raise ToolDefinitionError(
                f"tool {tool_name!r}: positional-only parameter {parameter.name!r} cannot be "
                "passed by name",
                tool_name=tool_name,
            )
        if parameter.name not in hints:
            raise ToolDefinitionError(
                f"tool {tool_name!r}: parameter {parameter.name!r} has no type annotation; "
                "the model needs a type to fill it",
                tool_name=tool_name,
            )

    if len(parameters) == 1:
        only = parameters[0]
        bare = _strip_annotated(hints[only.name])
        if isinstance(bare, type) and issubclass(bare, BaseModel):
            _check_schema(bare, tool_name, "field")
            return bare, only.name, context_parameter

    descriptions = {p.arg_name: p.description for p in doc.params if p.description}
    fields: dict[str, Any] = {}
    for parameter in parameters:
        annotation = _with_description(hints[parameter.name], descriptions.get(parameter.name))
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[parameter.name] = (annotation, default)
    try:
        model = create_model(
            _camel_case(tool_name),
            __config__=ConfigDict(extra="forbid"),
            __module__=getattr(function, "__module__", __name__),
            **fields,
        )
    except (PydanticUserError, TypeError) as exc:
        raise _unsupported(tool_name, "parameter", fields, exc) from exc
    _check_schema(model, tool_name, "parameter")
    return model, None, context_parameter


def _check_timeout(name: str, timeout: float | None) -> None:
    if timeout is None:
        return
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
        raise ToolDefinitionError(
            f"tool {name!r}: timeout must be a number of seconds above 0 (got {timeout!r}); "
            "use None for no limit",
            tool_name=name,
        )


def _checked_examples(
    name: str, args_model: type[BaseModel], examples: Sequence[Mapping[str, Any]] | None
) -> tuple[dict[str, Any], ...]:
    """The written examples as JSON values, each checked against the parameters' names."""
    if examples is None:
        return ()
    if isinstance(examples, (str, bytes, Mapping)) or not isinstance(examples, Sequence):
        raise ToolDefinitionError(
            f"tool {name!r}: examples must be a list of argument dicts, e.g. "
            f"examples=[{{...}}] (got {type(examples).__name__})",
            tool_name=name,
        )
    # A parameter may be given by its name or its alias (what the model sees).
    names = {key: {key, info.alias or key} for key, info in args_model.model_fields.items()}
    known = set().union(*names.values())
    required = [key for key, info in args_model.model_fields.items() if info.is_required()]
    checked: list[dict[str, Any]] = []
    for index, example in enumerate(examples):
        where = f"tool {name!r}: examples[{index}]"
        if not isinstance(example, Mapping):
            raise ToolDefinitionError(
                f"{where} must be a dict of arguments (got {type(example).__name__})",
                tool_name=name,
            )
        unknown = sorted(str(key) for key in example if key not in known)
        missing = [key for key in required if not names[key] & set(example)]
        if unknown or missing:
            said = [f"unknown {', '.join(map(repr, unknown))}"] if unknown else []
            said += [f"missing {', '.join(map(repr, missing))}"] if missing else []
            raise ToolDefinitionError(
                f"{where} does not fit the parameters ({'; '.join(said)}); "
                f"they are {', '.join(map(repr, names))}",
                tool_name=name,
            )
        try:
            checked.append(to_jsonable_python(dict(example)))
        except PydanticSerializationError as exc:
            raise ToolDefinitionError(
                f"{where} holds a value that is not JSON ({exc}); write examples as JSON values",
                tool_name=name,
            ) from exc
    return tuple(checked)


def _check_schema(model: type[BaseModel], tool_name: str, kind: str) -> None:
    """Fail at definition time when the model cannot be described to the model as JSON.

    Pydantic builds a validator for types it cannot express as JSON schema (callables, and
    any class once arbitrary types are allowed), so without this check the first request
    would fail instead, with an error naming neither the tool nor the parameter.
    """
    try:
        model.model_json_schema()
    except (PydanticUserError, TypeError) as exc:
        fields = {key: (info.annotation, ...) for key, info in model.model_fields.items()}
        raise _unsupported(tool_name, kind, fields, exc) from exc


def _unsupported(
    tool_name: str, kind: str, fields: dict[str, Any], exc: Exception
) -> ToolDefinitionError:
    culprit = next((key for key, (annotation, _) in fields.items() if _no_schema(annotation)), None)
    where = f"{kind} {culprit!r}" if culprit else f"a {kind}"
    if culprit is not None:
        detail = f" ({_type_name(fields[culprit][0])})"
    else:  # only Pydantic's words can say which part of the type it could not describe
        detail = f" ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
    return ToolDefinitionError(
        f"tool {tool_name!r}: {where}{detail} has a type that cannot be sent to the model as "
        "JSON. Use JSON-shaped types (str, int, float, bool, lists, dicts, Literal, Enum, "
        "dates, Pydantic models) and build other objects inside the tool",
        tool_name=tool_name,
    )


def _no_schema(annotation: Any) -> bool:
    try:
        TypeAdapter(annotation).json_schema()
    except (PydanticUserError, TypeError):
        return True
    return False


def _type_name(annotation: Any) -> str:
    name = getattr(annotation, "__name__", None)
    return name if isinstance(name, str) and not typing.get_args(annotation) else repr(annotation)


def _check_name(name: str) -> None:
    if not _NAME_PATTERN.match(name):
        raise ToolDefinitionError(
            f"tool name {name!r} is not valid: use 1-64 letters, digits, '_' or '-'",
            tool_name=name,
        )


def _strip_annotated(annotation: Any) -> Any:
    while typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _with_description(annotation: Any, description: str | None) -> Any:
    """Attach the docstring description so that an explicit `Field(description=)` still wins."""
    if not description:
        return annotation
    docstring_field = Field(description=description)
    if typing.get_origin(annotation) is Annotated:
        base, *metadata = typing.get_args(annotation)
        # Later metadata overrides earlier in Pydantic, so the user's own Field comes last.
        return Annotated[(base, docstring_field, *metadata)]
    return Annotated[annotation, docstring_field]


def _parse_docstring(target: Any) -> docstring_parser.Docstring:
    # Imported on the first @tool, not with the client: docstring_parser loads every style
    # it knows (Google, NumPy, reST, Epydoc) at import.
    import docstring_parser

    return docstring_parser.parse(inspect.getdoc(target) or "")


def _summary(doc: docstring_parser.Docstring) -> str:
    parts = [doc.short_description or "", doc.long_description or ""]
    return "\n\n".join(part.strip() for part in parts if part and part.strip())


def _camel_case(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[_\-]+", name) if part)


def _snake_case(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
