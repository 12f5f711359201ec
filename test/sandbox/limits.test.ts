import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { createBubblewrapSandbox, DEFAULT_SANDBOX_LIMITS, resolveLimits } from '../../src/sandbox/index.js';

test('limits that cannot work are refused at construction, naming the limit', () => {
  expect(resolveLimits({ wallClockMs: 2_000 })).toEqual({ ...DEFAULT_SANDBOX_LIMITS, wallClockMs: 2_000 });
  expect(() => resolveLimits({ cpuSeconds: 0 })).toThrow(/cpuSeconds must be a positive integer, received 0/);
  expect(() => resolveLimits({ maxOutputBytes: 1.5 })).toThrow(/maxOutputBytes/);
  expect(() => resolveLimits({ maxProcesses: 50 })).toThrow(/maxProcesses must be at least 300/);
});

test('a workspace that is not a folder is refused at construction', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolpact-limits-'));
  try {
    expect(() => createBubblewrapSandbox({ workspace: join(dir, 'missing') })).toThrow(
      /is not an existing folder/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
