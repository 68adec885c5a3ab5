import { z } from 'zod';
import { scanResult } from '@dv/contracts';
import { LOOKUP_STATUSES } from '../registration/lookup-status.ts';

// Response schemas of the spec's resources, as the API writes them (datetimes as ISO 8601 strings).
// They document the OpenAPI document; views.ts builds the objects.

const dt = z.iso.datetime();
const dtN = dt.nullable();

export const DOMAIN_STATUSES = ['active', 'inactive', 'removed'] as const;

export const domainItemSchema = z
  .object({
    id: z.number().int().nullable().meta({ description: 'Domain id in the account; null only in the global domain view for a domain the account does not monitor.' }),
    domain: z.string(),
    email_gateway: z
      .string()
      .nullable()
      .meta({ description: 'Gateway vendor of the most preferred MX host (e.g. `Google`, `Microsoft 365`, `Mimecast`), `Self-hosted`, `Null MX`, or an unknown mail host\'s registrable domain; null: no MX records or not scanned yet. The `email_gateway` filter lists every value.' }),
    dmarc_policy_p: z.enum(['reject', 'quarantine', 'none']).nullable(),
    spf: z.string().nullable(),
    scanned_at: dtN,
    added_at: dtN.meta({ description: 'When added to the account (null in the global view for a domain the account does not monitor).' }),
    folder_id: z.number().int().nullable(),
    is_favorite: z.boolean(),
    tags: z.array(z.string()),
  })
  .meta({ id: 'DomainListItem' });

// The scan result's fields with dates as strings: the stored shape is the contract's scanResult.
export const scanResultSchema = z
  .object(Object.fromEntries(Object.entries(scanResult.shape).map(([k, v]) => [k, k === 'scanned_at' ? dt : k.endsWith('_date') ? dtN : v])) as Record<string, z.ZodType>)
  .meta({ id: 'ScanResult' });

export const changeSchema = z
  .object({ id: z.number().int(), domain_name: z.string(), field_name: z.string(), old_value: z.string().nullable(), new_value: z.string().nullable(), detected_at: dt })
  .meta({ id: 'ChangeRecord' });

export const whoisSchema = z
  .object({
    domain_name: z.string(),
    registrar: z.string().nullable(),
    name_servers: z.string().nullable(),
    registrant_name: z.string().nullable(),
    registrant_org: z.string().nullable(),
    registrant_country: z.string().nullable(),
    registrant_state: z.string().nullable(),
    contact_email: z.string().nullable(),
    registrar_abuse_email: z.string().nullable(),
    registrar_abuse_phone: z.string().nullable(),
    dnssec_status: z.string().nullable(),
    whois_status: z.string().nullable(),
    whois_server: z.string().nullable(),
    registration_date: dtN,
    expiry_date: dtN,
    updated_date: dtN,
    privacy_enabled: z.boolean(),
    domain_statuses: z.array(z.string()),
    ip_geolocation: z.record(z.string(), z.unknown()),
    fetched_at: dt.meta({ description: 'When the data was fetched; on a `pending` record, when the record was made (no lookup has answered yet).' }),
    lookup_status: z
      .enum(Object.keys(LOOKUP_STATUSES) as [keyof typeof LOOKUP_STATUSES])
      .meta({ description: `How the latest lookup went: ${Object.entries(LOOKUP_STATUSES).map(([k, v]) => `\`${k}\` (${v})`).join('; ')}.` }),
    lookup_detail: z.string().nullable().meta({ description: 'Why the latest lookup gave no data, in words (the servers asked and what they answered); null when it answered.' }),
    last_attempt_at: dtN.meta({ description: 'When the latest lookup was tried; null while none was.' }),
    next_fetch_at: dtN.meta({ description: 'When the next lookup is due; null while the domain is not queued yet.' }),
  })
  .meta({ id: 'WhoisRecord' });

export const domainDetailSchema = domainItemSchema
  .extend({
    id: z.number().int(),
    added_at: dt,
    tld: z.string(),
    status: z.enum(DOMAIN_STATUSES),
    first_seen: dt.meta({ description: 'When the account added the domain (again after a removal; not after a pause as inactive). On plans with the global domain view: when the shared corpus first saw it.' }),
    last_scanned: dtN,
    scan_count: z.number().int().meta({ description: 'Scans stored since `first_seen` (global domain view: all scans of the corpus).' }),
    notes: z.string().nullable(),
    custom_label: z.string().nullable(),
    scan_result: scanResultSchema.nullable(),
    change_history: z.array(changeSchema).meta({ description: 'The 20 most recent changes detected since `first_seen`, newest first (global domain view: of the corpus).' }),
    whois: whoisSchema.meta({ description: 'The WHOIS record, a pending one with its reason until registration data is fetched (as GET …/whois/).' }),
  })
  .meta({ id: 'DomainDetail' });

export const apiKeySchema = z
  .object({ id: z.number().int(), key_prefix: z.string(), name: z.string(), created_at: dt, last_used_at: dtN, is_active: z.boolean(), expires_at: dtN })
  .meta({ id: 'ApiKey' });

const share = z.object({ count: z.number().int(), percentage: z.number() });
export const summarySchema = z
  .object({
    total_domains: z.number().int(),
    email_gateway_distribution: z.array(z.object({ gateway_name: z.string(), count: z.number().int(), percentage: z.number() })),
    dmarc_distribution: z.object({ reject: share, quarantine: share, none: share, missing: share }),
    spf_status: z.object({ valid: z.number().int(), over_limit: z.number().int(), missing: z.number().int() }),
    scan_freshness: z.object({ scanned_last_24h: z.number().int(), scanned_last_7d: z.number().int(), percentage_24h: z.number(), percentage_7d: z.number() }),
    recent_changes: z.array(changeSchema),
    needs_attention_count: z.number().int(),
  })
  .meta({ id: 'DashboardSummary' });

export const idParams = z.object({ id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).meta({ description: 'Domain id in the account.' }) });
