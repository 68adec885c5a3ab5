// Maps what an mmdb record holds to GeoInfo fields. Two layouts exist in the wild: MaxMind's GeoIP2 /
// GeoLite2 (nested: country.iso_code, subdivisions[0].names.en, location.latitude) and the flat one
// of the @ip-location-db packages (country_code, state1, city, latitude). Both are read so an
// operator can point the paths at either kind of file.
import type { GeoInfo } from './types.ts';

export const EMPTY_GEO: Readonly<GeoInfo> = Object.freeze({ country: null, region: null, city: null, lat: null, lon: null, asn: null, asn_name: null });

type Rec = Record<string, unknown>;

const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const englishName = (v: unknown): string | null => (isRec(v) && isRec(v.names) ? str(v.names.en) : null);

/** Location fields of a city or country record (fields the record lacks stay null). */
export function locationFields(record: unknown): Pick<GeoInfo, 'country' | 'region' | 'city' | 'lat' | 'lon'> {
  if (!isRec(record)) return { country: null, region: null, city: null, lat: null, lon: null };
  const country = isRec(record.country) ? str(record.country.iso_code) : str(record.country_code);
  const subdivision = Array.isArray(record.subdivisions) ? record.subdivisions[0] : undefined;
  const region = subdivision !== undefined ? englishName(subdivision) : str(record.state1);
  const city = isRec(record.city) ? englishName(record.city) : str(record.city);
  const location = isRec(record.location) ? record.location : record;
  return {
    country: country === null ? null : country.toUpperCase(),
    region,
    city,
    lat: num(location.latitude),
    lon: num(location.longitude),
  };
}

/** ASN fields of an ASN record: "AS<number>" and the organisation. */
export function asnFields(record: unknown): Pick<GeoInfo, 'asn' | 'asn_name'> {
  if (!isRec(record)) return { asn: null, asn_name: null };
  const n = num(record.autonomous_system_number);
  return { asn: n === null || !Number.isInteger(n) ? null : `AS${n}`, asn_name: str(record.autonomous_system_organization) };
}
