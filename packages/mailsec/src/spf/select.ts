// Record selection (RFC 7208 4.5): of the TXT records at a name, keep those whose joined text
// starts with "v=spf1" and a space or the end. Type SPF (99) records are not consulted (3.1).
import type { Rr } from '../resolver/types.ts';
import { isSpfRecordText } from './parser.ts';

export function selectSpfRecords(answers: readonly Rr[]): string[] {
  return answers.flatMap((rr) => (rr.type === 'TXT' ? [rr.strings.join('')] : [])).filter(isSpfRecordText);
}
