// What `toolpact gateway init` writes once it has read a host's file: the entries it copies, those it
// leaves out because they start this very gateway, where the lock goes, and the config's text.
import { dirname, resolve } from 'node:path';
import type { Registry } from '../registry/registry.js';
import { defaultLockOf } from './config/own-files.js';
import { startsThisGateway } from './config/self.js';
import {
  type ExposedFolder,
  exposedFolders,
  exposingFolder,
  type ResolvedHost,
  relocateEntry,
  type SeenTool,
  type starterPolicy,
} from './init-config.js';

/** The gateway's config that init writes, before it is written. */
export interface InitPlan {
  /** Where the host's dialect keeps its servers: `servers` for VS Code, else `mcpServers`. */
  readonly key: 'servers' | 'mcpServers';
  /** The host's entries, as written, made ready to be read from the new config's folder. */
  readonly entries: { readonly [name: string]: unknown };
  /** The servers left out because their entry starts the gateway this config is for. */
  readonly loops: readonly string[];
  /** The lock the config will use: the host section's `lock` beside the config, else the default. */
  readonly lock: string;
  /** Whether the host's `toolpact` section has its own policy, which init then keeps. */
  readonly keepsPolicy: boolean;
  /** The first of the config and the lock that a server can reach, with the folder that holds it. */
  readonly exposed:
    | { readonly role: 'config' | 'lock'; readonly file: string; readonly holder: ExposedFolder }
    | undefined;
  /** The config's text with this policy (the host section's own policy is kept when {@link keepsPolicy}). */
  text(policy: ReturnType<typeof starterPolicy>): string;
}

/**
 * Plans the config init writes to `out` from a host's file: its resolved entries relocated, minus those
 * that start this gateway, with the host's `toolpact` section (its `servers` kept to the entries copied).
 *
 * @example
 * const plan = planInit(raw, resolveHostConfig(from, raw, process.env, home), out, home);
 * if (!plan.exposed) writeFileSync(out, plan.text(starterPolicy([])), { flag: 'wx' });
 */
export function planInit(
  raw: { readonly [key: string]: unknown },
  resolved: ResolvedHost,
  out: string,
  home: string,
): InitPlan {
  const host = resolved.config;
  const section =
    raw.toolpact && typeof raw.toolpact === 'object' ? (raw.toolpact as { lock?: unknown }) : {};
  const lock = typeof section.lock === 'string' ? resolve(dirname(out), section.lock) : defaultLockOf(out);
  // No server may reach the gateway's own files: a model could rewrite its policy through one.
  const folders = exposedFolders(host);
  const exposed = (['config', 'lock'] as const)
    .map((role) => {
      const file = role === 'config' ? out : lock;
      const holder = exposingFolder(file, folders);
      return holder ? { role, file, holder } : undefined;
    })
    .find((each) => each !== undefined);
  // An entry that already starts the gateway being written would start it inside itself.
  const loops = host.servers
    .filter((server) => server.target.kind === 'stdio' && startsThisGateway(server.target, out, home))
    .map((server) => server.name);
  const entries: { [name: string]: unknown } = {};
  for (const [name, entry] of Object.entries(resolved.entries)) {
    if (!loops.includes(name)) entries[name] = relocateEntry(entry, host);
  }
  const key = host.dialect === 'vscode' ? 'servers' : 'mcpServers';
  return {
    key,
    entries,
    loops,
    lock,
    keepsPolicy: 'policy' in section,
    exposed,
    text: (policy) =>
      `${JSON.stringify(
        {
          [key]: entries,
          ...(host.dialect === 'vscode' && raw.inputs ? { inputs: raw.inputs } : {}),
          toolpact: { host: host.dialect, policy, ...settingsOf(section, entries) },
        },
        null,
        2,
      )}\n`,
  };
}

/**
 * The tools a gateway serves, each with its server and what that server said about it being
 * read-only: what {@link starterPolicy} is built from.
 *
 * @example
 * starterPolicy(seenTools(gateway.registry));
 */
export function seenTools(registry: Pick<Registry, 'list'>): SeenTool[] {
  return registry.list().flatMap((tool) => {
    const meta = tool.meta as { server?: unknown; annotations?: { readOnlyHint?: unknown } };
    return typeof meta.server === 'string'
      ? [
          {
            server: meta.server,
            name: tool.contract.name,
            readOnlyHint: meta.annotations?.readOnlyHint === true,
          },
        ]
      : [];
  });
}

/** The host's own `toolpact` section, its `servers` kept to the entries init copied. */
function settingsOf(section: object, entries: { readonly [name: string]: unknown }): object {
  const { servers } = section as { servers?: unknown };
  if (!servers || typeof servers !== 'object') return section;
  const kept = Object.entries(servers).filter(([name]) => Object.hasOwn(entries, name));
  return { ...section, servers: Object.fromEntries(kept) };
}
