#!/usr/bin/env python3
"""Bytes a reader's browser fetches for one search query on a built site.

Replays site/assets/search.js: the index file, the term shards the query's terms hash to (FNV-1a
over UTF-16 units), and the fragments of the first 10 pages found (ranked as the browser ranks them).

    python3 bench/search_bytes.py SITE_DIR "query" ["another query" ...]
"""
import json
import pathlib
import sys
import unicodedata

SHOWN = 10


def fold(ch):
    c = ord(ch)
    return chr(c + 0x60) if 0x3041 <= c <= 0x3096 else ch


def is_cjk(ch):
    name = unicodedata.name(ch, "")
    return ch in "ー々" or name.startswith(("CJK UNIFIED", "HIRAGANA", "KATAKANA", "CJK COMPATIBILITY IDEOGRAPH"))


def terms(text):
    out, word, run = [], "", []

    def add(t):
        if t not in out:
            out.append(t)

    def flush_run():
        nonlocal run
        if len(run) == 1:
            add(run[0])
        for i in range(len(run) - 1):
            add(run[i] + run[i + 1])
        run = []

    for raw in unicodedata.normalize("NFKC", text).lower():
        ch = fold(raw)
        if ch.isascii() and (ch.isalnum() or ch == "_"):
            flush_run()
            word += ch
        elif is_cjk(ch):
            if word:
                add(word)
                word = ""
            run.append(ch)
        else:
            if word:
                add(word)
                word = ""
            flush_run()
    if word:
        add(word)
    flush_run()
    return out


def shard_of(term, shards):
    h = 0x811C9DC5
    data = term.encode("utf-16-le")
    for i in range(0, len(data), 2):
        h ^= data[i] | (data[i + 1] << 8)
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h % shards


def payload(path):
    text = path.read_text(encoding="utf-8")
    start = text.index("(") + 1
    if not path.name.startswith("index"):
        start = text.index(",") + 1
    return json.loads(text[start:text.rindex(")")])


def undelta(values):
    out, total = [], 0
    for v in values:
        total += v
        out.append(total)
    return out


def unrun(values):
    out, end = [], 0
    for i in range(0, len(values) - 1, 2):
        start = end + values[i]
        out.extend(range(start, start + values[i + 1]))
        end = start + values[i + 1]
    return out


def main():
    site = pathlib.Path(sys.argv[1]) / "assets" / "search"
    index_file = site / "index.js"
    meta = payload(index_file)
    for query in sys.argv[2:]:
        fetched = {index_file}
        hits, in_title = None, {}
        for term in terms(query):
            shard = site / f"t-{shard_of(term, meta['shards'])}.js"
            fetched.add(shard)
            entry = payload(shard).get(term, [[], []])
            pages = set(unrun(entry[0]))
            hits = pages if hits is None else hits & pages
            for page in unrun(entry[1]):
                in_title[page] = in_title.get(page, 0) + 1
        ranked = sorted(hits or [], key=lambda p: (-in_title.get(p, 0), p))
        for page in ranked[:SHOWN]:
            fetched.add(site / f"p-{page}.js")
        total = sum(f.stat().st_size for f in fetched)
        print(f"{query}: {len(ranked)} page(s), {len(fetched)} file(s), {total / 1024:.1f} KiB fetched")


if __name__ == "__main__":
    main()
