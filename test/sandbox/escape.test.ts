import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createRunCommand } from '../../examples/workspace/run-command.js';
import { createWorkspaceTools } from '../../examples/workspace/tools.js';
import { Registry } from '../../src/index.js';
import { createPolicyGate, definePolicy } from '../../src/policy/index.js';
import { type BubblewrapSandbox, createBubblewrapSandbox } from '../../src/sandbox/index.js';
import { bubblewrap } from '../support/bubblewrap.js';
import { processesWith } from './support.js';

// Every test here runs real commands in a real bubblewrap sandbox; each is bounded by the sandbox's
// own wall clock (2 s), so a failure to confine shows up as an assertion, never as a hung suite.
let root: string;
let workspace: string;
let outside: string;
let sandbox: BubblewrapSandbox;

beforeAll(async () => {
  if (!bubblewrap.ok) return;
  root = realpathSync(mkdtempSync(join(tmpdir(), 'toolpact-sandbox-')));
  workspace = join(root, 'ws');
  outside = join(root, 'outside');
  for (const dir of [workspace, outside]) rmSync(dir, { recursive: true, force: true });
  await import('node:fs/promises').then(async (fs) => {
    await fs.mkdir(workspace);
    await fs.mkdir(outside);
  });
  writeFileSync(join(outside, 'secret.txt'), 'the-host-secret');
  writeFileSync(join(workspace, 'inside.txt'), 'hello from the workspace');
  sandbox = createBubblewrapSandbox({ workspace, limits: { wallClockMs: 2_000, maxOutputBytes: 64 * 1024 } });
});
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

async function run(command: string) {
  const result = await sandbox.run(command);
  if (result.kind !== 'finished') throw new Error(`sandbox unavailable: ${result.reason}`);
  return result;
}

describe.runIf(bubblewrap.ok)('the workspace', () => {
  test('is the current folder, readable and writable', async () => {
    const result = await run('pwd; cat inside.txt; echo made > new.txt');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('/workspace\nhello from the workspace');
    expect(readFileSync(join(workspace, 'new.txt'), 'utf8')).toBe('made\n');
  });
});

describe.runIf(bubblewrap.ok)('escapes that must fail', () => {
  test('writing outside the workspace', async () => {
    const target = join(outside, 'pwned.txt');
    const result = await run(
      `echo x > ${target}; echo x > ../escape.txt; echo x > /usr/pwned; echo x > /pwned; echo x > /tmp/t && echo tmp-ok`,
    );
    expect(existsSync(target)).toBe(false);
    expect(existsSync(join(root, 'escape.txt'))).toBe(false);
    expect(existsSync('/usr/pwned')).toBe(false);
    expect(existsSync('/pwned')).toBe(false);
    expect(result.stderr).toMatch(/Read-only file system|No such file or directory/);
    // The private /tmp is writable and vanishes with the sandbox.
    expect(result.stdout).toContain('tmp-ok');
  });

  test('reading a file outside the workspace', async () => {
    const result = await run(
      `cat ${join(outside, 'secret.txt')}; cat ../outside/secret.txt; cat /etc/shadow; ls /home /root`,
    );
    expect(result.stdout).not.toContain('the-host-secret');
    expect(result.stdout + result.stderr).not.toMatch(/root:/);
    expect(result.exitCode).not.toBe(0);
  });

  test('the host path of the workspace is not on the command line inside', async () => {
    const result = await run('cat /proc/1/cmdline | tr "\\0" " "; env');
    expect(result.stdout).not.toContain(workspace);
    expect(result.stdout).toContain('PATH=');
    expect(result.stdout).not.toMatch(/HOME=\/root|TOOLPACT|VITEST/);
  });

  test('opening a network connection', async () => {
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const result = await run(
        `bash -c 'echo hi > /dev/tcp/127.0.0.1/${port}' && echo connected-local; bash -c 'echo hi > /dev/tcp/1.1.1.1/53' && echo connected-remote; ls /sys/class/net 2>/dev/null; cat /proc/net/dev | tail -n +3 | cut -d: -f1`,
      );
      expect(result.stdout).not.toContain('connected');
      expect(result.stderr).toMatch(/Connection refused|Network is unreachable/);
      expect(result.stdout.trim().split(/\s+/)).toEqual(['lo']);
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  test('a fork bomb stays under the process limit and leaves nothing behind', async () => {
    const marker = `bomb_${randomUUID().replaceAll('-', '')}`;
    let most = 0;
    const sampler = setInterval(() => {
      most = Math.max(most, processesWith(marker));
    }, 20);
    const result = await run(`${marker}() { ${marker} | ${marker} & }; ${marker}; sleep 5`);
    clearInterval(sampler);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(sandbox.limits.maxProcesses);
    expect(result.stopped === 'wall_clock' || /Cannot fork|fork/.test(result.stderr)).toBe(true);
    expect(processesWith(marker)).toBe(0);
  });

  test('a command that never ends is stopped at the wall clock, with every process it started', async () => {
    const marker = `never_${randomUUID().slice(0, 8)}`;
    const result = await run(`sh -c 'while :; do :; done' ${marker} & sleep 1000 # ${marker}`);
    expect(result.stopped).toBe('wall_clock');
    expect(result.exitCode).toBeNull();
    expect(processesWith(marker)).toBe(0);
  });

  test('a gigabyte of output is cut at the output limit and the command stopped', async () => {
    const result = await run("head -c 1073741824 /dev/zero | tr '\\0' x");
    expect(result.stopped).toBe('output_limit');
    expect(result.truncated).toBe(true);
    expect(result.stdout.length).toBe(sandbox.limits.maxOutputBytes);
  });

  test('memory past the address-space limit cannot be had', async () => {
    const result = await run('python3 -c "x = bytearray(2 * 1024 ** 3)"; echo status=$?');
    expect(result.stdout).toContain('status=1');
    expect(result.stderr).toContain('MemoryError');
  });

  test('no capabilities are left, and a nested user namespace gains none', async () => {
    const result = await run(
      [
        'grep -E "^Cap(Eff|Prm|Bnd|Amb)" /proc/self/status',
        'unshare -Upmf --mount-proc true && echo made-proc',
        'unshare -Um sh -c "mount -o remount,rw /proc/sys && echo remounted"',
        'echo 99999 > /proc/sys/kernel/pid_max && echo raised',
      ].join('; '),
    );
    for (const set of ['CapEff', 'CapPrm', 'CapBnd', 'CapAmb']) {
      expect(result.stdout).toMatch(new RegExp(`${set}:\\s+0{16}`));
    }
    expect(result.stdout).not.toContain('made-proc');
    expect(result.stdout).not.toContain('remounted');
    expect(result.stdout).not.toContain('raised');
  });

  test('kernel parameters cannot be written', async () => {
    // Writes the current value back, so a failure of the protection changes nothing on the host.
    const result = await run(
      'v=$(cat /proc/sys/vm/overcommit_ratio); echo "$v" > /proc/sys/vm/overcommit_ratio && echo wrote-sysctl; echo 1 > /proc/sysrq-trigger && echo wrote-sysrq',
    );
    expect(result.stdout).not.toContain('wrote-sysctl');
    expect(result.stdout).not.toContain('wrote-sysrq');
    expect(result.stderr).toMatch(/Read-only file system|Permission denied/);
  });

  test('a symbolic link the command leaves in the workspace does not lead the host tools out', async () => {
    await run(`ln -s ${join(outside, 'secret.txt')} leak.txt; ln -s / root-link`);
    const registry = new Registry().register(createWorkspaceTools(workspace));
    for (const path of ['leak.txt', 'root-link/etc/hostname']) {
      const envelope = await registry.call('read_file', { path });
      expect(envelope).toMatchObject({ ok: false, error: { type: 'path_outside_workspace' } });
      expect(JSON.stringify(envelope)).not.toContain('the-host-secret');
    }
  });
});

describe.runIf(bubblewrap.ok)('run_command under a gated registry', () => {
  test('through a gated registry, run_command runs confined and a timeout reaches the model as command_timeout', async () => {
    const gate = createPolicyGate(
      definePolicy({ rules: [{ id: 'shell', action: 'allow', tool: 'run_command' }] }),
    );
    const registry = new Registry({ ...gate.registryOptions }).register(
      createRunCommand(workspace, { wallClockMs: 1_500 }),
    );
    expect(await registry.call('run_command', { command: 'echo $((6 * 7))' })).toMatchObject({
      ok: true,
      result: { exit_code: 0, stdout: '42\n', output_truncated: false },
    });
    expect(await registry.call('run_command', { command: 'exit 3' })).toMatchObject({
      ok: true,
      result: { exit_code: 3 },
    });
    const slow = await registry.call('run_command', { command: 'sleep 100' });
    expect(slow).toMatchObject({ ok: false, error: { type: 'command_timeout' } });
    expect(JSON.stringify(slow)).not.toContain(root);
  });
});
