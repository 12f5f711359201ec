import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect, test } from 'vitest';
import { findBubblewrap } from '../../src/gateway/sandbox-server.js';
import { bubblewrap } from '../support/bubblewrap.js';
import { processesWith, runAsNobody } from './support.js';

const bubblewrapPath = () => findBubblewrap() ?? 'bwrap';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

// As root the sandbox bounds processes with its PID namespace's pid_max (escape.test.ts covers it);
// as any other user it uses RLIMIT_NPROC. Running as root, this test covers the other path by
// starting the sandbox as the unprivileged user "nobody". As non-root, escape.test.ts already runs it.
test.runIf(bubblewrap.ok && process.getuid?.() === 0)(
  'as an unprivileged user, a fork bomb is stopped by RLIMIT_NPROC',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolpact-nonroot-'));
    chmodSync(dir, 0o777);
    const marker = `bomb_${randomUUID().replaceAll('-', '')}`;
    const sandboxModule = pathToFileURL(join(projectRoot, 'src', 'sandbox', 'index.ts')).href;
    try {
      let most = 0;
      const sampler = setInterval(() => {
        most = Math.max(most, processesWith(marker));
      }, 20);
      const output = await runAsNobody(
        [
          `import { createBubblewrapSandbox } from ${JSON.stringify(sandboxModule)};`,
          `const sandbox = createBubblewrapSandbox({ workspace: ${JSON.stringify(dir)}, limits: { wallClockMs: 2000 } });`,
          `const run = await sandbox.run(${JSON.stringify(`${marker}() { ${marker} | ${marker} & }; ${marker}; sleep 5`)});`,
          'process.stdout.write(JSON.stringify({ method: sandbox.processLimit, run }));',
        ].join('\n'),
        projectRoot,
      );
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

// The shell sandbox as an unprivileged user makes /proc read-only through bubblewrap itself (as
// root its set-up step does, escape.test.ts). Every file of /proc/sys and /proc/sysrq-trigger is
// opened for appending by a command that writes nothing (`true 3>>file`); the control is the same
// bubblewrap command without the two options that make /proc read-only.
test.runIf(bubblewrap.ok && process.getuid?.() === 0)(
  'as an unprivileged user, no /proc/sys file opens for writing (the same command with /proc writable can)',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolpact-nonroot-proc-'));
    chmodSync(dir, 0o777);
    const module = (path: string) =>
      JSON.stringify(pathToFileURL(join(projectRoot, 'src', 'sandbox', path)).href);
    const probe =
      'for f in $(find /proc/sys -type f) /proc/sysrq-trigger; do true 2>/dev/null 3>>"$f" && echo "$f"; done; echo tried';
    try {
      const output = await runAsNobody(
        [
          `import { bubblewrapArgs } from ${module('bubblewrap-args.ts')};`,
          `import { runBubblewrap } from ${module('run-bubblewrap.ts')};`,
          `import { resolveLimits } from ${module('sandbox-limits.ts')};`,
          `const limits = resolveLimits({ wallClockMs: 5000 });`,
          `const args = bubblewrapArgs(${JSON.stringify(dir)}, ${JSON.stringify(probe)}, limits, 'rlimit');`,
          `const open = [...args];`,
          `const rule = (words) => open.findIndex((_, i) => words.every((word, k) => open[i + k] === word));`,
          `for (const words of [['--ro-bind', '/proc/sys', '/proc/sys'], ['--remount-ro', '/proc']]) {`,
          `  const at = rule(words); if (at < 0) throw new Error('missing ' + words.join(' '));`,
          `  open.splice(at, words.length);`,
          `}`,
          `const run = (list) => runBubblewrap({ bwrap: ${JSON.stringify(bubblewrapPath())}, args: list, wallClockMs: 5000, maxOutputBytes: 1 << 20 });`,
          'process.stdout.write(JSON.stringify({ confined: await run(args), open: await run(open) }));',
        ].join('\n'),
        projectRoot,
      );
      const { confined, open } = JSON.parse(output) as Record<'confined' | 'open', { stdout?: string }>;
      expect(confined.stdout?.trim().split('\n')).toEqual(['tried']);
      expect(open.stdout?.trim().split('\n').length).toBeGreaterThan(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
