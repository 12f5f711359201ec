// The MCP reference server "memory" (a knowledge graph in a JSON Lines file), installed as a
// devDependency: a real server to import over stdio, started without the network as
// `node <its bin entry>`, with its memory file in a directory the test owns.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const packageJson = require.resolve('@modelcontextprotocol/server-memory/package.json');
const manifest = JSON.parse(readFileSync(packageJson, 'utf8')) as { bin: string | Record<string, string> };
const binEntry = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0]!;

/** The server's entry file, to run as `node <file>`. */
export const SERVER_MEMORY_BIN = join(dirname(packageJson), binEntry);

/** Starts the memory server over stdio, keeping its graph in `memoryFile` (never in the repository). */
export function serverMemoryTarget(memoryFile: string) {
  return {
    command: process.execPath,
    args: [SERVER_MEMORY_BIN],
    env: { MEMORY_FILE_PATH: memoryFile },
  } as const;
}

/**
 * True while the process `pid` is a live memory server: its command line names the server's entry and
 * it is not a zombie. A pid that is gone, or was reused by another program, is not alive.
 */
export function isServerMemoryAlive(pid: number): boolean {
  if (!existsSync('/proc/self')) {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  try {
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (!commandLine.includes(SERVER_MEMORY_BIN)) return false;
    // The state follows the parenthesised command name: "123 (node) S 1 …".
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * The live memory servers whose memory file is `memoryFile`, found by scanning /proc (Linux): what a
 * test checks is empty once the process that started them has ended, whoever their parent is now.
 */
export function serverMemoryProcesses(memoryFile: string): number[] {
  if (!existsSync('/proc/self')) return [];
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environment = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (!environment.includes(`MEMORY_FILE_PATH=${memoryFile}`)) continue;
      if (isServerMemoryAlive(Number(entry))) found.push(Number(entry));
    } catch {
      // Gone since the listing, or not ours to read.
    }
  }
  return found;
}
