"""Loads a scenario file and the targets its scenarios name."""
import hashlib
import importlib
import importlib.util
import os
import sys

from . import registry


class LoadError(Exception):
    """A scenario file or target that cannot be loaded; the message says which and why."""


def _brief(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return f"SyntaxError: {exc.msg} (line {exc.lineno})"
    return f"{type(exc).__name__}: {exc}"


def load_scenarios(path: str, root: str):
    if root not in sys.path:
        sys.path.insert(0, root)
    name = "crashprobe_scenarios_" + hashlib.sha1(path.encode()).hexdigest()[:12]
    start = len(registry.REGISTERED)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise LoadError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:
        raise LoadError(f"{path}: the scenario file does not import: {_brief(exc)}") from None
    found = registry.REGISTERED[start:]
    if not found:
        raise LoadError(f"{path}: no @scenario in this file (import it with `from crashprobe import scenario`)")
    return found


def load_target(scenario, root: str, scenario_file: str):
    rel = scenario.target_path
    where = f"{scenario_file}:{scenario.line} (scenario {scenario.name})"
    full = os.path.join(root, rel)
    if not os.path.isfile(full):
        raise LoadError(f"{where}: target file {rel} does not exist under the repository root {root}")
    module_name = rel[:-3].replace("/", ".") if rel.endswith(".py") else None
    if module_name and module_name.endswith(".__init__"):
        module_name = module_name[: -len(".__init__")]
    try:
        if module_name and all(part.isidentifier() for part in module_name.split(".")):
            module = importlib.import_module(module_name)
        else:
            spec = importlib.util.spec_from_file_location("crashprobe_target_" + hashlib.sha1(rel.encode()).hexdigest()[:12], full)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
    except BaseException as exc:
        raise LoadError(f"{where}: target file {rel} does not import: {_brief(exc)}") from None
    obj = module
    for part in scenario.target_function.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise LoadError(f"{where}: {rel} has no function {scenario.target_function}")
    if not callable(obj):
        raise LoadError(f"{where}: {scenario.target} is not callable")
    return obj
