// The geolocation surface the scan engine uses.
export type { GeoInfo, GeoLookup } from './types.ts';
export { openGeo, openGeoFromConfig, GeoDatabaseError, type GeoReader, type GeoOptions } from './reader.ts';
export { createGeoMetrics, GEO_METRICS, type GeoMetrics } from './metrics.ts';
