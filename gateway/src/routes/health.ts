import type { Express } from 'express';

export const API_VERSION = '1.0.0';

/** GET /v1/health: unauthenticated liveness for customers and uptime monitors. */
export function mountHealth(app: Express): void {
  app.get('/v1/health', (_req, res) => {
    res.json({ status: 'ok', service: 'gateway', api_version: API_VERSION, time: new Date().toISOString() });
  });
}
