import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as z from 'zod';
import { defineTool, Registry } from '../../src/index.js';
import {
  importMcpTools,
  type RegistryServer,
  type RunningHttpServer,
  serveHttp,
  serveRegistry,
} from '../../src/mcp/index.js';
import { definePolicy, openAuditLog } from '../../src/policy/index.js';
import { CONFIDENTIAL_CLIENT, freePort, startProvider, type TestProvider } from '../support/oidc-provider.js';
import { call } from './support.js';

// Tokens stop here: a caller's access token authenticates it to toolpact and goes no further. The
// upstream MCP server of an imported tool sits behind a recorder that keeps the headers of every
// request it gets; the audit log names the authenticated caller.

let provider: TestProvider;
let upstream: RunningHttpServer;
let recorder: Server;
let front: RegistryServer;
let folder: string;
const seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  provider = await startProvider();
  upstream = await serveHttp(
    new Registry().register([
      defineTool({
        name: 'shout',
        description: 'Return the text in capitals. No effects.',
        category: 'read',
        input: z.object({ text: z.string() }),
        execute: ({ text }) => text.toUpperCase(),
      }),
    ]),
  );
  // Records each request's headers, then passes it on to the upstream as it came.
  recorder = createServer(async (request, response) => {
    seen.push({ ...request.headers });
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(
        ([name]) => !['host', 'connection', 'content-length'].includes(name),
      ),
    ) as Record<string, string>;
    const answer = await fetch(upstream.url, {
      method: request.method ?? 'GET',
      headers,
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    if (answer.body) Readable.fromWeb(answer.body as never).pipe(response);
    else response.end();
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  const recorderUrl = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}/mcp`;
  folder = mkdtempSync(join(tmpdir(), 'toolpact-tokens-'));
  const port = await freePort();
  front = await serveRegistry(
    async (options) => {
      const registry = new Registry(options);
      await importMcpTools(registry, { url: recorderUrl }, { name: 'upstream' });
      return { registry };
    },
    {
      policy: definePolicy({ importedDefault: 'allow', rules: [] }),
      audit: openAuditLog(join(folder, 'audit.jsonl')),
      http: { port },
      auth: { resource: `http://127.0.0.1:${port}/mcp`, issuers: [provider.issuer] },
    },
  );
});

afterAll(async () => {
  await front?.close();
  await new Promise<void>((resolve) => (recorder ? recorder.close(() => resolve()) : resolve()));
  await upstream?.close();
  await provider?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

test('the imported tool runs for an authenticated caller; the upstream never sees the token; the audit names the caller', async () => {
  const token = await provider.clientCredentialsToken(front.url!, 'tools:read');
  const before = seen.length;
  const answer = await call(front.url!, 'shout', `Bearer ${token}`, { text: 'quiet' });
  expect(answer.status, answer.body).toBe(200);
  expect(answer.body).toContain('QUIET');
  // The call reached the upstream through the recorder, and nothing it got carries the token.
  expect(seen.length).toBeGreaterThan(before);
  for (const headers of seen) {
    expect(headers.authorization).toBeUndefined();
    expect(JSON.stringify(headers)).not.toContain(token);
    expect(JSON.stringify(headers)).not.toContain(token.split('.')[2]!);
  }
  const entries = readFileSync(join(folder, 'audit.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { tool: string; principal: string | null });
  const entry = entries.find((each) => each.tool === 'shout');
  expect(entry?.principal).toBe(`auth:${CONFIDENTIAL_CLIENT.id}@${provider.issuer}`);
});
