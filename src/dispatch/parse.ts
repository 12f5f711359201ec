import type { ValidationIssue } from './issues.js';
import { jsonErrorPosition } from './json-error-position.js';
import { makeIssue } from './make-issue.js';

/** Bounds on what a model may send as arguments. */
export interface ArgumentLimits {
  /** Largest raw argument string, in UTF-16 code units (default 1,000,000). */
  readonly maxBytes: number;
  /** Deepest nesting of arrays and objects (default 64). */
  readonly maxDepth: number;
  /** Most values (objects, arrays, scalars) in one call's arguments (default 100,000). */
  readonly maxNodes: number;
}

export const DEFAULT_ARGUMENT_LIMITS: ArgumentLimits = Object.freeze({
  maxBytes: 1_000_000,
  maxDepth: 64,
  maxNodes: 100_000,
});

/** Where a raw JSON string failed to parse. */
export interface JsonSyntaxProblem {
  readonly position: number;
  readonly line: number;
  readonly column: number;
  readonly detail: string;
  /** A short excerpt of the text around the position. */
  readonly near: string;
}

/** Why arguments could not be read, as {@link readArguments} answers it. */
export class ParseFailure {
  constructor(
    readonly outcome:
      | { readonly kind: 'invalid_json'; readonly problem: JsonSyntaxProblem }
      | { readonly kind: 'invalid_arguments'; readonly issues: readonly ValidationIssue[] },
  ) {}
}

/**
 * Turns what a provider sent into an arguments object. A JSON string is parsed; an empty string,
 * `null` or nothing means no arguments (`{}`); anything else must be a JSON object. The result is
 * checked against the limits and for prototype keys, and an object the caller passed is copied, so
 * neither defaults nor the tool can change the caller's value. What went wrong comes back as a
 * {@link ParseFailure} (never a plain object), so a valid call allocates nothing to say so.
 */
export function readArguments(
  raw: unknown,
  limits: ArgumentLimits = DEFAULT_ARGUMENT_LIMITS,
): Record<string, unknown> | ParseFailure {
  let value: unknown;
  let owned = false;
  if (raw === undefined || raw === null) return {};
  if (typeof raw === 'string') {
    if (raw.length > limits.maxBytes) {
      return tooLarge(`at most ${limits.maxBytes} characters of JSON`, `${raw.length} characters`);
    }
    try {
      value = JSON.parse(raw);
    } catch {
      // Blank text is no arguments; JSON.parse refuses it, so it is looked for only here.
      if (raw.trim() === '') return {};
      return new ParseFailure({ kind: 'invalid_json', problem: locateSyntaxError(raw) });
    }
    owned = true;
  } else {
    value = raw;
  }
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    const received = Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return new ParseFailure({
      kind: 'invalid_arguments',
      issues: [makeIssue('invalid_type', [], 'an object whose keys are the parameter names', received)],
    });
  }
  // Parsed values are ours already: a quick bounds check without paths, and the careful walk only to
  // say where, when something is wrong.
  if (owned) {
    if (withinLimits(value, limits)) return value as Record<string, unknown>;
  } else {
    const copy = copyWithinLimits(value, 0, limits.maxDepth, { nodes: limits.maxNodes });
    if (copy !== OUT_OF_LIMITS) return copy as Record<string, unknown>;
  }
  const walked = walk(value, limits, owned);
  if ('issue' in walked) return new ParseFailure({ kind: 'invalid_arguments', issues: [walked.issue] });
  return walked.value as Record<string, unknown>;
}

function tooLarge(expected: string, received: string): ParseFailure {
  return new ParseFailure({
    kind: 'invalid_arguments',
    issues: [makeIssue('too_large', [], expected, received)],
  });
}

const FORBIDDEN_KEYS = new Set(['__proto__']);

/** True when a freshly parsed value is within the depth and size bounds and has no forbidden key. */
function withinLimits(root: unknown, limits: ArgumentLimits): boolean {
  nodesLeft = limits.maxNodes - 1;
  return nodesLeft >= 0 && (root === null || typeof root !== 'object' || checkNode(root, 0, limits.maxDepth));
}

// The walk's node budget, kept outside an object: the walk is synchronous and runs on every call. A
// parsed value has no getters, so nothing can run inside the walk and start another one.
let nodesLeft = 0;

// `node` is an object or an array at `depth`, already counted. Scalars are counted in the loops rather
// than by a call each: arguments are mostly scalars.
function checkNode(node: object, depth: number, maxDepth: number): boolean {
  if (depth >= maxDepth) return false;
  if (Array.isArray(node)) {
    for (let index = 0; index < node.length; index++) {
      const item: unknown = node[index];
      if (--nodesLeft < 0) return false;
      if (item !== null && typeof item === 'object' && !checkNode(item, depth + 1, maxDepth)) return false;
    }
    return true;
  }
  for (const key in node) {
    if (key === '__proto__' || --nodesLeft < 0) return false;
    const item: unknown = (node as Record<string, unknown>)[key];
    if (item !== null && typeof item === 'object' && !checkNode(item, depth + 1, maxDepth)) return false;
  }
  return true;
}

const OUT_OF_LIMITS = Symbol('out of limits');

/**
 * A copy of a caller's value made of own data properties only, or {@link OUT_OF_LIMITS}. Assignment is
 * safe here because `__proto__`, the one key that would reach a prototype, stops the copy first.
 */
function copyWithinLimits(
  node: unknown,
  depth: number,
  maxDepth: number,
  budget: { nodes: number },
): unknown {
  if (--budget.nodes < 0) return OUT_OF_LIMITS;
  if (node === null || typeof node !== 'object') return node;
  if (depth >= maxDepth) return OUT_OF_LIMITS;
  if (Array.isArray(node)) {
    const copy = new Array<unknown>(node.length);
    for (let index = 0; index < node.length; index++) {
      const item = copyWithinLimits(node[index], depth + 1, maxDepth, budget);
      if (item === OUT_OF_LIMITS) return OUT_OF_LIMITS;
      copy[index] = item;
    }
    return copy;
  }
  if (node instanceof Date) return node;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(node)) {
    if (key === '__proto__') return OUT_OF_LIMITS;
    const item = copyWithinLimits((node as Record<string, unknown>)[key], depth + 1, maxDepth, budget);
    if (item === OUT_OF_LIMITS) return OUT_OF_LIMITS;
    copy[key] = item;
  }
  return copy;
}

/**
 * One pass over the value: depth and size bounds, forbidden keys, and (for values the caller owns)
 * a copy made with own data properties only, so no setter, getter or prototype is ever touched.
 */
function walk(
  root: unknown,
  limits: ArgumentLimits,
  owned: boolean,
): { value: unknown } | { issue: ValidationIssue } {
  let nodes = 0;
  const path: (string | number)[] = [];
  let failure: ValidationIssue | undefined;

  const visit = (node: unknown, depth: number): unknown => {
    if (failure) return undefined;
    if (++nodes > limits.maxNodes) {
      failure = makeIssue('too_large', [], `at most ${limits.maxNodes} values in the arguments`, 'more');
      return undefined;
    }
    if (node === null || typeof node !== 'object') return node;
    if (depth >= limits.maxDepth) {
      failure = makeIssue('too_deep', path, `at most ${limits.maxDepth} levels of nesting`, 'deeper nesting');
      return undefined;
    }
    if (Array.isArray(node)) {
      const copy: unknown[] = owned ? node : new Array(node.length);
      for (let index = 0; index < node.length; index++) {
        path.push(index);
        const item = visit(node[index], depth + 1);
        if (!owned) copy[index] = item;
        path.pop();
      }
      return copy;
    }
    const source = node as Record<string, unknown>;
    const copy: Record<string, unknown> = owned ? source : {};
    for (const key of Object.keys(source)) {
      if (FORBIDDEN_KEYS.has(key)) {
        path.push(key);
        failure = makeIssue(
          'forbidden_key',
          path,
          'ordinary parameter names',
          `the key ${JSON.stringify(key)}`,
        );
        path.pop();
        return undefined;
      }
      path.push(key);
      const item = visit(source[key], depth + 1);
      path.pop();
      if (!owned)
        Object.defineProperty(copy, key, {
          value: item,
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
    return copy;
  };

  const value = visit(root, 0);
  return failure ? { issue: failure } : { value };
}

function locateSyntaxError(text: string): JsonSyntaxProblem {
  const { position, detail } = jsonErrorPosition(text);
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < position; index++) {
    if (text.charCodeAt(index) === 10) {
      line++;
      lineStart = index + 1;
    }
  }
  const near = text.slice(Math.max(0, position - 20), position + 20);
  return { position, line, column: position - lineStart + 1, detail, near };
}
