// Names are owned: two real notes servers over stdio, where the one earlier in the config gains a tool
// called like the other's while running (notifications/tools/list_changed). Before names were owned,
// the gateway named tools in config order at every re-listing, so the earlier server took the bare
// name and calls to it (and approvals given for it) went to the newcomer.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../src/dispatch/call.js';
import { runCli } from '../support/cli.js';
import { until, workspace } from './support.js';

const NOTES_SERVER = resolve('test/fixtures/gateway/notes-server.mjs');
const TIMEOUT = 60_000;

const notes = (name: string, reads: boolean) => ({
  command: process.execPath,
  args: [NOTES_SERVER],
  env: { NOTES_NAME: name, ...(reads ? { NOTES_READ: '1' } : {}) },
});

describe('gateway: names are owned', () => {
  const ws = workspace();

  it(
    'a tool an earlier server gains by list_changed is served prefixed; calls to the name still reach its owner',
    async () => {
      // alpha comes first in the config; beta lists read_note from the start.
      ws.write('config.json', { mcpServers: { alpha: notes('alpha', false), beta: notes('beta', true) } });
      const records: CallRecord[] = [];
      const gateway = await ws.start({ audit: (record) => records.push(record) });
      expect(await gateway.registry.call('read_note', { title: 'todo' })).toMatchObject({
        ok: true,
        result: { from: 'beta' },
      });
      const before = gateway.registry.size;
      expect(await gateway.registry.call('gain_read_note', {})).toMatchObject({
        ok: true,
        result: { from: 'alpha' },
      });
      await until(() => gateway.registry.size === before + 1, 'alpha’s read_note is served');
      expect(await gateway.registry.call('read_note', { title: 'todo' })).toMatchObject({
        ok: true,
        result: { from: 'beta', text: 'beta read todo' },
      });
      expect(gateway.registry.has('alpha_read_note')).toBe(true);
      expect(await gateway.registry.call('alpha_read_note', { title: 'todo' })).toMatchObject({
        ok: true,
        result: { from: 'alpha' },
      });
      const collision = records.find(
        (record) => record.outcome === 'tool_name_collision' && record.tool === 'alpha_read_note',
      );
      expect(collision?.arguments).toEqual({
        server: 'alpha',
        remoteName: 'read_note',
        wanted: 'read_note',
        owner: { server: 'beta', remoteName: 'read_note' },
      });
      expect(ws.logs.join('\n')).toContain('alpha: its tool "read_note" is served as "alpha_read_note"');
      const lockFile = ws.path('config.lock.json');
      const owner = (server: string) =>
        JSON.parse(readFileSync(lockFile, 'utf8')).servers[server]?.tools.read_note?.name;
      expect(owner('beta')).toBe('read_note');
      await until(
        () => owner('alpha') === 'alpha_read_note',
        'the lock records the name alpha’s read_note is served under',
      );
    },
    TIMEOUT,
  );

  it(
    'the same config and lock give the same list, byte for byte, at every start; gateway check reports a collision',
    async () => {
      ws.write('config.json', { mcpServers: { alpha: notes('alpha', true), beta: notes('beta', true) } });
      // With no lock, gateway check (which only reads it) names in config order and reports the collision.
      const checked = await runCli(['gateway', 'check', '--config', 'config.json'], { cwd: ws.dir });
      expect(checked.stdout).toContain(
        '"read_note" is served as "beta_read_note": the name "read_note" belongs to "read_note" of alpha',
      );
      expect(checked.stdout).toMatch(/beta\s+up.*3 prefixed/);

      const first = await ws.start();
      const listed = JSON.stringify(first.listing.schemas());
      expect(first.listing.schemas().map((tool) => tool.name)).toEqual([
        'gain_read_note',
        'list_notes',
        'read_note',
        'beta_gain_read_note',
        'beta_list_notes',
        'beta_read_note',
      ]);
      await first.close();
      // The config order swapped: beta is now first, and still owns nothing of alpha's.
      ws.write('config.json', { mcpServers: { beta: notes('beta', true), alpha: notes('alpha', true) } });
      const second = await ws.start();
      expect(JSON.stringify(second.listing.schemas())).toBe(listed);
      expect(await second.registry.call('read_note', { title: 'x' })).toMatchObject({
        result: { from: 'alpha' },
      });
      await second.close();
      const third = await ws.start();
      expect(JSON.stringify(third.listing.schemas())).toBe(listed);
    },
    TIMEOUT,
  );
});
