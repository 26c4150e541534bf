"""examples/fastapi_signup.py run as written: ``python examples/fastapi_signup.py`` under
uvicorn on 127.0.0.1, its SQLite file in a temporary folder, spoken to in raw HTTP.

A look-alike of an existing username is refused by the database's UNIQUE key (409,
naming no account), a mixed-script name by the pydantic type (422), names in many scripts
sign up side by side, and of simultaneous signups of look-alikes exactly one wins.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from sanitizer import IDENTIFIER_KEY_VERSION, identifier_key
from tests.web.request_builder import http
from tests.web.webservers import Response, free_port, send, start

pytestmark = pytest.mark.servers
pytest.importorskip("fastapi")

ROOT = Path(__file__).resolve().parents[2]
MULTILINGUAL = ["Zoë", "Дмитрий", "田中太郎", "김민준", "محمد", "José", "Ngọc", "Αλέξανδρος"]


@dataclass
class Server:
    port: int
    database: Path

    def signup(self, username: str) -> Response:
        body = json.dumps({"username": username}, ensure_ascii=False).encode()
        # half_close=False: uvicorn takes an early EOF for a client gone away, and drops
        # the answer of an endpoint still running in the thread pool
        return send(self.port, http("POST", b"/signup", JSON, body), half_close=False)

    def accounts(self) -> list[tuple[str, str, str]]:
        with sqlite3.connect(self.database) as db:
            query = "SELECT username, username_key, key_version FROM accounts ORDER BY id"
            return list(db.execute(query))


JSON = [(b"Content-Type", b"application/json")]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    port, database = free_port(), tmp_path / "accounts.sqlite3"
    command = [sys.executable, str(ROOT / "examples" / "fastapi_signup.py")]
    env = {"PORT": str(port), "SIGNUP_DB": str(database)}
    with (
        (tmp_path / "server.log").open("wb") as log,
        start(command, port, cwd=ROOT, env=env, output=log),
    ):
        yield Server(port, database)


def test_a_look_alike_of_an_existing_name_is_refused(server: Server) -> None:
    created = server.signup("paypal")
    assert created.status == 201
    assert created.json()["username"] == "paypal"
    for look_alike in ("PayPal", "paypa1", "PAYPAL"):  # case; DIGIT ONE looks like 'l'
        refused = server.signup(look_alike)
        assert refused.status == 409, look_alike
        assert refused.json() == {
            "detail": {
                "type": "username_taken",
                "msg": "this username is taken, or looks like one that is: choose another",
            }
        }
    assert [name for name, _, _ in server.accounts()] == ["paypal"]


def test_a_mixed_script_name_is_refused_by_the_pydantic_type(server: Server) -> None:
    refused = server.signup("p\u0430ypal")  # U+0430 CYRILLIC SMALL LETTER A
    assert refused.status == 422
    (error,) = refused.json()["detail"]
    assert error["type"] == "sanitizer_identifier"
    assert error["loc"] == ["body", "username"]
    assert error["msg"].startswith("refused by sanitizer policy 'identifier': ")
    assert server.accounts() == []


def test_names_in_many_scripts_sign_up_side_by_side(server: Server) -> None:
    for name in MULTILINGUAL:
        answer = server.signup(name)
        assert answer.status == 201, (name, answer.body)
    assert server.accounts() == [
        (name, identifier_key(name), IDENTIFIER_KEY_VERSION) for name in MULTILINGUAL
    ]
    assert server.signup("A\u030a").json()["username"] == "\u00c5"  # stored NFC


def test_of_simultaneous_look_alikes_exactly_one_signs_up(server: Server) -> None:
    names = ["amazon", "Amazon", "AMAZON", "arnazon", "Arnazon", "ARNAZON"] * 4
    assert len({identifier_key(name) for name in names}) == 1
    with ThreadPoolExecutor(len(names)) as pool:
        statuses = sorted(answer.status for answer in pool.map(server.signup, names))
    assert statuses == [201] + [409] * (len(names) - 1)
    assert len(server.accounts()) == 1


def test_of_simultaneous_paypal_and_paypai_exactly_one_signs_up(server: Server) -> None:
    """ "PAYPAL" and "paypaI" (capital I, which looks like l) at once: one key, one row."""
    names = ["PAYPAL", "paypaI", "Paypa1", "paypal"] * 4
    assert len({identifier_key(name) for name in names}) == 1
    with ThreadPoolExecutor(len(names)) as pool:
        statuses = sorted(answer.status for answer in pool.map(server.signup, names))
    assert statuses == [201] + [409] * (len(names) - 1)
    assert len(server.accounts()) == 1
    assert server.signup("\u0130stanbul").status == 201  # dotted capital I (Turkish)
    for same in ("istanbul", "ISTANBUL", "\u0131stanbul"):
        assert server.signup(same).status == 409, same
