"""A FastAPI signup endpoint that refuses a username looking like an existing one: "pаypal"
(Cyrillic а) or "PayPal" once "paypal" exists.  Run it (uvicorn on 127.0.0.1:8000, the
accounts in ./signup.sqlite3; set PORT and SIGNUP_DB to change them)::

    python examples/fastapi_signup.py

and try, from another shell::

    curl -i -H 'Content-Type: application/json' -d '{"username": "paypal"}' \\
        http://127.0.0.1:8000/signup                       # 201
    curl -i -H 'Content-Type: application/json' -d '{"username": "PayPal"}' \\
        http://127.0.0.1:8000/signup                       # 409 username_taken
    curl -i -H 'Content-Type: application/json' -d '{"username": "p\\u0430ypal"}' \\
        http://127.0.0.1:8000/signup                       # 422 sanitizer_identifier
    curl -i -H 'Content-Type: application/json' -d '{"username": "田中太郎"}' \\
        http://127.0.0.1:8000/signup                       # 201

Two checks, each where it belongs:

* the request model's ``Identifier`` type runs ``profiles.IDENTIFIER`` (mixed scripts,
  invisible characters, bidi controls...): refused -> 422, error type
  ``sanitizer_identifier``; accepted -> the NFC name is what gets stored;
* the database holds ``identifier_key(username)`` in a UNIQUE column, so a name that is
  the same as, or looks like, an existing one is refused by the INSERT itself -> 409.
  No SELECT first: the constraint is the only check, so two simultaneous signups of
  look-alikes cannot both win.

The 409 does not name the existing account.  A signup form must say "taken" (that much
any unique username reveals), but echoing the stored spelling would hand out, for any
probe, the exact spelling and script of someone else's name -- what a phisher needs to
copy it -- and would tell "exactly taken" apart from "looks like".  The user only needs
to pick another name.

``key_version`` records ``IDENTIFIER_KEY_VERSION`` beside each key: when a release of
the sanitizer changes it, recompute the keys (docs/identifiers.md, "Re-keying").
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from typing import Any

import uvicorn
from fastapi import FastAPI, HTTPException
from pydantic import BaseModel

from sanitizer import IDENTIFIER_KEY_VERSION, identifier_key
from sanitizer.integrations.pydantic import Identifier

DATABASE = os.environ.get("SIGNUP_DB", "signup.sqlite3")
SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (
    id INTEGER PRIMARY KEY,
    username TEXT NOT NULL,              -- as the user wrote it, NFC
    username_key TEXT NOT NULL UNIQUE,   -- identifier_key(username): look-alikes collide
    key_version TEXT NOT NULL            -- IDENTIFIER_KEY_VERSION of that key
)
"""


@contextlib.contextmanager
def database() -> Iterator[sqlite3.Connection]:
    """One connection per request, committed on success (FastAPI runs plain ``def``
    endpoints in a thread pool; sqlite3 connections stay in their thread)."""
    with contextlib.closing(sqlite3.connect(DATABASE, timeout=10)) as connection:
        with connection:
            yield connection


with database() as db:
    db.execute(SCHEMA)

app = FastAPI()


class SignupRequest(BaseModel):
    username: Identifier


@app.post("/signup", status_code=201)
def signup(request: SignupRequest) -> dict[str, Any]:
    try:
        with database() as db:
            cursor = db.execute(
                "INSERT INTO accounts (username, username_key, key_version) VALUES (?, ?, ?)",
                (request.username, identifier_key(request.username), IDENTIFIER_KEY_VERSION),
            )
    except sqlite3.IntegrityError:
        raise HTTPException(
            status_code=409,
            detail={
                "type": "username_taken",
                "msg": "this username is taken, or looks like one that is: choose another",
            },
        ) from None
    return {"id": cursor.lastrowid, "username": request.username}


if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(os.environ.get("PORT", "8000")))
