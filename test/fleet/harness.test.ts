import { createServer, type Server } from 'node:http';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Backend, type HaproxyServer, hasHaproxy, startHaproxy } from '../support/haproxy.js';
import {
  freePort,
  hasPostgres,
  type PostgresServer,
  processAlive,
  startPostgres,
} from '../support/postgres.js';

// The fleet tests' own stack: a private PostgreSQL cluster and HAProxy in front of plain HTTP servers.

async function query<T>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
}

describe.runIf(hasPostgres)('a private PostgreSQL cluster', () => {
  let postgres: PostgresServer;
  beforeAll(async () => {
    postgres = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await postgres?.stop();
  });

  test('listens on loopback and lets the throwaway role in with its password', async () => {
    expect(postgres.url).toBe(
      `postgres://${postgres.role}:${postgres.password}@127.0.0.1:${postgres.port}/${postgres.database}`,
    );
    const [row] = await query<{ who: string; db: string; sum: number }>(
      postgres.url,
      'select current_user as who, current_database() as db, $1::int + 1 as sum',
      [41],
    );
    expect(row).toEqual({ who: postgres.role, db: postgres.database, sum: 42 });
    const wrong = new Client({ connectionString: postgres.url.replace(postgres.password, 'wrong') });
    await expect(wrong.connect()).rejects.toThrow(/password authentication failed/);
    await wrong.end().catch(() => {});
  });

  test('restart() keeps committed rows, on the same port', async () => {
    await query(postgres.url, 'create table kept (id int primary key, note text)');
    await query(postgres.url, `insert into kept values (1, 'one'), (2, 'two')`);
    const before = postgres.pid;
    await postgres.restart();
    expect(postgres.pid).not.toBe(before);
    expect(await query(postgres.url, 'select * from kept order by id')).toEqual([
      { id: 1, note: 'one' },
      { id: 2, note: 'two' },
    ]);
  });

  test('kill() is a crash: every server process dies, and start() recovers the committed rows', async () => {
    await query(postgres.url, 'create table crashed (id int)');
    await query(postgres.url, 'insert into crashed values (7)');
    const held = new Client({ connectionString: postgres.url });
    held.on('error', () => {});
    await held.connect();
    const processes = postgres.processes();
    expect(processes.length).toBeGreaterThan(1);
    await postgres.kill();
    expect(postgres.pid).toBeUndefined();
    expect(processes.filter(processAlive)).toEqual([]);
    await expect(held.query('select 1')).rejects.toThrow();
    await held.end().catch(() => {});
    await postgres.start();
    expect(await query(postgres.url, 'select id from crashed')).toEqual([{ id: 7 }]);
  });

  test('createDatabase() gives the role another database of its own', async () => {
    const url = await postgres.createDatabase('second');
    const [row] = await query<{ db: string; owner: string }>(
      url,
      'select current_database() as db, pg_get_userbyid(datdba) as owner from pg_database where datname = current_database()',
    );
    expect(row).toEqual({ db: 'second', owner: postgres.role });
  });

  test('stop() leaves no PostgreSQL process behind', async () => {
    const processes = postgres.processes();
    expect(processes).toContain(postgres.pid);
    expect(processes.length).toBeGreaterThan(1);
    await postgres.stop();
    expect(postgres.pid).toBeUndefined();
    expect(processes.filter(processAlive)).toEqual([]);
    await expect(query(postgres.url, 'select 1')).rejects.toThrow(/ECONNREFUSED/);
  });
});

/** A tiny HTTP server that answers every request with its own id. */
async function replica(id: string): Promise<{ server: Server; backend: Backend }> {
  const server = createServer((_request, response) => {
    response.setHeader('content-type', 'text/plain');
    response.end(id);
  });
  const port = await freePort();
  await listen(server, port);
  return { server, backend: { host: '127.0.0.1', port } };
}

async function listen(server: Server, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function tally(haproxy: HaproxyServer, requests: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < requests; i++) {
    const response = await fetch(haproxy.url(`/hello?i=${i}`));
    expect(response.status).toBe(200);
    const id = await response.text();
    counts[id] = (counts[id] ?? 0) + 1;
  }
  return counts;
}

describe.runIf(hasHaproxy)('HAProxy in front of three servers', () => {
  const replicas: { server: Server; backend: Backend }[] = [];
  let haproxy: HaproxyServer;
  beforeAll(async () => {
    for (const id of ['a', 'b', 'c']) replicas.push(await replica(id));
    haproxy = await startHaproxy(replicas.map((r) => r.backend));
  });
  afterAll(async () => {
    await haproxy?.stop();
    for (const { server } of replicas) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('round-robins plain requests across all three', async () => {
    const counts = await tally(haproxy, 30);
    expect(Object.keys(counts).sort()).toEqual(['a', 'b', 'c']);
    expect(counts.a! + counts.b! + counts.c!).toBe(30);
  });

  test('sends a request meant for a server that is down to another', async () => {
    const down = replicas[2]!;
    down.server.closeAllConnections();
    await new Promise((resolve) => down.server.close(resolve));
    const counts = await tally(haproxy, 12);
    expect(Object.keys(counts).sort()).toEqual(['a', 'b']);
    await listen(down.server, down.backend.port);
    expect(Object.keys(await tally(haproxy, 30)).sort()).toEqual(['a', 'b', 'c']);
  });

  test('setBackends() replaces the servers behind it', async () => {
    const d = await replica('d');
    replicas.push(d);
    await haproxy.setBackends([replicas[0]!.backend]);
    expect(Object.keys(await tally(haproxy, 9))).toEqual(['a']);
    await haproxy.setBackends([d.backend, replicas[1]!.backend, replicas[2]!.backend, replicas[0]!.backend]);
    expect(Object.keys(await tally(haproxy, 40)).sort()).toEqual(['a', 'b', 'c', 'd']);
    await haproxy.setBackends(replicas.slice(0, 3).map((r) => r.backend));
    expect(Object.keys(await tally(haproxy, 30)).sort()).toEqual(['a', 'b', 'c']);
  });

  test('stop() leaves no HAProxy process behind', async () => {
    const other = await startHaproxy([replicas[0]!.backend]);
    let processes: number[];
    try {
      processes = other.processes();
      expect(processes).toEqual([other.pid]);
    } finally {
      await other.stop();
    }
    expect(other.pid).toBeUndefined();
    expect(processes.filter(processAlive)).toEqual([]);
    await expect(fetch(other.url('/'))).rejects.toThrow();
  });
});
