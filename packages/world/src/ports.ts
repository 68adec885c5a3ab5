// Port selection and listen helpers that turn bind failures into rejected promises.
import dgram from 'node:dgram';
import net from 'node:net';

export function listenTcp(server: net.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen({ port, host, exclusive: true }, () => {
      server.off('error', onError);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

export function bindUdp(socket: dgram.Socket, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    socket.once('error', onError);
    socket.bind({ port, address: host, exclusive: true }, () => {
      socket.off('error', onError);
      resolve(socket.address().port);
    });
  });
}

export function closeTcp(server: net.Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
  });
}

export function closeUdp(socket: dgram.Socket): Promise<void> {
  return new Promise((resolve) => {
    try {
      socket.close(() => resolve());
    } catch {
      // Already closed (or never bound): nothing left to release.
      resolve();
    }
  });
}

export function isAddressInUse(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';
}

// A port free for both TCP and UDP on `host` at the time of the call; callers that bind later
// must still handle EADDRINUSE, since another process may take the port in between.
export async function findFreePort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const server = net.createServer();
    const port = await listenTcp(server, 0, host);
    const udp = dgram.createSocket('udp4');
    try {
      await bindUdp(udp, port, host);
      return port;
    } catch (error) {
      if (!isAddressInUse(error)) throw error;
    } finally {
      await closeUdp(udp);
      await closeTcp(server);
    }
  }
  throw new Error(`no port free for both TCP and UDP on ${host}`);
}

// Retries `start` on EADDRINUSE when the port was chosen by us rather than by the caller.
export async function withPortRetry<T>(fixedPort: number | undefined, start: (port: number) => Promise<T>): Promise<T> {
  if (fixedPort !== undefined && fixedPort !== 0) return start(fixedPort);
  let lastError: unknown;
  for (let attempt = 0; attempt < 20; attempt += 1) {
    try {
      return await start(0);
    } catch (error) {
      if (!isAddressInUse(error)) throw error;
      lastError = error;
    }
  }
  throw lastError;
}
