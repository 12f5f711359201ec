import type { ProviderFormat, SchemaDiagnostic } from './types.js';

/**
 * The codes of {@link SchemaDiagnostic}, each with the severity it is reported at.
 *
 * @example
 * DIAGNOSTIC_CODES.strict_unsupported; // 'error'
 */
export const DIAGNOSTIC_CODES = Object.freeze({
  /** The name breaks the provider's rule and is sent as a deterministic alias. */
  name_aliased: 'info',
  /** A keyword was replaced by an exact equivalent the provider accepts. */
  keyword_rewritten: 'info',
  /** A constraint the provider cannot carry was moved into the description as words. */
  keyword_described: 'info',
  /** An annotation the provider does not read was left out (nothing the model needs). */
  keyword_omitted: 'info',
  /** An open object is closed for strict mode: fields the contract does not declare (but allows) cannot be sent. */
  object_closed: 'info',
  /** The return contract went into the description (the provider has no slot for it, or the option asked so). */
  returns_described: 'info',
  /**
   * The tool declares result content (`returns.content`) the provider's tool results cannot hold as
   * such; its envelope carries the blocks as JSON text there.
   */
  result_content_unsupported: 'warning',
  /** The provider is told a wider shape than the contract allows; validation still enforces the contract. */
  shape_widened: 'warning',
  /** The provider is told a narrower shape than the contract allows: some valid arguments can no longer be sent. */
  shape_narrowed: 'warning',
  /** A keyword outside the provider's documented subset was kept; the provider may ignore or refuse it. */
  outside_subset: 'warning',
  /** The root of the parameters is not a plain object schema. */
  root_not_object: 'error',
  /** Strict mode cannot express this part of the schema. */
  strict_unsupported: 'error',
  /** A recursive schema, which this target cannot carry. */
  recursive_schema: 'error',
  /** A property name the target refuses. */
  invalid_property_name: 'error',
  /** A `$ref` that does not point into the schema. */
  unresolved_ref: 'error',
  /** A documented size limit of the provider is exceeded. */
  limit_exceeded: 'error',
} as const satisfies { readonly [code: string]: SchemaDiagnostic['severity'] });

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

/**
 * Collects the diagnostics of one adapter run. The text of each comes from one place
 * ({@link renderDiagnostic}); callers give the code and the facts.
 */
export class DiagnosticSink {
  readonly list: SchemaDiagnostic[] = [];
  constructor(readonly format: ProviderFormat) {}

  report(
    tool: string,
    path: string,
    code: DiagnosticCode,
    detail: string,
    severity?: SchemaDiagnostic['severity'],
  ): void {
    this.list.push({
      severity: severity ?? DIAGNOSTIC_CODES[code],
      tool,
      path,
      code,
      message: renderDiagnostic(code, detail, this.format),
      format: this.format,
    });
  }

  /** A reporter bound to one tool. */
  forTool(tool: string): ToolDiagnostics {
    return {
      tool,
      report: (path, code, detail, severity) => this.report(tool, path, code, detail, severity),
    };
  }
}

/** A {@link DiagnosticSink} bound to one tool. */
export interface ToolDiagnostics {
  readonly tool: string;
  readonly report: (
    path: string,
    code: DiagnosticCode,
    detail: string,
    severity?: SchemaDiagnostic['severity'],
  ) => void;
}

const TARGETS: { readonly [F in ProviderFormat]: string } = {
  canonical: 'the canonical contract',
  openai: 'OpenAI Chat Completions',
  'openai-responses': 'the OpenAI Responses API',
  anthropic: 'Anthropic',
  gemini: 'Gemini',
  mcp: 'MCP',
};

/** The sentence of a diagnostic: what happened, for which target, and what to do when it is a problem. */
export function renderDiagnostic(code: DiagnosticCode, detail: string, format: ProviderFormat): string {
  const target = TARGETS[format];
  switch (code) {
    case 'name_aliased':
      return `${detail}; ${target} refuses the name, and calls that come back under the alias are mapped to the real name.`;
    case 'keyword_rewritten':
      return `${detail} (an exact equivalent ${target} accepts).`;
    case 'keyword_described':
      return `${detail}: ${target} cannot carry it, so it is stated in the description; arguments are still validated against the contract.`;
    case 'keyword_omitted':
      return `${detail}: ${target} does not read it.`;
    case 'object_closed':
      return `${detail}, as strict mode on ${target} requires; undeclared fields, which the contract allows, can no longer be sent.`;
    case 'returns_described':
      return `The return contract is told to ${target} in words: ${detail}.`;
    case 'result_content_unsupported':
      return `${detail}; a tool result on ${target} cannot hold such blocks, so the model reads them as JSON text in the envelope (binary data as base64). Answer text there, or serve this tool over MCP.`;
    case 'shape_widened':
      return `${detail}; ${target} is told a wider shape than the contract allows, and calls outside the contract are rejected at validation.`;
    case 'shape_narrowed':
      return `${detail}; the model can no longer send such arguments to ${target}, although the contract accepts them.`;
    case 'outside_subset':
      return `${detail} is outside the schema subset ${target} documents; it is kept, but the provider may ignore or refuse it.`;
    case 'root_not_object':
      return `${detail}; ${target} needs the parameters to be one object schema at the root. Wrap the alternatives in a property instead.`;
    case 'strict_unsupported':
      return `${detail}; strict mode on ${target} cannot express it. Change the schema, or send this tool without strict mode.`;
    case 'recursive_schema':
      return `${detail}; ${target} cannot carry recursive schemas here. Bound the depth in the contract${format === 'gemini' ? ', or use the json-schema form (gemini: "json-schema")' : ', or send it without strict mode'}.`;
    case 'invalid_property_name':
      return `${detail}; rename the property${format === 'gemini' ? ', or use the json-schema form (gemini: "json-schema")' : ''}.`;
    case 'unresolved_ref':
      return `${detail}; only local references into the same schema ("#/$defs/…") can be sent.`;
    case 'limit_exceeded':
      return `${detail}; ${target} refuses requests beyond this limit. Split the tool set or simplify the schema.`;
    default: {
      const exhaustive: never = code;
      return String(exhaustive);
    }
  }
}
