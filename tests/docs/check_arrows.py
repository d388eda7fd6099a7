#!/usr/bin/env python3
"""Every #include between rooms is an arrow docs/architecture.md allows.

    tests/docs/check_arrows.py [SOURCE_ROOT]      (default: the repository this file is in)

The page declares its arrows in one fenced block whose info string is `arrows`:

    ```arrows
    ROOM -> TARGET, TARGET, ...     # why (prose, ignored)
            TARGET, ...             # a line that starts with a space continues the one above
    ```

A ROOM is a folder under the source root (core/memory, app/gui/view, kernels). It owns the
sources (.cpp .hpp .cu .cuh) in its folder and in its sub-folders one level down (core/backend's
ops/, cpu/, ...), as core/CMakeLists.txt's proteus_room globs them, except a sub-folder that is a
room of its own (app/gui/view inside app/gui). A TARGET is a room, one header of a room
(app/cli/version.hpp: only that file), an external header as <glob> (<imgui*.h>, <GLFW/*>), or
`nothing`. A room may always include its own files.

Checked:
- every source under core/, app/ and kernels/ belongs to a room, and every room the page names
  is a folder with sources in it; every target names a room, an existing header of one, or a glob;
- every `#include "..."` of a project header (resolved from the source root, then from the
  including file's folder) from room A into room B is allowed by A's line, named FILE:LINE;
- every `#include <...>` that matches an external glob named anywhere in the block is allowed
  by the including room's line (so ImGui stays in the view, CUDA in kernels/);
- an arrow between two core/ rooms is also a link: B is among the libraries A's proteus_room(...)
  in core/CMakeLists.txt links, directly or through another room.

Prints each problem as FILE:LINE: what, exits 1 when there is one, 0 when none.
Standard library only; paths through pathlib, no shell.
"""
import fnmatch
import re
import sys
from pathlib import Path

SOURCE_SUFFIXES = {".cpp", ".hpp", ".cu", ".cuh"}
TOP_FOLDERS = ("core", "app", "kernels")
PAGE = Path("docs") / "architecture.md"
FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})\s*(\S*)")
QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
ANGLE_INCLUDE = re.compile(r"^\s*#\s*include\s*<([^>]+)>")
ROOM_CALL = re.compile(r"^\s*proteus_room\(\s*(\w+)([^)]*)\)", re.MULTILINE)


class Arrows:
    """The block's rooms in page order, and for each what it may include."""

    def __init__(self):
        self.rooms = []       # room folders, as written ("core/memory")
        self.line_of = {}     # room -> its line on the page
        self.targets = {}     # room -> [(target, page line)]
        self.globs = set()    # every external glob named in the block


def arrow_block(text):
    """(page line, line) of each line inside the ```arrows block; None when the page has none."""
    lines, fence, found = [], None, False
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
                found = found or m.group(2) == "arrows"
                inside = m.group(2) == "arrows"
            continue
        if m and m.group(1).startswith(fence[0] * len(fence)) and not m.group(2):
            fence = None
            continue
        if inside:
            lines.append((number, line))
    return lines if found else None


def parse_arrows(text, problems):
    arrows = Arrows()
    block = arrow_block(text)
    if block is None:
        problems.append(f"{PAGE}:0: no ```arrows block (the room arrows this test reads)")
        return arrows
    current = None
    for number, line in block:
        body = line.split("#", 1)[0]
        if not body.strip():
            continue
        if not body[0].isspace():
            room, sep, rest = body.partition("->")
            room = room.strip().rstrip("/")
            if not sep or not room:
                problems.append(f"{PAGE}:{number}: not 'ROOM -> TARGET, ...': {line.strip()}")
                current = None
                continue
            if room in arrows.targets:
                problems.append(f"{PAGE}:{number}: room {room} declared twice (first on line {arrows.line_of[room]})")
                current = None
                continue
            current = room
            arrows.rooms.append(room)
            arrows.line_of[room] = number
            arrows.targets[room] = []
        elif current is None:
            problems.append(f"{PAGE}:{number}: a continuation line with no room above it")
            continue
        else:
            rest = body
        for target in (t.strip() for t in rest.split(",")):
            if not target or target == "nothing":
                continue
            if target.startswith("<") and target.endswith(">"):
                arrows.globs.add(target[1:-1])
            arrows.targets[current].append((target.rstrip("/"), number))
    return arrows


def sources(root):
    """Every source file under core/, app/ and kernels/, as a path relative to the root."""
    found = []
    for top in TOP_FOLDERS:
        folder = root / top
        if folder.is_dir():
            found += [p.relative_to(root) for p in folder.rglob("*") if p.is_file() and p.suffix in SOURCE_SUFFIXES]
    return sorted(found)


def room_of(path, rooms):
    """The room that owns a file (relative path): its folder's, or its parent folder's when that
    is one level up and the folder is not a room itself; None when neither."""
    folder = path.parent.as_posix()
    if folder in rooms:
        return folder
    parent = path.parent.parent.as_posix()
    if parent in rooms:
        return parent
    return None


def resolve(root, including, name):
    """A quoted include as a path relative to the root, or None when it is not a file of ours."""
    for candidate in (root / name, root / including.parent / name):
        if candidate.is_file():
            try:
                return candidate.resolve().relative_to(root.resolve())
            except ValueError:
                return None
    return None


def link_closure(root):
    """For each core room: the rooms its library links, directly or through another room."""
    cmake = root / "core" / "CMakeLists.txt"
    if not cmake.is_file():
        return {}
    direct = {}
    for m in ROOM_CALL.finditer(cmake.read_text(encoding="utf-8")):
        direct["core/" + m.group(1)] = {"core/" + d[len("proteus_"):] for d in m.group(2).split() if d.startswith("proteus_")}
    closure = {}

    def reach(room, seen):
        for dep in direct.get(room, ()):
            if dep not in seen:
                seen.add(dep)
                reach(dep, seen)
        return seen

    for room in direct:
        closure[room] = reach(room, set())
    return closure


def check_declarations(root, arrows, files, problems):
    rooms = set(arrows.rooms)
    owned = {room: 0 for room in rooms}
    for path in files:
        room = room_of(path, rooms)
        if room is None:
            problems.append(f"{path}:0: in no room (add its folder to the arrows of {PAGE})")
        else:
            owned[room] += 1
    for room in arrows.rooms:
        if not (root / room).is_dir():
            problems.append(f"{PAGE}:{arrows.line_of[room]}: room {room} is not a folder of the source tree")
        elif owned[room] == 0:
            problems.append(f"{PAGE}:{arrows.line_of[room]}: room {room} has no sources")
    for room in arrows.rooms:
        for target, number in arrows.targets[room]:
            if target.startswith("<"):
                continue
            if target in rooms:
                continue
            file_room = room_of(Path(target), rooms)
            if file_room and (root / target).is_file():
                continue
            problems.append(f"{PAGE}:{number}: {room} -> {target}: names no room and no header of one")


def allowed(arrows, room, target_room, target_path):
    for target, _ in arrows.targets.get(room, ()):
        if target == target_room or target == target_path:
            return True
    return False


def allowed_external(arrows, room, header):
    """Whether `header` (an angle include) is watched, and if so whether the room may include it."""
    watched = [g for g in arrows.globs if fnmatch.fnmatchcase(header, g)]
    if not watched:
        return True
    mine = {t[1:-1] for t, _ in arrows.targets.get(room, ()) if t.startswith("<")}
    return any(g in mine for g in watched)


def check_includes(root, arrows, files, problems):
    rooms = set(arrows.rooms)
    crossings = 0
    for path in files:
        room = room_of(path, rooms)
        if room is None:
            continue
        text = (root / path).read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            m = QUOTED_INCLUDE.match(line)
            if m:
                target = resolve(root, path, m.group(1))
                if target is None:
                    if m.group(1).split("/", 1)[0] in TOP_FOLDERS:
                        problems.append(f"{path}:{number}: includes {m.group(1)}, which is not there")
                    continue
                target_room = room_of(target, rooms)
                if target_room == room:
                    continue
                crossings += 1
                if target_room is None:
                    continue  # reported as a file in no room
                if not allowed(arrows, room, target_room, target.as_posix()):
                    problems.append(f"{path}:{number}: {room} -> {target_room} ({target.as_posix()}): "
                                    f"an arrow {PAGE} does not allow")
                continue
            m = ANGLE_INCLUDE.match(line)
            if m and not allowed_external(arrows, room, m.group(1).strip()):
                problems.append(f"{path}:{number}: {room} -> <{m.group(1).strip()}>: "
                                f"an external header {PAGE} does not allow there")
    return crossings


def check_links(root, arrows, problems):
    closure = link_closure(root)
    for room in arrows.rooms:
        if not room.startswith("core/"):
            continue
        if room not in closure:
            problems.append(f"{PAGE}:{arrows.line_of[room]}: room {room}: no proteus_room({room[5:]}) in core/CMakeLists.txt")
            continue
        for target, number in arrows.targets[room]:
            if target.startswith("core/") and target in arrows.targets and target not in closure[room]:
                problems.append(f"{PAGE}:{number}: {room} -> {target}: proteus_{room[5:]} does not link "
                                f"proteus_{target[5:]} (core/CMakeLists.txt), directly or through another room")


def main(argv):
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent.parent
    page = root / PAGE
    if not page.is_file():
        print(f"{PAGE}:0: missing (the page that declares the arrows)")
        return 1
    problems = []
    arrows = parse_arrows(page.read_text(encoding="utf-8"), problems)
    files = sources(root)
    check_declarations(root, arrows, files, problems)
    crossings = check_includes(root, arrows, files, problems)
    check_links(root, arrows, problems)
    for p in problems:
        print(p)
    if problems:
        print(f"check_arrows: {len(problems)} problems ({len(arrows.rooms)} rooms, {len(files)} files)", file=sys.stderr)
        return 1
    print(f"check_arrows: {len(arrows.rooms)} rooms, {len(files)} files, {crossings} includes across rooms, all allowed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
