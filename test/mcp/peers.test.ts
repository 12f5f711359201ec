import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Registry } from '../../src/index.js';
import { lint } from '../../src/lint/index.js';
import { importMcpTools, type McpImport } from '../../src/mcp/index.js';
import { createPolicyGate, definePolicy } from '../../src/policy/index.js';
import { EVERYTHING, FILESYSTEM, type Recording, ROOT, recordingTransport } from './support/wire.js';
import { invalidClientMessagesByEra } from './support/wire-eras.js';

function peer(args: string[]) {
  return recordingTransport(
    new StdioClientTransport({ command: process.execPath, args, cwd: ROOT, stderr: 'pipe' }),
  );
}

const calls = (recording: Recording, name: string) =>
  recording.sent.filter(
    (message) => 'method' in message && message.method === 'tools/call' && message.params?.name === name,
  ).length;

let root: string;
let registry: Registry;
let fs: McpImport;
let everything: McpImport;
let fsWire: Recording;
let everythingWire: Recording;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'toolpact-peer-fs-'));
  writeFileSync(join(root, 'notes.md'), '# Notes\nfirst line\n');
  // The local policy decides by source: reads from imported servers are allowed, their writes denied,
  // and anything else from them (a tool with no rule) falls to the policy's stricter imported default.
  // The categories the gate uses are given here, at import: what a server claims (its readOnlyHint)
  // decides nothing.
  const gate = createPolicyGate(
    definePolicy({
      rules: [
        { id: 'mcp-reads', action: 'allow', source: 'mcp:*', category: ['read', 'search'] },
        { id: 'no-mcp-writes', action: 'deny', source: 'mcp:*', category: 'write' },
      ],
    }),
  );
  registry = new Registry({ ...gate.registryOptions });
  const fsPeer = peer([FILESYSTEM, root]);
  fsWire = fsPeer.recording;
  fs = await importMcpTools(
    registry,
    { transport: fsPeer.transport },
    { name: 'fs', categories: { read_text_file: 'read', write_file: 'write' } },
  );
  const everythingPeer = peer([EVERYTHING, 'stdio']);
  everythingWire = everythingPeer.recording;
  everything = await importMcpTools(
    registry,
    { transport: everythingPeer.transport },
    {
      name: 'everything',
      categories: { 'get-sum': 'read', 'get-structured-content': 'read', 'get-tiny-image': 'read' },
    },
  );
});

afterAll(async () => {
  await fs?.close();
  await everything?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('@modelcontextprotocol/server-filesystem on a temp dir', () => {
  test('its tools are imported with source mcp:fs and display categories from the annotations', () => {
    const byName = new Map(fs.tools().map((tool) => [tool.name, tool]));
    expect(byName.get('read_text_file')?.category).toBe('read');
    expect(byName.get('search_files')?.category).toBe('search');
    expect(byName.get('write_file')?.category).toBe('write');
    expect(registry.get('write_file')?.meta.source).toBe('mcp:fs');
    expect(fs.skipped()).toEqual([]);
  });

  test('a read goes through', async () => {
    const envelope = await registry.call('read_text_file', { path: join(root, 'notes.md') });
    expect(envelope.ok).toBe(true);
    expect(JSON.stringify(envelope)).toContain('first line');
  });

  test('a denied write never reaches the server: the file does not exist afterwards', async () => {
    const target = join(root, 'written.txt');
    const envelope = await registry.call('write_file', { path: target, content: 'should not exist' });
    expect(envelope).toMatchObject({
      ok: false,
      error: { type: 'permission_denied', rule: 'no-mcp-writes' },
    });
    expect(calls(fsWire, 'write_file')).toBe(0);
    expect(existsSync(target)).toBe(false);
  });

  test('arguments that fail its schema are refused locally and not sent', async () => {
    const envelope = await registry.call('read_text_file', { path: 42 });
    expect(envelope).toMatchObject({ ok: false, error: { type: 'invalid_arguments' } });
    expect(calls(fsWire, 'read_text_file')).toBe(1);
  });

  test('its own refusal (a path outside the allowed directory) is an error envelope without host paths', async () => {
    const envelope = await registry.call('read_text_file', { path: join(tmpdir(), '..', 'etc', 'passwd') });
    expect(envelope.ok).toBe(false);
    if (envelope.ok) return;
    expect(envelope.error.type).toBe('mcp_tool_error');
    expect(envelope.error.message).not.toContain(root);
  });
});

describe('@modelcontextprotocol/server-everything', () => {
  test('plain text, structured content and image results come back as envelopes', async () => {
    expect(await registry.call('get-sum', { a: 2, b: 3 })).toEqual({
      ok: true,
      result: 'The sum of 2 and 3 is 5.',
    });
    const weather = await registry.call('get-structured-content', { location: 'New York' });
    expect(weather).toMatchObject({ ok: true, result: { temperature: expect.any(Number) } });
    const image = await registry.call('get-tiny-image', {});
    expect(image.ok).toBe(true);
    expect(JSON.stringify(image)).toContain('"type":"image"');
  });

  test('its write tools are refused by the local policy and never sent', async () => {
    const envelope = await registry.call('toggle-simulated-logging', {});
    expect(envelope).toMatchObject({ ok: false, error: { type: 'permission_denied' } });
    expect(calls(everythingWire, 'toggle-simulated-logging')).toBe(0);
  });
});

test("the peers' contracts are linted like our own: warnings only, and none says when to use which tool", () => {
  const report = lint(registry);
  const imported = [...fs.tools(), ...everything.tools()].map((tool) => tool.name);
  expect(report.errorCount).toBe(0);
  expect(
    report.findings.every((finding) => finding.tool === undefined || imported.includes(finding.tool)),
  ).toBe(true);
  const usage = new Set(
    report.findings.filter((finding) => finding.rule === 'description-usage').map((f) => f.tool),
  );
  expect(usage).toEqual(new Set(imported));
});

test('both peers speak only the legacy era: the probe fell back to initialize', () => {
  expect([fs.era, everything.era]).toEqual(['legacy', 'legacy']);
  expect(fs.prior).toEqual({ kind: 'legacy' });
  for (const wire of [fsWire, everythingWire]) {
    const methods = wire.sent.flatMap((message) => ('method' in message ? [message.method] : []));
    expect(methods.slice(0, 2)).toEqual(['server/discover', 'initialize']);
  }
});

test('every message we sent to either peer validates against the MCP schema of its revision', () => {
  expect(fsWire.sent.length).toBeGreaterThan(3);
  expect(everythingWire.sent.length).toBeGreaterThan(3);
  // The era probe against 2026-07-28, everything after the fallback against 2025-11-25.
  expect(invalidClientMessagesByEra(fsWire)).toEqual([]);
  expect(invalidClientMessagesByEra(everythingWire)).toEqual([]);
});
