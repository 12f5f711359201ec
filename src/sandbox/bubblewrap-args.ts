import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import type { SandboxLimits } from './sandbox-limits.js';

/** Where the workspace appears inside the sandbox; the host's path never reaches the command. */
export const SANDBOX_WORKSPACE = '/workspace';

/** Exit status of the set-up step when it cannot apply a limit (with {@link SETUP_MARKER} on stderr). */
export const SETUP_FAILED_EXIT = 97;
export const SETUP_MARKER = 'toolpact-sandbox:';

/** How the sandbox limits processes, decided by who runs it (see `docs/policy.md`). */
export type ProcessLimitMethod = 'pid-namespace' | 'rlimit';

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

/** One host path shown inside the sandbox. */
export interface SandboxBind {
  readonly source: string;
  /** Where it appears inside (default: the same path). */
  readonly target?: string;
  readonly writable: boolean;
}

/**
 * Everything a sandbox is made of, for {@link bubblewrapOptions}: both the shell sandbox and the
 * gateway's sandboxed MCP servers describe themselves with one of these.
 */
export interface SandboxLayout {
  /** The user and group inside (the sandbox's user namespace maps them onto the caller's). */
  readonly uid: number;
  readonly gid: number;
  /** Shares the host's network namespace; every other namespace is the sandbox's own. */
  readonly network: boolean;
  /** Files of `/etc` shown read-only beyond {@link ETC_ENTRIES} (with the network: name resolution). */
  readonly etc?: readonly string[];
  /** The size of the private `/tmp`, in bytes (default: the tmpfs default, half the memory). */
  readonly tmpBytes?: number;
  /** Host paths shown inside, mounted in this order (a folder before anything inside it). */
  readonly binds: readonly SandboxBind[];
  /** The working folder inside. */
  readonly cwd: string;
  /** The whole environment inside (nothing of bubblewrap's own is kept). */
  readonly env: { readonly [name: string]: string };
  /**
   * Who makes `/proc` read-only. `bubblewrap` (the default): bubblewrap itself, before the command
   * starts, and the command gets no capability and no further user namespace. `set-up step`: the
   * command is a set-up step that keeps `CAP_SYS_ADMIN` long enough to write the PID namespace's
   * `pid_max`, then makes `/proc` read-only and drops every capability itself (the shell sandbox
   * as root, see {@link bubblewrapArgs}).
   */
  readonly proc?: 'bubblewrap' | 'set-up step';
}

/**
 * bubblewrap's options for one sandbox, without the command: every namespace unshared (user, PID,
 * IPC, UTS, cgroup, and the network unless `layout.network`), the process ended with its parent and
 * in a session of its own, `/usr` and the loader's files read-only, a private `/tmp`, `/proc` and
 * `/dev`, `/proc/sys` and then the whole of `/proc` read-only, the binds, an environment of
 * `layout.env` only, and a read-only root. The one place both sandboxes get their mounts from.
 *
 * @example
 * const options = bubblewrapOptions({ uid: 1000, gid: 1000, network: false, binds: [], cwd: '/tmp', env: {} });
 * spawn('bwrap', [...options, '--', 'node', 'server.js'], { env: {} });
 */
export function bubblewrapOptions(layout: SandboxLayout): string[] {
  const byBubblewrap = (layout.proc ?? 'bubblewrap') === 'bubblewrap';
  const args = [
    '--unshare-all',
    ...(layout.network ? ['--share-net'] : []),
    '--unshare-user',
    // The set-up step must mount, which bubblewrap's nested user namespace for --disable-userns
    // forbids; it gains nothing there anyway (see bubblewrapArgs).
    ...(byBubblewrap ? ['--disable-userns', '--cap-drop', 'ALL'] : ['--cap-add', 'CAP_SYS_ADMIN']),
    '--die-with-parent',
    // A session of its own, so that it cannot reach a terminal of ours (TIOCSTI).
    '--new-session',
    '--hostname',
    'sandbox',
    '--uid',
    String(layout.uid),
    '--gid',
    String(layout.gid),
    ...systemFolderArgs(),
  ];
  for (const entry of [...ETC_ENTRIES, ...(layout.etc ?? [])]) args.push('--ro-bind-try', entry, entry);
  args.push('--proc', '/proc');
  // Sysctl files grant their owner's bits to the host's root whatever the capabilities, and
  // bubblewrap covers /proc/sys only when the folder itself is writable, which it never is: as
  // root, a sandbox with a writable /proc/sys could open kernel/core_pattern (code execution on the
  // host). bubblewrap binds the host's /proc/sys read-only over it (the same files: each sysctl
  // answers for the namespaces of whoever opens it), then makes the whole procfs read-only, which
  // covers /proc/sysrq-trigger and the rest. A user namespace made later could not undo it: the
  // read-only flags are locked, and a fresh proc is refused where this one is partly covered.
  if (byBubblewrap) args.push('--ro-bind', '/proc/sys', '/proc/sys', '--remount-ro', '/proc');
  args.push('--dev', '/dev');
  if (layout.tmpBytes !== undefined) args.push('--size', String(layout.tmpBytes));
  args.push('--tmpfs', '/tmp');
  for (const bind of layout.binds) {
    args.push(bind.writable ? '--bind' : '--ro-bind', bind.source, bind.target ?? bind.source);
  }
  args.push('--chdir', layout.cwd, '--clearenv');
  for (const [name, value] of Object.entries(layout.env)) args.push('--setenv', name, value);
  // The sandbox's own root is a tmpfs made by bubblewrap; left writable it would be unbounded memory.
  args.push('--remount-ro', '/');
  return args;
}

// When the host user is root the shell sandbox's user is the host's root too, with every
// capability dropped; as any other user it is `nobody` (65534) over that user.

/**
 * The bubblewrap command line for one shell command: {@link bubblewrapOptions} with the workspace
 * read-write at {@link SANDBOX_WORKSPACE}, a private `/tmp` as large as `maxFileBytes`, an empty
 * environment but `PATH`, `HOME`, `TMPDIR` and `LANG`, then the limits: `pid_max` of the new PID
 * namespace (when `method` is `pid-namespace`), capabilities dropped, and `prlimit` for CPU, memory,
 * processes, file size and open files before `sh -c command`. Pass the list through `--args <fd>`
 * (as `runBubblewrap` does), so the host paths in it never show in the sandbox's `/proc/1/cmdline`.
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
  const args = bubblewrapOptions({
    // util-linux mount refuses any user but 0; capabilities, not the id, are what the command loses.
    uid: asRoot ? 0 : 65534,
    gid: asRoot ? 0 : 65534,
    network: false,
    tmpBytes: limits.maxFileBytes,
    binds: [{ source: workspace, target: SANDBOX_WORKSPACE, writable: true }],
    cwd: SANDBOX_WORKSPACE,
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/tmp', TMPDIR: '/tmp', LANG: 'C.UTF-8' },
    proc: asRoot ? 'set-up step' : 'bubblewrap',
  });
  args.push('--json-status-fd', '3');
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
  // pid_max is per PID namespace since Linux 6.14; writing it needs CAP_SYS_ADMIN in the sandbox's
  // user namespace, which the set-up step then drops (bounding, inheritable and ambient sets).
  // Before that it does what bubblewrap does for every other sandbox (bubblewrapOptions): /proc/sys,
  // then all of /proc, read-only, so that the command can neither raise pid_max again nor set
  // kernel-wide parameters.
  const setup = asRoot
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
