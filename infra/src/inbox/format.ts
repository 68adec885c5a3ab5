// `npm run admin -- inbox` as text: received mails with their links, then webhook deliveries with
// their signature check. Pure (the CLI reads the files and prints this).
import type { SignatureCheck, StoredDelivery, StoredMail } from './store.ts';

const SIGNATURE_WORDS: Record<SignatureCheck, string> = {
  valid: 'signature valid',
  invalid: 'signature INVALID (not made with the account\'s webhook secret, or older than 5 minutes)',
  missing: 'NO signature header',
  unknown_account: 'signature not checked: no such account',
};

const when = (iso: string) => iso.replace('T', ' ').slice(0, 19);

export function formatInbox(mails: readonly StoredMail[], deliveries: readonly StoredDelivery[], opts: { last?: number } = {}): string {
  const last = opts.last ?? 20;
  const out: string[] = [];
  out.push(`Mails (${mails.length}${mails.length > last ? `, the last ${last}` : ''}):`);
  if (mails.length === 0) out.push('  none yet');
  for (const m of mails.slice(-last)) {
    out.push(`  ${when(m.received_at)}  to ${m.rcpt_to.join(', ') || m.to}  "${m.subject}"`);
    for (const link of m.links) out.push(`      ${link}`);
  }
  out.push('');
  out.push(`Webhook deliveries (${deliveries.length}${deliveries.length > last ? `, the last ${last}` : ''}):`);
  if (deliveries.length === 0) out.push('  none yet');
  for (const d of deliveries.slice(-last)) {
    const what = d.event_type ? `${d.event_type} ${d.event_id ?? ''} job ${d.job_id ?? '?'}` : 'not a platform event';
    out.push(`  ${when(d.received_at)}  ${d.path}  ${what}  ${SIGNATURE_WORDS[d.signature]}  (answered ${d.answered})`);
  }
  return out.join('\n');
}
