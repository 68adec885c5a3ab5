import { describe, expect, it } from 'vitest';
import { renderDashboardHtml, type PanelData } from './render.ts';

const panel = (title: string, spanS: number, unit = 'short'): PanelData => ({ title, unit, series: [{ name: 'a<b', points: [[1_000, 1], [1_000 + spanS, 3]] }] });

describe('renderDashboardHtml', () => {
  it('labels the time axis in seconds for a short run and in minutes for a long one', () => {
    const html = renderDashboardHtml('t', [panel('short', 20), panel('long', 600)]);
    expect(html).toContain('>20 s</text>');
    expect(html).toContain('>10 min</text>');
    expect(html).not.toContain('>600 s</text>');
  });

  it('escapes titles and legends, says "No data" for an empty panel and writes ratios as percentages', () => {
    const html = renderDashboardHtml('<x>', [{ title: 'empty', unit: 'short', series: [] }, panel('ratio', 20, 'percentunit')]);
    expect(html).toContain('&lt;x&gt;');
    expect(html).toContain('a&lt;b');
    expect(html).toContain('No data');
    expect(html).toContain('300%');
  });
});
