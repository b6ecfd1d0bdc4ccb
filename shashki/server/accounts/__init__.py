"""Accounts: registration, passwords, browser sessions, personal API tokens with scopes, rate limits."""

from shashki.server.accounts.service import SCOPES, AccountService, Actor, RateLimiter

__all__ = ["SCOPES", "AccountService", "Actor", "RateLimiter"]
