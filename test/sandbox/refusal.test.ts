import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createRunCommand } from '../../examples/workspace/run-command.js';
import { Registry } from '../../src/index.js';
import { createPolicyGate, definePolicy } from '../../src/policy/index.js';
import { createBubblewrapSandbox } from '../../src/sandbox/index.js';

// These tests need no bubblewrap: they point the sandbox at a missing or a failing bwrap, and check
// that a command is refused rather than run outside it. They run on every machine.
let root: string;
let workspace: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'toolpact-refusal-')));
  workspace = join(root, 'ws');
  mkdirSync(workspace);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('run_command never runs unsandboxed', () => {
  test('a missing bwrap refuses the call at the gate and in the tool', async () => {
    const tool = createRunCommand(workspace, {});
    const broken = {
      ...tool,
      meta: { sandbox: createBubblewrapSandbox({ workspace, bwrap: join(root, 'no-bwrap') }) },
    };
    const gate = createPolicyGate(
      definePolicy({ rules: [{ id: 'shell', action: 'allow', tool: 'run_command' }] }),
    );
    const gated = await new Registry({ ...gate.registryOptions }).register(broken).call('run_command', {
      command: 'echo ran > ran.txt',
    });
    expect(gated).toMatchObject({
      ok: false,
      error: { type: 'permission_denied', rule: 'sandbox-unavailable' },
    });
    expect(!gated.ok && gated.error.message).toMatch(/never runs outside it/);
    expect(existsSync(join(workspace, 'ran.txt'))).toBe(false);
  });

  test('a bwrap that fails to set up gives sandbox_unavailable, never a run outside', async () => {
    const fake = join(root, 'failing-bwrap');
    writeFileSync(fake, '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n', {
      mode: 0o755,
    });
    const failing = createBubblewrapSandbox({ workspace, bwrap: fake });
    expect(await failing.check()).toEqual({
      ok: false,
      reason: 'bubblewrap failed to set up the sandbox: bwrap: setting up uid map: Permission denied',
    });
    const result = await failing.run('echo ran > ran.txt');
    expect(result.kind).toBe('unavailable');
    expect(existsSync(join(workspace, 'ran.txt'))).toBe(false);
  });
});
