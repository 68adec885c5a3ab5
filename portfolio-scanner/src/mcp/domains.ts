import type { Db } from 'mongodb';
import type { AccountDomainDoc } from '@dv/contracts';
import { PortfolioError } from '../api/errors.ts';
import { domains, findDomain } from '../api/views.ts';
import { normalizeDomainName } from '../store/index.ts';

// Agents name domains, REST clients use ids: a tool's `domain` is either, always within the
// caller's account (another account's domain answers not_found, like an unknown one).

export async function findAccountDomain(db: Db, accountId: string, ref: string): Promise<AccountDomainDoc> {
  const trimmed = ref.trim();
  if (/^\d{1,15}$/.test(trimmed)) return findDomain(db, accountId, Number(trimmed));
  const check = normalizeDomainName(trimmed);
  if (!check.ok) throw new PortfolioError('validation_error', `domain: ${check.reason}`);
  const doc = await domains(db).findOne({ account_id: accountId, domain: check.domain });
  if (!doc) throw new PortfolioError('not_found', `${check.domain} is not monitored by this account (add it with add_domains).`);
  return doc;
}
