import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleSignInLink } from './admin.ts';
import { formToken, postForm, startConsoleHarness, withCookies, type ConsoleHarness } from './testing/console.ts';

// @dv/gateway/admin's sign-in link is the console's own: the link page takes it, it signs in once,
// and it stops working when its time is up. A malformed address is refused in words.

let h: ConsoleHarness;

beforeAll(async () => {
  h = await startConsoleHarness({ label: 'gateway_admin' });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

const issue = (email: string, ttlMs?: number) => consoleSignInLink({ redis: h.redis, redisKeyPrefix: h.ctx.config.REDIS_KEY_PREFIX, baseUrl: `${h.url}/`, email, ttlMs });

async function use(url: string): Promise<Response> {
  const page = await fetch(url);
  const text = await page.text();
  const token = /name="token" value="([^"]+)"/.exec(text)?.[1] ?? new URL(url).searchParams.get('token')!;
  return postForm(h.url, '/app/sign-in/link', withCookies('', page), { _csrf: formToken(text), token });
}

describe('consoleSignInLink', () => {
  it('issues a link the console takes once, for the address given', async () => {
    const made = await h.account();
    const link = await issue(` ${made.account.email.toUpperCase()} `, 60_000);
    expect(link.url).toMatch(new RegExp(`^${h.url}/app/sign-in/link\\?token=[\\w-]{40,}$`));
    expect(link.expiresAt.getTime() - Date.now()).toBeGreaterThan(55_000);
    const page = await fetch(link.url);
    expect(await page.text()).toContain(`<h1>Sign in as ${made.account.email}</h1>`);
    const used = await use(link.url);
    expect([used.status, used.headers.get('location')]).toEqual([303, '/app/']);
    const home = await fetch(`${h.url}/app/`, { headers: { cookie: withCookies('', used) } });
    expect(await home.text()).toContain(`<h1>${made.account.name}</h1>`);
    expect((await fetch(link.url)).status).toBe(410);
  });

  it('stops working when its time is up, and refuses a malformed address in words', async () => {
    const link = await issue('late@example.com', 50);
    await new Promise((r) => setTimeout(r, 200));
    expect((await fetch(link.url)).status).toBe(410);
    await expect(issue('not an address')).rejects.toThrow('"not an address" is not an email address; give the address the person signs in with');
  });
});
