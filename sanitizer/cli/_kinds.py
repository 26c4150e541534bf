"""What kind of file a path names, by its name alone (or its shebang): the one table of
the gate's choices per kind.

A kind says three things about a file:

- ``code``: whether ``--policy SOURCE`` applies the identifier rules of UTS #39 (mixed
  scripts, look-alike identifiers) to its words.  Code gets the whole source gate;
  prose, translation catalogues, markup and data get its character rules only
  (``check_source(..., code=False)``): their words are not identifiers, and a Kurdish
  suffix on "CSRF" or a Greek "\\u03a4\\u03bf" beside a Latin "To" in a ``.po`` file is writing,
  not an attack.  A file of no known kind is taken for code (the stricter reading).
- ``declares``: which encoding declaration means something in it, each only to its
  readers: a PEP 263 coding cookie to Python, an XML declaration to XML, ``<meta
  charset>`` to HTML.  Elsewhere such words are text ("coding: latin-1" in a Markdown
  title, a shell script's comment).
- ``known``: a file of a known kind is always checked, never skipped as binary
  (``_inputs.looks_binary``), so that two bytes (a NUL and an invalid one) cannot take
  a C file out of the gate.

``KINDS`` is the table (docs/check.md shows it, tests/cli/test_kinds.py checks the two
are equal); ``kind_of`` reads it.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from ._record import NamedTuple

PEP_263, XML, HTML = "PEP 263 coding cookie", "XML declaration", "HTML meta charset"


class Kind(NamedTuple):
    """A kind of file: its name in the docs, whether it is code, which declaration it may
    carry (None: none), the extensions (with the dot, lowercase) and file names (exact)
    that make a file of this kind."""

    name: str
    code: bool
    declares: str | None
    extensions: tuple[str, ...] = ()
    names: tuple[str, ...] = ()


# fmt: off
KINDS: tuple[Kind, ...] = (
    Kind("Python", True, PEP_263, (".py", ".pyw", ".pyi")),
    Kind(
        "code",
        True,
        None,
        (
            ".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".ipp", ".inl",
            ".m", ".mm", ".cs", ".java", ".kt", ".kts", ".scala", ".groovy", ".gradle",
            ".go", ".rs", ".swift", ".zig", ".nim", ".d", ".dart", ".js", ".mjs", ".cjs",
            ".jsx", ".ts", ".mts", ".cts", ".tsx", ".vue", ".svelte", ".css", ".scss",
            ".sass", ".less", ".rb", ".php", ".pl", ".pm", ".lua", ".r", ".jl", ".ex", ".exs",
            ".erl", ".hrl", ".hs", ".ml", ".mli", ".fs", ".fsx", ".elm", ".clj", ".cljs",
            ".el", ".lisp", ".scm", ".rkt", ".vb", ".pas", ".f", ".f90", ".f95", ".asm",
            ".s", ".sql", ".sh", ".bash", ".zsh", ".fish", ".ps1", ".psm1", ".bat", ".cmd",
            ".awk", ".sed", ".tcl", ".cmake", ".mk", ".mak", ".tf", ".hcl", ".nix",
            ".proto", ".thrift", ".graphql", ".sol", ".v", ".sv", ".vhd", ".vhdl", ".pyx",
            ".pxd", ".cu", ".cl", ".glsl", ".hlsl", ".wgsl", ".wat", ".jinja", ".j2",
        ),
        (
            "Makefile", "makefile", "GNUmakefile", "Dockerfile", "Containerfile",
            "Jenkinsfile", "Rakefile", "Gemfile", "Vagrantfile", "Justfile", "justfile",
            "CMakeLists.txt", "meson.build", "SConstruct", "SConscript", "BUILD",
            "BUILD.bazel", "WORKSPACE", ".bashrc", ".zshrc", ".profile",
        ),
    ),
    # GitHub Actions: "uses: actions/checkout@v4" names code that runs; its words are
    # identifiers (a Cyrillic letter in an action's name is another action).
    Kind("CI workflow", True, None, (), (".github/workflows/*.yml", ".github/workflows/*.yaml")),
    Kind("XML", False, XML, (".xml", ".xsd", ".xsl", ".xslt", ".svg", ".plist", ".rss",
                             ".atom", ".wsdl", ".xlf", ".xliff", ".resx", ".csproj",
                             ".vcxproj", ".props", ".targets", ".xaml", ".kml", ".gpx")),
    Kind("HTML", False, HTML, (".html", ".htm", ".xhtml", ".shtml")),
    Kind("translation catalogue", False, None,
         (".po", ".pot", ".strings", ".stringsdict", ".properties", ".arb", ".ftl")),
    Kind("prose", False, None,
         (".md", ".markdown", ".rst", ".txt", ".text", ".adoc", ".asciidoc", ".org",
          ".tex", ".rtf", ".srt", ".vtt", ".sub", ".1", ".man"),
         ("README", "LICENSE", "LICENCE", "COPYING", "AUTHORS", "CONTRIBUTORS", "CHANGELOG",
          "CHANGES", "NEWS", "NOTICE", "THANKS", "TODO", "HISTORY", "CODEOWNERS",
          # Python's core metadata: email headers and the project's description
          "PKG-INFO", "METADATA")),
    Kind("data", False, None,
         (".json", ".jsonl", ".ndjson", ".json5", ".geojson", ".ipynb", ".map", ".csv", ".tsv",
          ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".env", ".lock", ".log"),
         (".editorconfig", ".gitignore", ".gitattributes", ".dockerignore", ".env")),
)
# fmt: on
# Files whose names say they are binary (archives, images, fonts, compiled code): skipped
# when their first 8 KiB hold a NUL byte or are not UTF-8, as any other binary file is
# when they hold both.  Text named like one is read.
# fmt: off
BINARY = Kind("binary", False, None, (
    ".tar", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".zip", ".7z", ".rar", ".whl", ".egg",
    ".jar", ".war", ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".icns", ".tif", ".tiff",
    ".webp", ".pbm", ".pgm", ".ppm", ".pnm", ".xbm", ".pdf", ".woff", ".woff2", ".ttf",
    ".otf", ".eot", ".mo", ".pyc", ".pyo", ".so", ".dylib", ".dll", ".exe", ".o", ".a",
    ".lib", ".obj", ".class", ".wasm", ".db", ".sqlite", ".sqlite3", ".mp3", ".mp4", ".wav",
    ".ogg", ".flac", ".avi", ".mov", ".webm", ".npy", ".npz", ".pkl", ".pickle",
    # data formats of fixed-width binary records, whose bytes can all be ASCII: a
    # shapefile's table, shapes and index (dBase, ESRI), HDF5, netCDF, spreadsheets
    ".dbf", ".shp", ".shx", ".h5", ".hdf5", ".nc", ".xls", ".xlsx", ".docx", ".odt", ".ods",
))
# fmt: on
# Records files, by extension: read a record at a time, each value judged as its
# consumer reads it (``sanitizer check`` and ``sanitizer reveal``: the input mode of the
# same name; ``--records`` names one for stdin or any other name).
RECORDS = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".arrow": "arrow",
    ".feather": "arrow",
    ".arrows": "arrow",
    ".ipc": "arrow",
}  # fmt: skip
UNKNOWN = Kind("other", True, None)  # taken for code: the stricter reading
_BY_EXTENSION = {ext: kind for kind in (*KINDS, BINARY) for ext in kind.extensions}
_BY_NAME = {name: kind for kind in KINDS for name in kind.names}
_PYTHON = KINDS[0]
_SCRIPT = KINDS[1]


def kind_of(path: str, head: bytes = b"") -> Kind:
    """The kind of the file at ``path`` whose first bytes are ``head``: by its exact
    name, then its extension (lowercase), then a shebang line (``#!`` naming python: a
    Python file; any other: a script), else ``UNKNOWN``.  Standard input has no name:
    only its shebang counts."""
    name = os.path.basename(path)
    kind = _BY_NAME.get(name)
    if kind is not None:
        return kind
    folders = os.path.dirname(path).replace(os.sep, "/").split("/")[-2:]
    if folders == [".github", "workflows"]:  # the names of the CI workflow kind are paths
        kind = _BY_NAME.get(f".github/workflows/*{os.path.splitext(name)[1].lower()}")
        if kind is not None:
            return kind
    ext = os.path.splitext(name)[1].lower()
    kind = _BY_EXTENSION.get(ext) if ext else None
    if kind is not None:
        return kind
    if head.startswith(b"#!"):
        line = head[:128].partition(b"\n")[0]
        return _PYTHON if b"python" in line else _SCRIPT
    return UNKNOWN


def records_of(path: str, forced: str = "auto") -> str | None:
    """The records format of ``path`` (``RECORDS``), or the one ``--records`` names
    (``off``: none); None: not a records file."""
    if forced != "auto":
        return None if forced == "off" else forced
    return RECORDS.get(os.path.splitext(os.path.basename(path))[1].lower())


def known(kind: Kind) -> bool:
    """Whether a file of ``kind`` is a known kind of text (never skipped as binary)."""
    return kind is not UNKNOWN and kind is not BINARY
