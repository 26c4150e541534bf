"""One finding per carrier run: the engine's hits grouped as a person reads them.

A payload hidden in invisible characters is a run of them (``_reveal``): 78 tag
characters that spell "ignore previous instructions", 64 zero-width characters that
carry 8 bytes.  Reported one finding per character, a run fills logs and the finding
cap (``Policy.max_findings``) and says nothing of what it hides.  So the engine's hits
(``_scan.hits``: one per character, in order) pass through ``grouped``:

- adjacent hits of one carrier family (tag characters; variation selectors; the bit
  symbols of ``_reveal.BIT_CATEGORIES``) become one ``Group`` spanning the run, of its
  most severe action (REJECT > REPLACE > STRIP > ALLOW) and that member's category, whose
  detail names the run and what it spells (``_reveal.carrier_run``);
- with ``hidden`` (the payloads ``reveal`` found, when the policy scans HIDDEN_PAYLOAD),
  each payload is one Group of category HIDDEN_PAYLOAD spanning its carrier run, and
  the hits inside it are its members (a member's action more severe than the payload's
  gives the group its category and action);
- every other hit is a Group of its own, as before.

Members keep their own categories and actions: the engine applies each one's edit
(strip, replace) as before, so what ``sanitize`` returns does not change, only how many
findings say so.  Groups come in input order, as the finding list needs them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping

from .._categories import Category, category_of, char_class
from ._hidden import Hidden
from ._model import Action
from ._reveal import BIT_CATEGORIES, carrier_run

_C = Category
# Carrier family of each category whose adjacent hits form one run.
FAMILY: dict[Category, str] = {
    _C.TAG: "tag characters",
    _C.VARIATION_SELECTOR: "variation selectors",
    **dict.fromkeys(BIT_CATEGORIES, "zero-width characters"),
}
SEVERITY = {Action.ALLOW: 0, Action.STRIP: 1, Action.REPLACE: 2, Action.REJECT: 3}

Hit = tuple[Category, int]


class Group:
    """One finding's worth of hits: ``category``, ``start``..``end``, ``action``;
    ``codepoint`` for a single character, else None and ``detail`` says what the run
    is; ``members`` the hits it covers (each with its own category)."""

    __slots__ = ("_detail", "action", "category", "codepoint", "end", "members", "start")

    def __init__(
        self,
        category: Category,
        start: int,
        end: int,
        action: Action,
        codepoint: int | None,
        detail: str | Callable[[], str] | None,
        members: list[Hit],
    ) -> None:
        self.category = category
        self.start = start
        self.end = end
        self.action = action
        self.codepoint = codepoint
        self._detail = detail  # a callable: worked out when asked (most are only counted)
        self.members = members

    @property
    def detail(self) -> str | None:
        detail = self._detail
        if callable(detail):
            detail = self._detail = detail()
        return detail


def run_detail(text: str, members: list[Hit]) -> str:
    """What a run of ``members`` (adjacent carrier hits) is, in words: ``78 tag
    characters spelling 'ignore previous...'``, or ``5 zero-width characters``."""
    return span_detail(text, members[0][1], members[-1][1] + 1)


@functools.cache
def _bidi_marks() -> re.Pattern[str]:
    return re.compile(f"[{char_class(_C.BIDI_MARK.ranges)}]*")


def span_detail(text: str, start: int, end: int) -> str:
    """``run_detail`` of the run ``text[start:end]``, each character a hit of one carrier
    family (a run is adjacent hits): no Python work per member."""
    first = category_of(ord(text[start]))
    assert first is not None
    noun = FAMILY[first]
    if noun == "zero-width characters" and _bidi_marks().fullmatch(text, start, end):
        noun = "bidi marks"  # every member a bidi mark
    payloads = carrier_run(text, start, end)
    count = end - start
    if not payloads:
        return f"{count} {noun}"
    if len(payloads) == 1 and payloads[0].channel.noun == noun:
        return f"{count} {payloads[0].describe()}"
    said = "; ".join(h.describe() for h in payloads)
    return f"{count} {noun}: {said}"


def _strongest(members: list[Hit], acts: Mapping[Category, Action]) -> Hit:
    """The member whose action is the most severe (the first of those)."""
    return max(members, key=lambda m: SEVERITY.get(acts[m[0]], -1))


def _run_group(text: str, members: list[Hit], acts: Mapping[Category, Action]) -> Group:
    if len(members) == 1:
        cat, i = members[0]
        return Group(cat, i, i + 1, acts[cat], ord(text[i]), None, members)
    cat, _ = _strongest(members, acts)
    return Group(
        cat,
        members[0][1],
        members[-1][1] + 1,
        acts[cat],
        None,
        lambda: run_detail(text, members),
        members,
    )


def _hidden_group(hidden: Hidden, members: list[Hit], acts: Mapping[Category, Action]) -> Group:
    category, action = _C.HIDDEN_PAYLOAD, acts[_C.HIDDEN_PAYLOAD]
    if members:
        cat, _ = _strongest(members, acts)
        if SEVERITY.get(acts[cat], -1) > SEVERITY.get(action, -1):
            category, action = cat, acts[cat]

    def detail() -> str:
        return f"{hidden.end - hidden.start} {hidden.describe()}"

    return Group(category, hidden.start, hidden.end, action, None, detail, members)


def grouped(
    found: Iterable[Hit],
    text: str,
    acts: Mapping[Category, Action],
    hidden: Iterable[Hidden] = (),
) -> Iterator[Group]:
    """``found`` (hits in increasing index order) as Groups, in input order (see the
    module docstring); ``hidden``: payloads in order, with indices into ``text``."""
    payloads = iter(hidden)
    payload = next(payloads, None)
    open_payload: Hidden | None = None  # a payload whose members are being gathered
    absorbed: list[Hit] = []
    run: list[Hit] = []  # adjacent hits of one family, not yet yielded
    family = ""
    for cat, i in found:
        while payload is not None and payload.start <= i:
            if run:
                yield _run_group(text, run, acts)
                run = []
            if open_payload is not None:
                yield _hidden_group(open_payload, absorbed, acts)
            open_payload, absorbed = payload, []
            payload = next(payloads, None)
        if open_payload is not None:
            if i < open_payload.end:
                absorbed.append((cat, i))
                continue
            yield _hidden_group(open_payload, absorbed, acts)
            open_payload = None
        kind = FAMILY.get(cat)
        if run and kind == family and run[-1][1] == i - 1:
            run.append((cat, i))
            continue
        if run:
            yield _run_group(text, run, acts)
            run = []
        if kind is None:
            yield Group(cat, i, i + 1, acts[cat], ord(text[i]), None, [(cat, i)])
        else:
            run, family = [(cat, i)], kind
    if run:
        yield _run_group(text, run, acts)
    if open_payload is not None:
        yield _hidden_group(open_payload, absorbed, acts)
    while payload is not None:
        yield _hidden_group(payload, [], acts)
        payload = next(payloads, None)
