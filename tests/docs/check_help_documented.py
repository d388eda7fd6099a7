#!/usr/bin/env python3
"""Every option the programs' --help lists is documented, spelled exactly.

    tests/docs/check_help_documented.py PROTEUS docs/cli.md [PROTEUS_LAB docs/app.md]

Runs `PROTEUS --help`, reads the subcommands it lists (CLI11's "Subcommands:" section), runs
`PROTEUS SUB --help` for each, and takes every long option (--name) from the options' name column
of each help text (not from descriptions or footers). Each must appear in the doc page as itself
(`--set`, not only `--set-foo`), and each subcommand must be named there as `proteus SUB`. With a
second pair, `PROTEUS_LAB --help`'s options must appear in its page the same way.

Prints each option missing from its page, with the command whose help lists it; exits 1 when
one is missing, 2 when a program cannot be run or lists nothing, 0 when every option is there.
Standard library only.
"""
import re
import subprocess
import sys

LONG_OPTION = re.compile(r"--[A-Za-z0-9][A-Za-z0-9_-]*")
SUBCOMMAND_LINE = re.compile(r"^  ([A-Za-z0-9][A-Za-z0-9_-]*)(\s|$)")


def help_text(command):
    try:
        done = subprocess.run(command + ["--help"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SystemExit(f"check_help_documented: cannot run {' '.join(command)} --help: {e}") from None
    if done.returncode != 0:
        raise SystemExit(f"check_help_documented: {' '.join(command)} --help exited {done.returncode}: "
                         f"{done.stderr.strip()}")
    return done.stdout


def options_of(text):
    """The long options of a CLI11 help text, from the name column of its option lines.

    An option line is indented by two spaces and starts with '-' ("  -h,--help  Print ...",
    "  --set PATH=VALUE  override ..."); its names are the leading tokens that start with '-',
    split at commas. Descriptions, wrapped lines (indented further) and footers are not read.
    """
    found = []
    for line in text.splitlines():
        if not line.startswith("  -") or line.startswith("   "):
            continue
        for token in line.split():
            if not token.startswith("-"):
                break
            for name in token.split(","):
                m = LONG_OPTION.fullmatch(name.strip())
                if m and m.group(0) not in found:
                    found.append(m.group(0))
    return found


def subcommands_of(text):
    """The subcommand names listed in a CLI11 help text's "Subcommands:" section."""
    names = []
    inside = False
    for line in text.splitlines():
        if line.rstrip() == "Subcommands:":
            inside = True
            continue
        if not inside:
            continue
        if not line.strip() or not line.startswith(" "):
            break
        m = SUBCOMMAND_LINE.match(line)
        if m:
            names.append(m.group(1))
    return names


def documented(option, page):
    return re.search(r"(?<![A-Za-z0-9_-])" + re.escape(option) + r"(?![A-Za-z0-9_-])", page) is not None


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def check(program, page_path, with_subcommands):
    """The problems found for one program and its page, as lines."""
    page = read(page_path)
    top = help_text([program])
    commands = [("", top)]
    if with_subcommands:
        subs = subcommands_of(top)
        if not subs:
            raise SystemExit(f"check_help_documented: {program} --help lists no subcommands")
        commands += [(sub, help_text([program, sub])) for sub in subs]
    missing = []
    total = 0
    for sub, text in commands:
        name = "proteus " + sub if sub else program
        if sub and not re.search(r"proteus " + re.escape(sub) + r"(?![A-Za-z0-9_-])", page):
            missing.append(f"{page_path}: subcommand `proteus {sub}` is not named")
        options = options_of(text)
        if not options:
            raise SystemExit(f"check_help_documented: {name} --help lists no options")
        for option in options:
            total += 1
            if not documented(option, page):
                missing.append(f"{page_path}: {option} (from `{name} --help`) is not documented")
    return missing, total, len(commands)


def main(argv):
    if len(argv) not in (3, 5):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    problems, options, commands = check(argv[1], argv[2], True)
    if len(argv) == 5:
        more, n, c = check(argv[3], argv[4], False)
        problems += more
        options += n
        commands += c
    for p in problems:
        print(p)
    if problems:
        print(f"check_help_documented: {len(problems)} missing ({options} options of {commands} help texts)",
              file=sys.stderr)
        return 1
    print(f"check_help_documented: {options} options of {commands} help texts, every one documented")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
