"""Every error is JSON: `{"error": {"code": ..., "message": ...}}` (plus details such as legal moves)."""

from __future__ import annotations

import json
import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException

from shashki.server.errors import UNAVAILABLE, ServiceError

log = logging.getLogger(__name__)

STATUS = {
    "invalid": 400,
    "unauthorized": 401,
    "forbidden": 403,
    "not_found": 404,
    "conflict": 409,
    "rate_limited": 429,
}
HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    422: "bad_request",
    429: "rate_limited",
    503: "unavailable",
}


def unavailable_body() -> dict:
    return error_body("unavailable", "The service is briefly unavailable; try again in a moment.")


def error_body(code: str, message: str, **details) -> dict:
    return {"error": {"code": code, "message": message, **details}}


def service_error_body(error: ServiceError) -> dict:
    return error_body(error.code, error.message, **error.details)


def _problem(error: dict) -> str:
    """One validation error for people: the field's path and what is wrong there, or what is wrong with
    the body as a whole (missing, not a JSON object)."""
    field = ".".join(str(p) for p in error.get("loc", ()) if p != "body")
    if field:
        return f"{field}: {error.get('msg')}"
    if error.get("type") == "missing":
        return "The request needs a body: send a JSON object."
    return f"The request body: {error.get('msg')}; send a JSON object."


def install(app: FastAPI) -> None:
    @app.exception_handler(ServiceError)
    async def service_error(_request: Request, error: ServiceError) -> JSONResponse:
        headers = {}
        if "retry_after" in error.details:
            headers["Retry-After"] = str(error.details["retry_after"])
        return JSONResponse(service_error_body(error), status_code=STATUS[error.kind], headers=headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, error: RequestValidationError) -> JSONResponse:
        problems = "; ".join(_problem(e) for e in error.errors())
        return JSONResponse(
            error_body("bad_request", problems or "The request is malformed."), status_code=400
        )

    # Client input that a parser refused on its own: too deeply nested for Python's JSON parser, not JSON,
    # a number too large for the database. Never a server error (shashki/server/http/validation.py
    # refuses most of it earlier; these are the net under it).
    @app.exception_handler(RecursionError)
    @app.exception_handler(json.JSONDecodeError)
    @app.exception_handler(OverflowError)
    async def malformed(_request: Request, error: Exception) -> JSONResponse:
        messages = {
            RecursionError: "The request nests too deeply.",
            OverflowError: "A number in the request is too large.",
        }
        message = messages.get(type(error), "The request body is not valid JSON.")
        return JSONResponse(error_body("bad_request", message), status_code=400)

    # 503 with Retry-After tells clients to come back, where a 500 would say the server is broken.
    # (The live channel answers the same errors with an `unavailable` message: http/live.py.)
    async def unavailable(_request: Request, error: Exception) -> JSONResponse:
        log.warning("a backing service is unavailable: %s", error)
        return JSONResponse(unavailable_body(), status_code=503, headers={"Retry-After": "5"})

    for kind in UNAVAILABLE:
        app.add_exception_handler(kind, unavailable)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> Response:
        if error.status_code == 404:
            from shashki.server.http.pages import not_found_page  # the pages sit above the errors

            page = not_found_page(request.method, request.url.path, request.headers.get("accept", ""))
            if page is not None:
                return page
        code = HTTP_CODES.get(error.status_code, "error")
        return JSONResponse(
            error_body(code, str(error.detail)),
            status_code=error.status_code,
            headers=getattr(error, "headers", None),
        )

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, error: Exception) -> JSONResponse:
        log.exception("unexpected error", exc_info=error)
        return JSONResponse(error_body("internal", "Something went wrong on the server."), status_code=500)
