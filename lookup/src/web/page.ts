import type { PageDef } from '@dv/web';
import type { LookupContext } from '../context.ts';

// One lookup page per file (pages/*.ts), each a PageDef of @dv/web bound to the lookup's context.

export type LookupPage = PageDef<LookupContext>;

export function definePage(def: LookupPage): LookupPage {
  return def;
}
