import type { ErrorObject } from 'ajv';
import { sharedAjv } from '../dispatch/validate-json-schema.js';
import { closestNames } from '../util/closest.js';
import { PRESETS, type PresetName } from './presets.js';
import { RULES } from './rules/index.js';
import type { AnyLintRule, LintSeverity } from './types.js';

/** A rule's severity as configuration writes it; `warn` is accepted for `warning`, as ESLint spells it. */
export type SeveritySetting = 'off' | 'info' | 'warn' | 'warning' | 'error';

/** One rule's setting: a severity, or a severity and options. */
export type RuleSetting = SeveritySetting | readonly [SeveritySetting] | readonly [SeveritySetting, object];

/** The `lint` section of toolpact's configuration. */
export interface LintConfig {
  /** The preset to start from (default `recommended`). */
  readonly extends?: PresetName;
  /** Severities and options per rule, over the preset. */
  readonly rules?: { readonly [rule: string]: RuleSetting };
}

/** A rule switched on, with its severity and its options (defaults filled in). */
export interface ConfiguredRule {
  readonly rule: AnyLintRule;
  readonly severity: LintSeverity;
  readonly options: unknown;
}

/** A configuration checked and applied: the rules that will run. */
export interface ResolvedLintConfig {
  readonly resolved: true;
  readonly rules: readonly ConfiguredRule[];
  /** Every rule that could be configured, by name (built-in and extra). */
  readonly available: { readonly [name: string]: AnyLintRule };
}

/** A lint configuration that cannot work: the message names the place, what came and what is allowed. */
export class LintConfigError extends Error {
  override readonly name = 'LintConfigError';
}

const SEVERITIES: { readonly [setting: string]: LintSeverity | 'off' } = {
  off: 'off',
  info: 'info',
  warn: 'warning',
  warning: 'warning',
  error: 'error',
};

/**
 * Checks a `lint` configuration section and applies it over its preset. Every mistake throws a
 * {@link LintConfigError} naming where it is: an unknown rule (with the closest names), a bad
 * severity, options that do not match the rule's options schema.
 *
 * @example
 * const config = resolveLintConfig({ extends: 'strict', rules: { 'max-tools': ['warn', { max: 40 }] } });
 */
export function resolveLintConfig(
  config: unknown = {},
  options: { readonly source?: string; readonly extraRules?: readonly AnyLintRule[] } = {},
): ResolvedLintConfig {
  const where = options.source ? `${options.source} (lint)` : 'the lint configuration';
  const available: { [name: string]: AnyLintRule } = { ...RULES };
  for (const rule of options.extraRules ?? []) {
    if (Object.hasOwn(available, rule.name))
      throw new LintConfigError(
        `Lint rule "${rule.name}" is defined twice; give the extra rule another name.`,
      );
    available[rule.name] = rule;
  }
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new LintConfigError(
      `${where} must be an object such as { "extends": "recommended", "rules": {} }, received ${describe(config)}.`,
    );
  }
  const section = config as { [key: string]: unknown };
  for (const key of Object.keys(section)) {
    if (key !== 'extends' && key !== 'rules')
      throw new LintConfigError(`${where} has an unknown key "${key}"; the keys are "extends" and "rules".`);
  }
  const presetName = section.extends ?? 'recommended';
  if (typeof presetName !== 'string' || !Object.hasOwn(PRESETS, presetName)) {
    throw new LintConfigError(
      `${where}: "extends" must be one of ${Object.keys(PRESETS)
        .map((name) => `"${name}"`)
        .join(', ')}, received ${describe(presetName)}.`,
    );
  }
  const settings = new Map<string, { severity: LintSeverity | 'off'; options?: unknown }>();
  for (const [name, severity] of Object.entries(PRESETS[presetName as PresetName]))
    settings.set(name, { severity });
  const rules = section.rules ?? {};
  if (rules === null || typeof rules !== 'object' || Array.isArray(rules)) {
    throw new LintConfigError(
      `${where}: "rules" must be an object from rule names to settings, received ${describe(rules)}.`,
    );
  }
  for (const [name, setting] of Object.entries(rules as { [name: string]: unknown })) {
    if (!Object.hasOwn(available, name)) {
      const close = closestNames(name, Object.keys(available), 2);
      throw new LintConfigError(
        `${where}: there is no lint rule "${name}"${close.length ? `; did you mean ${close.map((item) => `"${item}"`).join(' or ')}?` : '.'}`,
      );
    }
    settings.set(name, parseSetting(setting, `${where}: rule "${name}"`));
  }
  const configured: ConfiguredRule[] = [];
  for (const name of Object.keys(available).sort()) {
    const setting = settings.get(name);
    if (!setting || setting.severity === 'off') continue;
    const rule = available[name]!;
    configured.push({ rule, severity: setting.severity, options: ruleOptions(rule, setting.options, where) });
  }
  return Object.freeze({
    resolved: true as const,
    rules: Object.freeze(configured),
    available: Object.freeze(available),
  });
}

function parseSetting(
  setting: unknown,
  where: string,
): { severity: LintSeverity | 'off'; options?: unknown } {
  const [severity, options, ...extra] = Array.isArray(setting) ? setting : [setting];
  if (typeof severity !== 'string' || !Object.hasOwn(SEVERITIES, severity) || extra.length > 0) {
    throw new LintConfigError(
      `${where} must be "off", "info", "warn", "warning" or "error", or [severity, options], received ${describe(setting)}.`,
    );
  }
  return { severity: SEVERITIES[severity]!, ...(options !== undefined ? { options } : {}) };
}

function ruleOptions(rule: AnyLintRule, given: unknown, where: string): unknown {
  if (given === undefined) return rule.meta.defaultOptions;
  const validate = sharedAjv().compile(rule.meta.schema as object);
  const copy = structuredClone(given);
  if (!validate(copy)) {
    const problems = (validate.errors ?? []).map(describeAjvError).join('; ');
    throw new LintConfigError(
      `${where}: the options of rule "${rule.name}" are invalid: ${problems}. See ${rule.meta.docs}.`,
    );
  }
  return Object.freeze({ ...(rule.meta.defaultOptions as object), ...(copy as object) });
}

function describeAjvError(error: ErrorObject): string {
  const at = error.instancePath ? error.instancePath.slice(1).replace(/\//g, '.') : 'options';
  if (error.keyword === 'additionalProperties') {
    return `${at} has an unknown option "${(error.params as { additionalProperty: string }).additionalProperty}"`;
  }
  return `${at} ${error.message ?? 'is invalid'}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array (${JSON.stringify(value).slice(0, 60)})`;
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
