"""The server's logs: one set-up for `shashki serve` and `shashki worker`, plain lines or JSON objects
(`SHASHKI_LOG_FORMAT`), so that a cluster's processes all log alike (docker-compose.yml asks for JSON).
"""

from __future__ import annotations


def logging_config(log_format: str, access_log: bool = False) -> dict:
    """The logging set-up (for `logging.config.dictConfig`; uvicorn's loggers included): plain lines, or
    one JSON object a line (python-json-logger) with the time, level, logger and message as fields.
    Without `access_log`, uvicorn's line for each request and for each socket opened and closed is left
    out (its loggers stand at WARNING, so the lines are not even made); its start, stop and errors stay."""
    from shashki.server.http.deflate import SOCKETS_LOGGER

    if log_format == "json":
        formatter = {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        }
    else:
        formatter = {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"default": formatter},
        "handlers": {"default": {"class": "logging.StreamHandler", "formatter": "default"}},
        "root": {"handlers": ["default"], "level": "INFO"},
        "loggers": {
            name: {"handlers": [], "propagate": True, "level": "INFO" if access_log else "WARNING"}
            for name in ("uvicorn.access", SOCKETS_LOGGER)
        }
        | {"uvicorn": {"handlers": [], "propagate": True}},
    }
