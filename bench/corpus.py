#!/usr/bin/env python3
"""Generates lesson-like synthetic corpora for the benchmark: the same Markdown for Kensho and Hugo.

usage: corpus.py OUT_DIR PAGES [SNIPPETS_PER_PAGE] [FOLDERS]
Writes OUT_DIR/kensho/ (content for Kensho), OUT_DIR/hugo/ (a minimal Hugo site with the same pages whose
theme lists every page in a sidebar) and OUT_DIR/hugo-plain/ (the same pages, a theme without the sidebar).
Pages go into FOLDERS folders (default 1: one folder of PAGES pages; 40 with 4,000 pages is 40 × 100).
"""
import os
import sys

out, pages = sys.argv[1], int(sys.argv[2])
snippets = int(sys.argv[3]) if len(sys.argv) > 3 else 0
folders = int(sys.argv[4]) if len(sys.argv) > 4 else 1
per_folder = -(-pages // folders)

PARAGRAPH = ("クライアントは購入を確定する操作ごとに一意なキーを作り、送信前に保存します。"
             "The server keeps the stored response and replays it for a retry with the same key. "
             "同じキーで内容が違えば不一致として拒否し、意図した二回目の購入には新しいキーを使います。")
TABLE = "| 条件 | 契約 |\n|---|---|\n| 最初の成功 | 201 を保存して返す |\n| 同じキー・同じ内容 | 保存した応答を再現 |\n| 同じキー・違う内容 | 409 |\n"
CODE = '```json\n{"order_id": "0b9d7e52", "amount_minor": 2800, "currency": "JPY"}\n```\n'


def body(i):
    parts = []
    for section in range(4):
        parts.append(f"## 節 {section + 1}：ページ {i} の話題\n\n{PARAGRAPH}\n\n{PARAGRAPH}\n")
        parts.append(f"### 表 {section + 1}\n\n{TABLE}\n{CODE}\n- 項目 A\n- 項目 B は `created_at` を使う\n- 項目 C\n")
    for s in range(snippets):
        parts.append(f"```sql\nCREATE TABLE t{s} (id int PRIMARY KEY, v text);\n"
                     f"INSERT INTO t{s} SELECT g, 'v' || g FROM generate_series(1, 20) g;\n"
                     f"SELECT count(*) FROM t{s} WHERE id > 10;\n```\n")
    return "\n".join(parts)


for tool in ("kensho", "hugo"):
    content = os.path.join(out, tool, "content")
    os.makedirs(content, exist_ok=True)
for i in range(pages):
    folder = f"section-{i // per_folder:02d}"
    text = body(i)
    for tool in ("kensho", "hugo"):
        directory = os.path.join(out, tool, "content", folder)
        os.makedirs(directory, exist_ok=True)
        front = f"---\ntitle: ページ {i}\ndescription: 合成したページ {i}\n" + ("sidebar:\n  order: %d\n" % i if tool == "kensho" else f"weight: {i}\n") + "---\n\n"
        with open(os.path.join(directory, f"page-{i}.md"), "w", encoding="utf-8") as f:
            f.write(front + text)

hugo = os.path.join(out, "hugo")
with open(os.path.join(hugo, "hugo.toml"), "w") as f:
    f.write('baseURL = "https://example.org/"\nlanguageCode = "ja"\ntitle = "bench"\ndisableKinds = ["taxonomy", "term", "RSS"]\n'
            '[markup.highlight]\n  noClasses = false\n')
layouts = os.path.join(hugo, "layouts", "_default")
os.makedirs(layouts, exist_ok=True)
# Comparable work per page: a full HTML page with navigation, table of contents and content.
with open(os.path.join(layouts, "baseof.html"), "w") as f:
    f.write('<!doctype html><html lang="ja"><head><meta charset="utf-8"><title>{{ .Title }}</title></head><body>'
            '<nav>{{ range .Site.RegularPages }}<a href="{{ .RelPermalink }}">{{ .Title }}</a>{{ end }}</nav>'
            '<main>{{ block "main" . }}{{ end }}</main></body></html>\n')
with open(os.path.join(layouts, "single.html"), "w") as f:
    f.write('{{ define "main" }}<h1>{{ .Title }}</h1>{{ .TableOfContents }}{{ .Content }}{{ end }}\n')
with open(os.path.join(layouts, "list.html"), "w") as f:
    f.write('{{ define "main" }}<h1>{{ .Title }}</h1>{{ range .Pages }}<a href="{{ .RelPermalink }}">{{ .Title }}</a>{{ end }}{{ end }}\n')

# The same pages with a theme that has no sidebar (each page links only to its section).
plain = os.path.join(out, "hugo-plain")
plain_layouts = os.path.join(plain, "layouts", "_default")
os.makedirs(plain_layouts, exist_ok=True)
with open(os.path.join(plain, "hugo.toml"), "w") as f:
    f.write('baseURL = "https://example.org/"\nlanguageCode = "ja"\ntitle = "bench"\ndisableKinds = ["taxonomy", "term", "RSS"]\n'
            'contentDir = "../hugo/content"\n[markup.highlight]\n  noClasses = false\n')
with open(os.path.join(plain_layouts, "baseof.html"), "w") as f:
    f.write('<!doctype html><html lang="ja"><head><meta charset="utf-8"><title>{{ .Title }}</title></head><body>'
            '<nav>{{ with .Parent }}<a href="{{ .RelPermalink }}">{{ .Title }}</a>{{ end }}</nav>'
            '<main>{{ block "main" . }}{{ end }}</main></body></html>\n')
for name in ("single.html", "list.html"):
    with open(os.path.join(layouts, name)) as source, open(os.path.join(plain_layouts, name), "w") as f:
        f.write(source.read())
