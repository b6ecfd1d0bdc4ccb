"""Errors of the domain services: a machine-readable code, a message for people, and a kind.

The HTTP layer maps the kind to a status code and answers `{"error": {"code": ..., "message": ...}}`;
the services themselves know nothing of HTTP.
"""

from __future__ import annotations


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
