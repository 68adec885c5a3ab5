// The default ASN database. No maintained npm package ships an IP-to-ASN file in MaxMind format
// under a redistributable licence (GeoLite2-ASN has MaxMind's EULA), so the default is built from
// the CSV of @ip-location-db/asn (RouteViews + DB-IP Lite, CC BY 4.0) into an mmdb the `maxmind`
// reader opens like any other. It is built once per package version, in a child process so that
// its memory peak (about 200 MB while the tree is built) never counts against the scanner.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { writeMmdb, type MmdbRange, type MmdbRecord } from './mmdb-writer.ts';
import { ipToBigInt } from './ip.ts';

const ASN_PACKAGE = '@ip-location-db/asn';

/** The installed CSV package's folder and version (the version names the built file). */
export function asnCsvPackage(): { dir: string; version: string } {
  const pkgJson = createRequire(import.meta.url).resolve(`${ASN_PACKAGE}/package.json`);
  const version = (JSON.parse(readFileSync(pkgJson, 'utf8')) as { version: string }).version;
  return { dir: dirname(pkgJson), version };
}

/**
 * Path of the ASN mmdb built from the CSV package in `cacheDir`, building it first when absent.
 * A build that fails leaves no file behind and rejects with the child's error output.
 */
export async function ensureAsnMmdb(cacheDir: string): Promise<string> {
  const { dir, version } = asnCsvPackage();
  const out = join(cacheDir, `ip-location-db-asn-${version}.mmdb`);
  if (existsSync(out)) return out;
  mkdirSync(cacheDir, { recursive: true });
  const script = fileURLToPath(import.meta.url);
  try {
    await promisify(execFile)(process.execPath, [script, dir, out], { maxBuffer: 1 << 20 });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    throw new Error(`could not build the ASN database from ${ASN_PACKAGE}: ${stderr.trim() || (err as Error).message}`, { cause: err });
  }
  return out;
}

/** Parses one CSV line `start,end,asn,organisation` (the organisation may be quoted with "" escapes). */
export function parseAsnLine(line: string): { start: string; end: string; asn: number; org: string } | null {
  const firstComma = line.indexOf(',');
  const secondComma = line.indexOf(',', firstComma + 1);
  const thirdComma = line.indexOf(',', secondComma + 1);
  if (firstComma < 0 || secondComma < 0 || thirdComma < 0) return null;
  const asn = Number(line.slice(secondComma + 1, thirdComma));
  if (!Number.isInteger(asn) || asn < 0) return null;
  let org = line.slice(thirdComma + 1).trim();
  if (org.startsWith('"') && org.endsWith('"') && org.length >= 2) org = org.slice(1, -1).replaceAll('""', '"');
  return { start: line.slice(0, firstComma), end: line.slice(firstComma + 1, secondComma), asn, org };
}

/** Ranges of one CSV text, sorted, overlaps clipped (a later row never overrides an earlier one). */
export function asnRangesFromCsv(text: string): MmdbRange[] {
  const ranges: MmdbRange[] = [];
  for (const line of text.split('\n')) {
    const row = parseAsnLine(line);
    if (row === null) continue;
    const start = ipToBigInt(row.start);
    const end = ipToBigInt(row.end);
    if (start === null || end === null || start > end) continue;
    const data: MmdbRecord = row.org === '' ? { autonomous_system_number: row.asn } : { autonomous_system_number: row.asn, autonomous_system_organization: row.org };
    ranges.push({ start, end, data });
  }
  ranges.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const clean: MmdbRange[] = [];
  for (const r of ranges) {
    const prev = clean[clean.length - 1];
    if (prev !== undefined && r.start <= prev.end) {
      if (r.end <= prev.end) continue;
      clean.push({ ...r, start: prev.end + 1n });
    } else clean.push(r);
  }
  return clean;
}

/** Builds one IPv6 database holding the IPv4 rows (at ::/96, where readers look IPv4 up) and the IPv6 rows. */
export function buildAsnMmdb(csvDir: string): Buffer {
  const v4 = asnRangesFromCsv(readFileSync(join(csvDir, 'asn-ipv4.csv'), 'utf8'));
  // IPv6 rows inside ::/96 would collide with the IPv4 mapping; none are routable there anyway.
  const v6 = asnRangesFromCsv(readFileSync(join(csvDir, 'asn-ipv6.csv'), 'utf8')).filter((r) => r.start > 0xffffffffn);
  return writeMmdb({ ipVersion: 6, databaseType: 'ip-location-db-asn', description: 'IP to ASN from @ip-location-db/asn (RouteViews and DB-IP, CC BY 4.0)', ranges: [...v4, ...v6] });
}

// Child-process entry: node asn-db.ts <csvDir> <out>. Written beside and renamed so a reader never
// sees half a file.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [csvDir, out] = process.argv.slice(2) as [string, string];
  const tmp = `${out}.${process.pid}.tmp`;
  writeFileSync(tmp, buildAsnMmdb(csvDir));
  renameSync(tmp, out);
}
