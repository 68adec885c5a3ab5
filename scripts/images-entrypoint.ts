// The dv-platform image's entrypoint (Containerfile): `<image> <service>` runs that service's
// src/main.ts in this same node process, so node stays PID 1 and gets SIGTERM directly (no shell,
// no init). Kept free of imports from the workspaces: it only picks the file to load.

/** The services the image runs (packages/stack/src/services.ts SERVICE_NAMES; scripts/images.test.ts checks they agree). */
export const IMAGE_SERVICES = ['gateway', 'lookup', 'portfolio-scanner', 'scheduler', 'probe-node'] as const;

/** sysexits.h EX_USAGE: a wrong argument is a deployment error, not a crash to restart quickly from. */
export const EXIT_USAGE = 64;

export function mainFor(service: string | undefined): URL | null {
  if (!service || !(IMAGE_SERVICES as readonly string[]).includes(service)) return null;
  return new URL(`../${service}/src/main.ts`, import.meta.url);
}

const isEntry = process.argv[1] !== undefined && new URL(import.meta.url).pathname === process.argv[1];
if (isEntry) {
  const service = process.argv[2];
  const main = mainFor(service);
  if (!main) {
    const usage = `usage: <image> <service>   where <service> is one of: ${IMAGE_SERVICES.join(', ')}`;
    if (service === '--help') {
      process.stdout.write(`${usage}\n`);
      process.exit(0);
    }
    process.stderr.write(`${service === undefined ? 'no service named' : `unknown service "${service}"`}\n${usage}\n`);
    process.exit(EXIT_USAGE);
  }
  // The service sees its own argv (node, its main.ts, then any further arguments).
  process.argv.splice(1, 2, main.pathname);
  await import(main.href);
}
