"""The public API is typed: every function and method that quadrender
exports (its __all__), and those of its classes, annotates each parameter
and its return, so that type checkers and editors see them (py.typed
ships with the package)."""
import inspect
import os

import quadrender


def _public_callables():
    for name in quadrender.__all__:
        obj = getattr(quadrender, name)
        if inspect.isfunction(obj):
            yield name, obj
        elif inspect.isclass(obj) and not issubclass(obj, BaseException):
            for attr, fn in vars(obj).items():
                public = not attr.startswith("_") or attr in ("__init__", "__enter__", "__exit__",
                                                               "__new__")
                if public and inspect.isfunction(fn):
                    yield f"{name}.{attr}", fn


def test_every_public_callable_is_annotated():
    unannotated = []
    for name, fn in _public_callables():
        sig = inspect.signature(fn)
        for pname, p in sig.parameters.items():
            if pname in ("self", "cls") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            if p.annotation is inspect.Parameter.empty:
                unannotated.append(f"{name}({pname})")
        if sig.return_annotation is inspect.Signature.empty and not name.endswith("__init__"):
            unannotated.append(f"{name} -> ?")
    assert not unannotated, "not annotated: " + ", ".join(unannotated)


def test_the_annotations_resolve():
    # annotations are strings (from __future__ import annotations): each names
    # something the module can resolve, as a type checker would
    for name, fn in _public_callables():
        module = inspect.getmodule(fn)
        hints = {**vars(module), "quadrender": quadrender}
        for text in fn.__annotations__.values():
            try:
                eval(text, hints)  # noqa: S307 (the package's own annotations)
            except TypeError:
                pass  # "int | None" on Python < 3.10: the names resolved
            except NameError as e:
                raise AssertionError(f"{name}: {text}: {e}") from None


def test_py_typed_ships():
    assert os.path.exists(os.path.join(os.path.dirname(quadrender.__file__), "py.typed"))
