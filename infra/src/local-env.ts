// What the launcher adds to each service's environment so that, on a laptop, every link points
// home and every push channel reaches something the user can look at. Pure: the launcher passes
// the ports it chose and the addresses of its mail catcher, webhook receiver and CA bundle.
import type { ServiceName } from '@dv/stack';

export interface LocalChannels {
  /** smtp:// URL of the mail catcher. */
  smtpRelayUrl: string;
  /** NODE_EXTRA_CA_CERTS file: the local CA (plus the user's own extra CAs). */
  caBundleFile: string;
}

const loopbackUrl = (port: number) => `http://127.0.0.1:${port}`;

/**
 * Each service's own public base URL: the address it serves on, whatever port was chosen. The
 * scheduler's links (completion emails) lead to the gateway's API, so it gets the gateway's. A
 * user's PUBLIC_BASE_URL names the API (gateway and scheduler); LOOKUP_PUBLIC_BASE_URL and
 * PORTFOLIO_PUBLIC_BASE_URL name the other two (a reverse proxy in front, say).
 */
export function publicBaseUrls(ports: Readonly<Record<ServiceName, number>>, userEnv: NodeJS.ProcessEnv = process.env): Partial<Record<ServiceName, string>> {
  const api = userEnv.PUBLIC_BASE_URL ?? loopbackUrl(ports.gateway);
  return {
    gateway: api,
    scheduler: api,
    lookup: userEnv.LOOKUP_PUBLIC_BASE_URL ?? loopbackUrl(ports.lookup),
    'portfolio-scanner': userEnv.PORTFOLIO_PUBLIC_BASE_URL ?? loopbackUrl(ports['portfolio-scanner']),
  };
}

/**
 * The launcher's additions for one service; anything the user set in the environment wins (the
 * services inherit it). WEBHOOK_ALLOW_HTTP_LOOPBACK lets webhook_url name the local receiver
 * (loopback only, refused with NODE_ENV=production, where the launcher is not used).
 */
export function localServiceEnv(name: ServiceName, ports: Readonly<Record<ServiceName, number>>, channels: LocalChannels, userEnv: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  const base = publicBaseUrls(ports, userEnv)[name];
  if (base) env.PUBLIC_BASE_URL = base;
  if (!userEnv.SMTP_RELAY_URL && !userEnv.SMTP_RELAY_URL_FILE) env.SMTP_RELAY_URL = channels.smtpRelayUrl;
  if (userEnv.WEBHOOK_ALLOW_HTTP_LOOPBACK === undefined) env.WEBHOOK_ALLOW_HTTP_LOOPBACK = 'true';
  env.NODE_EXTRA_CA_CERTS = channels.caBundleFile;
  return env;
}
