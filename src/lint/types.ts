import type { JsonSchema, ToolContract } from '../contract/index.js';

/** How much a finding matters: `error` fails the run, `warning` counts against `--max-warnings`, `info` only informs. */
export type LintSeverity = 'error' | 'warning' | 'info';

/** What a rule looks for: a `problem` a model or provider will trip on, or a `suggestion` that improves the contract. */
export type RuleType = 'problem' | 'suggestion';

/** One finding: data first, the message rendered from the rule's meta in one place. */
export interface LintFinding {
  readonly rule: string;
  readonly severity: LintSeverity;
  /** The tool the finding is about; undefined for a finding about the whole set. */
  readonly tool: string | undefined;
  /** Where in the contract, as a JSONPath: `$.description`, `$.parameters.properties.path`, `$.name`; `$` for the set. */
  readonly path: string;
  readonly messageId: string;
  readonly data: { readonly [key: string]: string | number };
  readonly message: string;
  /** Other tools the finding names (the neighbour, the near-duplicate, the colliding name). */
  readonly related: readonly string[];
  /** The marked stretch of the string at `path`, when the finding points into a text. */
  readonly span?: TextSpan;
}

/** A marked stretch of a text: UTF-16 offsets into the string at a finding's path, and the text itself. */
export interface TextSpan {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** The self-description of a rule: what formatters, docs and configuration read. */
export interface RuleMeta<MessageId extends string = string, Options = unknown> {
  readonly type: RuleType;
  /** One imperative line; the rule's docs page repeats it verbatim. */
  readonly description: string;
  /** The rule's docs page. */
  readonly docs: string;
  /** Message templates with `{placeholder}`s filled from a finding's data. */
  readonly messages: { readonly [Id in MessageId]: string };
  /** JSON Schema (draft 2020-12) of the options object. */
  readonly schema: JsonSchema;
  readonly defaultOptions: Options;
  /** True when the rule reads wording, and so works on English and Chinese text. */
  readonly wording: boolean;
}

/** A view of one tool for the rules: the contract plus precomputed text analysis. */
export interface LintTool {
  readonly contract: ToolContract;
  readonly name: string;
  /** Rule names the definition switches off (`meta.lint.disable`). */
  readonly disabled: ReadonlySet<string>;
  /** The name split into lower-case words (`read_file`, `readFile`, `math.factorial` → words). */
  readonly nameWords: readonly string[];
  /** The description's sentences, English and Chinese punctuation both. */
  readonly sentences: readonly string[];
  /** Lower-case words of the description: ASCII words (stemmed) plus Chinese character bigrams. */
  readonly words: ReadonlySet<string>;
  /** Lower-case identifier-like tokens of the description (`read_file`, `math.factorial`, `grep`), for name look-ups. */
  readonly identifiers: ReadonlySet<string>;
}

/** What a finding is reported with; severity and message are added by the runner. */
export interface ReportDescriptor<MessageId extends string> {
  readonly tool?: LintTool;
  readonly path: string;
  readonly messageId: MessageId;
  readonly data?: { readonly [key: string]: string | number };
  readonly related?: readonly string[];
  /** The marked stretch of the string at `path`. */
  readonly span?: TextSpan;
  /**
   * Weak evidence: the finding is reported one severity below the rule's (error → warning,
   * warning → info), for a rule whose findings range from certain to merely suspicious.
   */
  readonly weak?: boolean;
}

/** What a rule sees: its options, the whole set, and where to report. */
export interface RuleContext<MessageId extends string, Options> {
  readonly options: Options;
  readonly tools: readonly LintTool[];
  /** Every tool name in the set. */
  readonly toolNames: ReadonlySet<string>;
  /** Every parameter name in the set (top-level and nested). */
  readonly parameterNames: ReadonlySet<string>;
  /** Facts that come from the provider adapters (tokens, refusals), computed once when a rule asks. */
  readonly providers: ProviderFacts;
  report(descriptor: ReportDescriptor<MessageId>): void;
}

/** Token counts and refusals, from the schema adapters. */
export interface ProviderFacts {
  /** Tokens of each tool's definition in `format`, and of the whole set. */
  tokens(format: string): {
    readonly perTool: ReadonlyMap<string, number>;
    readonly total: number;
    /** `'estimated'` when the optional tokenizer is not installed (see `tokenCounting`). */
    readonly counting?: 'exact' | 'estimated';
  };
  /** The adapters' diagnostics for `format`. */
  diagnostics(format: string): readonly ProviderDiagnostic[];
}

/** An adapter's diagnostic, as the schema adapters report it. */
export interface ProviderDiagnostic {
  readonly severity: LintSeverity;
  readonly tool: string;
  readonly path: string;
  readonly code: string;
  readonly message: string;
  readonly format: string;
}

/** A rule: its meta and the check it runs over a tool set. */
export interface LintRule<MessageId extends string = string, Options = unknown> {
  readonly name: string;
  readonly meta: RuleMeta<MessageId, Options>;
  readonly check: (context: RuleContext<MessageId, Options>) => void;
}

/** Any rule, whatever its messages and options. */
// biome-ignore lint/suspicious/noExplicitAny: a rule table holds rules of every option type.
export type AnyLintRule = LintRule<string, any>;
