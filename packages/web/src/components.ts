import { multipartAction } from './csrf.ts';
import { html, type Node, type VNode } from './html.ts';

// Form parts and small building blocks. Every control has a visible label tied to it; an error is
// announced with the field (aria-invalid, aria-describedby) and said in words that say what to fix.

export interface FieldProps {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'url' | 'number' | 'password' | 'search' | 'datetime-local' | 'file';
  value?: string;
  hint?: string;
  error?: string;
  required?: boolean;
  autocomplete?: string;
  accept?: string;
  placeholder?: string;
}

export function field(p: FieldProps): VNode {
  const id = `f-${p.name}`;
  const described = [p.hint ? `${id}-hint` : '', p.error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return html`<div class=${p.error ? 'field field-invalid' : 'field'}>
    <label for=${id}>${p.label}${p.required ? html` <span class="req" aria-hidden="true">*</span>` : null}</label>
    ${p.hint ? html`<p class="hint" id=${`${id}-hint`}>${p.hint}</p>` : null}
    <input id=${id} name=${p.name} type=${p.type ?? 'text'} value=${p.type === 'file' || p.type === 'password' ? undefined : p.value} required=${p.required} autocomplete=${p.autocomplete} accept=${p.accept} placeholder=${p.placeholder} aria-invalid=${p.error ? 'true' : undefined} aria-describedby=${described} />
    ${p.error ? html`<p class="error" id=${`${id}-error`}>${p.error}</p>` : null}
  </div>`;
}

export interface SelectProps {
  name: string;
  label: string;
  options: readonly { value: string; label: string }[];
  value?: string;
  hint?: string;
  error?: string;
}

export function select(p: SelectProps): VNode {
  const id = `f-${p.name}`;
  return html`<div class=${p.error ? 'field field-invalid' : 'field'}>
    <label for=${id}>${p.label}</label>
    ${p.hint ? html`<p class="hint" id=${`${id}-hint`}>${p.hint}</p>` : null}
    <select id=${id} name=${p.name} aria-invalid=${p.error ? 'true' : undefined} aria-describedby=${p.hint ? `${id}-hint` : undefined}>
      ${p.options.map((o) => html`<option value=${o.value} selected=${o.value === p.value}>${o.label}</option>`)}
    </select>
    ${p.error ? html`<p class="error">${p.error}</p>` : null}
  </div>`;
}

/** A POST form carrying its CSRF token; `multipart` for uploads. */
export function postForm(action: string, csrf: string, children: Node, opts: { multipart?: boolean; className?: string; label?: string } = {}): VNode {
  return html`<form method="post" action=${opts.multipart ? multipartAction(action, csrf) : action} enctype=${opts.multipart ? 'multipart/form-data' : undefined} class=${opts.className} aria-label=${opts.label}>
    <input type="hidden" name="_csrf" value=${csrf} />
    ${children}
  </form>`;
}

export function submit(label: string, opts: { kind?: 'primary' | 'danger' | 'plain'; name?: string; value?: string } = {}): VNode {
  return html`<button type="submit" class=${`btn btn-${opts.kind ?? 'primary'}`} name=${opts.name} value=${opts.value}>${label}</button>`;
}

/** A value with a button that copies it (the button appears only when scripts run). */
export function copyable(value: string, label: string): VNode {
  return html`<div class="copyable">
    <code class="copy-value">${value}</code>
    <button type="button" class="btn btn-plain copy" data-copy=${value} aria-label=${`Copy ${label}`} hidden>Copy</button>
  </div>`;
}

export function badge(text: string, tone: 'ok' | 'warn' | 'bad' | 'neutral' = 'neutral'): VNode {
  return html`<span class=${`badge badge-${tone}`}>${text}</span>`;
}

export interface Column<R> {
  header: string;
  cell(row: R): Node;
  /** Right-aligned numbers. */
  numeric?: boolean;
}

/** A data table with a caption (screen readers announce it) and an empty state in words. */
export function table<R>(caption: string, columns: readonly Column<R>[], rows: readonly R[], empty: string): VNode {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<div class="table-wrap">
    <table>
      <caption>${caption}</caption>
      <thead><tr>${columns.map((c) => html`<th scope="col" class=${c.numeric ? 'num' : undefined}>${c.header}</th>`)}</tr></thead>
      <tbody>${rows.map((r) => html`<tr>${columns.map((c) => html`<td class=${c.numeric ? 'num' : undefined}>${c.cell(r)}</td>`)}</tr>`)}</tbody>
    </table>
  </div>`;
}

/** Label/value pairs. */
export function facts(pairs: readonly [string, Node][]): VNode {
  return html`<dl class="facts">${pairs.map(([k, v]) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>`;
}
