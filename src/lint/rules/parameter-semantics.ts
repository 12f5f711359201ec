import { createRule } from '../create-rule.js';
import { type ParameterView, parametersOf, typesOf } from '../parameters.js';
import {
  ABSTRACT_NUMBER_CUE,
  hasCue,
  LENGTH_CUE,
  MEASURE_CUE,
  NUMBER_UNIT_CUE,
  PATH_BASE_CUE,
} from '../text/cues.js';
import { mentions, nameWords } from '../text/words.js';
import type { LintTool } from '../types.js';

const PATH_WORDS = new Set([
  'path',
  'file',
  'filename',
  'filepath',
  'dir',
  'directory',
  'folder',
  'cwd',
  'dirname',
]);
// Name words that carry their own unit or range: a count is a count, a year is a year.
const SELF_UNIT_WORDS = new Set([
  'count',
  'num',
  'number',
  'index',
  'idx',
  'id',
  'year',
  'years',
  'month',
  'months',
  'day',
  'days',
  'age',
  'seconds',
  'secs',
  'sec',
  'ms',
  'millis',
  'minutes',
  'mins',
  'hours',
  'percent',
  'percentage',
  'page',
  'limit',
  'offset',
  'port',
  'lat',
  'latitude',
  'lon',
  'lng',
  'longitude',
  'timestamp',
  'size',
  'bytes',
  'kb',
  'mb',
  'gb',
  'px',
  'line',
  'lines',
  'celsius',
  'fahrenheit',
  'usd',
  'km',
  'meters',
  'miles',
  'top',
]);

/** Checklist item 3: what each parameter means, relative to what, in which unit, in what range. */
export const parameterSemantics = createRule({
  name: 'parameter-semantics',
  meta: {
    type: 'problem',
    description:
      'Describe every parameter: what a path is relative to, a quantity’s unit or range, what each coded enum value means.',
    messages: {
      undescribed:
        'Parameter "{parameter}" of "{tool}" is not described. Say what it means and give an example value in its description.',
      pathBase:
        'Parameter "{parameter}" of "{tool}" is a path but does not say relative to what (the workspace root? the current directory?) or that it must be absolute.',
      numberUnit:
        'Parameter "{parameter}" of "{tool}" is a measurable quantity without a unit or range. Say the unit (seconds, bytes, km, …) or the allowed range, in words or with minimum/maximum.',
      enumUnexplained:
        'Parameter "{parameter}" of "{tool}" has coded values ({values}) that its description does not explain. Say what each one means.',
    },
    schema: {
      type: 'object',
      properties: { checkNested: { type: 'boolean' } },
      additionalProperties: false,
    },
    defaultOptions: { checkNested: true },
    wording: true,
  },
  check(context) {
    for (const tool of context.tools) {
      const parameters = parametersOf(tool.contract.parameters);
      // A unit parameter (from_unit, unit, 单位) says the unit of the numbers beside it.
      const unitsCancel =
        onlyLengths(tool, parameters) ||
        parameters.some((parameter) => nameWords(parameter.name).includes('unit'));
      for (const parameter of parameters) {
        if (parameter.depth > 0 && !context.options.checkNested) continue;
        const messageId = problemOf(parameter, textAbout(tool, parameter), unitsCancel);
        if (!messageId) continue;
        context.report({
          tool,
          path: parameter.path,
          messageId: messageId.id,
          data: { tool: tool.name, parameter: parameter.name, values: messageId.values ?? '' },
        });
      }
    }
  },
});

/** The parameter's own description and title, plus the sentences of the tool's description that name it. */
function textAbout(tool: LintTool, parameter: ParameterView): string {
  // An array described only on its items ("Show time for each movie") is described.
  const items = parameter.schema.items as { description?: unknown; title?: unknown } | undefined;
  const own = [parameter.schema.description, parameter.schema.title, items?.description, items?.title].filter(
    (text): text is string => typeof text === 'string',
  );
  if (parameter.depth === 0 && parameter.name.length >= 2) {
    for (const sentence of tool.sentences) if (mentions(sentence, parameter.name)) own.push(sentence);
  }
  return own.join(' ').trim();
}

/** The first words of a text, where its head noun is ("The width of …", "Length of the side …"; 等待多久). */
function head(text: string): string {
  return text.split(/\s+/).slice(0, 4).join(' ').slice(0, 24);
}

/** The words a number parameter is judged by: its name's words and the head of its text. */
function measureText(tool: LintTool, parameter: ParameterView): string {
  return `${nameWords(parameter.name).join(' ')} ${head(textAbout(tool, parameter))}`;
}

/**
 * True when every measured number of the tool is a length: then the lengths share whatever unit the
 * caller uses and the result comes back in it (an area from base and height), so no unit is needed.
 * A length beside a mass, a time or a temperature does need one.
 */
function onlyLengths(tool: LintTool, parameters: readonly ParameterView[]): boolean {
  const measured = parameters.filter((parameter) => {
    const types = typesOf(parameter.schema);
    return (
      types.length > 0 &&
      types.every((type) => type === 'integer' || type === 'number') &&
      hasCue(measureText(tool, parameter), MEASURE_CUE)
    );
  });
  return (
    measured.length > 0 && measured.every((parameter) => hasCue(measureText(tool, parameter), LENGTH_CUE))
  );
}

function problemOf(
  parameter: ParameterView,
  text: string,
  unitsCancel: boolean,
): { id: 'undescribed' | 'pathBase' | 'numberUnit' | 'enumUnexplained'; values?: string } | undefined {
  if (text === '') return { id: 'undescribed' };
  const { schema } = parameter;
  const words = nameWords(parameter.name);
  const types = typesOf(schema);
  const last = words[words.length - 1] ?? '';
  const isString = types.length === 0 || types.includes('string');
  if (
    isString &&
    (PATH_WORDS.has(last) || words.includes('path')) &&
    schema.format !== 'uri' &&
    !Array.isArray(schema.enum) &&
    !hasCue(text, PATH_BASE_CUE)
  )
    return { id: 'pathBase' };
  const isNumber = types.length > 0 && types.every((type) => type === 'integer' || type === 'number');
  const bounded = [
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'enum',
    'const',
    'multipleOf',
  ].some((keyword) => schema[keyword] !== undefined);
  if (
    isNumber &&
    !bounded &&
    !unitsCancel &&
    parameter.name.length > 1 &&
    hasCue(`${words.join(' ')} ${head(text)}`, MEASURE_CUE) &&
    !words.some((word) => SELF_UNIT_WORDS.has(word)) &&
    !hasCue(text, NUMBER_UNIT_CUE) &&
    !hasCue(text, ABSTRACT_NUMBER_CUE)
  )
    return { id: 'numberUnit' };
  if (Array.isArray(schema.enum)) {
    const coded = schema.enum.filter(
      (value) =>
        (typeof value === 'number' || (typeof value === 'string' && value.length <= 2)) &&
        !new RegExp(
          `(?<![A-Za-z0-9])${String(value).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9])`,
        ).test(text),
    );
    if (coded.length > 0)
      return { id: 'enumUnexplained', values: coded.map((value) => JSON.stringify(value)).join(', ') };
  }
  return undefined;
}
