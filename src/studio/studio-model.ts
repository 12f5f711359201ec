import { CATEGORY_DEFAULTS, type ToolContract } from '../contract/index.js';
import type { AnyTool } from '../contract/tool.js';
import type { Prompt } from '../define/define-prompt.js';
import type { Resource } from '../define/define-resource.js';
import { lint } from '../lint/lint.js';
import type { LintFinding } from '../lint/types.js';
import type { PolicyDecision, PolicyGate } from '../policy/policy-gate.js';
import { promptContract, resourceContract } from '../registry/offering-requests.js';
import { type OfferingRows, offeringRows } from '../registry/offering-rows.js';
import type { Registry } from '../registry/registry.js';
import { toProviderTools } from '../schema/to-provider-tools.js';
import { countTokens } from '../schema/tokens.js';
import type { SchemaDiagnostic } from '../schema/types.js';
import { type DiffLine, diffJson } from './json-diff.js';

/**
 * The provider formats the studio shows beside the canonical contract, in display order.
 *
 * @example
 * for (const format of STUDIO_FORMATS) console.log(format, registry.schemas(format).length);
 */
export const STUDIO_FORMATS = ['openai', 'openai-responses', 'anthropic', 'gemini', 'mcp'] as const;

/** One of {@link STUDIO_FORMATS}. */
export type StudioFormat = (typeof STUDIO_FORMATS)[number];

/** Tokens of something in each provider format. */
export type TokensByFormat = { readonly [Format in StudioFormat]: number };

/** A lint finding as the page shows it. */
export interface StudioFinding {
  readonly rule: string;
  readonly severity: LintFinding['severity'];
  readonly tool: string | null;
  readonly path: string;
  readonly message: string;
  /** The words of the description the finding points at, when it names them. */
  readonly excerpt: string | null;
  readonly related: readonly string[];
}

/** The gate's decision for a call without arguments, under the active policy. */
export interface StudioPermission {
  readonly action: PolicyDecision['action'];
  readonly rule: string | null;
  readonly reason: string | null;
}

/** One row of the tool list. */
export interface StudioToolRow {
  readonly name: string;
  readonly title: string | null;
  readonly category: ToolContract['category'];
  readonly risk: string;
  readonly effects: ToolContract['effects'];
  readonly source: string;
  readonly permission: StudioPermission;
  readonly findings: readonly StudioFinding[];
  readonly tokens: TokensByFormat;
}

/** A resource (or template) of the set view, with the gate's decision for reading it. */
export type StudioResourceRow = OfferingRows['resources'][number] & { readonly permission: StudioPermission };

/** A prompt of the set view, with the gate's decision for getting it. */
export type StudioPromptRow = OfferingRows['prompts'][number] & { readonly permission: StudioPermission };

/** Everything the list and the set view show. */
export interface StudioOverview {
  readonly tools: readonly StudioToolRow[];
  /**
   * The registry's resources and templates, each with the gate's decision for a read of its URI (a
   * template's as written: a rule on the URIs it fills decides per read, in the playground of a client).
   */
  readonly resources: readonly StudioResourceRow[];
  /** The registry's prompts, each with the gate's decision for a get without arguments. */
  readonly prompts: readonly StudioPromptRow[];
  /** Findings about the whole set or about several tools at once (`path` beside `file_path`, near-duplicates). */
  readonly setFindings: readonly StudioFinding[];
  /** Tokens of the whole `tools` array in each format. */
  readonly totals: TokensByFormat;
  readonly errorCount: number;
  readonly warningCount: number;
}

/** One provider's exact payload for one tool, and how it differs from the canonical contract. */
export interface StudioPayload {
  readonly format: StudioFormat;
  /** Exactly `registry.schemas(format)[index]`. */
  readonly payload: unknown;
  readonly tokens: number;
  readonly diagnostics: readonly Pick<SchemaDiagnostic, 'severity' | 'path' | 'code' | 'message'>[];
  readonly diff: readonly DiffLine[];
}

/** A tool's page. */
export interface StudioToolDetail {
  readonly row: StudioToolRow;
  readonly contract: ToolContract;
  readonly canonicalTokens: number;
  readonly payloads: readonly StudioPayload[];
}

/**
 * Builds the list and set views of a registry: lint, tokens per provider and the gate's real decision
 * for each tool (the policy, the sandbox requirement and any session approval, asked without arguments,
 * so rules on argument values decide per call in the playground).
 *
 * @example
 * const overview = await studioOverview(registry, createPolicyGate(policy));
 * overview.tools[0]?.permission; // { action: 'ask', rule: 'default:write', reason: '…' }
 */
export async function studioOverview(registry: Registry, gate: PolicyGate): Promise<StudioOverview> {
  const tools = registry.list();
  const contracts = registry.schemas();
  const result = lint(registry);
  const findings = result.findings.map((finding) => toStudioFinding(finding, tools));
  const perFormat = Object.fromEntries(
    STUDIO_FORMATS.map((format) => [format, registry.schemas(format).map(tokensOf)]),
  ) as { [Format in StudioFormat]: number[] };
  const totals = Object.fromEntries(
    STUDIO_FORMATS.map((format) => [format, tokensOf(registry.schemas(format))]),
  ) as unknown as TokensByFormat;
  const permissions = await Promise.all(tools.map((tool) => permissionOf(tool, gate)));
  const rows = contracts.map(
    (contract, index): StudioToolRow => ({
      name: contract.name,
      title: contract.title ?? null,
      category: contract.category,
      risk: CATEGORY_DEFAULTS[contract.category].risk,
      effects: contract.effects,
      source: sourceLabel(tools[index]!),
      permission: permissions[index]!,
      findings: findings.filter((finding) => finding.tool === contract.name),
      tokens: Object.fromEntries(
        STUDIO_FORMATS.map((format) => [format, perFormat[format][index] ?? 0]),
      ) as unknown as TokensByFormat,
    }),
  );
  const offerings = offeringRows(registry);
  const resourceDefinitions = registry.resources?.() ?? [];
  const promptDefinitions = registry.prompts?.() ?? [];
  const resources = await Promise.all(
    offerings.resources.map(async (row, index) => ({
      ...row,
      permission: await offeringPermission(gate, 'resource', resourceDefinitions[index], { uri: row.uri }),
    })),
  );
  const prompts = await Promise.all(
    offerings.prompts.map(async (row, index) => ({
      ...row,
      permission: await offeringPermission(gate, 'prompt', promptDefinitions[index], {}),
    })),
  );
  return {
    tools: rows,
    resources,
    prompts,
    setFindings: findings.filter((finding) => finding.tool === null || finding.related.length > 0),
    totals,
    errorCount: result.errorCount,
    warningCount: result.warningCount,
  };
}

/**
 * A tool's page: its row, its contract, and each provider's exact payload with the adapter's
 * diagnostics, its token count and a line diff against the canonical contract. Undefined for a name
 * that is not registered.
 *
 * @example
 * const detail = studioToolDetail(registry, overview, 'read_file');
 * detail?.payloads.find((payload) => payload.format === 'anthropic')?.payload; // { name, description, input_schema }
 */
export function studioToolDetail(
  registry: Registry,
  overview: StudioOverview,
  name: string,
): StudioToolDetail | undefined {
  const contracts = registry.schemas();
  const index = contracts.findIndex((contract) => contract.name === name);
  const row = overview.tools.find((tool) => tool.name === name);
  if (index < 0 || !row) return undefined;
  const contract = contracts[index]!;
  const payloads = STUDIO_FORMATS.map((format): StudioPayload => {
    const payload = registry.schemas(format)[index];
    const diagnostics = toProviderTools([contract], format)
      .diagnostics.filter((diagnostic) => diagnostic.tool === name || diagnostic.tool === '*')
      .map(({ severity, path, code, message }) => ({ severity, path, code, message }));
    return {
      format,
      payload,
      tokens: tokensOf(payload),
      diagnostics,
      diff: diffJson(contract, payload),
    };
  });
  return { row, contract, canonicalTokens: tokensOf(contract), payloads };
}

function tokensOf(value: unknown): number {
  return countTokens(JSON.stringify(value));
}

async function permissionOf(tool: AnyTool, gate: PolicyGate): Promise<StudioPermission> {
  const decision = await gate.decide({
    tool: tool.contract,
    meta: tool.meta,
    arguments: {},
    callId: undefined,
    state: undefined,
  });
  return { action: decision.action, rule: decision.rule ?? null, reason: decision.reason ?? null };
}

/** The gate's decision for a read of a resource or a get of a prompt, as the registry would ask it. */
async function offeringPermission(
  gate: PolicyGate,
  target: 'resource' | 'prompt',
  definition: Resource | Prompt | undefined,
  args: Record<string, unknown>,
): Promise<StudioPermission> {
  if (!definition) return { action: 'allow', rule: null, reason: null };
  const decision = await gate.decide({
    target,
    tool:
      target === 'resource' ? resourceContract(definition as Resource) : promptContract(definition as Prompt),
    meta: definition.meta,
    arguments: args,
    callId: undefined,
    state: undefined,
  });
  return { action: decision.action, rule: decision.rule ?? null, reason: decision.reason ?? null };
}

function sourceLabel(tool: AnyTool): string {
  return typeof tool.meta.source === 'string' ? tool.meta.source : 'local';
}

// Findings that quote the description (a phrase, a sentence, a tool reference) can be marked where they point.
function toStudioFinding(finding: LintFinding, tools: readonly AnyTool[]): StudioFinding {
  const quoted = [finding.data.phrase, finding.data.reference, finding.data.sentence].find(
    (value): value is string => typeof value === 'string' && value !== '',
  );
  const description = tools.find((tool) => tool.contract.name === finding.tool)?.contract.description ?? '';
  const candidates = quoted === undefined ? [] : [quoted, quoted.replace(/…$/, '')];
  const excerpt =
    finding.path === '$.description'
      ? candidates.find((text) => text !== '' && description.includes(text))
      : undefined;
  return {
    rule: finding.rule,
    severity: finding.severity,
    tool: finding.tool ?? null,
    path: finding.path,
    message: finding.message,
    excerpt: excerpt ?? null,
    related: finding.related,
  };
}

/**
 * The tokens of an envelope's text, as the model would read it (o200k_base).
 *
 * @example
 * envelopeTokens('{"ok":true,"result":3}'); // 9
 */
export function envelopeTokens(text: string): number {
  return countTokens(text);
}
