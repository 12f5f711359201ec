/**
 * What authentication costs the server: two `toolpact serve --http --stateless` processes (bin/toolpact.js,
 * the TypeScript sources through tsx) serve the same tool under the same policy, one with `--auth`
 * (JWT access tokens of an oidc-provider 8 running in this process, verified with jose, kept until they
 * expire), one without. Each answers revision 2026-07-28 `tools/call` requests, 8 at a time; the same
 * token is presented on every authenticated call, as a client does until its token expires.
 *
 * Each process first answers a few thousand untimed calls (a fresh process under tsx needs them before
 * its times settle). Then rounds alternate which server goes first; the figure is server CPU (utime +
 * stime from /proc/<pid>/stat, 10 ms ticks) per call, summed over the rounds, and the ratio per round.
 * The clients run in this process, so their CPU is not counted. The goal is within 1.1x.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProvider } from '../test/support/oidc-provider.js';
import { freePort } from '../test/support/postgres.js';
import { printRows, spreadOf } from './measure.js';

const ROOT = join(import.meta.dirname, '..');
const CLI = join('bin', 'toolpact.js');
const FIXTURE = join('bench', 'fixtures', 'fleet', 'tools.ts');
const POLICY = join('bench', 'fixtures', 'fleet', 'policy.json');
const WARMUP = 3_000;
const CALLS = 1_500;
const ROUNDS = 9;
const CONCURRENCY = 8;

interface Server {
  readonly name: string;
  readonly child: ChildProcess;
  readonly url: string;
  readonly authorization: string | undefined;
}

async function start(name: string, port: number, extra: string[], authorization?: string): Promise<Server> {
  const child = spawn(
    process.execPath,
    [CLI, 'serve', FIXTURE, '--http', '--stateless', '--port', String(port), '--policy', POLICY, ...extra],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = / at (http:\/\/[^ ]+\/mcp) \(/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once('exit', () => reject(new Error(`${name} exited before it listened:\n${stderr}`)));
  });
  return { name, child, url, authorization };
}

const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'status',
    arguments: { service: 'api' },
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
    },
  },
});

async function calls(server: Server, count: number): Promise<void> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'status',
    ...(server.authorization ? { authorization: server.authorization } : {}),
  };
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const response = await fetch(server.url, { method: 'POST', headers, body });
      const text = await response.text();
      if (response.status !== 200 || text.includes('"isError":true')) {
        throw new Error(`${server.name}: a call was answered ${response.status}: ${text.slice(0, 300)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

function ticks(pid: number): number {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

export default async function run(): Promise<void> {
  const provider = await startProvider();
  const folder = mkdtempSync(join(tmpdir(), 'toolpact-bench-auth-'));
  const servers: Server[] = [];
  try {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const authFile = join(folder, 'auth.json');
    writeFileSync(
      authFile,
      JSON.stringify({ resource, issuers: [provider.issuer], scopes: { required: ['tools:read'] } }),
    );
    const token = await provider.clientCredentialsToken(resource, 'tools:read');
    servers.push(await start('no auth', await freePort(), []));
    servers.push(await start('--auth (JWT, cached)', port, ['--auth', authFile], `Bearer ${token}`));
    for (const server of servers) await calls(server, WARMUP);
    const used = new Map(servers.map((server) => [server, 0]));
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? servers : [...servers].reverse();
      const thisRound = new Map<Server, number>();
      for (const server of order) {
        const before = ticks(server.child.pid!);
        await calls(server, CALLS);
        const spent = ticks(server.child.pid!) - before;
        thisRound.set(server, spent);
        used.set(server, used.get(server)! + spent);
      }
      ratios.push(thisRound.get(servers[1]!)! / Math.max(1, thisRound.get(servers[0]!)!));
    }
    process.stdout.write(
      `server CPU per call, ${ROUNDS} rounds of ${CALLS} tools/call (2026-07-28, ${CONCURRENCY} at a time) per server, after ${WARMUP} untimed\n\n`,
    );
    const baseline = used.get(servers[0]!)!;
    printRows(
      ['server', 'CPU ms/call', 'vs no auth'],
      servers.map((server) => [
        server.name,
        ((used.get(server)! * 10) / (ROUNDS * CALLS)).toFixed(3),
        `${(used.get(server)! / baseline).toFixed(3)}x`,
      ]),
      { numbers: true },
    );
    const spread = spreadOf(ratios);
    process.stdout.write(
      `\nratio per round: median ${spread.median.toFixed(3)}x (min ${spread.min.toFixed(3)}, max ${spread.max.toFixed(3)}); goal within 1.1x\n`,
    );
  } finally {
    for (const server of servers) server.child.kill('SIGTERM');
    await provider.close();
    rmSync(folder, { recursive: true, force: true });
  }
}
