// The validate tool's grading rubric. A record starts at 100 points; each finding deducts its
// points once; a syntax error makes the record invalid (score 0, grade F) whatever else it has.
// Grades: A >= 90, B >= 80, C >= 70, D >= 60, else F. Codes are stable API.

export interface RubricRule {
  points: number;
  severity: 'error' | 'warning' | 'info';
  message: string;
}

export const SPF_RUBRIC = {
  plus_all: { points: 60, severity: 'error', message: '"+all" (or a bare "all") authorizes every host on the internet to send as the domain' },
  neutral_all: { points: 30, severity: 'error', message: '"?all" is neutral: unlisted senders are neither passed nor failed, so the record protects nothing' },
  no_all: { points: 20, severity: 'warning', message: 'no "all" mechanism and no redirect: senders that match nothing get "neutral"' },
  softfail_all: { points: 5, severity: 'info', message: '"~all" soft-fails unlisted senders; "-all" is stricter once every sender is listed' },
  broad_ip_range: { points: 20, severity: 'warning', message: 'an ip4/ip6 range this wide authorizes far more hosts than any sender owns' },
  ptr_used: { points: 10, severity: 'warning', message: '"ptr" is slow and unreliable; RFC 7208 5.5 says not to use it' },
  too_many_lookups: { points: 30, severity: 'error', message: 'more than 10 DNS-querying terms in the record itself: receivers return permerror' },
  near_lookup_limit: { points: 5, severity: 'warning', message: '8-10 DNS-querying terms before any nested include is counted: close to the 10-lookup limit' },
  terms_after_all: { points: 5, severity: 'warning', message: 'terms after "all" are never evaluated' },
  redirect_ignored: { points: 5, severity: 'warning', message: 'redirect= is ignored because the record has an "all" mechanism' },
  record_too_long: { points: 5, severity: 'warning', message: 'the record is over 512 bytes; large answers may be truncated or dropped' },
  needs_splitting: { points: 0, severity: 'info', message: 'over 255 bytes: publish it as several quoted strings of at most 255 bytes each' },
  nested_not_counted: { points: 0, severity: 'info', message: 'lookups inside include/redirect targets need DNS: run spf_analyze for the full count' },
} as const satisfies Record<string, RubricRule>;

export const DMARC_RUBRIC = {
  p_none: { points: 30, severity: 'warning', message: 'p=none only monitors: spoofed mail is still delivered' },
  p_quarantine: { points: 5, severity: 'info', message: 'p=quarantine sends failing mail to spam; p=reject blocks it' },
  no_rua: { points: 15, severity: 'warning', message: 'no rua address: nobody receives aggregate reports' },
  pct_below_100: { points: 10, severity: 'warning', message: 'pct below 100 applies the policy to only part of the failing mail' },
  sp_weaker: { points: 10, severity: 'warning', message: 'sp=none leaves subdomains unprotected while p enforces' },
  unknown_tag: { points: 5, severity: 'warning', message: 'a tag DMARC does not define; receivers ignore it' },
  non_mailto_uri: { points: 5, severity: 'warning', message: 'a report URI that is not mailto:; most receivers only send reports by email' },
  version_case: { points: 5, severity: 'warning', message: 'the version must be written "DMARC1"; some receivers compare it exactly' },
  relaxed_alignment: { points: 0, severity: 'info', message: 'relaxed alignment (the default): adkim=s and aspf=s are stricter' },
  p_not_second: { points: 0, severity: 'info', message: '"p" should come right after "v=DMARC1"' },
  other_warning: { points: 0, severity: 'info', message: 'see the message' },
} as const satisfies Record<string, RubricRule>;

export const GRADE_THRESHOLDS: readonly { grade: 'A' | 'B' | 'C' | 'D'; minScore: number }[] = [
  { grade: 'A', minScore: 90 },
  { grade: 'B', minScore: 80 },
  { grade: 'C', minScore: 70 },
  { grade: 'D', minScore: 60 },
];

/** Prefixes shorter than these are "broad": an IPv4 /15 is 131,072 hosts; an IPv6 range shorter than /32 is more than an ISP's allocation. */
export const BROAD_RANGE_PREFIX = { ip4: 16, ip6: 32 } as const;
