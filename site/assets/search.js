// Client-side search over the index the build wrote (assets/search-index.js). Queries are cut into
// terms exactly as the build cut the pages (SearchIndex.terms in the generator): Latin words whole,
// runs of kanji and kana as overlapping character pairs. A section matches when it has every term.
(() => {
  const input = document.getElementById('search-input');
  const list = document.getElementById('search-results');
  if (!input || !list) return;
  const root = document.body.dataset.root || '';
  let loading = null;

  const load = () => loading ??= new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = root + 'assets/search-index.js';
    script.onload = () => resolve(window.KENSHO_SEARCH);
    script.onerror = reject;
    document.head.appendChild(script);
  });

  const isCjk = (ch) => /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々]/u.test(ch);
  const isWord = (ch) => /[a-z0-9_]/.test(ch);
  const terms = (text) => {
    const out = new Set();
    let word = '';
    let run = [];
    const flushWord = () => { if (word) out.add(word); word = ''; };
    const flushRun = () => {
      if (run.length === 1) out.add(run[0]);
      for (let i = 0; i + 1 < run.length; i++) out.add(run[i] + run[i + 1]);
      run = [];
    };
    for (const ch of text.normalize('NFKC').toLowerCase()) {
      if (isWord(ch)) { flushRun(); word += ch; }
      else if (isCjk(ch)) { flushWord(); run.push(ch); }
      else { flushWord(); flushRun(); }
    }
    flushWord();
    flushRun();
    return [...out];
  };

  const escape = (s) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

  const passage = (text, query) => {
    const lower = text.normalize('NFKC').toLowerCase();
    const needle = query.normalize('NFKC').toLowerCase().trim();
    let at = lower.indexOf(needle);
    let length = needle.length;
    if (at < 0) {
      const first = terms(query)[0] || '';
      at = lower.indexOf(first);
      length = first.length;
    }
    if (at < 0) return escape(text.slice(0, 80));
    const start = Math.max(0, at - 30);
    const end = Math.min(text.length, at + length + 50);
    return (start > 0 ? '…' : '') + escape(text.slice(start, at)) + '<mark>' + escape(text.slice(at, at + length))
      + '</mark>' + escape(text.slice(at + length, end)) + (end < text.length ? '…' : '');
  };

  const search = (index, query) => {
    const wanted = terms(query);
    if (!wanted.length) return [];
    let hits = null;
    for (const term of wanted) {
      const ids = new Set(index.terms[term] || []);
      hits = hits === null ? ids : new Set([...hits].filter((id) => ids.has(id)));
      if (!hits.size) return [];
    }
    const needle = query.normalize('NFKC').toLowerCase().trim();
    const score = (id) => {
      const [, page, heading, text] = index.sections[id];
      const inTitle = (page + ' ' + heading).normalize('NFKC').toLowerCase().includes(needle) ? 10 : 0;
      const exact = text.normalize('NFKC').toLowerCase().includes(needle) ? 5 : 0;
      return inTitle + exact;
    };
    return [...hits].sort((a, b) => score(b) - score(a) || a - b).slice(0, 12);
  };

  const show = (index, query) => {
    const ids = search(index, query);
    list.innerHTML = '';
    if (!query.trim()) { list.hidden = true; return; }
    if (!ids.length) {
      list.innerHTML = '<li class="no-hit">見つかりませんでした</li>';
    }
    for (const id of ids) {
      const [url, page, heading, text] = index.sections[id];
      const item = document.createElement('li');
      item.innerHTML = '<a href="' + escape(root + url) + '"><span class="hit-title">' + escape(page)
        + (heading !== page ? ' › ' + escape(heading) : '') + '</span><span class="hit-passage">'
        + passage(text, query) + '</span></a>';
      list.appendChild(item);
    }
    list.hidden = false;
  };

  let timer = null;
  input.addEventListener('focus', () => { load(); });
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(async () => show(await load(), input.value), 80);
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      const first = list.querySelector('a');
      if (first) window.location.href = first.href;
    } else if (event.key === 'Escape') {
      list.hidden = true;
    }
  });
  document.addEventListener('click', (event) => {
    if (!event.target.closest('.search')) list.hidden = true;
  });
})();
