import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { exposedFileFindings } from '../../src/gateway/check-notes.js';
import { checkFindings, checkGateway } from '../../src/gateway/check-report.js';
import { exposedGatewayFiles, gatewayFiles, readGatewayConfig } from '../../src/gateway/config/index.js';
import { type Gateway, startGateway } from '../../src/gateway/gateway.js';
import { seenTools } from '../../src/gateway/init-plan.js';
import { createTool, Registry } from '../../src/index.js';
import { type RunningHttpServer, serveHttp } from '../../src/mcp/index.js';
import { tokenReport } from '../../src/schema/index.js';

// What `gateway check` computes about a config, and what `gateway init` reads off a started gateway,
// over a real gateway in front of an MCP server served in this process over HTTP.

const GOOD =
  'Read the full text of one UTF-8 note in the notebook. Use it to look at a note whose title you know. Do not use it for images.';

function upstreamTools() {
  return [
    createTool(
      {
        name: 'read_note',
        description: GOOD,
        category: 'read',
        parameters: {
          type: 'object',
          properties: { title: { type: 'string', description: 'The title of the note, e.g. "Groceries".' } },
          required: ['title'],
        },
      },
      { execute: () => 'text' },
    ),
    createTool(
      {
        name: 'tag_note',
        description: GOOD.replace('Read the full text of', 'Tag'),
        category: 'write',
        parameters: {
          type: 'object',
          // Gemini refuses a property name with a space: a lint error.
          properties: { 'tag name': { type: 'string', description: 'The tag, e.g. "urgent".' } },
        },
      },
      { execute: () => 'tagged' },
    ),
  ];
}

/** A loopback port that nothing listens on: taken, then given back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let dir: string;
let upstream: RunningHttpServer | undefined;
let gateway: Gateway | undefined;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolpact-check-report-')));
});
afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
  gateway = undefined;
  upstream = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function startOnce(policyRules: unknown[]) {
  upstream = await serveHttp(new Registry().register(upstreamTools()));
  const file = join(dir, 'mcp.json');
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        notes: { type: 'http', url: upstream.url },
        gone: { type: 'http', url: `http://127.0.0.1:${await closedPort()}/mcp` },
      },
      toolpact: { policy: { rules: policyRules } },
    }),
  );
  const config = readGatewayConfig(file);
  gateway = await startGateway({
    config,
    pinning: 'first-start',
    watch: false,
    restart: { maxFailures: 1 },
    log: () => {},
  });
  return { config, gateway };
}

describe('checkGateway', () => {
  test('each server with its tokens and lint summary, the policy notes, the totals, and the findings counted', async () => {
    const { config, gateway } = await startOnce([
      { id: 'notes-read', action: 'allow', source: 'mcp:notes', category: 'read' },
      { id: 'notes-read-again', action: 'deny', source: 'mcp:notes', category: 'read' },
    ]);
    const exposed = exposedFileFindings(exposedGatewayFiles(config, gatewayFiles(config, {})));
    expect(exposed).toEqual([]);
    const check = checkGateway(gateway, config, exposed);
    expect(check.config).toBe(config.file);
    expect(check.servers.map((server) => [server.name, server.state, server.transport])).toEqual([
      ['notes', 'up', 'http'],
      ['gone', expect.not.stringMatching(/^up$/), 'http'],
    ]);
    const [notes, gone] = check.servers;
    expect([...notes!.served].sort()).toEqual(['read_note', 'tag_note']);
    const contracts = notes!.served.map((name) => gateway.registry.get(name)!.contract);
    expect(notes!.tokens).toEqual({
      openai: tokenReport(contracts, 'openai').total,
      anthropic: tokenReport(contracts, 'anthropic').total,
    });
    expect(notes!.lint.errors).toBeGreaterThan(0);
    expect(notes!.lint.rules['provider-compatibility']).toBe(notes!.lint.errors);
    expect(Object.values(notes!.lint.rules)).toEqual(
      [...Object.values(notes!.lint.rules)].sort((a, b) => b - a),
    );
    expect(notes!.notes?.hiddenInstructions).toEqual([]);
    expect(gone!.served).toEqual([]);
    expect(gone!.tokens).toEqual({ openai: 0, anthropic: 0 });
    expect(gone!.lint).toEqual({ errors: 0, warnings: 0, rules: {} });
    // The second rule matches only what the first decides already.
    expect(check.policy).toHaveLength(1);
    expect(check.policy[0]).toContain('notes-read-again');
    expect(check.totals).toEqual({
      tools: 2,
      openai: notes!.tokens.openai,
      anthropic: notes!.tokens.anthropic,
    });
    expect(check.skipped).toEqual(config.skipped);
    // The server that is down, the dead rule, and each lint error.
    expect(checkFindings(check)).toBe(1 + 1 + notes!.lint.errors);
    // A server that could reach the lock is one more.
    const lock = exposedFileFindings([
      {
        server: 'notes',
        folder: dir,
        via: 'roots',
        file: { role: 'lock', path: join(dir, 'mcp.lock.json') },
      },
    ]);
    expect(checkFindings(checkGateway(gateway, config, lock))).toBe(1 + 1 + notes!.lint.errors + 1);
  });

  test("init's view of the same gateway: each served tool with its server and its read-only hint", async () => {
    const { gateway } = await startOnce([]);
    expect(seenTools(gateway.registry).sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { server: 'notes', name: 'read_note', readOnlyHint: true },
      { server: 'notes', name: 'tag_note', readOnlyHint: false },
    ]);
  });
});
