// Client-side search over the index the build wrote in assets/search/ (SearchIndex in the generator).
// Queries are cut into terms exactly as the build cut the pages: Latin words whole, runs of kanji and
// kana as overlapping character pairs, hiragana folded to katakana. Only the files a query needs are
// fetched: the small index, the term shards its terms hash to, and the pages of the hits shown.
// A page matches when it has every term; of its sections, up to three that have every term are shown,
// best first: the query in the heading, then the whole query in the text, then the most occurrences.
(() => {
  const input = document.getElementById('search-input');
  const list = document.getElementById('search-results');
  const panel = document.getElementById('search-panel');
  if (!input || !list || !panel) return;
  const root = document.body.dataset.root || '';
  // One index per language on a multilingual site (the build names the page's in data-search).
  const folder = root + (document.body.dataset.search || 'assets/search/');
  const SHOWN = 10;

  // Index files are scripts (they work from file:// too); each calls back into this registry.
  // One promise per file, shared by everyone who asks for it while it loads.
  const waiting = new Map();
  const files = new Map();
  const settle = (key, value) => { waiting.get(key)?.(value); waiting.delete(key); };
  window.__kenshoSearch = {
    meta: (value) => settle('index', value),
    terms: (shard, value) => settle('t-' + shard, value),
    page: (page, value) => settle('p-' + page, value),
  };
  const fetchFile = (key) => {
    if (!files.has(key)) {
      files.set(key, new Promise((resolve, reject) => {
        waiting.set(key, resolve);
        const script = document.createElement('script');
        script.src = folder + key + '.js';
        script.onerror = reject;
        document.head.appendChild(script);
      }));
    }
    return files.get(key);
  };

  const isCjk = (ch) => /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々]/u.test(ch);
  const isWord = (ch) => /[a-z0-9_]/.test(ch);
  const fold = (ch) => {
    const c = ch.codePointAt(0);
    return c >= 0x3041 && c <= 0x3096 ? String.fromCodePoint(c + 0x60) : ch;
  };
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
    for (const raw of text.normalize('NFKC').toLowerCase()) {
      const ch = fold(raw);
      if (isWord(ch)) { flushRun(); word += ch; }
      else if (isCjk(ch)) { flushWord(); run.push(ch); }
      else { flushWord(); flushRun(); }
    }
    flushWord();
    flushRun();
    return [...out];
  };
  const shardOf = (term, shards) => {
    let hash = 0x811c9dc5;
    for (let i = 0; i < term.length; i++) {
      hash ^= term.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193);
    }
    return (hash >>> 0) % shards;
  };
  // Term postings come as runs of consecutive section ids: gap, length, gap, length …
  const unrun = (list) => {
    const ids = [];
    let end = 0;
    for (let i = 0; i + 1 < list.length; i += 2) {
      const start = end + list[i];
      for (let id = start; id < start + list[i + 1]; id++) ids.push(id);
      end = start + list[i + 1];
    }
    return ids;
  };

  const escape = (s) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

  // Text folded for matching, with where each folded character came from in the original text, so that
  // a highlight lands on the right characters even where NFKC changed the length ("…" is three dots).
  const foldWithMap = (text) => {
    let folded = '';
    const from = [];
    let at = 0;
    for (const ch of text) {
      for (const f of ch.normalize('NFKC').toLowerCase()) {
        // One entry per UTF-16 unit: indexOf counts units, and a character past U+FFFF is two of them.
        const unit = fold(f);
        folded += unit;
        for (let i = 0; i < unit.length; i++) from.push(at);
      }
      at += ch.length;
    }
    from.push(text.length);
    return { folded, from };
  };
  // Where the query (or failing that, its first term) occurs; Latin words only at word boundaries.
  const locate = (folded, query) => {
    const find = (needle) => {
      if (!needle) return -1;
      const latin = /^[a-z0-9_ ]+$/.test(needle);
      let at = folded.indexOf(needle);
      while (latin && at >= 0 && (isWord(folded[at - 1] || ' ') || isWord(folded[at + needle.length] || ' '))) {
        at = folded.indexOf(needle, at + 1);
      }
      return at;
    };
    const whole = [...query.normalize('NFKC').toLowerCase().trim()].map(fold).join('');
    let at = find(whole);
    if (at >= 0) return [at, whole.length];
    const first = terms(query)[0] || '';
    at = find(first);
    return at >= 0 ? [at, first.length] : [-1, 0];
  };
  const passage = (text, query) => {
    const { folded, from } = foldWithMap(text);
    const [at, length] = locate(folded, query);
    if (at < 0) return escape(text.slice(0, 80)) + (text.length > 80 ? '…' : '');
    const s = from[at];
    const e = from[at + length];
    const start = Math.max(0, s - 30);
    const end = Math.min(text.length, e + 50);
    return (start > 0 ? '…' : '') + escape(text.slice(start, s)) + '<mark>' + escape(text.slice(s, e))
      + '</mark>' + escape(text.slice(e, end)) + (end < text.length ? '…' : '');
  };

  /** Pages holding every term, those with a term in their title or a heading first. */
  const search = async (query) => {
    const wanted = terms(query);
    if (!wanted.length) return [];
    const meta = await fetchFile('index');
    const shards = await Promise.all(wanted.map((term) => fetchFile('t-' + shardOf(term, meta.shards))));
    let hits = null;
    const inTitle = new Map();
    wanted.forEach((term, i) => {
      const [all, titles] = shards[i][term] || [[], []];
      const pages = new Set(unrun(all));
      hits = hits === null ? pages : new Set([...hits].filter((page) => pages.has(page)));
      for (const page of unrun(titles)) inTitle.set(page, (inTitle.get(page) || 0) + 1);
    });
    return [...hits].sort((a, b) => (inTitle.get(b) || 0) - (inTitle.get(a) || 0) || a - b);
  };
  const SECTIONS_PER_PAGE = 3;
  const occurrences = (folded, needle) => {
    let n = 0;
    for (let at = folded.indexOf(needle); needle && at >= 0 && n < 50; at = folded.indexOf(needle, at + needle.length)) n++;
    return n;
  };
  /** How well a section answers the query: its heading holding every term, the whole query in its text, how often. */
  const score = (heading, text, query, wanted) => {
    const inHeading = new Set(terms(heading));
    const whole = [...query.normalize('NFKC').toLowerCase().trim()].map(fold).join('');
    const body = foldWithMap(text).folded;
    return (wanted.every((term) => inHeading.has(term)) ? 1000 : 0) + (body.includes(whole) ? 100 : 0)
      + wanted.reduce((n, term) => n + occurrences(body, term), 0);
  };
  /** The best sections of a page that hold every term (its first section when its text was cut before them). */
  const matchingSections = (sections, query) => {
    const wanted = terms(query);
    const holding = sections.filter(([, , , heading, text]) => {
      const have = new Set(terms(heading + ' ' + text));
      return wanted.every((term) => have.has(term));
    });
    if (!holding.length) return sections.slice(0, 1);
    return holding.map((section, order) => ({ section, order, score: score(section[3], section[4], query, wanted) }))
      .sort((a, b) => b.score - a.score || a.order - b.order).slice(0, SECTIONS_PER_PAGE).map((ranked) => ranked.section);
  };

  let active = -1;
  const options = () => [...list.querySelectorAll('[role="option"]')];
  const select = (index) => {
    const all = options();
    all.forEach((option, i) => option.setAttribute('aria-selected', String(i === index)));
    active = index;
    if (index >= 0 && all[index]) {
      input.setAttribute('aria-activedescendant', all[index].id);
      all[index].scrollIntoView({ block: 'nearest' });
    } else {
      input.removeAttribute('aria-activedescendant');
    }
  };
  const close = () => {
    panel.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    select(-1);
  };

  let generation = 0;
  const show = async (query, count = SHOWN) => {
    const mine = ++generation;
    if (!query.trim()) { list.innerHTML = ''; status.textContent = ''; more.hidden = true; close(); return; }
    const pages = await search(query);
    const shown = pages.slice(0, count);
    const fragments = await Promise.all(shown.map((page) => fetchFile('p-' + page)));
    if (mine !== generation) return; // a newer query is on its way
    list.innerHTML = '';
    const ui = document.body.dataset;
    status.textContent = pages.length === 0 ? ui.uiNoResults
      : pages.length > shown.length ? ui.uiPagesShown.replace('{0}', pages.length).replace('{1}', shown.length)
        : (pages.length === 1 ? ui.uiPagesOne : ui.uiPages).replace('{0}', pages.length);
    let n = 0;
    for (const sections of fragments) {
      for (const [, url, page, heading, text] of matchingSections(sections, query)) {
        // The link is the option itself: an option holding a link would nest one control in another.
        const item = document.createElement('li');
        item.setAttribute('role', 'none');
        item.innerHTML = '<a role="option" aria-selected="false" tabindex="-1" id="search-hit-' + n++ + '" href="'
          + escape((root + url) || './') + '"><span class="hit-title">' + escape(page)
          + (heading !== page ? ' › ' + escape(heading) : '') + '</span><span class="hit-passage">'
          + passage(text, query) + '</span></a>';
        list.appendChild(item);
      }
    }
    list.hidden = n === 0; // an empty listbox is no list: the status says there is nothing
    more.hidden = pages.length <= shown.length;
    more.onclick = () => show(query, count + SHOWN);
    panel.hidden = false;
    input.setAttribute('aria-expanded', 'true');
    select(-1);
  };

  input.setAttribute('role', 'combobox');
  input.setAttribute('aria-autocomplete', 'list');
  input.setAttribute('aria-expanded', 'false');
  input.setAttribute('aria-controls', list.id);
  list.setAttribute('role', 'listbox');
  list.setAttribute('aria-label', document.body.dataset.uiResults);
  // The count and the "more" button sit beside the listbox, not in it: a listbox holds options only.
  const status = document.createElement('p');
  status.className = 'search-status';
  status.setAttribute('role', 'status');
  panel.insertBefore(status, list);
  const more = document.createElement('button');
  more.type = 'button';
  more.className = 'search-more';
  more.hidden = true;
  more.textContent = document.body.dataset.uiMore;
  panel.appendChild(more);

  let timer = null;
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => show(input.value), 80);
  };
  // Coming back to the box shows the results of the query it still holds.
  input.addEventListener('focus', () => {
    fetchFile('index');
    if (input.value.trim() && panel.hidden) show(input.value);
  });
  // While an IME is composing, the text is not the query yet: wait for the conversion.
  input.addEventListener('input', (event) => { if (!event.isComposing) schedule(); });
  input.addEventListener('compositionend', schedule);
  input.addEventListener('keydown', (event) => {
    if (event.isComposing) return;
    const all = options();
    if (event.key === 'ArrowDown' && all.length) {
      event.preventDefault();
      select((active + 1) % all.length);
    } else if (event.key === 'ArrowUp' && all.length) {
      event.preventDefault();
      select(active <= 0 ? all.length - 1 : active - 1);
    } else if (event.key === 'Enter') {
      const chosen = all[active >= 0 ? active : 0];
      if (chosen) window.location.href = chosen.href;
    } else if (event.key === 'Escape') {
      // Closes the results and keeps the query (a search box's default would wipe it).
      event.preventDefault();
      close();
    }
  });
  // Ctrl+K or ⌘K anywhere, and "/" outside a text field, go to the search box, as on Starlight and GitHub.
  document.addEventListener('keydown', (event) => {
    const typing = event.target.closest?.('input, textarea, select, [contenteditable=""], [contenteditable="true"]');
    const shortcut = (event.key === 'k' || event.key === 'K') && (event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey;
    if (shortcut || (event.key === '/' && !typing && !event.ctrlKey && !event.metaKey && !event.altKey)) {
      event.preventDefault();
      input.focus();
      input.select();
    }
  });
  document.addEventListener('click', (event) => {
    if (!event.target.closest('.search')) close();
  });
})();
