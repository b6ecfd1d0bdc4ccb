"""The HTTP and WebSocket layer: FastAPI routes that turn requests into calls of the domain services."""
