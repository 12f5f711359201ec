import { resolve } from 'node:path';
import { isLoopbackHost } from '../../mcp/origin-check.js';
import type { PostgresStore } from '../../store/index.js';
import { parseArgs } from '../args.js';
import { choosePolicy, openStoreOption } from '../gate-options.js';
import type { Command } from '../io.js';
import { InputError, UsageError } from '../io.js';
import { CLOSE_GRACE_MS, closeWithin } from '../lifecycle.js';
import { openBrowser } from '../open-browser.js';
import { endProcessGroupsOnSignal, stopSignal, wholeNumberFlag } from '../stop-signal.js';
import { studioAuth, studioSource } from '../studio-source.js';

/**
 * `toolpact studio <module>`: a local page showing the tool set as each provider receives it, with
 * lint, tokens and permissions, and a playground that runs calls through the gate.
 *
 * @example
 * // toolpact studio examples/workspace/index.ts --open
 * await execute(['studio', 'examples/workspace/index.ts'], io);
 */
export const command: Command = {
  name: 'studio',
  summary: 'open a local page that shows a tool set as the model sees it, and try its calls',
  usage: [
    'toolpact studio <module> [--port <n>] [--host <addr>] [--auth <file>] [--policy <file>] [--store <url>] [--open]',
    'toolpact studio --mcp "<command>" | --url <url> [--port <n>] [--host <addr>] [--auth <file>] [--policy <file>] [--store <url>] [--open]',
    'toolpact studio --gateway <mcp.json> [--port <n>] [--host <addr>] [--auth <file>] [--policy <file>] [--store <url>] [--open]',
    '',
    '  <module>         a .ts, .mts, .js or .mjs file exporting tools; editing it (or any file in its',
    '                   folder, such as generated contracts) reloads the page',
    '  --mcp <command>  the tools of an MCP server started over stdio (no shell)',
    '  --url <url>      the tools of an MCP server at a Streamable HTTP endpoint',
    "  --gateway <file> the gateway's tools: every server of that host config, as toolpact gateway serves",
    '                   them (overrides applied, changed definitions withheld), with their calls audited',
    '  --host <addr>    address to listen on (default 127.0.0.1); anything else needs --auth',
    '  --port <n>       port (default: a free one)',
    '  --auth <file>    sign people in with OpenID Connect (the auth file\'s "studio" section names the',
    '                   client): every page and API request needs a session, and decisions are the',
    "                   signed-in person's, checked against a rule's decidedBy",
    '  --insecure-no-auth  serve a non-loopback --host without --auth; every response then carries a',
    '                   Toolpact-Warning header',
    "  --policy <file>  the policy the gate applies (default: the configuration's, else the category defaults)",
    "  --store <url>    a fleet's shared store, a postgres:// URL (or TOOLPACT_STORE): the page's calls are",
    '                   committed to its audit log, the asks of rules with "approver": "queue" go to its',
    '                   queue, and the Approvals view follows that queue live and approves or denies from it',
    '                   (recorded as decided by $USER, or by the name given in the page)',
    '  --open           open the page in the default browser',
    '',
    'Without --auth the page is at a URL holding a random token for this run; requests without the',
    'token, from another origin or to a foreign Host are refused. Calls go through the',
    "registry's gate; an ask is answered in the page. Stops on SIGINT or SIGTERM.",
  ].join('\n'),
  async run(args, io) {
    const { positionals, flags } = parseArgs(args, {
      mcp: 'string',
      url: 'string',
      gateway: 'string',
      port: 'string',
      host: 'string',
      auth: 'string',
      'insecure-no-auth': 'boolean',
      policy: 'string',
      store: 'string',
      open: 'boolean',
    });
    const [modulePath, ...extra] = positionals;
    if (extra.length > 0) throw new UsageError(`Unexpected arguments: ${extra.join(' ')}.`);
    const given = [modulePath, flags.mcp, flags.url, flags.gateway].filter((value) => value !== undefined);
    if (given.length !== 1) {
      throw new UsageError(
        given.length === 0
          ? 'Give a module of tools, --mcp "<command>", --url <url> or --gateway <mcp.json>.'
          : 'Give one of a module, --mcp, --url and --gateway, not several.',
      );
    }
    if (typeof flags.url === 'string' && !/^https?:\/\//i.test(flags.url.trim())) {
      throw new UsageError(`--url must be an http(s) URL, received "${flags.url}".`);
    }
    const port = flags.port === undefined ? 0 : wholeNumberFlag('port', flags.port, 0, 65_535);
    const host = typeof flags.host === 'string' ? flags.host.trim() : '127.0.0.1';
    if (host === '') throw new UsageError('--host is empty; give an address, e.g. 127.0.0.1 or 0.0.0.0.');
    const auth = typeof flags.auth === 'string' ? studioAuth(resolve(io.cwd, flags.auth)) : undefined;
    const insecureNoAuth = flags['insecure-no-auth'] === true;
    if (!auth && !insecureNoAuth && !isLoopbackHost(host.replace(/^\[|\]$/g, ''))) {
      throw new UsageError(
        `--host ${host} is reachable from the network, and no --auth is given: anyone who reaches the port could run the tools and decide approvals. Give --auth <file> (with a "studio" section; see docs/studio.md), or --insecure-no-auth when a proxy in front authenticates (every response then carries a Toolpact-Warning header).`,
      );
    }
    const policy = await choosePolicy(typeof flags.policy === 'string' ? flags.policy : undefined, io.cwd);
    const { startStudio } = await import('../../studio/index.js');
    // Loads what the studio shows and starts it; opened before anything listens, so an unreachable
    // store is a usage error; closed after the studio.
    const open = async () => {
      const source = await studioSource(modulePath, flags, policy, io);
      let store: PostgresStore | undefined;
      try {
        store = await openStoreOption(flags.store, io, 'studio', source.policy);
        const by = io.env.USER ?? io.env.LOGNAME;
        const { abandon: _, ...options } = source;
        const studio = await startStudio({
          ...options,
          ...(store ? { store, ...(by ? { decider: by } : {}) } : {}),
          port,
          host,
          ...(auth ? { auth, env: io.env } : {}),
          ...(insecureNoAuth ? { insecureNoAuth } : {}),
        });
        return { studio, store };
      } catch (error) {
        await source.abandon?.();
        await store?.close();
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
          throw new UsageError(
            `Cannot listen on ${host}:${port} (${code}); give another --host or --port (0 for a free one).`,
          );
        }
        if ((error as Error).name === 'StudioSignInError')
          throw new UsageError(`--auth: ${(error as Error).message}`);
        if (source.kind === 'module' || typeof flags.gateway === 'string') throw error;
        if (error instanceof UsageError || error instanceof InputError) throw error;
        const reason = error instanceof Error ? error.message : String(error);
        throw new InputError(`Cannot read the tools of the MCP server "${source.label}": ${reason}`);
      }
    };
    // The module may start MCP servers as it loads (importMcpTools over stdio), as may --mcp and
    // --gateway: until the studio listens, a signal ends them, then the process.
    const loading = endProcessGroupsOnSignal('exit');
    const { studio, store } = await open().finally(() => loading.dispose());
    // The studio listens: a signal now stops it, and ends the servers meanwhile.
    const stop = stopSignal();
    const groups = endProcessGroupsOnSignal('shutdown');
    try {
      if (auth?.studio) {
        io.stderr(
          `toolpact studio: signing people in with ${auth.studio.issuer} as the client ${auth.studio.clientId}; its redirect URI is ${new URL('/auth/callback', studio.url).href}.\n`,
        );
      } else if (insecureNoAuth && !isLoopbackHost(host.replace(/^\[|\]$/g, ''))) {
        io.stderr(
          `toolpact studio: listening on ${host}, reachable from the network, with no sign-in (--insecure-no-auth); every response carries a Toolpact-Warning header. Put it behind a proxy that authenticates, or give --auth.\n`,
        );
      }
      io.stderr(`toolpact studio: open ${studio.url}\n`);
      if (flags.open === true) openBrowser(studio.url, io.stderr);
      const signal = await stop.signalled;
      io.stderr(`toolpact studio: ${signal}, stopping.\n`);
      return 0;
    } finally {
      stop.dispose();
      // Longer than the source's own bound, so that one says what hung.
      await closeWithin(studio, io, 'studio', 'the studio', CLOSE_GRACE_MS + 1_000);
      // After the studio, so the records of its last calls are committed first.
      await store?.close();
      groups.dispose();
    }
  },
};
