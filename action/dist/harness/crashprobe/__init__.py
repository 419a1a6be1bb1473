"""crashprobe's crash harness. Scenario files import `scenario` from here.

Standard library only; Python 3.9 to 3.13.
"""
from .registry import scenario

__all__ = ["scenario"]
HARNESS_VERSION = "1"
