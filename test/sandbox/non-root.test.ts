import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect, test } from 'vitest';
import { bubblewrap } from '../support/bubblewrap.js';
import { processesWith } from './support.js';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const NOBODY = 65534;

// As root the sandbox bounds processes with its PID namespace's pid_max (escape.test.ts covers it);
// as any other user it uses RLIMIT_NPROC. Running as root, this test covers the other path by
// starting the sandbox as the unprivileged user "nobody". As non-root, escape.test.ts already runs it.
test.runIf(bubblewrap.ok && process.getuid?.() === 0)(
  'as an unprivileged user, a fork bomb is stopped by RLIMIT_NPROC',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolpact-nonroot-'));
    chmodSync(dir, 0o777);
    const marker = `bomb_${randomUUID().replaceAll('-', '')}`;
    const script = join(dir, 'run.mts');
    const sandboxModule = pathToFileURL(join(projectRoot, 'src', 'sandbox', 'index.ts')).href;
    writeFileSync(
      script,
      [
        `import { createBubblewrapSandbox } from ${JSON.stringify(sandboxModule)};`,
        `const sandbox = createBubblewrapSandbox({ workspace: ${JSON.stringify(dir)}, limits: { wallClockMs: 2000 } });`,
        `const run = await sandbox.run(${JSON.stringify(`${marker}() { ${marker} | ${marker} & }; ${marker}; sleep 5`)});`,
        'process.stdout.write(JSON.stringify({ method: sandbox.processLimit, run }));',
      ].join('\n'),
    );
    try {
      let most = 0;
      const sampler = setInterval(() => {
        most = Math.max(most, processesWith(marker));
      }, 20);
      const output = await new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', script], {
          cwd: projectRoot,
          uid: NOBODY,
          gid: NOBODY,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
        });
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        child.on('error', reject);
        child.on('close', (code) =>
          code === 0 ? resolve(stdout) : reject(new Error(`exit ${code}: ${stderr}`)),
        );
      });
      clearInterval(sampler);
      const { method, run } = JSON.parse(output) as { method: string; run: { kind: string; stderr: string } };
      expect(method).toBe('rlimit');
      expect(run.kind).toBe('finished');
      expect(run.stderr).toContain('Cannot fork');
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(300);
      expect(processesWith(marker)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
