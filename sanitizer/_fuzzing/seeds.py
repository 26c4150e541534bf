"""The seed corpus, one reviewable row per attack: name, bytes in hex, what it attacks, source.

The one place the seeds are written down.  A campaign writes a target's rows
(``files(target)``: ``<name>.bin`` -> bytes) into its working corpus, from an installed
package as from a checkout; ``tools/generate.py corpus`` writes the same files into the
checkout's ``corpus/TARGET/`` (for ``sanitizer check corpus/decode``, libFuzzer command
lines, reviewers and the ClusterFuzzLite seed archives) and ``--check`` proves they equal
this table.  A row's ``targets`` are letters, each target's ``seeds`` in
``targets.REGISTRY``: ``d`` decode, ``p`` policy, ``i`` identifiers, ``u`` utf16, ``7``
utf7, ``w`` web (requests, format in ``web_oracle``).  Identifier inputs hold two
identifiers separated by FF (never a byte of UTF-8, RFC 3629 §1; see
``oracles.split_pair``).  The decode rows are also a candidate's probes, one class of
ill-formed input or more each (``probes``).

Sources: RFC 3629 (§1 FE/FF, §3 range and surrogates, §4 ABNF, §6 BOM, §10 security),
RFC 2279 §2 (the 5/6-byte forms), Secure Programming HOWTO §5.9.4/§5.9.5, Markus Kuhn's
"UTF-8 decoder capability and stress test" (section numbers), the Unicode Standard §3.9
"U+FFFD substitution of maximal subparts" (Table 3-8 and the neighbouring examples),
CVE-2000-0884 (IIS %c0%af traversal), CVE-2021-42574/42694 (Trojan Source), CWE-180.
"""

from __future__ import annotations

from typing import NamedTuple


class Seed(NamedTuple):
    name: str
    hex: str
    attacks: str
    source: str
    targets: str = "dp"

    @property
    def data(self) -> bytes:
        return bytes.fromhex(self.hex)


SEEDS: tuple[Seed, ...] = (
    Seed("overlong-dot-2", "C0 AE", "2-byte overlong '.'", "RFC 3629 §10; HOWTO §5.9.4"),
    Seed(
        "overlong-dot-segment",
        "2F C0 AE 2E 2F",
        "'/../' with one dot overlong: path traversal past a '..' filter",
        "RFC 3629 §10; HOWTO §5.9.4",
    ),
    Seed(
        "overlong-nul-2",
        "C0 80",
        "Modified UTF-8 NUL: hides U+0000 from C-string checks",
        "HOWTO §5.9.4; RFC 3629 §10",
    ),
    Seed("overlong-slash-2", "C0 AF", "2-byte overlong '/'", "Kuhn UTF-8-test §4.1; RFC 3629 §10"),
    Seed(
        "overlong-slash-3", "E0 80 AF", "3-byte overlong '/'", "Kuhn UTF-8-test §4.1; RFC 3629 §10"
    ),
    Seed(
        "overlong-slash-4",
        "F0 80 80 AF",
        "4-byte overlong '/'",
        "Kuhn UTF-8-test §4.1; RFC 3629 §10",
    ),
    Seed(
        "overlong-slash-5",
        "F8 80 80 80 AF",
        "5-byte overlong '/'",
        "Kuhn UTF-8-test §4.1; RFC 3629 §10",
    ),
    Seed(
        "overlong-slash-6",
        "FC 80 80 80 80 AF",
        "6-byte overlong '/'",
        "Kuhn UTF-8-test §4.1; RFC 3629 §10",
    ),
    Seed(
        "overlong-max-2",
        "C1 BF",
        "largest 2-byte overlong (boundary of the shortest-form check)",
        "Kuhn UTF-8-test §4.2",
    ),
    Seed(
        "overlong-max-3",
        "E0 9F BF",
        "largest 3-byte overlong (boundary of the shortest-form check)",
        "Kuhn UTF-8-test §4.2",
    ),
    Seed(
        "overlong-max-4",
        "F0 8F BF BF",
        "largest 4-byte overlong (boundary of the shortest-form check)",
        "Kuhn UTF-8-test §4.2",
    ),
    Seed(
        "overlong-max-5",
        "F8 87 BF BF BF",
        "largest 5-byte overlong (boundary of the shortest-form check)",
        "Kuhn UTF-8-test §4.2",
    ),
    Seed(
        "overlong-max-6",
        "FC 83 BF BF BF BF",
        "largest 6-byte overlong (boundary of the shortest-form check)",
        "Kuhn UTF-8-test §4.2",
    ),
    Seed("overlong-nul-3", "E0 80 80", "3-byte overlong NUL", "Kuhn UTF-8-test §4.3"),
    Seed("overlong-nul-4", "F0 80 80 80", "4-byte overlong NUL", "Kuhn UTF-8-test §4.3"),
    Seed("overlong-nul-5", "F8 80 80 80 80", "5-byte overlong NUL", "Kuhn UTF-8-test §4.3"),
    Seed("overlong-nul-6", "FC 80 80 80 80 80", "6-byte overlong NUL", "Kuhn UTF-8-test §4.3"),
    Seed(
        "iis-traversal-c0af",
        "2E 2E C0 AF 2E 2E C0 AF 77 69 6E 6E 74",
        "'..%c0%af' IIS directory traversal, decoded",
        "CVE-2000-0884; RFC 3629 §10",
    ),
    Seed(
        "iis-traversal-c19c",
        "2E 2E C1 9C 2E 2E C1 9C 77 69 6E 6E 74",
        "'..%c1%9c' (overlong backslash) IIS traversal, decoded",
        "CVE-2000-0884",
    ),
    Seed(
        "overlong-e0-9f",
        "E0 9F 80",
        "E0 9F: off-by-one on E0's second byte",
        "RFC 3629 §4 (E0 A0-BF)",
    ),
    Seed(
        "overlong-f0-8f",
        "F0 8F 80 80",
        "F0 8F: off-by-one on F0's second byte",
        "RFC 3629 §4 (F0 90-BF)",
    ),
    Seed(
        "overlong-c1-ascii",
        "C1 81",
        "C1 81: overlong 'A', off-by-one on the lowest 2-byte lead",
        "RFC 3629 §4 (C2-DF)",
    ),
    Seed("overlong-dot-then-ascii", "C0 AE 41", "overlong '.' then ASCII", "RFC 3629 §10"),
    Seed(
        "surrogate-d800",
        "ED A0 80",
        "encoded lone surrogate U+D800",
        "Kuhn UTF-8-test §5.1; RFC 3629 §3",
    ),
    Seed(
        "surrogate-db7f",
        "ED AD BF",
        "encoded lone surrogate U+DB7F",
        "Kuhn UTF-8-test §5.1; RFC 3629 §3",
    ),
    Seed(
        "surrogate-db80",
        "ED AE 80",
        "encoded lone surrogate U+DB80",
        "Kuhn UTF-8-test §5.1; RFC 3629 §3",
    ),
    Seed(
        "surrogate-dbff",
        "ED AF BF",
        "encoded lone surrogate U+DBFF",
        "Kuhn UTF-8-test §5.1; RFC 3629 §3",
    ),
    Seed(
        "surrogate-dc00",
        "ED B0 80",
        "encoded lone surrogate U+DC00",
        "Kuhn UTF-8-test §5.1; RFC 3629 §3",
    ),
    Seed(
        "surrogate-df80",
        "ED BE 80",
        "encoded lone surrogate U+DF80",
        "Kuhn UTF-8-test §5.1; RFC 3629 §3",
    ),
    Seed(
        "surrogate-dfff",
        "ED BF BF",
        "encoded lone surrogate U+DFFF",
        "Kuhn UTF-8-test §5.1; RFC 3629 §3",
    ),
    Seed(
        "surrogate-pair-d800-dc00",
        "ED A0 80 ED B0 80",
        "CESU-8 surrogate pair U+D800 U+DC00",
        "Kuhn UTF-8-test §5.2; RFC 3629 §3",
    ),
    Seed(
        "surrogate-pair-d800-dfff",
        "ED A0 80 ED BF BF",
        "CESU-8 surrogate pair U+D800 U+DFFF",
        "Kuhn UTF-8-test §5.2; RFC 3629 §3",
    ),
    Seed(
        "surrogate-pair-db7f-dc00",
        "ED AD BF ED B0 80",
        "CESU-8 surrogate pair U+DB7F U+DC00",
        "Kuhn UTF-8-test §5.2; RFC 3629 §3",
    ),
    Seed(
        "surrogate-pair-db7f-dfff",
        "ED AD BF ED BF BF",
        "CESU-8 surrogate pair U+DB7F U+DFFF",
        "Kuhn UTF-8-test §5.2; RFC 3629 §3",
    ),
    Seed(
        "surrogate-pair-db80-dc00",
        "ED AE 80 ED B0 80",
        "CESU-8 surrogate pair U+DB80 U+DC00",
        "Kuhn UTF-8-test §5.2; RFC 3629 §3",
    ),
    Seed(
        "surrogate-pair-db80-dfff",
        "ED AE 80 ED BF BF",
        "CESU-8 surrogate pair U+DB80 U+DFFF",
        "Kuhn UTF-8-test §5.2; RFC 3629 §3",
    ),
    Seed(
        "surrogate-pair-dbff-dc00",
        "ED AF BF ED B0 80",
        "CESU-8 surrogate pair U+DBFF U+DC00",
        "Kuhn UTF-8-test §5.2; RFC 3629 §3",
    ),
    Seed(
        "surrogate-pair-dbff-dfff",
        "ED AF BF ED BF BF",
        "CESU-8 surrogate pair U+DBFF U+DFFF",
        "Kuhn UTF-8-test §5.2; RFC 3629 §3",
    ),
    Seed(
        "surrogate-pair-cesu8",
        "ED A1 8C ED BE B4",
        "CESU-8 pair for U+2393... (ED A1 8C ED BE B4)",
        "RFC 3629 §3; Unicode §3.9",
    ),
    Seed("surrogate-then-ascii", "ED A0 2F", "truncated surrogate then '/'", "RFC 3629 §3"),
    Seed(
        "wtf8-lone-then-text",
        "61 ED B2 A9 62",
        "WTF-8 lone low surrogate between letters",
        "RFC 3629 §3",
    ),
    Seed(
        "out-of-range-110000",
        "F4 90 80 80",
        "U+110000: first value past U+10FFFF",
        "RFC 3629 §3; Kuhn UTF-8-test §2.3.5",
    ),
    Seed("out-of-range-13ffff", "F4 BF BF BF", "U+13FFFF: last F4 value", "RFC 3629 §3"),
    Seed(
        "lead-f5",
        "F5 80 80 80",
        "4-byte form with lead F5 (> U+10FFFF)",
        "RFC 3629 §3; Kuhn UTF-8-test §3.3",
    ),
    Seed(
        "lead-f6",
        "F6 80 80 80",
        "4-byte form with lead F6 (> U+10FFFF)",
        "RFC 3629 §3; Kuhn UTF-8-test §3.3",
    ),
    Seed(
        "lead-f7",
        "F7 80 80 80",
        "4-byte form with lead F7 (> U+10FFFF)",
        "RFC 3629 §3; Kuhn UTF-8-test §3.3",
    ),
    Seed("lead-f8", "F8 88 80 80 80", "5-byte RFC 2279 form, lead F8", "RFC 2279 §2; RFC 3629 §3"),
    Seed("lead-f9", "F9 88 80 80 80", "5-byte RFC 2279 form, lead F9", "RFC 2279 §2; RFC 3629 §3"),
    Seed("lead-fa", "FA 88 80 80 80", "5-byte RFC 2279 form, lead FA", "RFC 2279 §2; RFC 3629 §3"),
    Seed("lead-fb", "FB 88 80 80 80", "5-byte RFC 2279 form, lead FB", "RFC 2279 §2; RFC 3629 §3"),
    Seed(
        "lead-fc", "FC 84 80 80 80 80", "6-byte RFC 2279 form, lead FC", "RFC 2279 §2; RFC 3629 §3"
    ),
    Seed(
        "lead-fd", "FD 84 80 80 80 80", "6-byte RFC 2279 form, lead FD", "RFC 2279 §2; RFC 3629 §3"
    ),
    Seed(
        "five-byte-first",
        "F8 88 80 80 80",
        "first 5-byte sequence U+200000",
        "Kuhn UTF-8-test §2.1.5",
    ),
    Seed(
        "six-byte-first",
        "FC 84 80 80 80 80",
        "first 6-byte sequence U+4000000",
        "Kuhn UTF-8-test §2.1.6",
    ),
    Seed(
        "five-byte-last",
        "FB BF BF BF BF",
        "last 5-byte sequence U+3FFFFFF",
        "Kuhn UTF-8-test §2.2.5",
    ),
    Seed(
        "six-byte-last",
        "FD BF BF BF BF BF",
        "last 6-byte sequence U+7FFFFFFF",
        "Kuhn UTF-8-test §2.2.6",
    ),
    Seed("byte-fe", "FE", "FE never occurs in UTF-8", "RFC 3629 §1; Kuhn UTF-8-test §3.5.1"),
    Seed("byte-ff", "FF", "FF never occurs in UTF-8", "RFC 3629 §1; Kuhn UTF-8-test §3.5.2"),
    Seed("byte-fe-fe-ff-ff", "FE FE FF FF", "FE FE FF FF", "Kuhn UTF-8-test §3.5.3"),
    Seed(
        "utf16-bom-bytes",
        "FE FF 00 61",
        "UTF-16BE BOM bytes: must not switch encodings",
        "RFC 3629 §1, §6",
    ),
    Seed(
        "truncated-last-byte-2-byte-low",
        "C0",
        "2-byte sequence (U+0000 form) missing its last byte, at end",
        "Kuhn UTF-8-test §3.3",
    ),
    Seed(
        "truncated-last-byte-3-byte-low",
        "E0 80",
        "3-byte sequence (U+0000 form) missing its last byte, at end",
        "Kuhn UTF-8-test §3.3",
    ),
    Seed(
        "truncated-last-byte-4-byte-low",
        "F0 80 80",
        "4-byte sequence (U+0000 form) missing its last byte, at end",
        "Kuhn UTF-8-test §3.3",
    ),
    Seed(
        "truncated-last-byte-5-byte-low",
        "F8 80 80 80",
        "5-byte sequence (U+0000 form) missing its last byte, at end",
        "Kuhn UTF-8-test §3.3",
    ),
    Seed(
        "truncated-last-byte-6-byte-low",
        "FC 80 80 80 80",
        "6-byte sequence (U+0000 form) missing its last byte, at end",
        "Kuhn UTF-8-test §3.3",
    ),
    Seed(
        "truncated-last-byte-2-byte-high",
        "DF",
        "2-byte sequence (highest value) missing its last byte, at end",
        "Kuhn UTF-8-test §3.3",
    ),
    Seed(
        "truncated-last-byte-3-byte-high",
        "EF BF",
        "3-byte sequence (highest value) missing its last byte, at end",
        "Kuhn UTF-8-test §3.3",
    ),
    Seed(
        "truncated-last-byte-4-byte-high",
        "F7 BF BF",
        "4-byte sequence (highest value) missing its last byte, at end",
        "Kuhn UTF-8-test §3.3",
    ),
    Seed(
        "truncated-last-byte-5-byte-high",
        "FB BF BF BF",
        "5-byte sequence (highest value) missing its last byte, at end",
        "Kuhn UTF-8-test §3.3",
    ),
    Seed(
        "truncated-last-byte-6-byte-high",
        "FD BF BF BF BF",
        "6-byte sequence (highest value) missing its last byte, at end",
        "Kuhn UTF-8-test §3.3",
    ),
    Seed(
        "truncated-concatenated",
        (
            "C0 E0 80 F0 80 80 F8 80 80 80 FC 80 80 80 80 DF EF BF F7 BF BF FB BF BF "
            "BF FD BF BF BF BF"
        ),
        "all ten truncated sequences in a row",
        "Kuhn UTF-8-test §3.4",
    ),
    Seed(
        "truncated-at-end-c2",
        "61 62 C2",
        "valid lead cut short by the end of input (incomplete)",
        "Unicode §3.9; RFC 3629 §4",
    ),
    Seed(
        "truncated-at-end-e1-80",
        "61 62 E1 80",
        "valid lead cut short by the end of input (incomplete)",
        "Unicode §3.9; RFC 3629 §4",
    ),
    Seed(
        "truncated-at-end-f1-80-80",
        "61 62 F1 80 80",
        "valid lead cut short by the end of input (incomplete)",
        "Unicode §3.9; RFC 3629 §4",
    ),
    Seed(
        "truncated-at-end-e0-a0",
        "61 62 E0 A0",
        "valid lead cut short by the end of input (incomplete)",
        "Unicode §3.9; RFC 3629 §4",
    ),
    Seed(
        "truncated-at-end-f0-90-80",
        "61 62 F0 90 80",
        "valid lead cut short by the end of input (incomplete)",
        "Unicode §3.9; RFC 3629 §4",
    ),
    Seed(
        "truncated-at-end-f4-8f-bf",
        "61 62 F4 8F BF",
        "valid lead cut short by the end of input (incomplete)",
        "Unicode §3.9; RFC 3629 §4",
    ),
    Seed(
        "truncated-before-slash",
        "E1 80 2F",
        "3-byte sequence cut short by '/': must not vanish",
        "Unicode §3.9; RFC 3629 §10",
    ),
    Seed("truncated-before-ascii-2", "C2 41", "2-byte lead then ASCII", "Unicode §3.9"),
    Seed(
        "truncated-before-ascii-4",
        "F0 9F 98 41",
        "4-byte emoji missing its last byte, then ASCII",
        "Unicode §3.9",
    ),
    Seed(
        "truncated-before-dots",
        "E2 80 2E 2E 2F",
        "truncated sequence then '../'",
        "Unicode §3.9; RFC 3629 §10",
    ),
    Seed("lone-continuation-80", "80", "unexpected continuation byte 80", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-81", "81", "unexpected continuation byte 81", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-82", "82", "unexpected continuation byte 82", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-83", "83", "unexpected continuation byte 83", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-84", "84", "unexpected continuation byte 84", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-85", "85", "unexpected continuation byte 85", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-86", "86", "unexpected continuation byte 86", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-87", "87", "unexpected continuation byte 87", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-88", "88", "unexpected continuation byte 88", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-89", "89", "unexpected continuation byte 89", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-8a", "8A", "unexpected continuation byte 8A", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-8b", "8B", "unexpected continuation byte 8B", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-8c", "8C", "unexpected continuation byte 8C", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-8d", "8D", "unexpected continuation byte 8D", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-8e", "8E", "unexpected continuation byte 8E", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-8f", "8F", "unexpected continuation byte 8F", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-90", "90", "unexpected continuation byte 90", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-91", "91", "unexpected continuation byte 91", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-92", "92", "unexpected continuation byte 92", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-93", "93", "unexpected continuation byte 93", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-94", "94", "unexpected continuation byte 94", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-95", "95", "unexpected continuation byte 95", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-96", "96", "unexpected continuation byte 96", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-97", "97", "unexpected continuation byte 97", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-98", "98", "unexpected continuation byte 98", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-99", "99", "unexpected continuation byte 99", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-9a", "9A", "unexpected continuation byte 9A", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-9b", "9B", "unexpected continuation byte 9B", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-9c", "9C", "unexpected continuation byte 9C", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-9d", "9D", "unexpected continuation byte 9D", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-9e", "9E", "unexpected continuation byte 9E", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-9f", "9F", "unexpected continuation byte 9F", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-a0", "A0", "unexpected continuation byte A0", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-a1", "A1", "unexpected continuation byte A1", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-a2", "A2", "unexpected continuation byte A2", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-a3", "A3", "unexpected continuation byte A3", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-a4", "A4", "unexpected continuation byte A4", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-a5", "A5", "unexpected continuation byte A5", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-a6", "A6", "unexpected continuation byte A6", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-a7", "A7", "unexpected continuation byte A7", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-a8", "A8", "unexpected continuation byte A8", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-a9", "A9", "unexpected continuation byte A9", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-aa", "AA", "unexpected continuation byte AA", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-ab", "AB", "unexpected continuation byte AB", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-ac", "AC", "unexpected continuation byte AC", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-ad", "AD", "unexpected continuation byte AD", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-ae", "AE", "unexpected continuation byte AE", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-af", "AF", "unexpected continuation byte AF", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-b0", "B0", "unexpected continuation byte B0", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-b1", "B1", "unexpected continuation byte B1", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-b2", "B2", "unexpected continuation byte B2", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-b3", "B3", "unexpected continuation byte B3", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-b4", "B4", "unexpected continuation byte B4", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-b5", "B5", "unexpected continuation byte B5", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-b6", "B6", "unexpected continuation byte B6", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-b7", "B7", "unexpected continuation byte B7", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-b8", "B8", "unexpected continuation byte B8", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-b9", "B9", "unexpected continuation byte B9", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-ba", "BA", "unexpected continuation byte BA", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-bb", "BB", "unexpected continuation byte BB", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-bc", "BC", "unexpected continuation byte BC", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-bd", "BD", "unexpected continuation byte BD", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-be", "BE", "unexpected continuation byte BE", "Kuhn UTF-8-test §3.1"),
    Seed("lone-continuation-bf", "BF", "unexpected continuation byte BF", "Kuhn UTF-8-test §3.1"),
    Seed(
        "lone-continuations-all",
        (
            "80 81 82 83 84 85 86 87 88 89 8A 8B 8C 8D 8E 8F 90 91 92 93 94 95 96 97 "
            "98 99 9A 9B 9C 9D 9E 9F A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 AA AB AC AD AE AF "
            "B0 B1 B2 B3 B4 B5 B6 B7 B8 B9 BA BB BC BD BE BF"
        ),
        "all 64 continuation bytes in a row",
        "Kuhn UTF-8-test §3.1.9",
    ),
    Seed(
        "lone-continuations-2-3-7",
        "80 BF 80 BF 80 BF 80",
        "continuation runs",
        "Kuhn UTF-8-test §3.1.3-3.1.8",
    ),
    Seed(
        "lonely-start-2byte",
        (
            "C0 20 C1 20 C2 20 C3 20 C4 20 C5 20 C6 20 C7 20 C8 20 C9 20 CA 20 CB 20 "
            "CC 20 CD 20 CE 20 CF 20 D0 20 D1 20 D2 20 D3 20 D4 20 D5 20 D6 20 D7 20 "
            "D8 20 D9 20 DA 20 DB 20 DC 20 DD 20 DE 20 DF 20"
        ),
        "all 32 2-byte leads, each followed by a space",
        "Kuhn UTF-8-test §3.2.1",
    ),
    Seed(
        "lonely-start-3byte",
        (
            "E0 20 E1 20 E2 20 E3 20 E4 20 E5 20 E6 20 E7 20 E8 20 E9 20 EA 20 EB 20 "
            "EC 20 ED 20 EE 20 EF 20"
        ),
        "all 16 3-byte leads, each followed by a space",
        "Kuhn UTF-8-test §3.2.2",
    ),
    Seed(
        "lonely-start-4byte",
        "F0 20 F1 20 F2 20 F3 20 F4 20 F5 20 F6 20 F7 20",
        "all 8 4-byte leads, each followed by a space",
        "Kuhn UTF-8-test §3.2.3",
    ),
    Seed(
        "lonely-start-5-6byte",
        "F8 20 F9 20 FA 20 FB 20 FC 20 FD 20",
        "5- and 6-byte leads, each followed by a space",
        "Kuhn UTF-8-test §3.2.4-3.2.5",
    ),
    Seed(
        "valid-u0000",
        "61 00 62",
        "boundary code point U+0000 (well-formed)",
        "Kuhn UTF-8-test §2.1.1; RFC 3629 §4",
    ),
    Seed(
        "valid-u007f",
        "61 7F 62",
        "boundary code point U+007F (well-formed)",
        "Kuhn UTF-8-test §2.2.1; RFC 3629 §4",
    ),
    Seed(
        "valid-u0080",
        "61 C2 80 62",
        "boundary code point U+0080 (well-formed)",
        "Kuhn UTF-8-test §2.1.2; RFC 3629 §4",
    ),
    Seed(
        "valid-u07ff",
        "61 DF BF 62",
        "boundary code point U+07FF (well-formed)",
        "Kuhn UTF-8-test §2.2.2; RFC 3629 §4",
    ),
    Seed(
        "valid-u0800",
        "61 E0 A0 80 62",
        "boundary code point U+0800 (well-formed)",
        "Kuhn UTF-8-test §2.1.3; RFC 3629 §4",
    ),
    Seed(
        "valid-ud7ff",
        "61 ED 9F BF 62",
        "boundary code point U+D7FF (well-formed)",
        "Kuhn UTF-8-test §2.3.1; RFC 3629 §4",
    ),
    Seed(
        "valid-ue000",
        "61 EE 80 80 62",
        "boundary code point U+E000 (well-formed)",
        "Kuhn UTF-8-test §2.3.2; RFC 3629 §4",
    ),
    Seed(
        "valid-ufffd",
        "61 EF BF BD 62",
        "boundary code point U+FFFD (well-formed)",
        "Kuhn UTF-8-test §2.3.3; RFC 3629 §4",
    ),
    Seed(
        "valid-ufffe",
        "61 EF BF BE 62",
        "boundary code point U+FFFE (well-formed)",
        "Kuhn UTF-8-test §5.3.1; RFC 3629 §4",
    ),
    Seed(
        "valid-uffff",
        "61 EF BF BF 62",
        "boundary code point U+FFFF (well-formed)",
        "Kuhn UTF-8-test §2.2.3; RFC 3629 §4",
    ),
    Seed(
        "valid-u10000",
        "61 F0 90 80 80 62",
        "boundary code point U+10000 (well-formed)",
        "Kuhn UTF-8-test §2.1.4; RFC 3629 §4",
    ),
    Seed(
        "valid-u10ffff",
        "61 F4 8F BF BF 62",
        "boundary code point U+10FFFF (well-formed)",
        "Kuhn UTF-8-test §2.3.5; RFC 3629 §4",
    ),
    Seed("valid-u-fdd0", "EF B7 90", "noncharacter U+FDD0 (well-formed)", "Kuhn UTF-8-test §5.3.3"),
    Seed(
        "valid-u-1fffe",
        "F0 9F BF BE",
        "noncharacter U+1FFFE (well-formed)",
        "Kuhn UTF-8-test §5.3.4",
    ),
    Seed(
        "valid-kosme",
        "CE BA CF 8C CF 83 CE BC CE B5",
        "Greek 'kosme' (well-formed, 2- and 3-byte)",
        "Kuhn UTF-8-test §1",
    ),
    Seed("valid-emoji", "78 F0 9F 98 80 79", "4-byte emoji (well-formed)", "RFC 3629 §4"),
    Seed(
        "valid-nul-middle",
        "61 00 62",
        "NUL inside text (well-formed; C-string truncation)",
        "RFC 3629 §10",
    ),
    Seed("valid-decomposed", "65 CC 81", "e + combining acute (NFC changes it)", "UAX #15"),
    Seed(
        "unicode-table-3-8",
        "61 F1 80 80 E1 80 C2 62 80 63 80 BF 64",
        "U+FFFD substitution of maximal subparts",
        "Unicode §3.9, Table 3-8",
    ),
    Seed(
        "unicode-fffd-overlong",
        "C0 AF E0 80 BF F0 81 82 41",
        "U+FFFD substitution: non-shortest forms",
        "Unicode §3.9 (U+FFFD substitution)",
    ),
    Seed(
        "unicode-fffd-surrogates",
        "ED A0 80 ED BF BF ED AF 41",
        "U+FFFD substitution: ill-formed sequences for surrogates",
        "Unicode §3.9 (U+FFFD substitution)",
    ),
    Seed(
        "unicode-fffd-other",
        "F4 91 92 93 FF 41 80 BF 42",
        "U+FFFD substitution: other ill-formed sequences",
        "Unicode §3.9 (U+FFFD substitution)",
    ),
    Seed(
        "unicode-fffd-truncated",
        "E1 80 E2 F0 91 92 F1 BF 41",
        "U+FFFD substitution: truncated sequences",
        "Unicode §3.9 (U+FFFD substitution)",
    ),
    Seed("bom-start", "EF BB BF 61 62", "BOM at the start (RFC 3629 §6 signature)", "RFC 3629 §6"),
    Seed("bom-only", "EF BB BF", "BOM and nothing else", "RFC 3629 §6"),
    Seed(
        "bom-middle",
        "61 EF BB BF 62",
        "U+FEFF in the middle: ZWNBSP, not a signature",
        "RFC 3629 §6",
    ),
    Seed(
        "bom-double",
        "EF BB BF EF BB BF 61",
        "two BOMs: only the first is a signature",
        "RFC 3629 §6",
    ),
    Seed(
        "bom-truncated", "EF BB", "BOM cut short by the end of input", "RFC 3629 §6; Unicode §3.9"
    ),
    Seed("bom-then-overlong", "EF BB BF C0 AE", "BOM then an overlong '.'", "RFC 3629 §6, §10"),
    Seed(
        "overlong-nul-in-text",
        "61 62 C0 80 63 64 C0",
        "C0 80 inside text, then a lone C0",
        "HOWTO §5.9.4",
    ),
    Seed(
        "trojan-source-rlo",
        (
            "61 63 63 65 73 73 20 3D 20 22 75 73 65 72 E2 80 AE 20 E2 81 A6 2F 2F 20 "
            "61 64 6D 69 6E E2 81 A9 20 E2 81 A6 22"
        ),
        "RLO + isolates reorder code (Trojan Source)",
        "CVE-2021-42574",
        "dpi",
    ),
    Seed(
        "trojan-source-isolates",
        (
            "2F 2A 20 E2 81 A7 20 7D 20 E2 81 A9 20 69 66 20 28 69 73 41 64 6D 69 6E "
            "29 20 E2 81 A6 20 62 65 67 69 6E 20 2A 2F"
        ),
        "bidi isolates hiding a brace",
        "CVE-2021-42574",
        "dpi",
    ),
    Seed(
        "bidi-embeddings",
        "61 E2 80 AA 62 E2 80 AB 63 E2 80 AC 64 E2 80 AD 65",
        "LRE RLE PDF LRO",
        "CVE-2021-42574; UAX #9",
        "dpi",
    ),
    Seed(
        "bidi-marks",
        "61 E2 80 8E 62 E2 80 8F 63 D8 9C 64",
        "LRM RLM ALM (allowed, reported)",
        "UAX #9",
        "dpi",
    ),
    Seed(
        "homoglyph-cyrillic",
        "73 61 79 D0 9D 65 6C 6C 6F",
        "Cyrillic EN in an identifier (Trojan Source homoglyph)",
        "CVE-2021-42694",
        "dpi",
    ),
    Seed(
        "zero-width-space",
        "70 61 79 E2 80 8B 70 61 6C",
        "ZWSP hides inside a name",
        "HOWTO §5.9.5",
        "dpi",
    ),
    Seed(
        "zero-width-joiners",
        "61 E2 80 8C 62 E2 80 8D 63 E2 81 A0 64 C2 AD 65",
        "ZWNJ ZWJ WJ SHY",
        "HOWTO §5.9.5",
        "dpi",
    ),
    Seed(
        "tag-smuggling",
        (
            "68 69 F3 A0 81 A9 F3 A0 81 A7 F3 A0 81 AE F3 A0 81 AF F3 A0 81 B2 F3 A0 "
            "81 A5 F3 A0 80 A0 F3 A0 81 A1 F3 A0 81 AC F3 A0 81 AC F3 A0 81 BF"
        ),
        "invisible tag characters carrying ASCII (U+E0000 block)",
        "Unicode §23.9 (tag characters)",
        "dpi",
    ),
    Seed(
        "tag-flag-scotland",
        ("F0 9F 8F B4 F3 A0 81 A7 F3 A0 81 A2 F3 A0 81 B3 F3 A0 81 A3 F3 A0 81 B4 F3 A0 81 BF"),
        "legitimate emoji tag sequence (flag of Scotland)",
        "UTS #51",
        "dpi",
    ),
    Seed(
        "variation-selector-smuggling",
        "61 EF B8 8F F3 A0 84 80 F3 A0 87 AF",
        "variation selectors after a letter",
        "UTS #37",
        "dpi",
    ),
    Seed(
        "nfkc-fullwidth-slash",
        "61 EF BC 8F 2E 2E EF BC 8F 62",
        "U+FF0F FULLWIDTH SOLIDUS: NFKC gives '/'",
        "CWE-180; UAX #15",
        "dpi",
    ),
    Seed(
        "nfkc-fullwidth-dots",
        "EF BC 8E EF BC 8E EF BC 8F 65 74 63 EF BC 8F 70 61 73 73 77 64",
        "'．．／' NFKC-normalizes to '../'",
        "CWE-180; UAX #15",
        "dpi",
    ),
    Seed(
        "nfkc-two-dot-leader",
        "E2 80 A5 2F 78",
        "U+2025 TWO DOT LEADER: NFKC gives '..'",
        "CWE-180; UAX #15",
        "dpi",
    ),
    Seed(
        "nfkc-one-dot-leader",
        "E2 80 A4 E2 80 A4 2F 78",
        "U+2024 ONE DOT LEADER x2: NFKC gives '..'",
        "CWE-180; UAX #15",
        "dpi",
    ),
    Seed(
        "nfkc-small-full-stop",
        "EF B9 92 EF B9 92",
        "U+FE52 SMALL FULL STOP x2: NFKC gives '..'",
        "CWE-180; UAX #15",
        "dpi",
    ),
    Seed(
        "division-slash",
        "61 E2 88 95 62 E2 81 84 63",
        "U+2215 DIVISION SLASH, U+2044 FRACTION SLASH: confusable, no NFKC mapping",
        "UTS #39",
        "dpi",
    ),
    Seed(
        "combining-run",
        (
            "61 CC 81 CC 81 CC 81 CC 81 CC 81 CC 81 CC 81 CC 81 CC 81 CC 81 CC 81 CC "
            "81 CC 81 CC 81 CC 81 CC 81 CC 81 CC 81 CC 81 CC 81 CC 81 CC 81 CC 81 CC "
            "81 CC 81 CC 81 CC 81 CC 81 CC 81 CC 81 CC 81 CC 81 CC 81 CC 81 CC 81 CC "
            "81 CC 81 CC 81 CC 81 CC 81"
        ),
        "40 combining marks on one base (Zalgo)",
        "UAX #15 §13",
        "dpi",
    ),
    Seed(
        "terminal-escape",
        "6F 6B 1B 5B 33 31 6D 72 65 64 1B 5D 30 3B 74 69 74 6C 65 07",
        "ANSI escape and OSC title sequence",
        "RFC 3629 §10",
        "dpi",
    ),
    Seed("c1-csi", "61 C2 9B 33 31 6D 62 C2 85 63", "C1 controls CSI and NEL", "ISO 6429", "dpi"),
    Seed(
        "line-separators", "61 E2 80 A8 62 E2 80 A9 63 0D 0A 64", "LS, PS, CRLF", "UAX #14", "dpi"
    ),
    Seed(
        "private-unassigned",
        "EE 80 80 F3 B0 80 80 CD B8",
        "private use and unassigned",
        "Unicode §23.5",
        "dpi",
    ),
    Seed("dot-segments", "2E 2E 2F", "'..' path segment", "RFC 3986 §5.2.4", "dpi"),
    Seed(
        "long-line",
        (
            "61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 "
            "61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 "
            "61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 "
            "61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 "
            "61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 "
            "61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 "
            "61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 "
            "61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 61 62 63 20 "
            "61 62 63 20 61 62 63 20"
        ),
        "200 bytes of ASCII (length limits)",
        "HOWTO §5.9.5",
        "dpi",
    ),
    Seed(
        "pair-ligature-fi",
        "EF AC 81 6C 65 FF 66 69 6C 65",
        "ﬁ ligature vs 'fi' (NFKC-equal)",
        "UAX #15",
        "i",
    ),
    Seed(
        "pair-angstrom",
        "C3 85 FF 41 CC 8A",
        "precomposed vs decomposed Å (NFC-equal)",
        "UAX #15",
        "i",
    ),
    Seed(
        "pair-angstrom-sign",
        "E2 84 AB FF C3 85",
        "ANGSTROM SIGN vs Å (canonical singleton)",
        "UAX #15",
        "i",
    ),
    Seed(
        "pair-kelvin",
        "E2 84 AA FF 6B",
        "KELVIN SIGN vs 'k' (NFKC_Casefold-equal)",
        "UAX #31 §5",
        "i",
    ),
    Seed(
        "pair-sharp-s",
        "53 54 52 41 53 53 45 FF 73 74 72 61 C3 9F 65",
        "ß case folds to 'ss'",
        "Unicode §3.13",
        "i",
    ),
    Seed(
        "pair-dz-digraph", "C7 85 FF 44 C5 BE", "titlecase digraph vs two letters", "UAX #15", "i"
    ),
    Seed(
        "pair-dotted-i", "C4 B0 FF 69 CC 87", "İ case folds to i + dot above", "Unicode §3.13", "i"
    ),
    Seed(
        "pair-fullwidth",
        "EF BD 86 EF BD 89 EF BD 8C EF BD 85 FF 66 69 6C 65",
        "fullwidth letters (NFKC-equal)",
        "UAX #15",
        "i",
    ),
    Seed(
        "pair-zero-width",
        "78 E2 80 8B 79 FF 78 79",
        "ZWSP is default-ignorable (removed by NFKC_Casefold)",
        "UAX #31 §5",
        "i",
    ),
    Seed(
        "pair-cyrillic-a",
        "70 61 79 70 61 6C FF 70 D0 B0 79 70 61 6C",
        "Cyrillic a: confusable, never equal",
        "UTS #39",
        "i",
    ),
    Seed(
        "pair-hangul",
        "ED 95 9C FF E1 84 92 E1 85 A1 E1 86 AB",
        "Hangul syllable vs jamo (NFC-equal)",
        "UAX #15 §3.12",
        "i",
    ),
    Seed(
        "pair-greek-iota",
        "E1 BE BC FF CE 91 CE 99",
        "GREEK CAPITAL ALPHA WITH PROSGEGRAMMENI case folding",
        "Unicode §3.13",
        "i",
    ),
    Seed("pair-empty", "FF", "two empty identifiers", "UAX #31", "i"),
    Seed(
        "pair-ill-formed",
        "61 62 ED A0 80 FF 61 62 C0 AE",
        "ill-formed bytes (lone surrogates after surrogateescape)",
        "RFC 3629 §3",
        "i",
    ),
    Seed(
        "ident-single", "53 74 72 61 C3 9F 65 CC 81", "one identifier, no separator", "UAX #31", "i"
    ),
    # web: byte 0 picks the Content-Type and chunkings, then head CR LF CR LF body
    # (request format: web_oracle.parse_request)
    Seed(
        "web-get-clean",
        "00 2F 69 6E 64 65 78 2E 68 74 6D 6C 3F 71 3D 63 61 66 25 43 33 25 41 39 26 70 61 67 "
        "65 3D 32 0D 0A 48 6F 73 74 3A 20 65 78 61 6D 70 6C 65 2E 63 6F 6D 0D 0A 41 63 63 65 "
        "70 74 3A 20 74 65 78 74 2F 68 74 6D 6C 0D 0A 0D 0A",
        "clean GET with a percent-encoded UTF-8 query value",
        "RFC 3986 §2.1",
        "w",
    ),
    Seed(
        "web-path-overlong-slash",
        "00 2F 2E 2E 25 43 30 25 41 46 2E 2E 25 43 30 25 41 46 77 69 6E 6E 74 2F 73 79 73 74 "
        "65 6D 33 32 0D 0A 0D 0A",
        "percent-encoded overlong '/' in the path (IIS traversal)",
        "CVE-2000-0884; RFC 3629 §10",
        "w",
    ),
    Seed(
        "web-query-bidi",
        "00 2F 3F 6E 61 6D 65 3D 25 45 32 25 38 30 25 41 45 65 78 65 2E 74 78 74 0D 0A 0D 0A",
        "RLO in a query value (Trojan Source)",
        "CVE-2021-42574",
        "w",
    ),
    Seed(
        "web-query-trailing-percent",
        "00 2F 61 25 3F 71 3D 31 30 30 25 26 72 3D 25 34 0D 0A 0D 0A",
        "'%' without two hex digits at the end of values",
        "RFC 3986 §2.1; WHATWG URL §5.1",
        "w",
    ),
    Seed(
        "web-header-overlong-lf",
        "00 2F 0D 0A 58 2D 4E 61 6D 65 3A 20 61 C0 8A 53 65 74 2D 43 6F 6F 6B 69 65 3A 20 78 "
        "3D 31 0D 0A 0D 0A",
        "overlong LF in a header value (response splitting)",
        "RFC 3629 §10; RFC 9110 §5.5",
        "w",
    ),
    Seed(
        "web-cookie-nul",
        "00 2F 0D 0A 43 6F 6F 6B 69 65 3A 20 73 69 64 3D 25 30 30 61 62 63 3B 20 6C 61 6E 67 "
        "3D 65 6E 0D 0A 0D 0A",
        "percent-encoded NUL in a cookie value",
        "RFC 6265 §4.1.1; CWE-158",
        "w",
    ),
    Seed(
        "web-two-content-types",
        "00 2F 0D 0A 43 6F 6E 74 65 6E 74 2D 54 79 70 65 3A 20 61 70 70 6C 69 63 61 74 69 6F "
        "6E 2F 6A 73 6F 6E 0D 0A 43 6F 6E 74 65 6E 74 2D 54 79 70 65 3A 20 74 65 78 74 2F 70 "
        "6C 61 69 6E 0D 0A 0D 0A 7B 7D",
        "two Content-Type headers: parsers disagree",
        "RFC 9110 §5.3",
        "w",
    ),
    Seed(
        "web-form-clean",
        "01 2F 73 75 62 6D 69 74 0D 0A 43 6F 6E 74 65 6E 74 2D 4C 65 6E 67 74 68 3A 20 32 31 "
        "0D 0A 0D 0A 6E 61 6D 65 3D 63 61 66 25 43 33 25 41 39 26 61 67 65 3D 33 30",
        "clean urlencoded form",
        "WHATWG URL §5.1",
        "w",
    ),
    Seed(
        "web-form-overlong",
        "01 2F 73 75 62 6D 69 74 0D 0A 0D 0A 66 69 6C 65 3D 2E 2E 25 63 30 25 61 66 2E 2E 25 "
        "63 30 25 61 66 62 6F 6F 74 2E 69 6E 69",
        "overlong '/' in a form value",
        "CVE-2000-0884; RFC 3629 §10",
        "w",
    ),
    Seed(
        "web-multipart-preamble",
        "02 2F 75 70 6C 6F 61 64 0D 0A 0D 0A 0D 0A 22 3B 20 66 69 6C 65 6E 61 6D 65 3D 22 61 "
        "2E 74 78 6C 61 69 6E 0D 0A 0D 0A 21 61 74 61 0D 0A 2D 2D 66 75 7A 7A 2D 2D 0D 0A",
        "text after a leading CR/LF before the first delimiter (python-multipart: one write)",
        "RFC 2046 §5.1.1",
        "w",
    ),
    Seed(
        "web-json-invalid-escape-then-surrogate",
        "03 2F 61 70 69 0D 0A 0D 0A 7B 22 6B 5C 75 64 5C 75 64 63 30 30 78 22 7D",
        "an invalid escape before an escaped lone surrogate: judged alike whole or split",
        "RFC 8259 §7, §8.2",
        "w",
    ),
    Seed(
        "web-form-separators",
        "01 2F 0D 0A 0D 0A 61 3D 31 3B 62 3D 25 45 44 25 41 30 25 38 30 26 63 2B 64 3D 65 2B "
        "66 26 26 3D 78 26 79",
        "';' separator, encoded surrogate, '+' spaces, empty names",
        "WHATWG URL §5.1; RFC 3629 §3",
        "w",
    ),
    Seed(
        "web-form-gzip",
        "01 2F 0D 0A 43 6F 6E 74 65 6E 74 2D 45 6E 63 6F 64 69 6E 67 3A 20 67 7A 69 70 0D 0A "
        "0D 0A 61 3D 62",
        "a checked body with a content encoding",
        "RFC 9110 §8.4",
        "w",
    ),
    Seed(
        "web-multipart-clean",
        "02 2F 75 70 6C 6F 61 64 0D 0A 0D 0A 2D 2D 66 75 7A 7A 0D 0A 43 6F 6E 74 65 6E 74 2D "
        "44 69 73 70 6F 73 69 74 69 6F 6E 3A 20 66 6F 72 6D 2D 64 61 74 61 3B 20 6E 61 6D 65 "
        "3D 22 74 69 74 6C 65 22 0D 0A 0D 0A 48 65 6C 6C 6F 0D 0A 2D 2D 66 75 7A 7A 0D 0A 43 "
        "6F 6E 74 65 6E 74 2D 44 69 73 70 6F 73 69 74 69 6F 6E 3A 20 66 6F 72 6D 2D 64 61 74 "
        "61 3B 20 6E 61 6D 65 3D 22 66 69 6C 65 22 3B 20 66 69 6C 65 6E 61 6D 65 3D 22 61 2E "
        "74 78 74 22 0D 0A 43 6F 6E 74 65 6E 74 2D 54 79 70 65 3A 20 74 65 78 74 2F 70 6C 61 "
        "69 6E 0D 0A 0D 0A 64 61 74 61 0D 0A 2D 2D 66 75 7A 7A 2D 2D 0D 0A",
        "clean multipart form with a field and a file",
        "RFC 7578 §4",
        "w",
    ),
    Seed(
        "web-multipart-filename-traversal",
        "02 2F 0D 0A 0D 0A 2D 2D 66 75 7A 7A 0D 0A 43 6F 6E 74 65 6E 74 2D 44 69 73 70 6F 73 "
        "69 74 69 6F 6E 3A 20 66 6F 72 6D 2D 64 61 74 61 3B 20 6E 61 6D 65 3D 22 66 22 3B 20 "
        "66 69 6C 65 6E 61 6D 65 3D 22 2E 2E 2F 2E 2E 2F 65 74 63 2F 70 61 73 73 77 64 22 0D "
        "0A 0D 0A 78 0D 0A 2D 2D 66 75 7A 7A 2D 2D 0D 0A",
        "path traversal in a filename",
        "RFC 7578 §4.2; CWE-22",
        "w",
    ),
    Seed(
        "web-multipart-filename-star",
        "02 2F 0D 0A 0D 0A 2D 2D 66 75 7A 7A 0D 0A 43 6F 6E 74 65 6E 74 2D 44 69 73 70 6F 73 "
        "69 74 69 6F 6E 3A 20 66 6F 72 6D 2D 64 61 74 61 3B 20 6E 61 6D 65 3D 22 66 22 3B 20 "
        "66 69 6C 65 6E 61 6D 65 2A 3D 55 54 46 2D 38 27 27 25 45 32 25 38 30 25 41 45 67 70 "
        "6A 2E 65 78 65 0D 0A 0D 0A 78 0D 0A 2D 2D 66 75 7A 7A 2D 2D 0D 0A",
        "RLO in an RFC 5987 filename*",
        "RFC 5987 §3.2; CVE-2021-42574",
        "w",
    ),
    Seed(
        "web-multipart-bare-lf",
        "02 2F 0D 0A 0D 0A 2D 2D 66 75 7A 7A 0A 43 6F 6E 74 65 6E 74 2D 44 69 73 70 6F 73 69 "
        "74 69 6F 6E 3A 20 66 6F 72 6D 2D 64 61 74 61 3B 20 6E 61 6D 65 3D 22 61 22 0A 0A C0 "
        "AE 0A 2D 2D 66 75 7A 7A 2D 2D 0A",
        "LF-only delimiter lines: frameworks disagree",
        "RFC 2046 §5.1.1",
        "w",
    ),
    Seed(
        "web-multipart-name-bidi",
        "02 2F 0D 0A 0D 0A 2D 2D 66 75 7A 7A 0D 0A 43 6F 6E 74 65 6E 74 2D 44 69 73 70 6F 73 "
        "69 74 69 6F 6E 3A 20 66 6F 72 6D 2D 64 61 74 61 3B 20 6E 61 6D 65 3D 22 61 E2 80 AE "
        "62 22 0D 0A 0D 0A 76 0D 0A 2D 2D 66 75 7A 7A 2D 2D 0D 0A",
        "RLO in a field name",
        "CVE-2021-42574; RFC 7578 §4.2",
        "w",
    ),
    Seed(
        "web-json-clean",
        "03 2F 61 70 69 0D 0A 0D 0A 7B 22 61 22 3A 20 22 63 61 66 5C 75 30 30 65 39 22 2C 20 "
        "22 62 22 3A 20 5B 31 2C 20 32 2E 35 2C 20 6E 75 6C 6C 2C 20 74 72 75 65 5D 7D",
        "clean JSON with an escape",
        "RFC 8259 §7",
        "w",
    ),
    Seed(
        "web-json-escaped-surrogate",
        "03 2F 61 70 69 0D 0A 0D 0A 7B 22 6B 5C 75 64 38 30 30 22 3A 20 22 5C 75 64 63 30 30 "
        "78 22 7D",
        "lone surrogates as JSON escapes",
        "RFC 8259 §8.2",
        "w",
    ),
    Seed(
        "web-json-seq",
        "04 2F 0D 0A 0D 0A 1E 7B 22 61 22 3A 31 7D 0A 1E 22 5C 75 32 30 32 65 22 0A",
        "JSON text sequence with an escaped RLO",
        "RFC 7464 §2",
        "w",
    ),
    Seed(
        "web-text-bom-bidi",
        "05 2F 0D 0A 0D 0A EF BB BF 68 65 6C 6C 6F 20 E2 80 AE 20 77 6F 72 6C 64",
        "BOM and RLO in a text body",
        "RFC 3629 §6; CVE-2021-42574",
        "w",
    ),
    Seed(
        "web-text-latin1-charset",
        "06 2F 0D 0A 0D 0A 63 61 66 E9",
        "declared charset other than UTF-8",
        "HOWTO §5.9.1",
        "w",
    ),
    Seed(
        "web-untyped-json",
        "07 2F 0D 0A 43 6F 6E 74 65 6E 74 2D 4C 65 6E 67 74 68 3A 20 31 32 0D 0A 0D 0A 7B 22 "
        "78 22 3A 22 C0 AE 22 7D",
        "body without Content-Type read as JSON (FastAPI)",
        "RFC 3629 §10",
        "w",
    ),
    Seed(
        "web-text-long-chunked",
        "05 2F 0D 0A 54 72 61 6E 73 66 65 72 2D 45 6E 63 6F 64 69 6E 67 3A 20 63 68 75 6E 6B "
        "65 64 0D 0A 0D 0A C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 "
        "C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 C3 A9 ED A0 80 7A 7A 7A 7A 7A 7A 7A "
        "7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A "
        "7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A "
        "7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A 7A "
        "7A 7A 7A 7A 7A 7A 7A 7A 7A",
        "ill-formed bytes 600 bytes into a chunked text body",
        "RFC 3629 §3; RFC 9112 §7.1",
        "w",
    ),
    # UTF-7, target ``7`` (corpus/utf7/, utf7_oracle.py): RFC 2152's
    # examples, the smuggling forms and every kind of ill-formed run
    Seed(
        "utf7-rfc-alpha",
        "41 2B 49 6D 49 44 6B 51 2E",
        "RFC 2152 example: run ended by '.', not '-'",
        "RFC 2152 §Examples",
        "7",
    ),
    Seed(
        "utf7-rfc-hi-mom",
        "48 69 20 4D 6F 6D 20 2D 2B 4A 6A 6F 2D 2D 21",
        "RFC 2152 example: '-' after a run is absorbed",
        "RFC 2152 §Examples",
        "7",
    ),
    Seed(
        "utf7-rfc-japanese",
        "2B 5A 65 56 6E 4C 49 71 65 2D",
        "RFC 2152 example: three CJK characters in one run",
        "RFC 2152 §Examples",
        "7",
    ),
    Seed(
        "utf7-rfc-item",
        "49 74 65 6D 20 33 20 69 73 20 2B 41 4B 4D 2D 31 2E",
        "RFC 2152 example: '£' between direct characters",
        "RFC 2152 §Examples",
        "7",
    ),
    Seed(
        "utf7-smuggle-traversal",
        "2B 41 43 38 41 4C 67 41 75 41 43 38 2D",
        "'/../' hidden in base64: path traversal past a '..' filter",
        "HOWTO §5.9.5; RFC 2152 Rule 2",
        "7",
    ),
    Seed(
        "utf7-smuggle-script",
        "2B 41 44 77 2D 73 63 72 69 70 74 2B 41 44 34 2D 61 6C 65 72 74 28 31 29 2B 41 44 77 "
        "2D 2F 73 63 72 69 70 74 2B 41 44 34 2D",
        "'<script>' with '<' and '>' in base64 (charset confusion XSS)",
        "HOWTO §5.9.5; CWE-173",
        "7",
    ),
    Seed(
        "utf7-smuggle-crlf",
        "2B 41 41 30 41 43 67 2D 53 65 74 2D 43 6F 6F 6B 69 65 3A 20 61 3D 31",
        "CR LF in base64: header splitting",
        "HOWTO §5.9.5; CWE-113",
        "7",
    ),
    Seed(
        "utf7-lone-high",
        "2B 32 44 30 2D",
        "lone high surrogate U+D83D, which CPython returns",
        "RFC 2152 Rule 2; RFC 2781 §2.2",
        "7",
    ),
    Seed(
        "utf7-lone-low",
        "2B 33 67 41 2D",
        "lone low surrogate U+DE00",
        "RFC 2152 Rule 2; RFC 2781 §2.2",
        "7",
    ),
    Seed(
        "utf7-pair-split",
        "2B 32 44 30 2D 2B 33 67 41 2D",
        "surrogate pair split across two runs",
        "RFC 2152 Rule 2; RFC 2781 §2.2",
        "7",
    ),
    Seed(
        "utf7-pair",
        "2B 32 44 33 65 41 41 2D",
        "well-formed surrogate pair U+1F600 in one run",
        "RFC 2152 Rule 2",
        "7",
    ),
    Seed(
        "utf7-pair-unterminated",
        "2B 32 44 30",
        "high surrogate at the end of the input",
        "RFC 2152 Rule 2",
        "7",
    ),
    Seed(
        "utf7-partial-unit",
        "2B 41 41 2D",
        "12 bits: a run ending inside a 16-bit unit",
        "RFC 2152 Rule 2",
        "7",
    ),
    Seed(
        "utf7-nonzero-padding",
        "2B 41 41 42 2D",
        "non-zero padding bits after the last unit",
        "RFC 2152 Rule 2",
        "7",
    ),
    Seed(
        "utf7-trailing-plus",
        "61 2B",
        "'+' at the end of the input, dropped by CPython",
        "RFC 2152 Rule 2",
        "7",
    ),
    Seed(
        "utf7-ill-formed-shift",
        "2B 21",
        "'+' followed by neither base64 nor '-'",
        "RFC 2152 Rule 2",
        "7",
    ),
    Seed(
        "utf7-non-ascii",
        "61 80 62",
        "byte 80 between direct characters: UTF-7 is 7-bit",
        "RFC 2152 §1",
        "7",
    ),
    # UTF-16 and UTF-32, target ``u`` (corpus/utf16/, wide_oracle.py): each
    # input is decoded in all four byte orders; the kinds of ill-formed units and controls
    Seed(
        "utf16-lone-high",
        "3D D8 41 00",
        "UTF-16LE high surrogate U+D83D followed by 'A'",
        "RFC 2781 §2.2; HOWTO §5.9.5",
        "u",
    ),
    Seed(
        "utf16-lone-low",
        "41 00 00 DE 42 00",
        "UTF-16LE low surrogate U+DE00 with no high before it",
        "RFC 2781 §2.2",
        "u",
    ),
    Seed(
        "utf16-reversed-pair",
        "42 DE 3D D8",
        "UTF-16LE pair for U+1F642 in reversed order (low, high)",
        "RFC 2781 §2.2",
        "u",
    ),
    Seed(
        "utf16-pair",
        "3D D8 42 DE",
        "UTF-16LE well-formed pair for U+1F642 (the control)",
        "Unicode §3.9 D91",
        "u",
    ),
    Seed(
        "utf16-truncated-pair",
        "41 00 3D D8",
        "UTF-16LE high surrogate cut off by the end of input",
        "Unicode §3.9 D91",
        "u",
    ),
    Seed(
        "utf16-truncated-pair-odd",
        "41 00 3D D8 42",
        "UTF-16LE high surrogate, then one odd byte at the end",
        "Unicode §3.9 D91",
        "u",
    ),
    Seed(
        "utf16-odd-byte",
        "41 00 42",
        "UTF-16 input of odd length: a cut code unit",
        "Unicode §3.9 D91",
        "u",
    ),
    Seed(
        "utf16-bom-le-lone-low",
        "FF FE 00 DC 41 00",
        "UTF-16 BOM FF FE, then a lone low surrogate",
        "RFC 2781 §3.2",
        "u",
    ),
    Seed(
        "utf16-bom-be-pair",
        "FE FF D8 3D DE 42 00 41",
        "UTF-16 BOM FE FF, then a pair and 'A'",
        "RFC 2781 §3.2",
        "u",
    ),
    Seed(
        "utf32-out-of-range",
        "00 00 11 00",
        "UTF-32LE value 0x110000, beyond U+10FFFF",
        "Unicode §3.9 D90",
        "u",
    ),
    Seed(
        "utf32-surrogate",
        "00 D8 00 00",
        "UTF-32LE surrogate code point U+D800",
        "Unicode §3.9 D90",
        "u",
    ),
    Seed(
        "utf32-max-scalar",
        "FF FF 10 00",
        "UTF-32LE U+10FFFF, the last scalar value (the control)",
        "Unicode §3.9 D90",
        "u",
    ),
    Seed(
        "utf32-all-ones",
        "FF FF FF FF",
        "UTF-32 value 0xFFFFFFFF (negative as a signed int)",
        "Unicode §3.9 D90",
        "u",
    ),
    Seed(
        "utf32-truncated",
        "41 00 00 00 42 00",
        "UTF-32 input not a multiple of 4 bytes",
        "Unicode §3.9 D90",
        "u",
    ),
    Seed(
        "utf32-bom-le",
        "FF FE 00 00 41 00 00 00",
        "UTF-32 BOM FF FE 00 00 then 'A'",
        "Unicode §23.8",
        "u",
    ),
)


def files(target: str) -> dict[str, bytes]:
    """``<name>.bin`` -> bytes for every row of ``target`` (a registry name)."""
    from .targets import target as registered

    letter = registered(target).seeds
    return {f"{seed.name}.bin": seed.data for seed in SEEDS if letter in seed.targets}
