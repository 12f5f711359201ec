import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import type { SandboxLimits } from './sandbox-limits.js';

/** Where the workspace appears inside the sandbox; the host's path never reaches the command. */
export const SANDBOX_WORKSPACE = '/workspace';

/** Exit status of the set-up step when it cannot apply a limit (with {@link SETUP_MARKER} on stderr). */
export const SETUP_FAILED_EXIT = 97;
export const SETUP_MARKER = 'toolpact-sandbox:';

/** How the sandbox limits processes, decided by who runs it (see `docs/policy.md`). */
export type ProcessLimitMethod = 'pid-namespace' | 'rlimit';

// When the host user is root the sandbox's user is the host's root too, with every capability
// dropped; as any other user it is `nobody` (65534) over that user.

/** Top-level system folders that are symbolic links into /usr on merged-/usr systems, or real folders. */
export const SYSTEM_DIRS: readonly string[] = ['/bin', '/sbin', '/lib', '/lib64', '/lib32', '/libx32'];
/** The few files from /etc that programs need to start; the rest of /etc (passwords, keys) stays out. */
export const ETC_ENTRIES: readonly string[] = [
  '/etc/alternatives',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/localtime',
];

/**
 * The bubblewrap command line for one command: every namespace unshared (user, PID, network, IPC,
 * UTS, cgroup), no further user namespaces, `/usr` and the loader's files read-only, a private
 * `/tmp` (as large as `maxFileBytes`), `/proc` and `/dev`, a read-only root, the workspace
 * read-write at {@link SANDBOX_WORKSPACE}, an empty
 * environment, then the limits: `pid_max` of the new PID namespace and a read-only `/proc/sys`
 * (when `method` is `pid-namespace`), capabilities dropped, and `prlimit` for CPU, memory, processes, file size and
 * open files before `sh -c command`. Pass the list through `--args <fd>` (as `runBubblewrap` does),
 * so the host paths in it never show in the sandbox's `/proc/1/cmdline`.
 *
 * @example
 * const argv = bubblewrapArgs('/srv/ws', 'ls -la', limits, 'pid-namespace');
 */
export function bubblewrapArgs(
  workspace: string,
  command: string,
  limits: SandboxLimits,
  method: ProcessLimitMethod,
): string[] {
  const asRoot = method === 'pid-namespace';
  const args = [
    '--unshare-all',
    '--unshare-user',
    // As root the set-up step must mount, which bubblewrap's nested user namespace for
    // --disable-userns forbids; there a nested namespace gains nothing (see the set-up step).
    ...(asRoot ? [] : ['--disable-userns']),
    '--die-with-parent',
    '--new-session',
    '--hostname',
    'sandbox',
    // util-linux mount refuses any user but 0; capabilities, not the id, are what the command loses.
    '--uid',
    asRoot ? '0' : '65534',
    '--gid',
    asRoot ? '0' : '65534',
    ...systemFolderArgs(),
  ];
  for (const entry of ETC_ENTRIES) args.push('--ro-bind-try', entry, entry);
  args.push(
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(limits.maxFileBytes),
    '--tmpfs',
    '/tmp',
    '--bind',
    workspace,
    SANDBOX_WORKSPACE,
    '--chdir',
    SANDBOX_WORKSPACE,
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/local/bin:/usr/bin:/bin',
    '--setenv',
    'HOME',
    '/tmp',
    '--setenv',
    'TMPDIR',
    '/tmp',
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--json-status-fd',
    '3',
    // The sandbox's own root is a tmpfs made by bubblewrap; left writable it would be unbounded memory.
    '--remount-ro',
    '/',
  );
  // pid_max is per PID namespace since Linux 6.14; writing it needs CAP_SYS_ADMIN in the sandbox's
  // user namespace, which the set-up step then drops (bounding, inheritable and ambient sets).
  // Before that it makes /proc/sys, then all of /proc, read-only: the sandbox's user is the host's root (bubblewrap maps
  // it onto the caller), and sysctl files grant their owner bits to the host's root whatever the
  // capabilities, so a writable /proc/sys would let a command raise pid_max again, or set
  // kernel-wide parameters. bubblewrap covers /proc/sys only when the folder itself is writable.
  // A user namespace made later inside gains nothing: the read-only bind is locked in any mount
  // namespace it makes, and a fresh proc is refused there because this /proc is partly covered.
  if (method === 'pid-namespace') args.push('--cap-add', 'CAP_SYS_ADMIN');
  const prlimit = [
    'prlimit',
    `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`,
    `--as=${limits.memoryBytes}`,
    `--nproc=${limits.maxProcesses}`,
    `--fsize=${limits.maxFileBytes}`,
    `--nofile=${limits.maxOpenFiles}`,
    '--core=0',
    '--',
    'sh',
    '-c',
    command,
  ];
  const setup =
    method === 'pid-namespace'
      ? [
          `echo "$1" > /proc/sys/kernel/pid_max 2>/dev/null || { echo "${SETUP_MARKER} this kernel cannot limit the processes of a PID namespace (Linux 6.14 or later is needed when the host user is root)" >&2; exit ${SETUP_FAILED_EXIT}; }`,
          `{ mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys && mount -o remount,bind,ro /proc; } 2>/dev/null || { echo "${SETUP_MARKER} /proc could not be made read-only" >&2; exit ${SETUP_FAILED_EXIT}; }`,
          'shift',
          'exec setpriv --bounding-set=-all --inh-caps=-all --ambient-caps=-all -- "$@"',
        ].join('; ')
      : 'shift; exec "$@"';
  args.push('--', 'sh', '-c', setup, 'toolpact-setup', String(limits.maxProcesses + 1), ...prlimit);
  return args;
}

/**
 * The bubblewrap options that show `/usr` read-only and the top-level system folders as they are on
 * the host: a symbolic link into `/usr` stays one, a real folder is bound read-only.
 *
 * @example
 * systemFolderArgs(); // ['--ro-bind', '/usr', '/usr', '--symlink', 'usr/bin', '/bin', …]
 */
export function systemFolderArgs(): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const dir of SYSTEM_DIRS) {
    if (!existsSync(dir)) continue;
    const info = lstatSync(dir);
    if (info.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else if (info.isDirectory()) args.push('--ro-bind', dir, dir);
  }
  return args;
}
