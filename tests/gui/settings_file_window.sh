#!/usr/bin/env bash
# Issue 34: no settings file keeps the window from opening. proteus-lab is started under Xvfb with
# each hostile file in place of its imgui.ini ($XDG_CONFIG_HOME/proteus-lab/): a crafted table
# entry (a column count ImGui sizes an allocation by), a FIFO, a device, a symlink loop, a file
# over the size limit. Each time the window must open, draw and quit, say what it set aside or
# dropped, and leave a regular settings file it can read next time.
#   tests/gui/settings_file_window.sh PROTEUS_LAB
# Exit 0 when every case opens, 1 naming the first that does not, 77 (skipped) without xvfb-run.
set -euo pipefail
lab=$1
if ! command -v xvfb-run >/dev/null; then echo "settings_file_window: skipped: xvfb-run is not installed"; exit 77; fi
if [ ! -x "$lab" ]; then echo "settings_file_window: skipped: $lab is not built"; exit 77; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME="$work/config"
ini="$XDG_CONFIG_HOME/proteus-lab/imgui.ini"
mkdir -p "$(dirname "$ini")"

# Opens the window on the runs tab (a table) and quits; the outer timeout catches a hang before the
# window opens, where --timeout does not apply yet.
check() {  # CASE EXPECTED-MESSAGE
  rm -f "$work/shot.png"
  local status=0
  timeout 60 xvfb-run -a -s "-screen 0 1280x800x24" "$lab" --tab runs --screenshot "$work/shot.png" --quit \
    --timeout 40 >"$work/out.txt" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    echo "settings_file_window: $1: the window did not open (status $status; 124: it hung):"; cat "$work/out.txt"; exit 1
  fi
  [ -s "$work/shot.png" ] || { echo "settings_file_window: $1: no screenshot"; cat "$work/out.txt"; exit 1; }
  grep -qF "$2" "$work/out.txt" || { echo "settings_file_window: $1: no message '$2':"; cat "$work/out.txt"; exit 1; }
  [ -f "$ini" ] && [ ! -L "$ini" ] || { echo "settings_file_window: $1: no regular settings file saved"; exit 1; }
  grep -q '^\[ProteusLab\]\[Window\]' "$ini" || { echo "settings_file_window: $1: the saved file lacks the window's entry"; exit 1; }
  rm -rf "$(dirname "$ini")" && mkdir -p "$(dirname "$ini")"
}

printf '[Window][Runs]\nPos=10,10\n\n[Table][0x00000001,2147483647]\nColumn 0 Width=1\n' >"$ini"
check "a crafted table entry" "line 4 dropped: a table entry with a column count outside [1, 64]"
printf '[Table][0xDEADBEEF,-7]\n' >"$ini"
check "a negative column count" "line 1 dropped"
mkfifo "$ini"
check "a FIFO" "not a regular file"
ln -s /dev/zero "$ini"
check "a device" "not a regular file"
ln -s imgui.ini "$ini"
check "a symlink loop" "a symlink loop"
head -c 2000000 /dev/zero | tr '\0' '\n' >"$ini"
check "a 2 MB file" "larger than 1 MiB"
echo "settings_file_window: the window opened with each hostile settings file"
