import { readdirSync, readFileSync } from 'node:fs';

// Child process groups this process started (a stdio MCP server and everything it forks), so that
// ending one ends its grandchildren too, and so that none outlives this process: a synchronous
// SIGKILL of every group still live is the last thing done at `exit`.

/**
 * Between SIGTERM and SIGKILL to a group: short, since the v2 SDK sends SIGKILL to a process it probed
 * 1 s after SIGTERM, and what that process started must be gone by then.
 */
export const TERM_GRACE_MS = 500;
/** How often a group that was signalled is looked at again. */
const POLL_MS = 25;
/** How long a group that was sent SIGKILL is waited for (a process in the kernel can take a moment). */
const KILL_WAIT_MS = 2_000;

/**
 * One record per process, not per copy of this module: a tool module the CLI loads through its
 * TypeScript loader gets its own copy of toolpact's modules, and the groups its MCP servers lead must
 * still be ended by the CLI's signal handler.
 */
interface GroupState {
  readonly live: Set<number>;
  hooked: boolean;
  refusing: boolean;
}
const STATE_KEY = Symbol.for('toolpact.processGroups');
const shared = globalThis as Record<symbol, GroupState | undefined>;
const state: GroupState = shared[STATE_KEY] ?? { live: new Set<number>(), hooked: false, refusing: false };
shared[STATE_KEY] = state;
const live = state.live;

/**
 * Notes that the process `pid` leads a process group of its own (it was spawned `detached`), which
 * this process must end. The first group also installs the `exit` hook that kills every group left.
 *
 * @example
 * const child = spawn('node', ['server.js'], { detached: true });
 * adoptProcessGroup(child.pid!);
 */
export function adoptProcessGroup(pid: number): void {
  live.add(pid);
  if (!state.hooked) {
    state.hooked = true;
    // Synchronous by necessity: nothing asynchronous runs once the process is exiting.
    process.on('exit', () => signalProcessGroups('SIGKILL'));
  }
}

/**
 * Whether any process of the group `id` still runs. A zombie does not count: where nothing reaps
 * orphans (PID 1 of a container), a group's dead members stay zombies, and killing them again is moot.
 *
 * @example
 * if (processGroupAlive(child.pid!)) process.kill(-child.pid!, 'SIGTERM');
 */
export function processGroupAlive(id: number): boolean {
  try {
    process.kill(-id, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return process.platform === 'linux' ? runningMember(id) : true;
}

/**
 * Ends the group `id`: SIGTERM to the whole group, then SIGKILL to it after `graceMs` if any member
 * still runs. Resolves once none runs (or, should a member outlast SIGKILL, after a bounded wait).
 *
 * @example
 * await endProcessGroup(child.pid!, 500);
 */
export async function endProcessGroup(id: number, graceMs: number): Promise<void> {
  if (!processGroupAlive(id)) {
    live.delete(id);
    return;
  }
  signal(id, 'SIGTERM');
  if (!(await gone(id, graceMs))) {
    signal(id, 'SIGKILL');
    await gone(id, KILL_WAIT_MS);
  }
  if (!processGroupAlive(id)) live.delete(id);
}

/**
 * Sends `signal` to every group still live, synchronously (for a handler that must act before the
 * process dies). Returns how many groups were signalled.
 *
 * @example
 * process.on('SIGTERM', () => { signalProcessGroups('SIGKILL'); process.exit(143); });
 */
export function signalProcessGroups(signal: NodeJS.Signals): number {
  let count = 0;
  for (const id of live) {
    try {
      process.kill(-id, signal);
      count++;
    } catch {
      live.delete(id);
    }
  }
  return count;
}

/**
 * This process is ending: SIGTERM every live group now, SIGKILL those still running after `graceMs`,
 * and refuse to start any new one from here on (a server whose start was under way is not left behind).
 * Resolves once every group is gone (bounded as {@link endProcessGroup} is).
 *
 * @example
 * process.once('SIGTERM', () => void endProcessGroups(TERM_GRACE_MS).finally(() => process.exit(143)));
 */
export async function endProcessGroups(graceMs: number): Promise<void> {
  state.refusing = true;
  await Promise.all([...live].map((id) => endProcessGroup(id, graceMs)));
}

/**
 * Whether {@link endProcessGroups} was called: no new process group may start.
 *
 * @example
 * if (refusingProcessGroups()) throw new Error('shutting down; the server was not started');
 */
export function refusingProcessGroups(): boolean {
  return state.refusing;
}

function signal(id: number, name: NodeJS.Signals): void {
  try {
    process.kill(-id, name);
  } catch {
    // Ended meanwhile.
  }
}

async function gone(id: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (processGroupAlive(id)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}

/** Whether a process of group `id` runs (is not a zombie), read from /proc. */
function runningMember(id: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses, so read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === id && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}
