// Findings the analyzer (and later the record validator) reports; codes are stable API.

export const SPF_WARNING = {
  MULTIPLE_RECORDS: 'multiple_records',
  STRING_TOO_LONG: 'string_too_long',
  RECORD_TOO_LONG: 'record_too_long',
  PTR_USED: 'ptr_used',
  PLUS_ALL: 'plus_all',
  TERMS_AFTER_ALL: 'terms_after_all',
  REDIRECT_IGNORED: 'redirect_ignored',
  UNKNOWN_MECHANISM: 'unknown_mechanism',
  SYNTAX_ERROR: 'syntax_error',
  SPF_TYPE99_ONLY: 'spf_type99_only',
  TARGET_HAS_NO_RECORD: 'target_has_no_record',
  INVALID_TARGET: 'invalid_target',
  LOOP: 'loop',
  LOOKUP_LIMIT: 'lookup_limit',
  VOID_LOOKUP: 'void_lookup',
  VOID_LIMIT: 'void_lookup_limit',
  TOO_MANY_MX: 'too_many_mx',
  DNS_ERROR: 'dns_error',
  NOT_EXPANDED: 'not_expanded',
} as const;

export type SpfWarningCode = (typeof SPF_WARNING)[keyof typeof SPF_WARNING];

export interface SpfWarning {
  code: SpfWarningCode;
  /** error: receivers will not honour the policy as meant; warning: risky or wasteful. */
  severity: 'error' | 'warning';
  /** The domain whose record the finding is about. */
  domain: string;
  message: string;
  term?: string;
}

export function warn(code: SpfWarningCode, severity: SpfWarning['severity'], domain: string, message: string, term?: string): SpfWarning {
  return { code, severity, domain, message, ...(term !== undefined ? { term } : {}) };
}
