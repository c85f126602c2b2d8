"""Secrets out of every URL and message ragjury shows or stores.

A base URL may carry credentials (``http://admin:pw@host/v1``, ``...?token=abc``) and a failed
request's message may quote the ``Authorization`` header; the server still needs them, so they
are kept where requests are made and removed wherever a URL or a message is printed, written
to predictions, the cache, ``--json`` or the HTML report. One function a job, used by all.
"""

from __future__ import annotations

import re

HIDDEN = "***"

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s\"'<>`),]+")
_BEARER = re.compile(r"(Bearer\s+)[^\s\"',;)]+", re.IGNORECASE)


def redact_url(url: str) -> str:
    """``url`` without its userinfo (``user:pw@`` → ``***@``) and with every query value hidden
    (``?token=abc`` → ``?token=***``); written by hand, not ``urlsplit``, so a malformed URL
    (``http://[::1/v1``) is redacted too rather than raising."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    end = min((index for index in (rest.find(c) for c in "/?#") if index >= 0), default=len(rest))
    authority, tail = rest[:end], rest[end:]
    if "@" in authority:
        authority = f"{HIDDEN}@{authority.rsplit('@', 1)[1]}"
    path, question, query = tail.partition("?")
    if question:
        query, hash_, fragment = query.partition("#")
        parts = [f"{part.split('=', 1)[0]}={HIDDEN}" if "=" in part else (HIDDEN if part else part) for part in query.split("&")]
        tail = f"{path}?{'&'.join(parts)}{hash_}{fragment}"
    return f"{scheme}://{authority}{tail}"


def redact_secrets(text: str) -> str:
    """Every URL in ``text`` through ``redact_url``, and a quoted ``Bearer <key>`` hidden."""
    if "://" not in text and "earer" not in text:
        return text
    return _BEARER.sub(lambda m: f"{m.group(1)}{HIDDEN}", _URL.sub(lambda m: redact_url(m.group(0)), text))


__all__ = ["HIDDEN", "redact_secrets", "redact_url"]
