import type { AnyTool } from '../contract/tool.js';
import { checkPolicy } from '../policy/check-policy.js';
import type { Policy } from '../policy/policy.js';
import type { ExposedGatewayFile } from './config/own-files.js';
import type { GatewayServer } from './config/types.js';
import { markedFindings } from './poisoning.js';

/** What `gateway check` says about one server beyond its state: roots, hints, hidden instructions. */
export interface ServerNotes {
  /** The folders its relative paths are read against, and where they came from. */
  readonly roots: { readonly folders: readonly string[]; readonly from: GatewayServer['rootsFrom'] };
  /** Served tools whose server says they are read-only while the config gives them no category. */
  readonly claimedReadOnly: readonly string[];
  /** Hidden-instruction findings at error level, with the text marked. */
  readonly hiddenInstructions: readonly {
    readonly tool: string;
    readonly rule: string;
    readonly path: string;
    readonly message: string;
    /** The field's text around the finding, with the finding between » and «. */
    readonly marked: string;
  }[];
}

/**
 * The notes of one server for `gateway check`: its roots, the tools its server claims are read-only
 * (a hint the gate never uses: the category comes from the config), and hidden instructions in its
 * tools' definitions, each with the text marked.
 *
 * @example
 * const notes = serverNotes(spec, tools);
 * notes.hiddenInstructions[0]?.marked; // '… this tool, »<important>« read ~/.ssh …'
 */
export function serverNotes(spec: GatewayServer, tools: readonly AnyTool[]): ServerNotes {
  const claimedReadOnly = tools
    .filter((tool) => tool.meta.inferredCategory === true && tool.contract.effects.readOnly)
    .map((tool) => tool.contract.name);
  const hiddenInstructions = tools.flatMap((tool) =>
    markedFindings({
      name: tool.contract.name,
      ...(tool.contract.title ? { title: tool.contract.title } : {}),
      description: tool.contract.description,
      inputSchema: tool.contract.parameters,
    }).map((finding) => ({ tool: tool.contract.name, ...finding })),
  );
  return {
    roots: { folders: spec.roots, from: spec.rootsFrom },
    claimedReadOnly,
    hiddenInstructions,
  };
}

/**
 * The gateway's policy as `toolpact policy check` reads it: the rules that can never decide, as
 * lines for the operator.
 *
 * @example
 * for (const line of policyNotes(policy, 'gateway.json#toolpact.policy')) io.stdout(`${line}\n`);
 */
export function policyNotes(policy: Policy, where: string): string[] {
  const report = checkPolicy(policy, where);
  return [
    ...report.rules
      .filter((rule) => rule.neverDecides)
      .map((rule) => `policy: rule "${rule.id}" never decides: ${rule.neverDecides?.why}`),
    ...report.refused.map((refused) => `policy: ${refused.message}`),
  ];
}

/**
 * A server that can reach one of the gateway's own files (its config, lock or policy), as a finding of
 * `gateway check`: counted in its exit status and listed in `--format json`, with a stable code.
 */
export interface ExposedFileFinding {
  readonly code: 'gateway_file_exposed';
  /** Always `error`: a model calling that server's tools could change what the gateway allows. */
  readonly severity: 'error';
  readonly server: string;
  readonly file: { readonly role: string; readonly path: string };
  /** How the server reaches it, and through which folder. */
  readonly via: ExposedGatewayFile['via'];
  readonly folder: string;
  readonly message: string;
}

/**
 * The findings of `gateway check` for servers that can reach the gateway's own files, sorted as
 * `exposedGatewayFiles` answers them (by server, then file).
 *
 * @example
 * const findings = exposedFileFindings(exposedGatewayFiles(config, gatewayFiles(config)));
 * findings[0]?.code; // 'gateway_file_exposed'
 */
export function exposedFileFindings(exposed: readonly ExposedGatewayFile[]): ExposedFileFinding[] {
  return exposed.map((found) => ({
    code: 'gateway_file_exposed',
    severity: 'error',
    server: found.server,
    file: { role: found.file.role, path: found.file.path },
    via: found.via,
    folder: found.folder,
    message: `${found.server} can reach the gateway's ${found.file.role} ${found.file.path} (through ${found.via} ${found.folder}): a model could change what the gateway allows through it. Move the ${found.file.role} outside (toolpact gateway init writes it in ~/.config/toolpact/), or narrow the server's folders.`,
  }));
}
