"""The `@scenario` decorator of the public contract and the registry it fills."""
from dataclasses import dataclass
from typing import Callable, List, Optional


@dataclass
class Scenario:
    target: str
    fn: Callable
    name: str
    resumable: bool = False
    check: Optional[Callable] = None
    line: int = 0
    # The call must have its effect once however often it is made: a double-apply is posted inline.
    idempotent: bool = False

    @property
    def target_path(self) -> str:
        return self.target.rsplit(":", 1)[0]

    @property
    def target_function(self) -> str:
        return self.target.rsplit(":", 1)[1]


REGISTERED: List[Scenario] = []


def scenario(target: str, resumable: bool = False, check: Optional[Callable] = None,
             idempotent: bool = False):
    if not isinstance(target, str) or ":" not in target:
        raise ValueError(
            f"@scenario target must be 'path/to/file.py:function', got {target!r}"
        )

    def register(fn: Callable) -> Callable:
        REGISTERED.append(
            Scenario(
                target=target,
                fn=fn,
                name=fn.__name__,
                resumable=bool(resumable),
                check=check,
                line=getattr(getattr(fn, "__code__", None), "co_firstlineno", 0),
                idempotent=bool(idempotent),
            )
        )
        return fn

    return register
