import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { readHostText } from '../../src/gateway/config/index.js';
import { resolveHostConfig, starterPolicy } from '../../src/gateway/init-config.js';
import { planInit } from '../../src/gateway/init-plan.js';

// What `gateway init` writes, planned from a host's file before anything is written.

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolpact-init-plan-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function plan(file: string, host: object, out: string) {
  writeFileSync(file, JSON.stringify(host));
  const raw = readHostText(file) as { [key: string]: unknown };
  return planInit(raw, resolveHostConfig(file, raw, { HOME: dir }, dir), out, dir);
}

describe('planInit', () => {
  test('copies the entries, leaves out one that starts this gateway, keeps its section to what it copied', () => {
    mkdirSync(join(dir, 'claude'));
    const out = join(dir, 'config', 'gateway.json');
    const planned = plan(
      join(dir, 'claude', 'claude_desktop_config.json'),
      {
        mcpServers: {
          notes: { command: 'node', args: ['notes-server.js'] },
          self: { command: 'toolpact', args: ['gateway', '--config', out] },
        },
        toolpact: { lock: 'pinned.json', servers: { notes: { prefix: 'always' }, self: { enabled: true } } },
      },
      out,
    );
    expect(planned.key).toBe('mcpServers');
    expect(planned.loops).toEqual(['self']);
    expect(planned.entries).toEqual({ notes: { command: 'node', args: ['notes-server.js'] } });
    expect(planned.lock).toBe(join(dir, 'config', 'pinned.json'));
    expect(planned.keepsPolicy).toBe(false);
    expect(planned.exposed).toBeUndefined();
    const policy = starterPolicy([{ server: 'notes', name: 'read_note', readOnlyHint: true }]);
    expect(JSON.parse(planned.text(policy))).toEqual({
      mcpServers: { notes: { command: 'node', args: ['notes-server.js'] } },
      toolpact: {
        host: 'claude-desktop',
        policy,
        lock: 'pinned.json',
        servers: { notes: { prefix: 'always' } },
      },
    });
  });

  test('a VS Code file keeps its inputs and its workspace is exposed: the config, then the lock, inside it is said', () => {
    const workspace = join(dir, 'app');
    mkdirSync(join(workspace, '.vscode'), { recursive: true });
    const file = join(workspace, '.vscode', 'mcp.json');
    const host = {
      servers: {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code's own variable, as written in its file
        notes: { type: 'stdio', command: 'node', args: ['${workspaceFolder}/notes-server.js'] },
      },
      inputs: [{ id: 'token', type: 'promptString', description: 'A token' }],
      toolpact: { policy: { rules: [] } },
    };
    const inside = plan(file, host, join(workspace, 'gateway.json'));
    expect(inside.exposed).toEqual({
      role: 'config',
      file: join(workspace, 'gateway.json'),
      holder: { folder: workspace, why: 'the workspace folder' },
    });
    const lock = join(workspace, 'gateway.lock.json');
    const outside = plan(file, { ...host, toolpact: { ...host.toolpact, lock } }, join(dir, 'gateway.json'));
    expect(outside.exposed).toEqual({
      role: 'lock',
      file: lock,
      holder: { folder: workspace, why: 'the workspace folder' },
    });
    expect(outside.key).toBe('servers');
    expect(outside.keepsPolicy).toBe(true);
    // The workspace variable is replaced by the folder it meant there.
    expect(outside.entries).toEqual({
      notes: { type: 'stdio', command: 'node', args: [`${workspace}/notes-server.js`] },
    });
    const written = JSON.parse(outside.text(starterPolicy([]))) as {
      inputs: unknown;
      toolpact: { host: string };
    };
    expect(written.inputs).toEqual(host.inputs);
    expect(written.toolpact.host).toBe('vscode');
  });
});
