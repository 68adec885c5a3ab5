import type { Request, Response } from 'express';
import { grantMonthlyAllowance, type Account, type Role } from '@dv/accounts';
import { clearCookie, readCookie, setCookie, type Session } from '@dv/web';
import type { ConsoleContext, ConsoleSessionData } from './context.ts';

// Who is looking at a console page: the session from the cookie, the person it belongs to, the
// account in use and the person's role in it, read fresh on every request. A person removed from
// the account, or signed out everywhere, is gone from the next request on: nothing is cached.

export const SESSION_COOKIE = 'dv_console';

export interface AccountChoice {
  id: string;
  name: string;
  role: Role;
}

export interface Viewer {
  session: Session<ConsoleSessionData>;
  personId: string;
  email: string;
  account: Account;
  role: Role;
  /** Every account the person belongs to (the switcher shows them when there are several). */
  accounts: AccountChoice[];
  /** The console's sandbox switch: checks and lists run free and simulated. */
  sandbox: boolean;
}

// A Free account's monthly top-up is looked at once per account and month per process.
const allowanceSeen = new Set<string>();

async function monthlyAllowance(cc: ConsoleContext, account: Account): Promise<Account> {
  if (account.plan !== 'free') return account;
  const mark = `${account._id}:${new Date().toISOString().slice(0, 7)}`;
  if (allowanceSeen.has(mark)) return account;
  const added = await grantMonthlyAllowance(cc.api.db, account);
  if (allowanceSeen.size > 100_000) allowanceSeen.clear();
  allowanceSeen.add(mark);
  return added > 0 ? { ...account, credits: account.credits + added } : account;
}

/** The viewer of this request, or null (no session, an ended one, or no account left). */
export async function loadViewer(cc: ConsoleContext, req: Request, res: Response): Promise<Viewer | null> {
  const session = await cc.sessions.get(readCookie(req, SESSION_COOKIE));
  if (!session) return null;
  const all = await cc.reads.membershipsOf(session.subject);
  const current = all.find((m) => m.account._id === session.data.accountId) ?? all[0];
  if (!current) {
    // Removed from every account: the session is of no use any more.
    await cc.sessions.end(session.id);
    clearCookie(req, res, SESSION_COOKIE);
    return null;
  }
  const account = await monthlyAllowance(cc, current.account);
  return {
    session,
    personId: session.subject,
    email: session.data.email,
    account,
    role: current.membership.role,
    accounts: all.map((m) => ({ id: m.account._id, name: m.account.name, role: m.membership.role })),
    sandbox: session.data.sandbox === true,
  };
}

/** Starts a signed-in session (a new id every time) and sets its cookie. */
export async function startSession(cc: ConsoleContext, req: Request, res: Response, personId: string, data: ConsoleSessionData): Promise<void> {
  const old = readCookie(req, SESSION_COOKIE);
  if (old) await cc.sessions.end(old);
  const session = await cc.sessions.create(personId, data);
  setCookie(req, res, SESSION_COOKIE, session.id, { maxAgeMs: cc.api.config.CONSOLE_SESSION_MAX_DAYS * 86_400_000 });
}
