"""A C extension's interface read three ways, to hold them to one another.

Each extension of the package is described three times: the protocol its seam types it
with (``Speedups`` in ``sanitizer/_native.py``, ``WebSpeedups`` in
``sanitizer/web/_native.py``), the stub mypy reads (``_speedups.pyi``) and the module
itself (its methods' ``__text_signature__``, which module.c writes at the head of each
docstring, and what the C code accepts).  ``check_interface`` compares them by name *and*
parameters; tests/core/test_native.py and tests/web/test_native.py run it.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

NO_DEFAULT = "<none>"
SOME_DEFAULT = "<some>"  # the protocol's ``= ...``: a default, value stated elsewhere


@dataclass(frozen=True)
class Param:
    name: str
    kind: inspect._ParameterKind
    default: object  # NO_DEFAULT, SOME_DEFAULT or the value
    annotation: str | None  # normalized source text; None where the source has none


@dataclass(frozen=True)
class Function:
    params: tuple[Param, ...]
    returns: str | None


Member = Function | str  # a function, or an attribute's type ("int")


def _norm(annotation: str | None) -> str | None:
    if annotation is None:
        return None
    return ast.unparse(ast.parse(annotation, mode="eval"))


def _stub_function(node: ast.FunctionDef) -> Function:
    args = node.args
    params: list[Param] = []
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for k, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        kind = (
            inspect.Parameter.POSITIONAL_ONLY
            if k < len(args.posonlyargs)
            else inspect.Parameter.POSITIONAL_OR_KEYWORD
        )
        params.append(Param(arg.arg, kind, _stub_default(default), _annotation(arg)))
    if args.vararg is not None:
        params.append(
            Param(
                args.vararg.arg,
                inspect.Parameter.VAR_POSITIONAL,
                NO_DEFAULT,
                _annotation(args.vararg),
            )
        )
    for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        params.append(
            Param(
                arg.arg, inspect.Parameter.KEYWORD_ONLY, _stub_default(kw_default), _annotation(arg)
            )
        )
    returns = None if node.returns is None else _norm(ast.unparse(node.returns))
    return Function(tuple(params), returns)


def _annotation(arg: ast.arg) -> str | None:
    return None if arg.annotation is None else _norm(ast.unparse(arg.annotation))


def _stub_default(node: ast.expr | None) -> object:
    if node is None:
        return NO_DEFAULT
    value = ast.literal_eval(node)
    return SOME_DEFAULT if value is Ellipsis else value


def stub_interface(path: Path) -> dict[str, Member]:
    """The public functions and attributes a ``.pyi`` declares."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: dict[str, Member] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = _stub_function(node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found[node.target.id] = _norm(ast.unparse(node.annotation)) or ""
    return {name: member for name, member in found.items() if not name.startswith("_")}


def _signature_params(signature: inspect.Signature, annotated: bool) -> tuple[Param, ...]:
    params = []
    for p in signature.parameters.values():
        if p.default is inspect.Parameter.empty:
            default: object = NO_DEFAULT
        elif p.default is Ellipsis:
            default = SOME_DEFAULT
        else:
            default = p.default
        annotation = None
        if annotated and p.annotation is not inspect.Parameter.empty:
            annotation = _norm(str(p.annotation))
        params.append(Param(p.name, p.kind, default, annotation))
    return tuple(params)


def protocol_interface(protocol: type) -> dict[str, Member]:
    """The members of a seam's protocol class (methods without ``self``; properties as
    attributes of their return type)."""
    found: dict[str, Member] = {}
    for name, value in vars(protocol).items():
        if name.startswith("_"):
            continue
        if isinstance(value, property):
            assert value.fget is not None
            found[name] = _norm(str(inspect.signature(value.fget).return_annotation)) or ""
        elif inspect.isfunction(value):
            signature = inspect.signature(value)
            params = _signature_params(signature, annotated=True)
            assert params and params[0].name == "self", name
            returns = signature.return_annotation
            found[name] = Function(
                params[1:], None if returns is inspect.Signature.empty else _norm(str(returns))
            )
    return found


def module_interface(module: ModuleType) -> dict[str, Member]:
    """The public attributes of a C extension: its functions' text signatures (no
    annotations: C has none), its constants' types."""
    found: dict[str, Member] = {}
    for name in dir(module):
        if name.startswith("_"):
            continue
        value = getattr(module, name)
        if callable(value):
            # ValueError here: a method whose docstring does not start with its signature
            found[name] = Function(_signature_params(inspect.signature(value), False), None)
        else:
            found[name] = type(value).__name__
    return found


def _without_annotations(member: Member) -> Member:
    if isinstance(member, str):
        return member
    params = tuple(Param(p.name, p.kind, p.default, None) for p in member.params)
    return Function(params, None)


def _without_default_values(member: Member) -> Member:
    if isinstance(member, str):
        return member
    params = tuple(
        Param(p.name, p.kind, NO_DEFAULT if p.default == NO_DEFAULT else SOME_DEFAULT, p.annotation)
        for p in member.params
    )
    return Function(params, member.returns)


_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


class _Sentinel:
    """An argument no C function takes as valid: only the arity is under test."""


def _refuses(fn: Callable[..., object], *args: object, **kwargs: object) -> bool:
    try:
        fn(*args, **kwargs)
    except TypeError:
        return True
    except Exception:
        return False
    return False


def check_interface(
    module: ModuleType,
    protocol: type,
    stub: Path,
    samples: Mapping[str, tuple[tuple[object, ...], dict[str, object]]],
) -> None:
    """The protocol, the stub and the module agree on every name and parameter; the C
    functions accept the calls in ``samples`` (name -> (args, kwargs), one a function:
    each function's sample passes every positional parameter) and refuse one positional
    argument too many, one too few, and an unknown keyword."""
    from_stub = stub_interface(stub)
    from_protocol = protocol_interface(protocol)
    from_module = module_interface(module)
    assert sorted(from_stub) == sorted(from_protocol) == sorted(from_module)
    for name, member in from_stub.items():
        # the protocol: the same names, kinds, annotations and returns (its defaults are ...)
        assert _without_default_values(member) == from_protocol[name], name
        # the module: the same names, kinds and default values (C states no types)
        if isinstance(member, str):
            assert member == from_module[name], name
        else:
            assert _without_annotations(member) == from_module[name], name
    functions = {n: m for n, m in from_module.items() if isinstance(m, Function)}
    assert sorted(samples) == sorted(functions)
    for name, member in functions.items():
        fn = getattr(module, name)
        positional = [
            p
            for p in member.params
            if p.kind
            in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        ]
        required = [p for p in positional if p.default == NO_DEFAULT]
        args, kwargs = samples[name]
        assert len(args) + sum(k in {p.name for p in positional} for k in kwargs) == len(
            positional
        ), f"the sample of {name} passes every positional parameter"
        fn(*args, **kwargs)  # accepted
        extra = [_Sentinel()] * (len(positional) + 1)
        assert _refuses(fn, *extra), f"{name} takes {len(positional) + 1} arguments"
        if required:
            fewer = [_Sentinel()] * (len(required) - 1)
            assert _refuses(fn, *fewer), f"{name} takes {len(required) - 1} arguments"
        assert _refuses(fn, *args, __not_a_parameter__=1), f"{name} takes any keyword"


def require(module: ModuleType | None, what: str) -> ModuleType:
    if module is None:  # pragma: no cover - the extension is optional
        pytest.skip(f"{what} not in use (not built, or SANITIZER_PURE_PYTHON=1)")
    return module
