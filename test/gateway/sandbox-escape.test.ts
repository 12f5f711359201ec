import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { runAsNobody } from '../sandbox/support.js';
import { bubblewrap } from '../support/bubblewrap.js';
import {
  CONFINEMENT_PROBE,
  type ConfinementReport,
  type ConfinementReports,
  collectReports,
  reportOf,
  sandboxedProbe,
} from './confinement.js';

// A hostile server in the gateway's sandbox, run as root (this process, as in CI and most
// containers) and as the unprivileged user "nobody". Each "cannot" comes with its controls: the
// same probe unsandboxed, and under the same bubblewrap command without the rule under test.
const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const asRoot = process.getuid?.() === 0;

/** The reports, collected as the unprivileged user "nobody" by a script of its own. */
async function reportsAsNobody(): Promise<ConfinementReports> {
  const helper = JSON.stringify(pathToFileURL(join(projectRoot, 'test', 'gateway', 'confinement.ts')).href);
  const output = await runAsNobody(
    `import { collectReports } from ${helper};\nprocess.stdout.write(JSON.stringify(await collectReports()));\n`,
    projectRoot,
  );
  return JSON.parse(output) as ConfinementReports;
}

/** Every environment entry of every process the probe could read, by pid. */
function readableEnvironments(report: ConfinementReport): [string, string[]][] {
  return Object.entries(report.environ).filter((entry): entry is [string, string[]] =>
    Array.isArray(entry[1]),
  );
}

function expectNoKernelFileWritable(reports: ConfinementReports) {
  const { sandboxed } = reports;
  // Every file of /proc/sys was tried, and none opened; nor did /proc/sysrq-trigger.
  expect(sandboxed.tried).toBeGreaterThan(100);
  expect(sandboxed.opened).toEqual([]);
  for (const code of Object.values(sandboxed.refused)) expect(['EROFS', 'EACCES', 'ENOENT']).toContain(code);
  // Control: the same bubblewrap command with /proc left writable opens some of them (as root the
  // host's core_pattern; as any user, its PID namespace's pid_max).
  expect(reports.withoutRules.opened.length).toBeGreaterThan(0);
}

function expectNoHostEnvironment(reports: ConfinementReports) {
  const { sandboxed } = reports;
  const own = sandboxed.environ[String(sandboxed.self)];
  expect(Array.isArray(own)).toBe(true);
  // The host's environment as the SDK hands it to every server (its PATH at least).
  expect(reports.hostEnvironment.some((entry) => entry.startsWith('PATH='))).toBe(true);
  const foreign = reports.hostEnvironment.filter((entry) => !(own as string[]).includes(entry));
  expect(foreign.length).toBeGreaterThan(0);
  // Inside: pid 1 (bubblewrap's init) has an empty environment, and no readable environment holds
  // anything of the host's, nor anything the server's own does not.
  expect(sandboxed.environ['1']).toEqual([]);
  for (const [, entries] of readableEnvironments(sandboxed)) {
    for (const entry of entries) {
      expect(foreign).not.toContain(entry);
      expect(own).toContain(entry);
    }
  }
  // Controls: bubblewrap started with the SDK's environment shows it as /proc/1/environ, and the
  // unsandboxed server has it as its own.
  expect(reports.withoutRules.environ['1']).toEqual(expect.arrayContaining(foreign));
  expect(reports.unsandboxed.environ[String(reports.unsandboxed.self)]).toEqual(
    expect.arrayContaining(reports.hostEnvironment),
  );
}

function expectOwnPidNamespace(reports: ConfinementReports) {
  // Only bubblewrap's init and the server itself; the host's processes are not there.
  expect(reports.sandboxed.pids).toEqual([1, reports.sandboxed.self]);
  // Control: unsandboxed, it sees the host's processes.
  expect(reports.unsandboxed.pids.length).toBeGreaterThan(2);
  expect(reports.unsandboxed.pids).toContain(reports.unsandboxed.self);
}

// As root: this process, then "nobody" through a script of its own. As any other user: this process.
const users = [
  { name: 'root', collect: collectReports, runs: asRoot },
  { name: 'the unprivileged user "nobody"', collect: reportsAsNobody, runs: asRoot },
  { name: 'an unprivileged user', collect: collectReports, runs: !asRoot },
] as const;

describe.runIf(bubblewrap.ok)('a hostile server in the gateway sandbox', () => {
  for (const user of users) {
    describe.runIf(user.runs)(`as ${user.name}`, () => {
      let reports: ConfinementReports;
      test('collects what it sees inside and outside', async () => {
        reports = await user.collect();
      });

      test('opens no /proc/sys file and not /proc/sysrq-trigger for writing (the controls can)', () => {
        expectNoKernelFileWritable(reports);
        if (user.name === 'root') {
          // The file whose handler the kernel runs as root on any crash: code execution on the host.
          expect(reports.withoutRules.opened).toContain('/proc/sys/kernel/core_pattern');
          expect(reports.unsandboxed.opened).toContain('/proc/sys/kernel/core_pattern');
        }
      });

      test('sees none of the host environment, in /proc/1/environ or any other', () => {
        expectNoHostEnvironment(reports);
      });

      test('sees only its own PID namespace', () => {
        expectOwnPidNamespace(reports);
        if (user.collect === collectReports) expect(reports.unsandboxed.pids).toContain(process.pid);
      });
    });
  }

  // With "network": true the server shares the host's network namespace, so /proc/sys/net is the
  // host's own: as root, its parameters (forwarding, ports, buffers) would be the host's to change.
  test.runIf(asRoot)(
    'with the network shared, as root, the host network parameters do not open for writing',
    async () => {
      const paths = [
        '/proc/sys/net/ipv4/ip_forward',
        '/proc/sys/net/ipv4/ip_local_port_range',
        '/proc/sys/net/core/somaxconn',
      ];
      const sandboxed = await reportOf(sandboxedProbe(true), { paths, under: '/proc/sys/net' });
      expect(sandboxed.tried).toBeGreaterThan(paths.length);
      expect(sandboxed.opened).toEqual([]);
      const unsandboxed = await reportOf({ command: process.execPath, args: [CONFINEMENT_PROBE] }, { paths });
      expect(unsandboxed.opened).toEqual(paths);
    },
  );
});
