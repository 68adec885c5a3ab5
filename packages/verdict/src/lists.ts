// Local checks that need no network: disposable, free, role, gibberish, typo.
import { isDisposableDomain, isFreeDomain } from './domain-lists.ts';
import { detectGibberish } from './gibberish.ts';
import { roleOf } from './roles.ts';
import type { SyntaxOk } from './syntax.ts';
import { didYouMean } from './typo.ts';

export interface ListSignals {
  disposable: boolean;
  free: boolean;
  role: boolean;
  /** The role word matched ("sales"), or null. */
  roleWord: string | null;
  gibberish: boolean;
  /** Full suggested address when the domain looks like a typo of a popular one. */
  didYouMean: string | null;
}

export function checkLists(address: Pick<SyntaxOk, 'local' | 'domain'>): ListSignals {
  const roleWord = roleOf(address.local);
  return {
    disposable: isDisposableDomain(address.domain),
    free: isFreeDomain(address.domain),
    role: roleWord !== null,
    roleWord,
    gibberish: detectGibberish(address.local).gibberish,
    didYouMean: didYouMean(address.local, address.domain),
  };
}
