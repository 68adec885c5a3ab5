// Progressive enhancement shared by every page; everything here is optional: without it each page
// still works. Loaded as a module from this origin (the CSP allows no inline script).

/**
 * Copy buttons: shown only when scripts run and the clipboard is there. The outcome goes to a
 * status line beside the button: the button keeps its text, so its visible label always matches
 * the name screen readers announce.
 */
function enableCopyButtons() {
  if (!navigator.clipboard) return;
  for (const button of document.querySelectorAll('button[data-copy]')) {
    button.hidden = false;
    const status = document.createElement('span');
    status.className = 'copy-status';
    status.setAttribute('role', 'status');
    button.after(status);
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(button.dataset.copy ?? '');
        status.textContent = 'Copied';
      } catch {
        status.textContent = 'Copy failed: select the text';
      }
      setTimeout(() => { status.textContent = ''; }, 2000);
    });
  }
}

/** Forms with data-confirm ask before they are sent (cancel a job, revoke a key). */
function enableConfirmations() {
  for (const form of document.querySelectorAll('form[data-confirm]')) {
    form.addEventListener('submit', (event) => {
      if (!window.confirm(form.dataset.confirm ?? 'Are you sure?')) event.preventDefault();
    });
  }
}

/**
 * Regions with data-live="<url>" are refreshed from that URL (which answers the region's new HTML,
 * same origin) every data-live-ms milliseconds while the page is visible, until the answer carries
 * data-live-done. A region marked data-live-reload reloads the whole page then instead: what the
 * end changes outside the region (a status, a cancel button) is then current too.
 */
function enableLiveRegions() {
  for (const region of document.querySelectorAll('[data-live]')) {
    const every = Math.max(1000, Number(region.dataset.liveMs ?? 2000));
    const tick = async () => {
      if (document.visibilityState === 'visible') {
        try {
          const res = await fetch(region.dataset.live, { headers: { accept: 'text/html' }, credentials: 'same-origin' });
          if (res.ok) {
            const next = new DOMParser().parseFromString(await res.text(), 'text/html').body.firstElementChild;
            if (next) {
              if (next.hasAttribute('data-live-done') && region.hasAttribute('data-live-reload')) return void location.reload();
              region.replaceChildren(...next.childNodes);
              if (next.hasAttribute('data-live-done')) return;
            }
          }
        } catch {
          // A dropped request is tried again on the next tick.
        }
      }
      setTimeout(tick, every);
    };
    setTimeout(tick, every);
  }
}

enableCopyButtons();
enableConfirmations();
enableLiveRegions();
