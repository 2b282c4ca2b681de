// Theme toggle that remembers the reader's choice; the initial theme is set in <head> by kensho-theme.js to avoid a flash.
document.querySelector('.theme-toggle')?.addEventListener('click', () => {
  const next = document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark';
  document.documentElement.dataset.theme = next;
  localStorage.setItem('kensho-theme', next);
});

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
    const copy = block.cloneNode(true);
    copy.querySelectorAll('summary').forEach((summary) => summary.remove());
    return copy.textContent;
  };
  button.addEventListener('click', () => copyText(code(), button));
  block.parentElement.insertBefore(button, block);
}
for (const button of document.querySelectorAll('[data-copy-target]')) {
  button.addEventListener('click', () => copyText(document.getElementById(button.dataset.copyTarget).innerText, button));
}

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

// On narrow screens the sidebar folds away behind a menu button, as in Starlight.
const menuToggle = document.querySelector('.menu-toggle');
menuToggle?.addEventListener('click', () => {
  const open = document.body.classList.toggle('menu-open');
  menuToggle.setAttribute('aria-expanded', String(open));
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
  if (details && matchMedia('(min-width: 1200px)').matches) {
    details.open = true;
  }
  const links = new Map([...toc.querySelectorAll('a[href^="#"]')].map((a) => [decodeURIComponent(a.getAttribute('href').slice(1)), a]));
  const headings = [...links.keys()].map((id) => document.getElementById(id)).filter(Boolean);
  const mark = () => {
    let current = headings[0];
    for (const heading of headings) {
      if (heading.getBoundingClientRect().top <= 120) {
        current = heading;
      }
    }
    links.forEach((a) => a.removeAttribute('aria-current'));
    if (current) {
      links.get(current.id)?.setAttribute('aria-current', 'true');
    }
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
