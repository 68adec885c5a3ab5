import { describe, expect, it } from 'vitest';
import { html, isSafeUrl, rawHtml, renderHtml } from './html.ts';

const HOSTILE = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', "' onmouseover='alert(1)", '</title><script>x</script>', '<!--', ']]>', '&lt;already&gt;'];

describe('markup escapes by construction', () => {
  it('renders hostile text and attribute values as text', () => {
    for (const evil of HOSTILE) {
      const escaped = evil.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
      expect(renderHtml(html`<p title=${evil} data-x=${evil}>${evil}</p>`)).toBe(`<p title="${escaped}" data-x="${escaped}">${escaped}</p>`);
    }
  });

  it('neutralises URLs that could run script, in every URL attribute', () => {
    for (const url of ['javascript:alert(1)', ' JaVaScRiPt:alert(1)', 'java\tscript:alert(1)', 'data:text/html,<script>x</script>', 'vbscript:x']) {
      expect(isSafeUrl(url)).toBe(false);
      const out = renderHtml(html`<div><a href=${url}>a</a><form action=${url}></form><img src=${url} alt="" /></div>`);
      expect(out).not.toMatch(/script:|data:/i);
      expect(out.match(/#unsafe-url/g)).toHaveLength(3);
    }
    for (const url of ['/app/jobs?x=1', 'https://example.com/a', 'mailto:a@example.com', '#main', 'jobs/1']) {
      expect(isSafeUrl(url)).toBe(true);
      expect(renderHtml(html`<a href=${url}>a</a>`)).toContain(`href="${url.replace(/&/g, '&amp;')}"`);
    }
  });

  it('refuses raw HTML except through rawHtml(), and inline handlers and style attributes always', () => {
    expect(() => html`<div dangerouslySetInnerHTML=${{ __html: '<b>x</b>' }} />`).toThrow(/rawHtml/);
    expect(() => html`<button onclick=${'alert(1)'}>x</button>`).toThrow(/inline event handler/);
    expect(() => html`<div style=${'color:red'}>x</div>`).toThrow(/style attributes/);
    expect(renderHtml(rawHtml('<svg aria-hidden="true"></svg>', 'span', { class: 'icon' }))).toBe('<span class="icon"><svg aria-hidden="true"></svg></span>');
  });

  it('leaves out false and absent attributes, keeps numbers', () => {
    expect(renderHtml(html`<input value=${'a"b'} checked=${false} disabled=${true} maxlength=${5} title=${undefined} />`)).toBe('<input value="a&quot;b" disabled maxlength="5"/>');
  });
});
