"""Errors of the domain services: a machine-readable code, a message for people, and a kind.

The HTTP layer maps the kind to a status code and answers `{"error": {"code": ..., "message": ...}}`;
the services themselves know nothing of HTTP.
"""

from __future__ import annotations

import logging

from redis.exceptions import ConnectionError as RedisConnectionError
from sqlalchemy.exc import InterfaceError, OperationalError

# The database or Redis is unreachable (restarting, failing over): what failed may succeed soon.
UNAVAILABLE = (OperationalError, InterfaceError, RedisConnectionError, ConnectionError)


def log_failure(log: logging.Logger, message: str, *args: object) -> None:
    """Log the exception being handled: an outage as one warning line (it is expected and passes), anything
    else with its traceback (a bug to look at). For the loops and listeners that go on after a failure."""
    import sys

    error = sys.exc_info()[1]
    if isinstance(error, UNAVAILABLE):
        log.warning(message + ": a backing service is unavailable: %s", *args, error)
    else:
        log.exception(message, *args)


class ServiceError(Exception):
    """Base class. `kind` is one of: invalid, unauthorized, forbidden, not_found, conflict, rate_limited."""

    kind = "invalid"

    def __init__(self, code: str, message: str, **details) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details


class Invalid(ServiceError):
    kind = "invalid"


class Unauthorized(ServiceError):
    kind = "unauthorized"


class Forbidden(ServiceError):
    kind = "forbidden"


class NotFound(ServiceError):
    kind = "not_found"


class Conflict(ServiceError):
    kind = "conflict"


class RateLimited(ServiceError):
    kind = "rate_limited"
