// Theme toggle that remembers the reader's choice; the initial theme is set inline in <head> to avoid a flash.
document.querySelector('.theme-toggle')?.addEventListener('click', () => {
  const next = document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark';
  document.documentElement.dataset.theme = next;
  localStorage.setItem('kensho-theme', next);
});

// Copy buttons on code blocks.
for (const block of document.querySelectorAll('.code-block pre')) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'copy';
  button.textContent = 'コピー';
  button.addEventListener('click', async () => {
    await navigator.clipboard.writeText(block.innerText);
    button.textContent = 'コピーしました';
    setTimeout(() => { button.textContent = 'コピー'; }, 1500);
  });
  block.parentElement.insertBefore(button, block);
}
