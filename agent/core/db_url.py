"""Database URLs in messages: never show a password (the registry, the corpus and the sandbox
all take ``postgresql://`` URLs; ``agent`` is the one package they may all import)."""

from __future__ import annotations

import re
from urllib.parse import unquote

_USERINFO = re.compile(r"^(?P<head>[A-Za-z][\w+.-]*://[^:@/]*):(?P<password>[^@/]*)(?=@)")
_QUERY_PASSWORD = re.compile(r"[?&]password=([^&]*)", re.IGNORECASE)


def redact(url: str) -> str:
    """``url`` without its password (in the user part or as ``password=``), for messages."""
    url = _USERINFO.sub(lambda m: m.group("head"), url, count=1)
    return _QUERY_PASSWORD.sub(lambda m: "" if m.group(0)[0] == "&" else "?", url) \
        .replace("?&", "?").rstrip("?")


def hide_password(message: str, url: str) -> str:
    """``message`` with any password of ``url`` replaced by ``***`` (drivers may echo the URL)."""
    raw = [m.group("password") for m in [_USERINFO.match(url)] if m]
    raw += [m.group(1) for m in _QUERY_PASSWORD.finditer(url)]
    for secret in sorted({s for r in raw for s in (r, unquote(r)) if s}, key=len, reverse=True):
        message = message.replace(secret, "***")
    return message
