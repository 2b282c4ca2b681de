// Colour scheme: auto (the system's, followed live), light or dark. A choice of light or dark is remembered;
// auto is remembered as no choice, which is what the inline script in <head> reads before the first paint.
const themeSelect = document.getElementById('theme-select');
const systemDark = matchMedia('(prefers-color-scheme: dark)');
const phone = matchMedia('(max-width: 48rem)');
const applyTheme = () => {
  const chosen = localStorage.getItem('kensho-theme');
  const theme = chosen === 'light' || chosen === 'dark' ? chosen : systemDark.matches ? 'dark' : 'light';
  document.documentElement.dataset.theme = theme;
  if (themeSelect) {
    themeSelect.value = chosen === 'light' || chosen === 'dark' ? chosen : 'auto';
    // In auto, the control says which scheme the system gave: 自動（ダーク）; on a phone's one-line header, 自動.
    const named = themeSelect.querySelector('option[value="' + theme + '"]').textContent;
    const auto = themeSelect.querySelector('option[value="auto"]');
    auto.dataset.label ??= auto.textContent;
    auto.textContent = phone.matches ? auto.dataset.label : themeSelect.dataset.autoNow.replace('{0}', named);
  }
};
themeSelect?.addEventListener('change', () => {
  if (themeSelect.value === 'auto') {
    localStorage.removeItem('kensho-theme');
  } else {
    localStorage.setItem('kensho-theme', themeSelect.value);
  }
  applyTheme();
});
systemDark.addEventListener('change', applyTheme);
phone.addEventListener('change', applyTheme);
applyTheme();

// What sticks under the header (the contents bar, the open phone menu, headings scrolled to) starts where
// the header really ends, however its items wrap.
const siteHeader = document.querySelector('.site-header');
if (siteHeader) {
  new ResizeObserver(() => {
    const height = siteHeader.offsetHeight + 'px';
    if (document.documentElement.style.getPropertyValue('--header-h') !== height) {
      document.documentElement.style.setProperty('--header-h', height);
    }
  }).observe(siteHeader);
}

async function copyText(text, button) {
  try {
    await navigator.clipboard.writeText(text);
  } catch (e) {
    // file:// pages and older browsers: fall back to a hidden textarea.
    const area = document.createElement('textarea');
    area.value = text;
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
  const label = button.textContent;
  button.textContent = document.body.dataset.uiCopied || 'Copied';
  setTimeout(() => { button.textContent = label; }, 1500);
}

// Copy buttons on code blocks.
for (const block of document.querySelectorAll('.code-block pre')) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'copy';
  button.textContent = document.body.dataset.uiCopy || 'Copy';
  // The code as written: folded lines included, the summaries that fold them left out.
  const code = () => {
    // While the reader edits the snippet in the playground, what is copied is what they wrote.
    const editor = block.hidden && block.parentElement.querySelector(':scope > .run-panel textarea');
    if (editor) return editor.value;
    const copy = block.cloneNode(true);
    copy.querySelectorAll('summary').forEach((summary) => summary.remove());
    return copy.textContent;
  };
  button.addEventListener('click', () => copyText(code(), button));
  // A block with a title bar gets its button at the end of the bar, beside the title rather than over it.
  // (Only the block's own code: a plan or result shown in its evidence keeps its button beside it.)
  const title = block.parentElement.matches('.code-block') ? block.parentElement.querySelector(':scope > .code-title') : null;
  if (title) {
    title.classList.add('has-copy');
    title.append(button);
  } else {
    block.parentElement.insertBefore(button, block);
  }
}
for (const button of document.querySelectorAll('[data-copy-target]')) {
  button.addEventListener('click', () => copyText(document.getElementById(button.dataset.copyTarget).innerText, button));
}

// Printing opens what a reader would open (evidence, answers, folded lines) and folds it back afterwards;
// kensho.css does the same where the browser styles a folded section's content (::details-content).
let openedForPrint = [];
addEventListener('beforeprint', () => {
  openedForPrint = [...document.querySelectorAll('main details:not([open])')];
  openedForPrint.forEach((details) => { details.open = true; });
});
addEventListener('afterprint', () => {
  openedForPrint.forEach((details) => { details.open = false; });
  openedForPrint = [];
});

// Tabs (ARIA tabs pattern): click or arrow keys switch panels.
for (const tabs of document.querySelectorAll('[data-tabs]')) {
  const buttons = [...tabs.querySelectorAll(':scope > .tab-list [role="tab"]')];
  const select = (chosen) => {
    for (const button of buttons) {
      const selected = button === chosen;
      button.setAttribute('aria-selected', String(selected));
      button.tabIndex = selected ? 0 : -1;
      document.getElementById(button.getAttribute('aria-controls')).hidden = !selected;
    }
  };
  buttons.forEach((button, i) => {
    button.addEventListener('click', () => select(button));
    button.addEventListener('keydown', (event) => {
      const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
      if (step) {
        const next = buttons[(i + step + buttons.length) % buttons.length];
        select(next);
        next.focus();
      }
    });
  });
  if (buttons.length) {
    select(buttons[0]);
  }
}

// On narrow screens the sidebar folds away behind a menu button, as in Starlight; while it is open it covers
// the page below the header and the page itself does not scroll (kensho.css, body.menu-open).
const menuToggle = document.querySelector('.menu-toggle');
menuToggle?.addEventListener('click', () => {
  const open = document.body.classList.toggle('menu-open');
  menuToggle.setAttribute('aria-expanded', String(open));
});
// Following a link in the open menu (to a section of this page, say) closes it.
document.getElementById('sidebar')?.addEventListener('click', (event) => {
  if (event.target.closest('a') && document.body.classList.contains('menu-open')) {
    document.body.classList.remove('menu-open');
    menuToggle?.setAttribute('aria-expanded', 'false');
  }
});
// Escape closes the phone menu and returns focus to its button, as a disclosure should.
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && document.body.classList.contains('menu-open')) {
    document.body.classList.remove('menu-open');
    menuToggle?.setAttribute('aria-expanded', 'false');
    menuToggle?.focus();
  }
});

// The table of contents: folded in the text column (phones), open beside the text on wide screens,
// where opening it moves nothing else; on any width it marks the section being read.
const toc = document.querySelector('.toc');
if (toc) {
  const details = toc.querySelector('details');
  const wide = matchMedia('(min-width: 1200px)');
  if (details && wide.matches) {
    details.open = true;
  }
  // Below 1200 px the folded contents is a bar that stays under the header and names the section being read;
  // choosing a section folds it again.
  const named = toc.querySelector('.toc-current');
  toc.addEventListener('click', (event) => {
    if (event.target.closest('a') && details && !wide.matches) details.open = false;
  });
  const links = new Map([...toc.querySelectorAll('a[href^="#"]')].map((a) => [decodeURIComponent(a.getAttribute('href').slice(1)), a]));
  const headings = [...links.keys()].map((id) => document.getElementById(id)).filter(Boolean);
  // A section is being read once its heading has passed under the sticky header (and the contents bar).
  const header = document.querySelector('.site-header');
  const readingLine = () => (header?.offsetHeight || 0) + (wide.matches ? 0 : details?.querySelector('summary')?.offsetHeight || 0) + 48;
  const mark = () => {
    let current = headings[0];
    for (const heading of headings) {
      if (heading.getBoundingClientRect().top <= readingLine()) {
        current = heading;
      }
    }
    links.forEach((a) => a.removeAttribute('aria-current'));
    if (current) {
      links.get(current.id)?.setAttribute('aria-current', 'true');
    }
    if (named) named.textContent = current ? links.get(current.id)?.textContent || '' : '';
  };
  addEventListener('scroll', () => requestAnimationFrame(mark), { passive: true });
  requestAnimationFrame(mark);
}

// On large sites the sidebar is one shared file (assets/sidebar-LOCALE.js) drawn here, so that pages stay small.
// Only the element the theme placed is trusted: the one with its id directly in the sidebar <nav> (pages may not
// write a <nav>), and only when it names a file the build writes; a page's own look-alike loads nothing.
const shared = document.querySelector('nav#sidebar > #kensho-sidebar-shared');
if (shared && /^assets\/sidebar-[A-Za-z0-9_-]+\.js$/.test(shared.dataset.src || '')) {
  const root = document.body.dataset.root || '';
  // Entries are [path, title, badge] for a link, or {label, collapsed, items} for a group.
  const draw = (entries, depth) => {
    const list = document.createElement('ul');
    if (depth > 1) list.className = 'sidebar-nested';
    for (const entry of entries) {
      const item = document.createElement('li');
      if (Array.isArray(entry)) {
        const [path, title, badge] = entry;
        const link = document.createElement('a');
        link.href = /^[a-z][a-z0-9+.-]*:/i.test(path) ? path : (root + path) || './';
        link.textContent = title;
        if (badge) {
          const mark = document.createElement('span');
          mark.className = 'badge badge-sidebar';
          mark.textContent = badge;
          link.append(' ', mark);
        }
        if (path === shared.dataset.current) link.setAttribute('aria-current', 'page');
        item.appendChild(link);
      } else {
        item.className = 'sidebar-group-item';
        const group = document.createElement('details');
        group.open = !entry.collapsed;
        const summary = document.createElement('summary');
        summary.className = depth > 0 ? 'sidebar-group sidebar-subgroup' : 'sidebar-group';
        summary.textContent = entry.label;
        group.append(summary, draw(entry.items, depth + 1));
        item.appendChild(group);
      }
      list.appendChild(item);
    }
    return list;
  };
  window.__kenshoSidebar = (entries) => {
    shared.replaceChildren(draw(entries, 0));
    const here = shared.querySelector('[aria-current="page"]');
    // A folded group opens on the pages inside it.
    for (let group = here && here.closest('details'); group; group = group.parentElement.closest('details')) group.open = true;
    // Bring the current page into view inside the sidebar only; the page itself must not move.
    const nav = shared.closest('.sidebar');
    if (nav && here && nav.scrollHeight > nav.clientHeight) {
      nav.scrollTop = here.offsetTop - nav.clientHeight / 2;
    }
  };
  const script = document.createElement('script');
  script.src = root + shared.dataset.src;
  document.head.appendChild(script);
}

// Run it yourself: run controls are shown only where script runs. The playground's code (kensho-run.js) and the
// browser's PostgreSQL load on the reader's first click, never before; only a real click starts a run.
const runControls = document.querySelectorAll('[data-kensho-run]');
runControls.forEach((control) => { control.hidden = false; });
if (runControls.length) {
  // What the first run costs, said before it: the engine's files (the build measured them), downloaded once.
  const note = (control, className, text) => {
    const said = Object.assign(document.createElement('span'), { className, textContent: text });
    said.id = 'run-note-' + Math.random().toString(36).slice(2);
    control.after(said);
    control.setAttribute('aria-describedby', ((control.getAttribute('aria-describedby') || '') + ' ' + said.id).trim());
  };
  // PostgreSQL starts while the page is idle, and the note says so instead of the cost, for a reader who ran SQL in
  // this tab (kensho-run.js marks it in sessionStorage on their first run) or who chose it in a run panel (kept in
  // this browser: '1' on, '0' off, which holds over the tab's mark). A reader who never ran anything and never chose
  // loads nothing before a click.
  let early = false;
  let ran = false;
  try {
    const chosen = localStorage.getItem('kensho-run-early');
    ran = sessionStorage.getItem('kensho-run-ran') === '1';
    early = chosen === '1' || (chosen !== '0' && ran);
  } catch (error) {
    early = false; // storage off
  }
  // Nothing starts early from a file (no worker) or for a reader whose browser asks to save data: the note then says
  // the plain cost, not that PostgreSQL is starting.
  early = early && location.protocol !== 'file:' && !(navigator.connection && navigator.connection.saveData);
  const costNote = !early ? document.body.dataset.uiRunCost
    : localStorage.getItem('kensho-run-early') === '1' ? document.body.dataset.uiRunEarly : document.body.dataset.uiRunEarlyRan;
  runControls.forEach((control) => note(control, 'run-cost', costNote || ''));
  // An edit the reader kept of a snippet (kensho-run.js keeps it in localStorage): said before they open it again.
  const keptPrefix = 'kensho-edit:' + location.pathname + '#';
  let kept = [];
  try {
    kept = Object.keys(localStorage).filter((key) => key.startsWith(keptPrefix)).map((key) => key.slice(keptPrefix.length).split(':')[0]);
  } catch (error) {
    kept = []; // storage off
  }
  // A snippet's run control (N), or an exercise's start (xN, N its model answer's snippet): what an edit or link opens.
  const controlFor = (key) => {
    const exercise = key.startsWith('x');
    const figure = document.querySelector('figure[data-kensho-snippet="' + (exercise ? key.slice(1) : key) + '"]');
    if (!figure) return null;
    if (!exercise) return figure.querySelector(':scope > .run-bar > [data-kensho-run]');
    const section = figure.closest('.exercise-answer') && figure.closest('[data-kensho-exercise]');
    return section && section.querySelector('[data-kensho-exercise-start]');
  };
  for (const key of new Set(kept)) {
    const control = /^x?\d{1,6}$/.test(key) ? controlFor(key) : null;
    if (control) note(control, 'run-kept', document.body.dataset.uiRunKept || '');
  }
  // A share link: #run=N:SQL opens snippet N with that SQL once the reader clicks Run. The fragment is anyone's text:
  // bounded, read as text only (never markup), and said to be the reader's own SQL, not the verified one.
  const shared = location.hash.length <= 100000 ? /^#run=(x?\d{1,6}):([\s\S]*)$/.exec(location.hash) : null;
  if (shared) {
    let sql = null;
    try {
      sql = decodeURIComponent(shared[2]);
    } catch (error) {
      sql = null;
    }
    const control = controlFor(shared[1]);
    const figure = control && control.closest('[data-kensho-exercise], figure[data-kensho-snippet]');
    if (sql !== null && sql.length <= 20000 && control) {
      control.kenshoShared = sql;
      note(control, 'run-shared', document.body.dataset.uiRunShared || '');
      const folded = figure.closest('details');
      if (folded) folded.open = true;
      figure.scrollIntoView({ block: 'center' });
    }
  }
  let playground = null;
  const loadPlayground = () => (playground ??= import(new URL(document.body.dataset.runModule, location.href).href));
  if (early) {
    const idle = window.requestIdleCallback || ((then) => setTimeout(then, 500));
    // Soon (a start takes seconds, and the reader's first click should find it done), not before the page has drawn.
    idle(() => loadPlayground().then((module) => module.warm()).catch(() => {}), { timeout: 200 });
  }
  document.addEventListener('click', (event) => {
    const control = event.target.closest && event.target.closest('[data-kensho-run]');
    if (!control || !event.isTrusted) return;
    event.preventDefault();
    if (location.protocol === 'file:') {
      // Browsers load neither module workers nor WebAssembly from file://: say what is needed instead.
      if (!control.nextElementSibling || !control.nextElementSibling.matches('.run-status')) {
        control.after(Object.assign(document.createElement('p'), { className: 'run-status', role: 'status', textContent: document.body.dataset.uiRunFile }));
      }
      return;
    }
    loadPlayground().then((module) => module.open(control)).catch((error) => {
      control.after(Object.assign(document.createElement('p'), { className: 'run-status', textContent: String(error) }));
    });
  });
}

// A scenario's replay: steps through the run the build recorded and verified, one row of its sequence diagram (one
// event, in the order the server produced them) at a time, marking the row, with the step's SQL and what the build
// saw it do (its wait, its result), as the diagram states them. Nothing runs: the panel says it is the verified run.
document.querySelectorAll('[data-kensho-replay]').forEach((control) => {
  control.hidden = false;
  const sequence = control.closest('.sequence');
  const panel = sequence.querySelector('.sequence-replay');
  const rows = [...sequence.querySelectorAll('.sequence-table tbody tr')];
  const sessions = [...sequence.querySelectorAll('.sequence-table thead th')].map((th) => th.textContent.trim());
  let at = 0;
  const fill = (text, values) => values.reduce((out, value, i) => out.split('{' + i + '}').join(String(value)), text);
  const show = () => {
    rows.forEach((row, i) => {
      row.classList.toggle('seq-current', i === at);
      if (i === at) row.setAttribute('aria-current', 'step'); else row.removeAttribute('aria-current');
    });
    const cells = [...rows[at].children];
    const column = cells.findIndex((cell) => cell.querySelector('.seq-step'));
    const step = cells[column].querySelector('.seq-step');
    const note = cells[column].querySelector('.seq-note');
    panel.querySelector('.sequence-replay-position').textContent = fill(panel.dataset.step,
      [at + 1, rows.length, sessions[column], step.textContent.trim()]);
    panel.querySelector('.sequence-replay-sql').textContent = step.getAttribute('title') || '';
    panel.querySelector('.sequence-replay-result').textContent = note ? note.textContent : '';
    panel.querySelectorAll('[data-replay-step]').forEach((button) => {
      const to = at + Number(button.dataset.replayStep);
      button.disabled = to < 0 || to >= rows.length;
    });
  };
  // Focus on a control that still does something: the last step disables Next (the first, Previous), and a disabled
  // button that held the focus drops it to <body>, so a keyboard reader pressing Enter on Next would be thrown back to
  // the top of the page. The other direction's button takes it, else (a run of one step) the step's SQL.
  const keepFocus = (preferred) => {
    const target = [preferred, ...panel.querySelectorAll('[data-replay-step]')].find((b) => b && !b.disabled)
      || panel.querySelector('.sequence-replay-sql');
    if (document.activeElement !== target) target.focus();
  };
  panel.querySelectorAll('[data-replay-step]').forEach((button) => button.addEventListener('click', () => {
    at = Math.min(rows.length - 1, Math.max(0, at + Number(button.dataset.replayStep)));
    show();
    if (button.disabled && (document.activeElement === button || document.activeElement === document.body)) keepFocus(button);
  }));
  control.addEventListener('click', () => {
    control.closest('.run-bar').hidden = true;
    panel.hidden = false;
    at = 0;
    show();
    keepFocus(panel.querySelector('[data-replay-step="1"]'));
  });
});
