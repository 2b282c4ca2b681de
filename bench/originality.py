#!/usr/bin/env python3
"""How closely the lesson prose follows the seed text, sentence by sentence.

For every prose sentence of content/ (outside code fences, front matter and component tags; table
rows count as sentences) the highest character-level similarity to any seed sentence is computed
with difflib.SequenceMatcher. Prints the share of sentences at or above the threshold (0.6) and
lists them. Exit status 1 when the share is above --max-share (default 3 %).

    python3 bench/originality.py [--seed ../shared/seed/api-idempotency-lesson.ja.txt] [--content content]
"""
import argparse
import difflib
import pathlib
import re
import sys

THRESHOLD = 0.6


def sentences(text):
    parts = []
    for line in text.split("\n"):
        line = line.strip()
        if not line:
            continue
        for piece in re.split(r"(?<=[。！？])", line):
            piece = re.sub(r"^[#>*\-\d.|\s]+", "", piece).strip(" |")
            if len(piece) >= 8:
                parts.append(piece)
    return parts


def prose(markdown):
    lines = markdown.split("\n")
    out, fence, front = [], None, False
    for i, line in enumerate(lines):
        if i == 0 and line.strip() == "---":
            front = True
            continue
        if front:
            if line.strip() == "---":
                front = False
            continue
        stripped = line.strip()
        match = re.match(r"^(`{3,}|~{3,})", stripped)
        if fence:
            if match and stripped.startswith(fence):
                fence = None
            continue
        if match:
            fence = match.group(1)
            continue
        if re.match(r"^</?[A-Z]", stripped) or stripped.startswith("import "):
            stripped = re.sub(r"<[^>]*>", " ", stripped)
        out.append(stripped)
    return "\n".join(out)


def main():
    here = pathlib.Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", default=str(here.parent / "shared/seed/api-idempotency-lesson.ja.txt"))
    parser.add_argument("--content", default=str(here / "content/idempotency"))
    parser.add_argument("--max-share", type=float, default=0.03)
    args = parser.parse_args()
    seed = sentences(pathlib.Path(args.seed).read_text(encoding="utf-8"))
    ours = []
    for path in sorted(pathlib.Path(args.content).rglob("*.md*")):
        for sentence in sentences(prose(path.read_text(encoding="utf-8"))):
            ours.append((path.name, sentence))
    close = []
    for name, sentence in ours:
        best, match = 0.0, ""
        for candidate in seed:
            matcher = difflib.SequenceMatcher(None, sentence, candidate, autojunk=False)
            if matcher.real_quick_ratio() < THRESHOLD or matcher.quick_ratio() < THRESHOLD:
                continue
            ratio = matcher.ratio()
            if ratio > best:
                best, match = ratio, candidate
        if best >= THRESHOLD:
            close.append((best, name, sentence, match))
    share = len(close) / max(1, len(ours))
    for best, name, sentence, match in sorted(close, reverse=True):
        print(f"{best:.2f} {name}: {sentence}\n     seed: {match}")
    print(f"{len(close)} of {len(ours)} prose sentences ({share:.1%}) have similarity >= {THRESHOLD} to a seed sentence")
    return 1 if share > args.max_share else 0


if __name__ == "__main__":
    sys.exit(main())
