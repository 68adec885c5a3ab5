import { html, type Node, type VNode } from '@dv/web';

// A POST form that asks before it is sent (enhance.js reads data-confirm): for what cannot be
// undone, such as rotating a secret or removing someone. With scripts off it posts at once.

export function confirmForm(action: string, csrf: string, confirm: string, children: Node, label: string): VNode {
  return html`<form method="post" action=${action} class="inline" aria-label=${label} data-confirm=${confirm}>
    <input type="hidden" name="_csrf" value=${csrf} />
    ${children}
  </form>`;
}

/** A form field's value as a string ('' when absent or not a string). */
export function formText(body: unknown, name: string): string {
  const v = (body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : '';
}
