"""The exceptions and warnings of :mod:`gemp`.

Every error gemp raises is a :class:`gemp.Error`; the subclasses carry the structure of the
error as attributes (a query error's line and column, a file error's path), so a tool can point
at the problem without parsing the message.
"""

from __future__ import annotations

from typing import Any, Optional


class Error(Exception):
    """Base class of every gemp error. ``str(e)`` is the full message; ``kind`` names what went
    wrong as the Rust library's ``ErrorKind`` does (``"io"``, ``"parse"``, ``"file"``,
    ``"snapshot"``, ``"model"``, ``"query"``, ``"device"``, ``"memory"``, ``"invalid_argument"``,
    …) — except on :class:`QueryError`, whose ``kind`` is finer (see there)."""

    kind: Optional[str] = None

    def __init__(self, text: str, **attributes: Any) -> None:
        super().__init__(text)
        for name, value in attributes.items():
            setattr(self, name, value)


class QueryError(Error):
    """A query (or rule file) that does not parse, does not fit the graph, or cannot run.

    ``str(e)`` is the report ``gemp match`` prints: the message, the source line and a caret
    under the offending text. Attributes:

    - ``message``: what is wrong, one sentence;
    - ``file``: the query or rule file the position is in, or ``None`` (query text);
    - ``line``, ``column``: 1-based position in the query text (``column`` counts characters),
      or ``None`` when the error has no position (an error found while the query runs);
    - ``kind``: ``"syntax"``, ``"unsupported"`` or ``"semantic"`` (``None`` without position);
    - ``help``: a hint on how to fix it, or ``None``.
    """

    message: str = ""
    file: Optional[str] = None
    line: Optional[int] = None
    column: Optional[int] = None
    kind: Optional[str] = None
    help: Optional[str] = None


class ParseError(Error):
    """Malformed input data: ``file`` (or ``None``), 1-based ``line``, ``column`` (``None``
    when unknown) and ``message``."""

    file: Optional[str] = None
    line: Optional[int] = None
    column: Optional[int] = None
    message: str = ""


class FileError(Error, OSError):
    """A file that cannot be read or written, is not of a known format, or is a damaged
    snapshot; ``path`` names it."""

    path: Optional[str] = None


class DeviceError(Error):
    """An OpenCL failure, or a query beyond the OpenCL matcher's limits (``backend="opencl"``)."""


class MemoryLimitError(Error, MemoryError):
    """The heap in use passed gemp's memory limit while a query ran."""


class InvalidArgumentError(Error, ValueError):
    """An argument out of range or inconsistent with the others."""


class ParameterError(Error, TypeError):
    """A query parameter of a type gemp does not take (a set, bytes, an integer beyond 64 bits, a
    dict with keys that are not strings, …)."""


class PartialResultWarning(UserWarning):
    """A timeout stopped the query: the result holds true matches only, but maybe not all."""


class QueryWarning(UserWarning):
    """The binder's warning about a query (a comparison that can never be true, …)."""


__all__ = [
    "Error",
    "QueryError",
    "ParseError",
    "FileError",
    "DeviceError",
    "MemoryLimitError",
    "InvalidArgumentError",
    "ParameterError",
    "PartialResultWarning",
    "QueryWarning",
]
