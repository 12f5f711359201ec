import type { ToolContract } from '../contract/index.js';
import type { ProviderFormat } from './types.js';

/** One provider naming rule: the names it accepts, and how any other name is made to fit. */
interface NameRule {
  /** Short id, shared by the formats with the same rule (used in collision keys). */
  readonly id: string;
  readonly pattern: RegExp;
  /** Characters that may stay; every other one becomes `_`. */
  readonly allowed: RegExp;
  /** Whether the first character must be a letter or `_`. */
  readonly letterFirst: boolean;
  readonly maxLength: number;
}

// OpenAI and Anthropic document ^[a-zA-Z0-9_-]{1,64}$ (provider-rules §1.1.1, §1.2.1).
const OPENAI_ANTHROPIC: NameRule = {
  id: 'openai-anthropic',
  pattern: /^[A-Za-z0-9_-]{1,64}$/,
  allowed: /[A-Za-z0-9_-]/,
  letterFirst: false,
  maxLength: 64,
};
// Gemini: a letter or "_" first, then letters, digits, "_", ".", ":" or "-". The API surfaces differ on
// the length (64 on Vertex and in the SDK's own doc string, 128 in newer python-genai), so 64 it is.
const GEMINI: NameRule = {
  id: 'gemini',
  pattern: /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/,
  allowed: /[A-Za-z0-9_.:-]/,
  letterFirst: true,
  maxLength: 64,
};

function ruleOf(format: ProviderFormat): NameRule | undefined {
  switch (format) {
    case 'openai':
    case 'openai-responses':
    case 'anthropic':
      return OPENAI_ANTHROPIC;
    case 'gemini':
      return GEMINI;
    case 'mcp':
    case 'canonical':
      // Every registered name already fits MCP's SEP-986 profile.
      return undefined;
    default: {
      const exhaustive: never = format;
      return exhaustive;
    }
  }
}

/**
 * The name a tool goes by at one provider: the name itself when the provider accepts it, otherwise a
 * deterministic alias (characters the provider refuses become `_`; a name that is still too long keeps
 * its first characters and ends in a hash of the whole name). The same name always gives the same alias.
 *
 * @example
 * providerToolName('math.factorial', 'openai'); // 'math_factorial'
 * providerToolName('math.factorial', 'gemini'); // 'math.factorial'
 */
export function providerToolName(name: string, format: ProviderFormat): string {
  const rule = ruleOf(format);
  return rule ? aliasUnder(rule, name) : name;
}

function aliasUnder(rule: NameRule, name: string): string {
  if (rule.pattern.test(name)) return name;
  let alias = '';
  for (const character of name) alias += rule.allowed.test(character) ? character : '_';
  if (alias === '') alias = '_';
  if (rule.letterFirst && !/^[A-Za-z_]/.test(alias)) alias = `_${alias}`;
  if (alias.length > rule.maxLength) {
    const hash = fnv1a(name);
    alias = `${alias.slice(0, rule.maxLength - hash.length - 1)}_${hash}`;
  }
  return alias;
}

/** 32-bit FNV-1a of the UTF-16 code units, as 8 hex digits: short, stable, and enough to separate long names. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/**
 * The keys under which a name is known at each naming rule. Two tools whose keys meet would reach one
 * provider under the same name, so a registry refuses the second (see `Registry#register`).
 *
 * @example
 * nameKeys('a.b'); // ['openai-anthropic:a_b', 'gemini:a.b']
 */
export function nameKeys(name: string): string[] {
  return [OPENAI_ANTHROPIC, GEMINI].map((rule) => `${rule.id}:${aliasUnder(rule, name)}`);
}

/** Which providers a name key belongs to, for messages. */
export function describeNameKey(key: string): string {
  return key.startsWith('gemini:') ? 'Gemini' : 'OpenAI and Anthropic';
}

/** Both directions of the names of one tool set at one provider. */
export interface ToolNameMap {
  /** The provider's name for a contract name. */
  readonly toProvider: (name: string) => string;
  /** The contract name for a name the provider sent back (unchanged when it is no alias). */
  readonly fromProvider: (name: string) => string;
}

/**
 * The name mapping of a tool set at one provider.
 *
 * @example
 * const names = toolNameMap(registry.schemas(), 'openai');
 * names.fromProvider('math_factorial'); // 'math.factorial'
 */
export function toolNameMap(
  contracts: readonly Pick<ToolContract, 'name'>[],
  format: ProviderFormat,
): ToolNameMap {
  const back = new Map<string, string>();
  for (const { name } of contracts) {
    const alias = providerToolName(name, format);
    if (alias !== name && !back.has(alias)) back.set(alias, name);
  }
  return {
    toProvider: (name) => providerToolName(name, format),
    fromProvider: (name) => back.get(name) ?? name,
  };
}
