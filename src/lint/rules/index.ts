import type { AnyLintRule } from '../types.js';
import { categoryEffectsAgree } from './category-effects-agree.js';
import { consistentNamingStyle } from './consistent-naming-style.js';
import { consistentParameterNames } from './consistent-parameter-names.js';
import { defaultMatchesSchema } from './default-matches-schema.js';
import { descriptionEdges } from './description-edges.js';
import { descriptionMaxLength } from './description-max-length.js';
import { descriptionMinSentences } from './description-min-sentences.js';
import { descriptionPurpose } from './description-purpose.js';
import { descriptionUsage } from './description-usage.js';
import { distinctDescriptions } from './distinct-descriptions.js';
import { maxTools } from './max-tools.js';
import { nameCollision } from './name-collision.js';
import { namePortable } from './name-portable.js';
import { nameVerbNoun } from './name-verb-noun.js';
import { noAmbiguousParameterNames } from './no-ambiguous-parameter-names.js';
import { noConcealment } from './no-concealment.js';
import { noCredentialParameters } from './no-credential-parameters.js';
import { noGenericName } from './no-generic-name.js';
import { noHiddenText } from './no-hidden-text.js';
import { noInjectedDirectives } from './no-injected-directives.js';
import { noManipulativeWording } from './no-manipulative-wording.js';
import { noSecretAccess } from './no-secret-access.js';
import { noToolShadowing } from './no-tool-shadowing.js';
import { noUnknownToolReference } from './no-unknown-tool-reference.js';
import { parameterSemantics } from './parameter-semantics.js';
import { providerCompatibility } from './provider-compatibility.js';
import { requiredWithDefault } from './required-with-default.js';
import { resultContentSupported } from './result-content-supported.js';
import { sideEffectsStated } from './side-effects-stated.js';
import { tokenBudget } from './token-budget.js';

/** Every built-in rule, by name. A test checks this table against the files of this folder. */
export const RULES: { readonly [name: string]: AnyLintRule } = Object.freeze(
  Object.fromEntries(
    [
      categoryEffectsAgree,
      consistentNamingStyle,
      consistentParameterNames,
      defaultMatchesSchema,
      descriptionEdges,
      descriptionMaxLength,
      descriptionMinSentences,
      descriptionPurpose,
      descriptionUsage,
      distinctDescriptions,
      maxTools,
      nameCollision,
      namePortable,
      nameVerbNoun,
      noAmbiguousParameterNames,
      noCredentialParameters,
      noGenericName,
      noConcealment,
      noHiddenText,
      noInjectedDirectives,
      noManipulativeWording,
      noSecretAccess,
      noToolShadowing,
      noUnknownToolReference,
      parameterSemantics,
      providerCompatibility,
      requiredWithDefault,
      resultContentSupported,
      sideEffectsStated,
      tokenBudget,
    ].map((rule) => [rule.name, rule as AnyLintRule]),
  ),
);
