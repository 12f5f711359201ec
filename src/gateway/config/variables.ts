import { homedir } from 'node:os';
import { basename, isAbsolute, resolve, sep } from 'node:path';
import { type ErrorScope, GatewayConfigError, invalid } from './error.js';
import type { HostDialect } from './types.js';

/** What variables expand against. */
export interface VariableScope extends ErrorScope {
  readonly dialect: HostDialect;
  readonly env: NodeJS.ProcessEnv;
  readonly home: string;
  /** `${workspaceFolder}` (Cursor, VS Code). */
  readonly workspaceFolder: string;
}

// Claude Code: `${VAR}` and `${VAR:-default}`.
const SHELL_FORM = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([\s\S]*))?$/;
const EDITOR_VARIABLES = ['userHome', 'workspaceFolder', 'workspaceFolderBasename', 'pathSeparator', '/'];
// What only an editor resolves: it prompts for an input, or runs a command, or reads its settings.
const EDITOR_PROMPT = /^(?:input|command|config):/;

/**
 * Expands the dialect's variables in one string value at `path`:
 * - Claude Desktop documents no variables: the text is used as it is.
 * - Claude Code: `${VAR}`, and `${VAR:-default}` (the default when VAR is unset or empty).
 * - Cursor: `${env:NAME}`, `${userHome}`, `${workspaceFolder}`, `${workspaceFolderBasename}`,
 *   `${pathSeparator}` and its short form `${/}`.
 * - VS Code: the same. `${input:id}`, `${command:…}` and `${config:…}` are refused (`unsupported_input`)
 *   in every dialect but Claude Desktop's, as only the editor can resolve them (it prompts, or runs a command).
 *
 * Any other `${…}` is refused with the forms the dialect takes, so a variable copied from another host's
 * file does not reach a server as literal text. An unset variable without a default throws `unset_variable`.
 */
export function expandVariables(text: string, path: string, scope: VariableScope): string {
  if (scope.dialect === 'claude-desktop' || !text.includes('${')) return text;
  return text.replace(/\$\{([^}]*)\}/g, (whole, inner: string) =>
    scope.dialect === 'claude-code'
      ? shellVariable(whole, inner, path, scope)
      : editorVariable(whole, inner, path, scope),
  );
}

function shellVariable(whole: string, inner: string, path: string, scope: VariableScope): string {
  if (EDITOR_PROMPT.test(inner)) throw editorInput(whole, inner, path, scope);
  const match = SHELL_FORM.exec(inner);
  if (!match) {
    invalid(
      scope,
      path,
      `has ${whole}, which Claude Code does not expand. Claude Code takes \${VAR} and \${VAR:-default}.`,
    );
  }
  const name = match[1]!;
  const fallback = match[2];
  if (fallback?.includes('${')) {
    invalid(scope, path, `has a nested variable in ${whole}; a default is plain text.`);
  }
  const value = scope.env[name];
  if (fallback !== undefined && (value === undefined || value === '')) return fallback;
  if (value === undefined) {
    throw unset(scope, path, whole, name, ` Set it, or give a default: \${${name}:-value}.`);
  }
  return value;
}

function editorVariable(whole: string, inner: string, path: string, scope: VariableScope): string {
  const host = scope.dialect === 'vscode' ? 'VS Code' : 'Cursor';
  if (inner.startsWith('env:')) {
    const name = inner.slice(4);
    const value = scope.env[name];
    if (value === undefined) throw unset(scope, path, whole, name, ' Set it before the gateway starts.');
    return value;
  }
  if (EDITOR_PROMPT.test(inner)) throw editorInput(whole, inner, path, scope);
  switch (inner) {
    case 'userHome':
      return scope.home;
    case 'workspaceFolder':
      return scope.workspaceFolder;
    case 'workspaceFolderBasename':
      return basename(scope.workspaceFolder);
    case 'pathSeparator':
    case '/':
      return sep;
  }
  const forms = [envReference('vscode', 'NAME'), ...EDITOR_VARIABLES.map((name) => `\${${name}}`)].join(', ');
  return invalid(scope, path, `has ${whole}, which ${host} does not expand here. ${host} takes ${forms}.`);
}

/**
 * VS Code's `${input:…}`, `${command:…}` or `${config:…}`, in any dialect's file (an entry copied from
 * VS Code keeps them): only an editor resolves them, by prompting or running a command, and the gateway
 * runs unattended. `unsupported_input`, so that init can leave that one server out.
 */
function editorInput(whole: string, inner: string, path: string, scope: VariableScope): GatewayConfigError {
  const reference = (name: string) => envReference(scope.dialect, name);
  if (inner.startsWith('input:')) {
    const suggested =
      inner
        .slice(6)
        .replace(/[^A-Za-z0-9]+/g, '_')
        .replace(/^_+|_+$/g, '')
        .toUpperCase() || 'VALUE';
    const who = scope.dialect === 'vscode' ? 'VS Code prompts for inputs' : 'Only VS Code prompts for inputs';
    return new GatewayConfigError(
      'unsupported_input',
      `${scope.file}: ${path} uses ${whole}. ${who}, but the gateway runs unattended and cannot prompt. Put the value in the gateway's environment (e.g. ${suggested}=…) and write ${reference(suggested)} in place of ${whole}.`,
      { file: scope.file, path },
    );
  }
  return new GatewayConfigError(
    'unsupported_input',
    `${scope.file}: ${path} uses ${whole}, which only the editor can resolve. Put the value in the gateway's environment and use ${reference('NAME')}.`,
    { file: scope.file, path },
  );
}

function unset(scope: VariableScope, path: string, whole: string, name: string, advice: string) {
  return new GatewayConfigError(
    'unset_variable',
    `${scope.file}: ${path} uses ${whole}, but the environment variable ${name} is not set.${advice}`,
    { file: scope.file, path },
  );
}

/** How the dialect writes a reference to the environment variable `name`, for advice in messages. */
export function envReference(dialect: HostDialect, name: string): string {
  return dialect === 'cursor' || dialect === 'vscode' ? `\${env:${name}}` : `\${${name}}`;
}

/** `~` or `~/…` at the start of a path becomes the home folder. */
export function expandHome(path: string, home: string = homedir()): string {
  if (path === '~') return home;
  if (path.startsWith('~/') || path.startsWith(`~${sep}`)) return resolve(home, path.slice(2));
  return path;
}

/** A path value: variables expanded, `~` expanded, and made absolute against `base`. */
export function resolvePath(text: string, path: string, scope: VariableScope, base: string): string {
  const expanded = expandHome(expandVariables(text, path, scope), scope.home);
  return isAbsolute(expanded) ? resolve(expanded) : resolve(base, expanded);
}

/**
 * Reads a dotenv file's text: `KEY=VALUE` lines, an optional `export `, `#` comments (also after an
 * unquoted value, past a space), single-, double- or back-quoted values (double quotes take `\n`, `\t`,
 * `\"` and `\\`, and may span lines). A later key wins. A line that is none of these throws with its number.
 *
 * @example
 * parseDotenv('# tokens\nGITHUB_TOKEN="ghp_x"\nexport DEBUG=1 # on\n'); // { GITHUB_TOKEN: 'ghp_x', DEBUG: '1' }
 */
export function parseDotenv(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  const assignment = /(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*=[ \t]*/y;
  let index = 0;
  const lineAt = (offset: number) => text.slice(0, offset).split('\n').length;
  const restOfLine = (from: number) => {
    const end = text.indexOf('\n', from);
    return end < 0 ? text.length : end;
  };
  while (index < text.length) {
    const ch = text[index]!;
    if (' \t\r\n'.includes(ch)) {
      index++;
      continue;
    }
    if (ch === '#') {
      index = restOfLine(index);
      continue;
    }
    assignment.lastIndex = index;
    const match = assignment.exec(text);
    if (!match) {
      throw new Error(`line ${lineAt(index)} is not KEY=VALUE`);
    }
    const key = match[1]!;
    index = assignment.lastIndex;
    const quote = text[index];
    if (quote === '"' || quote === "'" || quote === '`') {
      let value = '';
      let cursor = index + 1;
      for (; cursor < text.length && text[cursor] !== quote; cursor++) {
        const c = text[cursor]!;
        if (quote === '"' && c === '\\' && cursor + 1 < text.length) {
          const next = text[++cursor]!;
          value += next === 'n' ? '\n' : next === 'r' ? '\r' : next === 't' ? '\t' : next;
        } else {
          value += c;
        }
      }
      if (cursor >= text.length)
        throw new Error(`line ${lineAt(index)} opens a ${quote} quote that never closes`);
      const end = restOfLine(cursor + 1);
      const trailing = text.slice(cursor + 1, end).trim();
      if (trailing !== '' && !trailing.startsWith('#')) {
        throw new Error(`line ${lineAt(cursor)} has text after the closing quote`);
      }
      values[key] = value;
      index = end;
    } else {
      const end = restOfLine(index);
      const raw = text.slice(index, end);
      values[key] = raw.startsWith('#') ? '' : raw.replace(/[ \t]+#.*$/, '').trim();
      index = end;
    }
  }
  return values;
}
