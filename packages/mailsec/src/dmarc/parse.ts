// DMARC record syntax (RFC 7489 6.3/6.4, with the DMARCbis tags np, t and psd accepted). Pure: the
// dmarc_check tool and the validate tool share it. Every problem is reported with a stable code.

export type DmarcPolicy = 'none' | 'quarantine' | 'reject';

export interface DmarcProblem {
  code: string;
  /** error: the record (or that tag) is not honoured as written; warning: risky or unusual. */
  severity: 'error' | 'warning';
  message: string;
  tag?: string;
}

export interface DmarcReportUri {
  uri: string;
  scheme: string;
  /** For mailto: the address and its domain. */
  address?: string;
  domain?: string;
  /** Optional size limit ("!10m"), in bytes. */
  maxSizeBytes?: number;
}

export interface DmarcRecord {
  /** Every tag as written (lowercased names, trimmed values), first occurrence wins. */
  tags: Record<string, string>;
  p?: DmarcPolicy;
  sp?: DmarcPolicy;
  np?: DmarcPolicy;
  /** Defaults applied where the record is silent (RFC 7489 6.3). */
  pct: number;
  adkim: 'r' | 's';
  aspf: 'r' | 's';
  fo: string[];
  ri: number;
  rf: string[];
  rua: DmarcReportUri[];
  ruf: DmarcReportUri[];
}

export interface DmarcParseResult {
  /** Starts with "v=DMARC1" (case-insensitively): the text is meant as a DMARC record. */
  isDmarc: boolean;
  /** No errors: receivers apply the record as written. */
  valid: boolean;
  record: DmarcRecord;
  errors: DmarcProblem[];
  warnings: DmarcProblem[];
}

export const DMARC_TAGS = ['v', 'p', 'sp', 'np', 'pct', 'rua', 'ruf', 'adkim', 'aspf', 'fo', 'ri', 'rf', 't', 'psd'] as const;

const POLICIES: readonly string[] = ['none', 'quarantine', 'reject'];
const VERSION = /^\s*v\s*=\s*DMARC1\s*(?:;|$)/i;
const SIZE_UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** True when a TXT string is meant as a DMARC record (RFC 7489 6.6.3 step 5 keeps only these). */
export function isDmarcRecordText(text: string): boolean {
  return VERSION.test(text);
}

export function parseDmarcRecord(text: string): DmarcParseResult {
  const record: DmarcRecord = { tags: {}, pct: 100, adkim: 'r', aspf: 'r', fo: ['0'], ri: 86_400, rf: ['afrf'], rua: [], ruf: [] };
  const errors: DmarcProblem[] = [];
  const warnings: DmarcProblem[] = [];
  const error = (code: string, message: string, tag?: string) => errors.push({ code, severity: 'error', message, ...(tag ? { tag } : {}) });
  const warning = (code: string, message: string, tag?: string) => warnings.push({ code, severity: 'warning', message, ...(tag ? { tag } : {}) });

  if (!isDmarcRecordText(text)) {
    error('not_dmarc1', 'the record does not start with "v=DMARC1"');
    return { isDmarc: false, valid: false, record, errors, warnings };
  }
  if (!/^\s*v\s*=\s*DMARC1/.test(text)) warning('version_case', 'the version is "DMARC1" in upper case (RFC 7489 ABNF); some receivers compare it exactly', 'v');

  const parts = text.split(';').map((s) => s.trim());
  if (parts.at(-1) === '') parts.pop();
  for (const [index, part] of parts.entries()) {
    if (part === '') {
      warning('empty_tag', 'an empty tag (";;") in the record');
      continue;
    }
    const eq = part.indexOf('=');
    if (eq <= 0) {
      error('malformed_tag', `"${part}" is not a tag=value pair`);
      continue;
    }
    const name = part.slice(0, eq).trim().toLowerCase();
    const value = part.slice(eq + 1).trim();
    if (index > 0 && name === 'v') {
      error('misplaced_version', '"v" may appear only once, as the first tag', 'v');
      continue;
    }
    if (Object.hasOwn(record.tags, name)) {
      error('duplicate_tag', `"${name}" appears more than once; receivers may ignore the record`, name);
      continue;
    }
    record.tags[name] = value;
    applyTag(record, name, value, error, warning);
  }

  if (record.p === undefined) {
    if (record.tags.p === undefined) {
      const fallback = record.rua.length > 0 ? '; with a valid rua, receivers treat it as p=none (RFC 7489 6.6.3)' : '; receivers ignore the record';
      error('missing_p', `the required "p" tag is missing${fallback}`, 'p');
    }
  }
  if (record.tags.p !== undefined && parts[1] !== undefined && !/^p\s*=/i.test(parts[1])) {
    warning('p_not_second', '"p" should follow "v=DMARC1" directly (RFC 7489 6.3)', 'p');
  }
  return { isDmarc: true, valid: errors.length === 0, record, errors, warnings };
}

type Report = (code: string, message: string, tag?: string) => void;

function applyTag(record: DmarcRecord, name: string, value: string, error: Report, warning: Report): void {
  switch (name) {
    case 'v':
      return;
    case 'p':
    case 'sp':
    case 'np': {
      const v = value.toLowerCase();
      if (POLICIES.includes(v)) record[name] = v as DmarcPolicy;
      else error('invalid_policy', `${name}=${value}: must be none, quarantine or reject`, name);
      return;
    }
    case 'pct':
      if (/^\d{1,3}$/.test(value) && Number(value) <= 100) record.pct = Number(value);
      else error('invalid_pct', `pct=${value}: must be a whole number from 0 to 100`, name);
      return;
    case 'adkim':
    case 'aspf': {
      const v = value.toLowerCase();
      if (v === 'r' || v === 's') record[name] = v;
      else error('invalid_alignment', `${name}=${value}: must be r (relaxed) or s (strict)`, name);
      return;
    }
    case 'fo': {
      const options = value.split(':').map((o) => o.trim().toLowerCase());
      if (options.every((o) => ['0', '1', 'd', 's'].includes(o))) record.fo = options;
      else error('invalid_fo', `fo=${value}: must be a colon-separated list of 0, 1, d and s`, name);
      return;
    }
    case 'ri':
      if (/^\d{1,10}$/.test(value) && Number(value) <= 4_294_967_295) record.ri = Number(value);
      else error('invalid_ri', `ri=${value}: must be a whole number of seconds`, name);
      return;
    case 'rf': {
      const formats = value.split(':').map((f) => f.trim().toLowerCase());
      record.rf = formats;
      if (!formats.every((f) => f === 'afrf')) warning('unknown_rf', `rf=${value}: "afrf" is the only defined failure-report format`, name);
      return;
    }
    case 'rua':
    case 'ruf': {
      for (const raw of value.split(',').map((u) => u.trim())) {
        const uri = parseReportUri(raw);
        if (!uri) {
          error('invalid_uri', `${name}: "${raw}" is not a valid report URI (mailto:address[!size])`, name);
          continue;
        }
        if (uri.scheme !== 'mailto') warning('non_mailto_uri', `${name}: "${raw}" is not a mailto: URI; most receivers only send reports by email`, name);
        record[name].push(uri);
      }
      return;
    }
    case 't':
    case 'psd':
      if (!/^[ynu]$/i.test(value)) warning('invalid_bis_tag', `${name}=${value}: DMARCbis expects y or n`, name);
      return;
    default:
      warning('unknown_tag', `"${name}" is not a DMARC tag; receivers ignore it`, name);
  }
}

/** dmarc-uri = URI [ "!" 1*DIGIT [ "k" / "m" / "g" / "t" ] ] (RFC 7489 6.4). */
export function parseReportUri(raw: string): DmarcReportUri | null {
  const m = /^([a-z][a-z0-9+.-]*):([^!\s]+)(?:!(\d+)([kmgt]?))?$/i.exec(raw);
  if (!m) return null;
  const scheme = (m[1] ?? '').toLowerCase();
  const rest = m[2] ?? '';
  const uri: DmarcReportUri = { uri: raw, scheme };
  if (m[3] !== undefined) uri.maxSizeBytes = Number(m[3]) * (SIZE_UNITS[(m[4] ?? '').toLowerCase()] ?? 1);
  if (scheme === 'mailto') {
    const address = decodeURIComponentSafe(rest);
    const at = address.lastIndexOf('@');
    const domain = at > 0 ? address.slice(at + 1).toLowerCase().replace(/\.$/, '') : '';
    if (at <= 0 || !/^[a-z0-9_-]+(?:\.[a-z0-9_-]+)+$/i.test(domain)) return null;
    uri.address = address;
    uri.domain = domain;
  }
  return uri;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
