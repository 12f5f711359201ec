import { ToolDefinitionError } from '../errors/index.js';

/** One piece of a URI template: literal text, or a variable (`{name}`, or `{+name}` that may hold `/`). */
type Part = { readonly literal: string } | { readonly variable: string; readonly reserved: boolean };

/**
 * A URI template of RFC 6570 level 1 (`notes://{name}`), plus level 2's reserved expansion
 * (`file:///{+path}`) that MCP servers use for paths: the one reading of a template, for matching a
 * URI against it and for naming its variables.
 *
 * @example
 * const template = UriTemplate.parse('notes://{name}');
 * template.match('notes://todo'); // { name: 'todo' }
 */
export class UriTemplate {
  readonly #pattern: RegExp;
  readonly #parts: readonly Part[];

  private constructor(
    /** The template as written. */
    readonly text: string,
    /** The variables, in the order they appear. */
    readonly variables: readonly string[],
    parts: readonly Part[],
  ) {
    this.#parts = parts;
    const source = parts
      .map((part) =>
        'literal' in part ? escapeRegExp(part.literal) : part.reserved ? '([^?#]*)' : '([^/?#]*)',
      )
      .join('');
    this.#pattern = new RegExp(`^${source}$`, 'u');
  }

  /**
   * Reads a template; throws {@link ToolDefinitionError} (`invalid_option`) for an operator other than
   * `+`, a variable name that is not `A-Z a-z 0-9 _`, a variable used twice or an unclosed brace.
   */
  static parse(text: string, owner = text): UriTemplate {
    const parts: Part[] = [];
    const variables: string[] = [];
    let rest = text;
    while (rest.length > 0) {
      const open = rest.indexOf('{');
      const close = rest.indexOf('}');
      if (open < 0) {
        if (close >= 0) throw templateError(owner, text, 'a "}" without its "{"');
        parts.push({ literal: rest });
        break;
      }
      if (close < open)
        throw templateError(owner, text, close < 0 ? 'a "{" without its "}"' : 'a "}" without its "{"');
      if (open > 0) parts.push({ literal: rest.slice(0, open) });
      const expression = rest.slice(open + 1, close);
      const reserved = expression.startsWith('+');
      const variable = reserved ? expression.slice(1) : expression;
      if (!/^[A-Za-z0-9_]{1,64}$/.test(variable)) {
        throw templateError(
          owner,
          text,
          `the expression "{${expression}}" (toolpact reads {name} and {+name}, names of A-Z a-z 0-9 _)`,
        );
      }
      if (variables.includes(variable)) throw templateError(owner, text, `the variable "${variable}" twice`);
      const previous = parts.at(-1);
      if (previous && 'variable' in previous) {
        throw templateError(
          owner,
          text,
          `"{${expression}}" right after another variable, so no URI can be split between them`,
        );
      }
      variables.push(variable);
      parts.push({ variable, reserved });
      rest = rest.slice(close + 1);
    }
    if (variables.length === 0) throw templateError(owner, text, 'no variable; give it as `uri` instead');
    return new UriTemplate(text, variables, parts);
  }

  /**
   * The URI with `values` put in (percent-encoded: `{name}` keeps nothing reserved, `{+name}` keeps
   * `/` and the other reserved characters); a variable without a value is left empty.
   *
   * @example
   * UriTemplate.parse('notes://{name}').expand({ name: 'to do' }); // 'notes://to%20do'
   */
  expand(values: Readonly<Record<string, string>>): string {
    return this.#parts
      .map((part) => {
        if ('literal' in part) return part.literal;
        const value = Object.hasOwn(values, part.variable) ? String(values[part.variable]) : '';
        return part.reserved ? encodeURI(value) : encodeURIComponent(value);
      })
      .join('');
  }

  /** The variables of `uri` when it matches this template (percent-decoded), or undefined. */
  match(uri: string): Record<string, string> | undefined {
    const found = this.#pattern.exec(uri);
    if (!found) return undefined;
    const values: Record<string, string> = Object.create(null);
    for (const [index, variable] of this.variables.entries()) {
      try {
        values[variable] = decodeURIComponent(found[index + 1] ?? '');
      } catch {
        return undefined;
      }
    }
    return values;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function templateError(owner: string, text: string, problem: string): ToolDefinitionError {
  return new ToolDefinitionError(
    'invalid_option',
    `The resource "${owner}" has the URI template ${JSON.stringify(text)}, which has ${problem}. Write the template as RFC 6570 level 1, e.g. "notes://{name}".`,
    owner,
  );
}
