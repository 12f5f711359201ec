// What `toolpact gateway check` finds about a config once its servers have started: each server's
// tools, their token cost and lint summary, its notes, the policy's dead rules and the exposed files.
import { basename } from 'node:path';
import { lint } from '../lint/lint.js';
import { definePolicy } from '../policy/define-policy.js';
import { describePrincipal } from '../policy/principal-condition.js';
import { tokenReport } from '../schema/tokens.js';
import { type ExposedFileFinding, policyNotes, type ServerNotes, serverNotes } from './check-notes.js';
import type { GatewayConfig } from './config/types.js';
import type { Gateway, GatewayServerStatus } from './gateway.js';

/** One server as `gateway check` reports it: its status, notes, token cost and lint summary. */
export interface ServerCheck extends GatewayServerStatus {
  readonly notes?: ServerNotes;
  /** What its served tools cost a request, in tokens, in each format. */
  readonly tokens: { readonly openai: number; readonly anthropic: number };
  /** The lint summary of its served tools (overrides applied), rules by how often they fired. */
  readonly lint: {
    readonly errors: number;
    readonly warnings: number;
    readonly rules: { readonly [rule: string]: number };
  };
}

/** The whole check, as `gateway check --format json` prints it. */
export interface GatewayCheck {
  /** The config's file. */
  readonly config: string;
  readonly servers: readonly ServerCheck[];
  /** Entries of the host file the gateway does not serve, with why. */
  readonly skipped: GatewayConfig['skipped'];
  /** Rules of the policy that can never decide. */
  readonly policy: readonly string[];
  /** The rules that hold only for some callers, each with who (not findings: the policy as written). */
  readonly callers: readonly string[];
  /** Servers that can reach one of the gateway's own files. */
  readonly exposed: readonly ExposedFileFinding[];
  readonly totals: { readonly tools: number; readonly openai: number; readonly anthropic: number };
}

/**
 * Checks a gateway started once over `config`: every server's status with its notes, token cost and
 * lint summary, the policy's notes, and the exposed files found before it started.
 *
 * @example
 * const check = checkGateway(gateway, config, []);
 * check.totals.tools; // every tool served, across the servers
 */
export function checkGateway(
  gateway: Pick<Gateway, 'registry' | 'status'>,
  config: GatewayConfig,
  exposed: readonly ExposedFileFinding[],
): GatewayCheck {
  const servers = gateway.status().map((server): ServerCheck => {
    const tools = server.served
      .map((name) => gateway.registry.get(name))
      .filter((tool) => tool !== undefined);
    const linted = tools.length > 0 ? lint(tools) : undefined;
    const rules = new Map<string, number>();
    for (const finding of linted?.findings ?? []) rules.set(finding.rule, (rules.get(finding.rule) ?? 0) + 1);
    const spec = config.servers.find((entry) => entry.name === server.name);
    const contracts = tools.map((tool) => tool.contract);
    return {
      ...server,
      ...(spec ? { notes: serverNotes(spec, tools) } : {}),
      tokens: {
        openai: tokenReport(contracts, 'openai').total,
        anthropic: tokenReport(contracts, 'anthropic').total,
      },
      lint: {
        errors: linted?.errorCount ?? 0,
        warnings: linted?.warningCount ?? 0,
        rules: Object.fromEntries([...rules].sort((a, b) => b[1] - a[1])),
      },
    };
  });
  const policy = config.policy ?? definePolicy({ rules: [] });
  const total = (of: (server: ServerCheck) => number) => servers.reduce((sum, server) => sum + of(server), 0);
  return {
    config: config.file,
    servers,
    skipped: config.skipped,
    policy: policyNotes(policy, `${basename(config.file)}#toolpact.policy`),
    callers: policy.rules.flatMap((rule) =>
      rule.principal === undefined
        ? []
        : [`rule "${rule.id}" (${rule.action}) holds for: ${describePrincipal(rule.principal)}`],
    ),
    exposed,
    totals: {
      tools: total((server) => server.served.length),
      openai: total((server) => server.tokens.openai),
      anthropic: total((server) => server.tokens.anthropic),
    },
  };
}

/**
 * How many things the check found, each a reason for exit code 1: an enabled server that is not up,
 * a policy note, an exposed file, a withheld tool, resource, template or prompt, a resource another
 * server keeps, an unsandboxed stdio server, a lint error.
 *
 * @example
 * process.exitCode = checkFindings(checkGateway(gateway, config, [])) > 0 ? 1 : 0;
 */
export function checkFindings(check: GatewayCheck): number {
  const failed = check.servers.filter((server) => server.enabled && server.state !== 'up');
  return (
    failed.length +
    check.policy.length +
    check.exposed.length +
    check.servers.reduce(
      (sum, server) =>
        sum +
        server.withheld.length +
        server.catalog.withheld.length +
        server.catalog.shadowed.length +
        (server.unsandboxed ? 1 : 0) +
        server.lint.errors,
      0,
    )
  );
}
