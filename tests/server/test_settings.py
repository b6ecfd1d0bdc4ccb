"""The server's settings come from the environment variables the README and the tests use, with the same
defaults; a value that does not parse stops the server with the name of the variable at fault."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from shashki.server import config
from shashki.server.config import Settings, SettingsError


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in ("SHASHKI_DATA", "DATABASE_URL", "REDIS_URL"):
        monkeypatch.delenv(name, raising=False)
    for field in Settings.model_fields:
        monkeypatch.delenv(config.variable(field), raising=False)


def test_without_variables_the_defaults_apply():
    settings = Settings.from_env()
    assert settings.data_dir == Path("data")
    assert settings.database_url is None and settings.redis_url is None
    assert settings.disconnect_claim_seconds == 30.0
    assert settings.login_attempts == 10 and settings.registrations == 5
    assert settings.argon2_memory_kib == 65536 and settings.argon2_time_cost == 3
    assert settings.engine == "engine" and settings.engine_workers == 2
    assert settings.secure_cookies is False
    assert settings.sqlalchemy_url.startswith("sqlite+aiosqlite:///") and settings.sqlalchemy_url.endswith(
        "/data/shashki.sqlite3"
    )


def test_each_variable_sets_its_field(monkeypatch):
    monkeypatch.setenv("SHASHKI_DATA", "/srv/shashki")
    monkeypatch.setenv("DATABASE_URL", "postgres://u:p@db/shashki")
    monkeypatch.setenv("REDIS_URL", "redis://cache:6379/0")
    monkeypatch.setenv("SHASHKI_DISCONNECT_CLAIM_SECONDS", "0.5")
    monkeypatch.setenv("SHASHKI_COMPUTER_DELAY_SECONDS", "0")
    monkeypatch.setenv("SHASHKI_LOGIN_ATTEMPTS", "1000")
    monkeypatch.setenv("SHASHKI_ENGINE", "random")
    monkeypatch.setenv("SHASHKI_SECURE_COOKIES", "1")
    monkeypatch.setenv("SHASHKI_STREAM_KEEPALIVE_SECONDS", "0.2")
    settings = Settings.from_env()
    assert settings.data_dir == Path("/srv/shashki")
    # The plain postgres:// form hosting services hand out is given the async driver.
    assert settings.sqlalchemy_url == "postgresql+asyncpg://u:p@db/shashki"
    assert settings.redis_url == "redis://cache:6379/0"
    assert settings.disconnect_claim_seconds == 0.5 and settings.computer_delay_seconds == 0.0
    assert settings.login_attempts == 1000
    assert settings.engine == "random"
    assert settings.secure_cookies is True
    assert settings.stream_keepalive_seconds == 0.2


def test_the_data_option_wins_over_the_variable_and_an_empty_variable_is_unset(monkeypatch):
    monkeypatch.setenv("SHASHKI_DATA", "/from/env")
    monkeypatch.setenv("DATABASE_URL", "")
    monkeypatch.setenv("SHASHKI_LOGIN_ATTEMPTS", "")
    settings = Settings.from_env("/from/option")
    assert settings.data_dir == Path("/from/option")
    assert settings.database_url is None and settings.login_attempts == 10


def test_the_three_fields_with_a_name_of_their_own_are_read_by_that_name_only(monkeypatch):
    monkeypatch.setenv("SHASHKI_DATA_DIR", "/not/this")
    monkeypatch.setenv("SHASHKI_DATABASE_URL", "postgresql://not/this")
    monkeypatch.setenv("SHASHKI_REDIS_URL", "redis://not-this")
    settings = Settings.from_env()
    assert settings.data_dir == Path("data")
    assert settings.database_url is None and settings.redis_url is None
    # As arguments they go by their field names.
    assert Settings(data_dir="/d", redis_url="redis://r").data_dir == Path("/d")


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("SHASHKI_LOGIN_ATTEMPTS", "many"),
        ("SHASHKI_DISCONNECT_CLAIM_SECONDS", "soon"),
        ("SHASHKI_ENGINE", "stockfish"),
        ("SHASHKI_SECURE_COOKIES", "perhaps"),
    ],
)
def test_a_value_that_does_not_parse_names_its_variable(monkeypatch, variable, value):
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError, match=f"^{variable}='{value}': "):
        Settings.from_env()


def test_the_module_examples_run():
    result = doctest.testmod(config, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_public_settings_read_their_variables_and_name_the_one_that_is_wrong(monkeypatch):
    from shashki.server.limits import Limit

    monkeypatch.setenv("SHASHKI_LIMIT_SOCKET_MESSAGES", "3/1")
    monkeypatch.setenv("SHASHKI_MAX_BODY_BYTES", "1000")
    public = Settings().public
    assert public.socket_messages == Limit(3, 1.0) and public.max_body_bytes == 1000
    monkeypatch.setenv("SHASHKI_LIMIT_SEEKS", "many")
    with pytest.raises(ValueError, match="SHASHKI_LIMIT_SEEKS='many'"):
        Settings()
