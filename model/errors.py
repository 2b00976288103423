"""Errors that say what to do. ``ConfigError`` is bad user input (exit code 2 in the CLI)."""

from __future__ import annotations


class KmcError(Exception):
    """Base of kmc's errors."""


class ConfigError(KmcError, ValueError):
    """A configuration, bound or name a user gave is invalid; the message says how to fix it."""
