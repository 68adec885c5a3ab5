// The upload form's drop zone: a file dropped onto it becomes the file field's choice. Optional:
// without scripts the file field works as it is (loaded as a module; the CSP allows no inline script).

function enableDropZones() {
  for (const zone of document.querySelectorAll('[data-drop-zone]')) {
    const input = zone.querySelector('input[type="file"]');
    if (!input) continue;
    zone.classList.add('drop-ready');
    const note = document.createElement('p');
    note.className = 'hint drop-note';
    note.setAttribute('aria-live', 'polite');
    note.textContent = 'Or drop the file here.';
    zone.append(note);
    const over = (on) => zone.classList.toggle('drop-over', on);
    zone.addEventListener('dragover', (event) => {
      event.preventDefault();
      over(true);
    });
    zone.addEventListener('dragleave', () => over(false));
    zone.addEventListener('drop', (event) => {
      event.preventDefault();
      over(false);
      const files = event.dataTransfer?.files;
      if (!files || files.length === 0) return;
      if (files.length > 1) {
        note.textContent = 'Drop one file at a time.';
        return;
      }
      input.files = files;
      note.textContent = `Chosen: ${files[0].name}`;
    });
    input.addEventListener('change', () => {
      note.textContent = input.files?.length ? `Chosen: ${input.files[0].name}` : 'Or drop the file here.';
    });
  }
}

enableDropZones();
