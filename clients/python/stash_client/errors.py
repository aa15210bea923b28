"""StashError: a failed call, with PROTOCOL.md's status code."""
from typing import Tuple

# PROTOCOL.md section 6, by number.
STATUS_NAMES: Tuple[str, ...] = (
    "OK",
    "INVALID_ARGUMENT",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "FAILED_PRECONDITION",
    "PERMISSION_DENIED",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "RESOURCE_EXHAUSTED",
)


class StashError(Exception):
    """A call the daemon refused, or one that could not reach it.

    ``code`` is the status code's name in PROTOCOL.md ("NOT_FOUND", "INVALID_ARGUMENT", ...),
    ``status`` its number, ``message`` the daemon's text (it names the field, the value and
    the limit). The client reports a daemon it cannot reach or a connection that closed as
    UNAVAILABLE, and a message from the daemon it cannot read or must refuse as INTERNAL: a
    string that is not UTF-8 or holds a NUL, or a record whose numbers cannot be (a percent
    above 100, files done above files total, a size below -1; PROTOCOL.md section 8), named by
    field and value.
    """

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.status = STATUS_NAMES.index(code)
        self.message = message
        super().__init__(f"{code}: {message}")
