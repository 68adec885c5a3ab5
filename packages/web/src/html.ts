import htmImport from 'htm';
import { Fragment, h, type ComponentChildren, type VNode } from 'preact';
import { render } from 'preact-render-to-string';

// Markup for every page. Text and attribute values are escaped by construction (preact's
// renderer), URL-bearing attributes carry only safe schemes, and raw HTML exists only through
// `rawHtml()`, the one call a reviewer greps for. Every value from DNS, SMTP, an uploaded file or a
// person is hostile: it goes in as a value, never as markup.

export type Node = VNode | string | number | null | undefined | boolean | Node[];
export type { ComponentChildren, VNode };

/** Attributes a browser follows or loads: a `javascript:` or `data:` value there runs or smuggles. */
const URL_ATTRIBUTES = ['href', 'src', 'action', 'formaction', 'poster', 'cite', 'xlink:href'] as const;

/** Relative references, and absolute ones with a scheme that cannot run script. */
export function isSafeUrl(value: string): boolean {
  // Browsers drop tabs and newlines inside a scheme ("java\tscript:"), and leading spaces or
  // control characters: compare the way they parse.
  // eslint-disable-next-line no-control-regex -- the control characters are what is being removed
  const squeezed = value.replace(/[\u0000-\u0020\u007f]/g, '');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(squeezed)?.[1]?.toLowerCase();
  return scheme === undefined || scheme === 'http' || scheme === 'https' || scheme === 'mailto';
}

// htm's types describe its CommonJS build; Node loads its ES module, whose default export is htm.
const htm = htmImport as unknown as (typeof htmImport)['default'];

const RAW = new WeakSet<object>();

type Props = Record<string, unknown> | null;

function safeProps(props: Props): Props {
  if (!props) return props;
  const inner = props.dangerouslySetInnerHTML;
  if (inner !== undefined && !(typeof inner === 'object' && inner !== null && RAW.has(inner))) {
    throw new Error('raw HTML goes through rawHtml(), never dangerouslySetInnerHTML');
  }
  let out = props;
  for (const name of URL_ATTRIBUTES) {
    const v = props[name];
    if (typeof v === 'string' && !isSafeUrl(v)) out = { ...out, [name]: '#unsafe-url' };
  }
  for (const name of Object.keys(props)) {
    // Inline handlers are refused by the CSP anyway; refusing them here keeps them out of the markup.
    if (/^on/i.test(name) && typeof props[name] === 'string') throw new Error(`inline event handler ${name} is not allowed: use a browser module`);
    if (name === 'style') throw new Error('style attributes are refused by the CSP: use a class');
  }
  return out;
}

function safeH(type: Parameters<typeof h>[0], props: Props, ...children: ComponentChildren[]): VNode {
  return h(type as never, safeProps(props) as never, ...children);
}

/** Tagged-template markup: `html\`<p>${value}</p>\``; every interpolated value is escaped. */
export const html = htm.bind(safeH) as (strings: TemplateStringsArray, ...values: unknown[]) => VNode;

/**
 * THE escape hatch: `markup` is inserted unescaped inside a `<tag>`. Only for markup this process
 * produced itself (an inline SVG icon file shipped with the code); never for data.
 */
export function rawHtml(markup: string, tag = 'span', props: Record<string, unknown> = {}): VNode {
  const inner = { __html: markup };
  RAW.add(inner);
  return h(tag, { ...props, dangerouslySetInnerHTML: inner });
}

/** A list of nodes as one child. */
export function fragment(...children: ComponentChildren[]): VNode {
  return h(Fragment, null, ...children);
}

/** Markup to a string (a part of a page). */
export function renderHtml(node: Node): string {
  return render(node as VNode);
}

/** A whole document: the doctype, then the `<html>` element. */
export function renderDocument(node: VNode): string {
  return `<!doctype html>${render(node)}`;
}
