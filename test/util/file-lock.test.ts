import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { withFileLock } from '../../src/util/file-lock.js';

// The lock the token file is changed under: held only while the change runs, taken over from a
// process that died holding it, and given up on (without running) while another process holds it.

let folder: string;

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'toolpact-file-lock-'));
});

afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

test('the lock is held while the action runs and let go after, even when the action throws', async () => {
  const file = join(folder, 'held.json');
  const outcome = await withFileLock(file, () => existsSync(`${file}.lock`));
  expect(outcome).toEqual({ done: true, value: true });
  expect(existsSync(`${file}.lock`)).toBe(false);
  await expect(
    withFileLock(file, () => {
      throw new Error('the change failed');
    }),
  ).rejects.toThrow('the change failed');
  expect(existsSync(`${file}.lock`)).toBe(false);
});

test('a lock left by a process that died holding it is taken over', async () => {
  const file = join(folder, 'stale.json');
  mkdirSync(`${file}.lock`);
  const longAgo = new Date(Date.now() - 60_000);
  utimesSync(`${file}.lock`, longAgo, longAgo);
  expect(await withFileLock(file, () => 'ran')).toEqual({ done: true, value: 'ran' });
  expect(existsSync(`${file}.lock`)).toBe(false);
});

test('a lock another process holds is waited for, then given up on without running the action', async () => {
  const file = join(folder, 'busy.json');
  mkdirSync(`${file}.lock`);
  let ran = false;
  const outcome = await withFileLock(
    file,
    () => {
      ran = true;
    },
    { waitMs: 50, staleMs: 60_000 },
  );
  expect(outcome).toEqual({ done: false, lock: `${file}.lock` });
  expect(ran).toBe(false);
  expect(existsSync(`${file}.lock`)).toBe(true);
});
