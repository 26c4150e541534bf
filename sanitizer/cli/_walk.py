"""Which files under a folder a scan reads: what git would not ignore, like ripgrep.

A gate that reads ``.git/``, virtualenvs and build output drowns its findings in noise
(three million lines for one checkout), so a folder is walked the way the tools
developers already use walk it:

- VCS folders (``.git``, ``.hg``, ``.svn``, ...) are never entered;
- inside a git work tree, git itself lists the files (``git ls-files --cached --others
  --exclude-standard``): nested ``.gitignore`` files with negations,
  ``.git/info/exclude`` and ``core.excludesFile`` mean exactly what they mean to git, and a
  *tracked* file is always read even when an ignore rule matches it, so a pull request
  cannot hide a committed file from the gate by adding an ignore rule (gitignore(5):
  ignore rules apply to untracked files);
- without git (an exported tree, no ``git`` binary), ``.gitignore`` files are read with
  ``pathspec``'s ``GitIgnoreSpec`` (git's wildmatch rules, a deeper file overriding a
  shallower one, an excluded folder never entered);
- ``.ignore`` files (ripgrep's, same syntax) are honoured too, for untracked files only;
- ``--include``/``--exclude`` globs use the same syntax, on the path below the folder
  (ignore files and globs are matched by ``_ignore``);
- symbolic links are not followed (counted, not read) unless asked; when followed,
  folders already on the walk (same device and inode) are not entered again.

Everything that cannot be read is reported through ``report``; nothing is dropped unsaid.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator

from ._record import Record

TYPE_CHECKING = False  # typing's constant without importing typing (start-up)
if TYPE_CHECKING:
    from ._ignore import IgnoreStack
# ``_ignore`` is imported where a folder is walked: checking named files does not need it.

# Folders of version control systems: their content is history, not the tree.
VCS_DIRS = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", "CVS", ".fossil", ".jj", ".pijul"})
IGNORE_FILE = ".ignore"
GITIGNORE_FILE = ".gitignore"


class Rules(Record):
    """How a folder is walked (``sanitizer check`` options)."""

    ignore_files: bool = True  # honour .gitignore / .ignore (--no-ignore: False)
    use_git: bool = True  # ask git inside a work tree (False: pathspec only)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    follow: bool = False  # follow symbolic links (--follow)


class Counts:
    """What the walk left out on purpose, for the summary line."""

    __slots__ = ("by_walker", "excluded", "symlinks")

    def __init__(self) -> None:
        self.symlinks = 0
        self.excluded = 0  # by --include/--exclude
        self.by_walker: dict[str, str] = {}  # folder -> "git" | "pathspec"


class WalkNotice(Record):
    """Something the walk could not read (``error``) or chose not to (``skipped``)."""

    path: str
    message: str
    error: bool = True


def kind_of(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"


def reason_of(exc: OSError) -> str:
    return exc.strerror or str(exc)


def walk(
    top: str, rules: Rules, counts: Counts, report: Callable[[WalkNotice], None]
) -> Iterator[str]:
    """The files to read under folder ``top``, in a stable order (sorted by path)."""
    listed = _git_files(top) if rules.use_git and rules.ignore_files else None
    if listed is not None:
        counts.by_walker[top] = "git"
        yield from _from_git(top, listed, rules, counts, report)
    else:
        counts.by_walker[top] = "pathspec"
        yield from _from_disk(top, rules, counts, report)


def _git_files(top: str) -> tuple[list[str], list[str]] | None:
    """(tracked, untracked-not-ignored) relative to ``top``, or None when git is missing,
    ``top`` is not in a work tree, or ``top`` itself is ignored (then its own ignore
    files are read by the pathspec walker, as for a tree without git)."""
    import shutil  # here: only a walk inside a folder asks for git

    git = shutil.which("git")
    if git is None:
        return None
    import subprocess  # here: checking named files never starts git

    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}

    def run(*args: str) -> bytes | None:
        try:
            proc = subprocess.run(
                [git, "-C", top, *args], capture_output=True, env=env, check=False
            )
        except OSError:
            return None
        return proc.stdout if proc.returncode == 0 else None

    inside = run("rev-parse", "--is-inside-work-tree")
    if inside is None or inside.strip() != b"true":
        return None
    if run("check-ignore", "-q", ".") is not None:  # exit 0: the folder is ignored
        return None
    tracked = run("ls-files", "-z", "--cached", "--", ".")
    others = run("ls-files", "-z", "--others", "--exclude-standard", "--", ".")
    if tracked is None or others is None:
        return None

    def names(out: bytes) -> list[str]:
        return [os.fsdecode(p) for p in out.split(b"\0") if p]

    return names(tracked), names(others)


def _order(rel: str) -> list[str]:
    return rel.split("/")


def _from_git(
    top: str,
    listed: tuple[list[str], list[str]],
    rules: Rules,
    counts: Counts,
    report: Callable[[WalkNotice], None],
) -> Iterator[str]:
    from ._ignore import IgnoreStack, PathFilter

    tracked, others = listed
    dot_ignore = IgnoreStack(top, (IGNORE_FILE,))
    keep = [(rel, True) for rel in tracked]
    keep += [(rel, False) for rel in others if not dot_ignore.ignored(rel)]
    keep.sort(key=lambda item: _order(item[0]))
    filt = PathFilter(rules.include, rules.exclude)
    seen = set()
    for rel, _is_tracked in keep:
        if rel in seen:  # a conflicted file is listed once per stage
            continue
        seen.add(rel)
        if any(part in VCS_DIRS for part in rel.split("/")[:-1]):
            continue
        if filt.skips_file(rel):
            counts.excluded += 1
            continue
        full = os.path.join(top, rel)
        try:
            st = os.lstat(full)
        except FileNotFoundError:  # deleted in the work tree, still in the index
            continue
        except OSError as exc:
            report(WalkNotice(full, reason_of(exc)))
            continue
        if stat.S_ISDIR(st.st_mode):  # a submodule (gitlink): its own repository
            yield from walk(full, rules, counts, report)
        else:
            yield from _regular(full, st, rules, counts, report, set())


def _regular(
    full: str,
    st: os.stat_result,
    rules: Rules,
    counts: Counts,
    report: Callable[[WalkNotice], None],
    on_path: set[tuple[int, int]],
) -> Iterator[str]:
    """``full`` if it is a regular file (or, with --follow, a link to one or a folder)."""
    if stat.S_ISLNK(st.st_mode):
        if not rules.follow:
            counts.symlinks += 1
            return
        try:
            st = os.stat(full)
        except OSError as exc:  # a dangling or looping link
            report(WalkNotice(full, reason_of(exc)))
            return
        if stat.S_ISDIR(st.st_mode):
            yield from _walk_dir(full, "", full, rules, counts, report, on_path, None)
            return
    if stat.S_ISREG(st.st_mode):
        yield full
    else:
        report(WalkNotice(full, f"skipped: {kind_of(st.st_mode)}, not a regular file", False))


def _root_of_repo(top: str) -> str | None:
    path = os.path.abspath(top)
    while True:
        if os.path.exists(os.path.join(path, ".git")):
            return path
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def _from_disk(
    top: str, rules: Rules, counts: Counts, report: Callable[[WalkNotice], None]
) -> Iterator[str]:
    from ._ignore import IgnoreStack

    ignores: IgnoreStack | None = None
    prefix = ""
    if rules.ignore_files:
        names = (GITIGNORE_FILE, IGNORE_FILE)
        root = _root_of_repo(top)
        extra: list[str] = []
        if root is None:
            root = top
        else:
            try:
                with open(os.path.join(root, ".git", "info", "exclude"), "rb") as f:
                    extra = f.read().decode("utf-8", "replace").splitlines()
            except OSError:
                pass
            rel_top = os.path.relpath(os.path.abspath(top), root).replace(os.sep, "/")
            prefix = "" if rel_top == "." else rel_top
        ignores = IgnoreStack(root, names, extra)
        if prefix and ignores.ignored(prefix, True):  # named explicitly: its own rules only
            ignores = IgnoreStack(top, names)
            prefix = ""
    st = os.stat(top)
    yield from _walk_dir(
        top, "", top, rules, counts, report, {(st.st_dev, st.st_ino)}, ignores, prefix
    )


def _walk_dir(
    folder: str,
    rel: str,
    top: str,
    rules: Rules,
    counts: Counts,
    report: Callable[[WalkNotice], None],
    on_path: set[tuple[int, int]],
    ignores: IgnoreStack | None,
    prefix: str = "",
) -> Iterator[str]:
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        report(WalkNotice(folder, reason_of(exc)))
        return
    from ._ignore import PathFilter

    filt = PathFilter(rules.include, rules.exclude)
    for entry in entries:
        name = entry.name
        child_rel = f"{rel}/{name}" if rel else name
        ignore_rel = f"{prefix}/{child_rel}" if prefix else child_rel
        full = entry.path
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError as exc:
            report(WalkNotice(full, reason_of(exc)))
            continue
        is_link = stat.S_ISLNK(st.st_mode)
        is_dir = stat.S_ISDIR(st.st_mode)
        if is_link and rules.follow:
            try:
                target = os.stat(full)
            except OSError as exc:
                report(WalkNotice(full, reason_of(exc)))
                continue
            is_dir = stat.S_ISDIR(target.st_mode)
            if is_dir:
                st = target
        if is_dir:
            if name in VCS_DIRS or filt.skips_dir(child_rel):
                continue
            if ignores is not None and ignores.ignored(ignore_rel, True):
                continue
            key = (st.st_dev, st.st_ino)
            if key in on_path:  # a link back to a folder being walked: a loop
                report(WalkNotice(full, "skipped: symbolic link loop", False))
                continue
            on_path.add(key)
            try:
                yield from _walk_dir(
                    full, child_rel, top, rules, counts, report, on_path, ignores, prefix
                )
            finally:
                on_path.discard(key)
            continue
        if ignores is not None and ignores.ignored(ignore_rel, False):
            continue
        if filt.skips_file(child_rel):
            counts.excluded += 1
            continue
        yield from _regular(full, st, rules, counts, report, on_path)
