import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The ports the kernel picks from for outgoing connections (and for `listen(0)`). */
function ephemeralPorts(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    return [Number(low), Number(high)];
  } catch {
    return [32768, 60999];
  }
}

async function listenable(port: number): Promise<number | undefined> {
  const server = createServer();
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (!listening) return undefined;
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address !== null && typeof address !== 'string' ? address.port : undefined;
}

/**
 * A port that was free on 127.0.0.1 a moment ago, outside the range the kernel gives outgoing
 * connections: a server stopped under load can then have its port back, since no client socket
 * can have taken it meanwhile.
 */
export async function freePort(): Promise<number> {
  const [low, high] = ephemeralPorts();
  const [from, to] = low - 10_000 >= 1024 ? [10_000, low - 1] : [high + 1, 65_535];
  for (let attempt = 0; attempt < 100 && from < to; attempt++) {
    const port = await listenable(from + Math.floor(Math.random() * (to - from + 1)));
    if (port !== undefined) return port;
  }
  const port = await listenable(0);
  if (port === undefined) throw new Error('no free port on 127.0.0.1');
  return port;
}
