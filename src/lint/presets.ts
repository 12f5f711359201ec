import type { LintSeverity } from './types.js';

/** A preset: a severity for each rule it turns on; rules it leaves out are off. */
export type LintPreset = { readonly [rule: string]: LintSeverity };

/** The names of the presets, for `extends`. */
export type PresetName = 'recommended' | 'strict';

/**
 * `recommended`: errors only where a provider refuses the request or a model is sure to go wrong
 * (an unknown tool named, a read tool that writes, a credential asked of the model, a default that
 * dispatch would fill in and then refuse); the checklist as warnings.
 */
const recommended: LintPreset = {
  'category-effects-agree': 'error',
  'consistent-naming-style': 'warning',
  'consistent-parameter-names': 'warning',
  'default-matches-schema': 'error',
  'description-edges': 'warning',
  'description-max-length': 'warning',
  'description-purpose': 'warning',
  'description-usage': 'warning',
  'distinct-descriptions': 'warning',
  'max-tools': 'warning',
  'name-collision': 'warning',
  'name-portable': 'warning',
  'no-concealment': 'error',
  'no-credential-parameters': 'error',
  'no-generic-name': 'warning',
  'no-hidden-text': 'error',
  'no-injected-directives': 'error',
  'no-manipulative-wording': 'error',
  'no-secret-access': 'error',
  'no-tool-shadowing': 'error',
  'no-unknown-tool-reference': 'error',
  'parameter-semantics': 'warning',
  'provider-compatibility': 'error',
  'required-with-default': 'warning',
  'result-content-supported': 'warning',
  'side-effects-stated': 'warning',
  'token-budget': 'warning',
};

/**
 * `strict`: every rule on; parameter semantics, side effects, portable names and the provider limits as
 * errors. description-purpose stays a warning: judged by hand on BFCL, about half of its findings were
 * tools whose name already says everything ("Reverses a given string.").
 */
const strict: LintPreset = {
  ...recommended,
  'description-max-length': 'error',
  'description-min-sentences': 'warning',
  'description-purpose': 'warning',
  'name-collision': 'error',
  'name-portable': 'error',
  'name-verb-noun': 'info',
  'no-ambiguous-parameter-names': 'warning',
  'parameter-semantics': 'error',
  'side-effects-stated': 'error',
};

/** The built-in presets. */
export const PRESETS: { readonly [Name in PresetName]: LintPreset } = Object.freeze({ recommended, strict });
