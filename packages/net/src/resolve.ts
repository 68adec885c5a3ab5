// Name resolution for SSRF-safe targets.
//
// Contract: a `Resolver` returns every address of a name (tests inject one instead of touching
// system DNS); `resolveWithin` bounds it by a deadline and rejects when the deadline passes.
import { lookup } from 'node:dns/promises';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address; tests inject one instead of touching system DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, order: 'verbatim' });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export function resolveWithin(resolve: Resolver, hostname: string, ms: number): Promise<ResolvedAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`resolution took longer than ${ms} ms`)), ms);
  });
  return Promise.race([resolve(hostname), timeout]).finally(() => clearTimeout(timer));
}
