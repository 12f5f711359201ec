import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import registry, { createWorkspaceTools } from '../../examples/workspace/index.js';
import { lint } from '../../src/lint/index.js';

describe('the example workspace tools under recommended', () => {
  it('read_file, list_dir, grep and write_file lint clean', () => {
    const root = mkdtempSync(join(tmpdir(), 'toolpact-lint-workspace-'));
    try {
      expect(lint(createWorkspaceTools(root)).findings).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('the whole example registry has no error-level findings', () => {
    expect(lint(registry).errorCount).toBe(0);
  });
});
