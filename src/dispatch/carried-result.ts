import { attachSentContent, type Carried, type ContentResult, carriedBy } from '../content/carried.js';
import { type ContentLimits, limitContent } from '../content/limit-content.js';
import type { Trace } from './call.js';
import { type Completed, failed } from './completed.js';
import { deliver } from './deliver.js';
import { invalidResultFailure, notSerializableFailure, toolFailure } from './errors.js';
import { type JsonValue, toJsonValue } from './serialize.js';
import type { ToolEntry } from './tool-entry.js';
import type { ValidationResult } from './validation.js';

/** What the carried-content steps read of the pipeline's settings. */
export interface CarriedSettings {
  readonly maxResultChars: number;
  readonly maxBinaryBytes: number;
  readonly validateResults: 'error' | 'warn' | 'off';
}

/**
 * Steps 5 to 7 for a result that carries content blocks (a `toolResult`, or an imported tool's
 * upstream result): the blocks are kept within the limits; the envelope shows the value as for any
 * result (a `toolResult` as its JSON form, the blocks limited the same way), checked on its structured
 * value; the limited blocks ride on the envelope, unseen, for the MCP face to send.
 */
export function deliverCarried(
  settings: CarriedSettings,
  entry: ToolEntry,
  carried: Carried,
  trace: Trace | undefined,
): Completed | Promise<Completed> {
  const sent = limitContent(carried.result, limitsOf(settings));
  let value: JsonValue;
  try {
    value = toJsonValue(carried.blocks ? sent : carried.value);
  } catch {
    return failed(notSerializableFailure(entry.name, 'it could not be converted'));
  }
  const validateResult = entry.checksResults ? entry.resultValidator() : null;
  const finish = (validation: ValidationResult<unknown> | undefined): Completed => {
    if (validation && !validation.ok) {
      if (trace) trace.resultIssues = validation.issues;
      if (settings.validateResults !== 'warn') return failed(invalidResultFailure(entry.name));
    }
    // A `toolResult`'s JSON form is not what its return schema describes, so it is cut as text.
    const schema = carried.blocks ? undefined : entry.contract.returns?.schema;
    return withSent(deliver(value, schema, settings.maxResultChars), sent);
  };
  if (!validateResult) return finish(undefined);
  const checked = carried.checked === undefined ? null : toJsonValue(carried.checked);
  const validation = validateResult(checked);
  return validation instanceof Promise ? validation.then(finish) : finish(validation);
}

/**
 * The failure envelope of a thrown error; an error that carries an upstream's `isError` result keeps
 * it, limited, for the MCP face.
 */
export function thrownFailure(settings: CarriedSettings, tool: string, error: unknown): Completed {
  const completed = failed(toolFailure(tool, error));
  const carried = carriedBy(error);
  return carried ? withSent(completed, limitContent(carried.result, limitsOf(settings))) : completed;
}

function withSent(completed: Completed, sent: ContentResult): Completed {
  attachSentContent(completed.envelope, sent);
  return completed;
}

function limitsOf(settings: CarriedSettings): ContentLimits {
  return { maxChars: settings.maxResultChars, maxBinaryBytes: settings.maxBinaryBytes };
}
