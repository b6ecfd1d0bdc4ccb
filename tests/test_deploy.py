"""The cluster files (docker-compose.yml, Dockerfile, deploy/nginx.conf) run commands of this package:
each command and option they use must exist, so that the files do not rot as the CLI changes."""

from __future__ import annotations

from pathlib import Path

import yaml
from typer.testing import CliRunner

from shashki.cli import app

ROOT = Path(__file__).resolve().parent.parent


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_the_cluster_has_a_database_redis_two_servers_two_workers_and_a_proxy():
    services = compose()["services"]
    commands = {name: s.get("command", []) for name, s in services.items()}
    servers = [n for n, c in commands.items() if c[:2] == ["shashki", "serve"]]
    workers = [n for n, c in commands.items() if c[:2] == ["shashki", "worker"]]
    assert len(servers) == 2 and len(workers) == 2
    assert {"postgres", "redis", "proxy"} <= services.keys()
    for name in servers + workers:
        environment = services[name]["environment"]
        assert environment["DATABASE_URL"].startswith("postgresql+asyncpg://")
        assert environment["REDIS_URL"].startswith("redis://")


def test_every_command_line_of_the_cluster_is_accepted_by_the_cli():
    runner = CliRunner()
    for service in compose()["services"].values():
        command = service.get("command")
        if not command or command[0] != "shashki":
            continue
        # The options must parse: asking for help after them stops before anything runs.
        result = runner.invoke(app, [*command[1:], "--help"])
        assert result.exit_code == 0, (command, result.output)
        for option in (c for c in command if c.startswith("--")):
            assert option in result.output, (command, option)


def test_the_proxy_passes_websockets_to_both_servers():
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "server server1:8000" in conf and "server server2:8000" in conf
    assert "proxy_set_header Upgrade $http_upgrade" in conf
    # The Host header with its port: a socket's Origin (http://localhost:8080) is checked against it
    # (found by an audit: with nginx's $host, which drops the port, every logged-in socket was refused).
    assert "proxy_set_header Host $http_host;" in conf and "proxy_set_header Host $host;" not in conf
    assert (ROOT / "Dockerfile").read_text().count("shashki") >= 1


def test_the_proxy_bounds_what_the_servers_do_not():
    """uvicorn bounds neither a request's headers (size, time) nor its body's time, nor the connections
    of one address (an audit: a 64 MB header stalled a server's event loop for seconds)."""
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    for directive in ("large_client_header_buffers", "client_header_timeout", "client_body_timeout",
                      "limit_conn_zone", "limit_conn per_address"):  # fmt: skip
        assert directive in conf, directive


def test_the_proxy_starts_once_both_servers_are_ready():
    services = compose()["services"]
    servers = [n for n, s in services.items() if s.get("command", [])[:2] == ["shashki", "serve"]]
    depends_on = services["proxy"]["depends_on"]
    conditions = {name: depends_on[name]["condition"] for name in servers}
    assert conditions == dict.fromkeys(servers, "service_healthy")
    for name in servers:  # healthy means ready: database and Redis answer
        assert any("/health/ready" in part for part in services[name]["healthcheck"]["test"])


def test_the_proxy_skips_a_failing_or_draining_server_passively():
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    upstreams = [line for line in conf.splitlines() if line.strip().startswith("server server")]
    assert upstreams and all("max_fails=" in line and "fail_timeout=" in line for line in upstreams)
    next_upstream = next(line for line in conf.splitlines() if "proxy_next_upstream " in line)
    assert {"error", "timeout", "http_503"} <= set(next_upstream.replace(";", "").split())
