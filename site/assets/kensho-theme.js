// Sets the colour theme before the page is drawn (no flash of the wrong one): the reader's choice, else the system's.
// A file of its own, not inline, so that the Content-Security-Policy can forbid every inline script.
document.documentElement.dataset.theme = localStorage.getItem('kensho-theme') || (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
