// biome-ignore-all lint/suspicious/noTemplateCurlyInString: host configs hold their variables as literal ${…} text
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  GatewayConfigError,
  type GatewayConfigOptions,
  parseGatewayConfig,
  readGatewayConfig,
  readHostText,
} from '../../src/gateway/config/index.js';
import { stripJsonc } from '../../src/gateway/config/text.js';
import { parseDotenv } from '../../src/gateway/config/variables.js';

const FIXTURES = resolve('test/fixtures/gateway/configs');

let dir: string;
let home: string;
beforeEach(() => {
  // Real paths, so the results compare equal on systems whose temp folder is a symlink.
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolpact-gateway-config-')));
  home = join(dir, 'home');
  mkdirSync(home);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `content` (text, or a value as JSON) at `name` inside the temp folder, folders included. */
function write(name: string, content: unknown): string {
  const file = join(dir, name);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

/** Copies a documented example from the fixtures to `name` inside the temp folder. */
function fixture(example: string, name: string): string {
  const file = join(dir, name);
  mkdirSync(dirname(file), { recursive: true });
  copyFileSync(join(FIXTURES, example), file);
  return file;
}

function read(file: string, options: GatewayConfigOptions = {}) {
  return readGatewayConfig(file, { env: {}, home, ...options });
}

function refusal(run: () => unknown): GatewayConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayConfigError) return error;
    throw error;
  }
  throw new Error('expected a GatewayConfigError');
}

describe("each host's documented example", () => {
  test('Claude Desktop: stdio entries, no variables expanded, app settings beside mcpServers', () => {
    const file = fixture('claude-desktop.json', 'Claude/claude_desktop_config.json');
    const config = read(file, { env: { BRAVE_API_KEY: 'set' } });
    expect(config.dialect).toBe('claude-desktop');
    expect(config.file).toBe(file);
    expect(config.servers.map((server) => server.name)).toEqual(['filesystem', 'brave-search']);
    expect(config.servers[0]).toEqual({
      name: 'filesystem',
      target: {
        kind: 'stdio',
        command: 'npx',
        args: [
          '-y',
          '@modelcontextprotocol/server-filesystem',
          '/Users/username/Desktop',
          '/Users/username/Downloads',
        ],
        env: {},
      },
      enabled: true,
      prefix: 'auto',
      alwaysLoaded: false,
      // The folders in its arguments do not exist here: the config's folder is its root.
      roots: [dirname(file)],
      rootsFrom: 'working folder',
      rootsAnswer: 'none',
      tools: {},
    });
    // Claude Desktop documents no variables: the server gets the text as written.
    expect(config.servers[1]?.target).toMatchObject({ env: { BRAVE_API_KEY: '${BRAVE_API_KEY}' } });
    expect(config.skipped).toEqual([]);
    expect(config.newTools).toBe('allow');
  });

  test("a server's roots: as configured, else the folders its arguments name that exist, else its working folder", () => {
    mkdirSync(join(dir, 'notes'));
    mkdirSync(join(home, 'projects'));
    const file = write('mcp.json', {
      mcpServers: {
        fs: {
          command: 'npx',
          args: [
            '-y',
            '@modelcontextprotocol/server-filesystem',
            join(dir, 'notes'),
            '~/projects',
            '/no/such/folder',
          ],
        },
        git: { command: 'uvx', args: ['mcp-server-git', '--repository=./notes'], cwd: dir },
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
        given: { command: 'node', args: ['server.js'] },
        passed: { command: 'node', args: ['server.js'], cwd: dir },
      },
      toolpact: { servers: { given: { roots: ['notes', '~/projects'] }, passed: { roots: 'client' } } },
    });
    const byName = Object.fromEntries(read(file).servers.map((server) => [server.name, server]));
    expect(byName.fs).toMatchObject({
      roots: [join(dir, 'notes'), join(home, 'projects')],
      rootsFrom: 'arguments',
    });
    expect(byName.git).toMatchObject({ roots: [join(dir, 'notes')], rootsFrom: 'arguments' });
    expect(byName.memory).toMatchObject({ roots: [dir], rootsFrom: 'working folder' });
    expect(byName.given).toMatchObject({
      roots: [join(dir, 'notes'), join(home, 'projects')],
      rootsFrom: 'config',
      rootsAnswer: 'config',
    });
    // An upstream's roots/list is answered the config's roots, the client's own only when it says so.
    expect(byName.fs?.rootsAnswer).toBe('none');
    expect(byName.passed).toMatchObject({ roots: [dir], rootsFrom: 'working folder', rootsAnswer: 'client' });
    const bad = write('bad.json', {
      mcpServers: { s: { command: 'x' } },
      toolpact: { servers: { s: { roots: 'notes' } } },
    });
    expect(refusal(() => read(bad)).message).toContain('$.toolpact.servers.s.roots');
  });

  test('Claude Code: stdio, http and sse entries, with ${VAR} and ${VAR:-default}', () => {
    const file = fixture('claude-code.json', 'project/.mcp.json');
    const config = read(file, { env: { API_KEY: 'k-123', AIRTABLE_API_KEY: 'air' } });
    expect(config.dialect).toBe('claude-code');
    const [shared, api, asana, airtable] = config.servers;
    expect(shared?.target).toEqual({ kind: 'stdio', command: '/path/to/server', args: [], env: {} });
    expect(api?.target).toEqual({
      kind: 'http',
      url: 'https://api.example.com/mcp',
      headers: { Authorization: 'Bearer k-123' },
    });
    // No Authorization header: a server that may ask for a sign-in.
    expect(asana?.target).toEqual({ kind: 'sse', url: 'https://mcp.asana.com/sse', headers: {}, oauth: {} });
    expect(airtable?.target).toMatchObject({ env: { AIRTABLE_API_KEY: 'air' } });
  });

  test('Cursor: ${env:NAME}, ${userHome}, ${workspaceFolder}, its basename, ${pathSeparator} and ${/}; envFile under env', () => {
    const file = fixture('cursor.json', 'shop/.cursor/mcp.json');
    write('shop/.cursor/.env', '# secrets\nexport NOTES_TOKEN=from-file\nNOTES_DB="notes db"\n');
    const config = read(file, { env: { NOTES_TOKEN: 'from-env', CONTEXT7_API_KEY: 'c7' } });
    expect(config.dialect).toBe('cursor');
    const [playwright, notes, context7] = config.servers;
    expect(playwright?.target).toMatchObject({
      args: ['-y', '@playwright/mcp@latest', '--output-dir', `${join(dir, 'shop')}${sep}out`],
    });
    expect(notes?.target).toEqual({
      kind: 'stdio',
      command: `${home}${sep}bin${sep}notes-server`,
      args: ['--project', 'shop'],
      // The env file is read relative to the config's folder; the entry's own env wins.
      env: { NOTES_TOKEN: 'from-env', NOTES_DB: 'notes db' },
    });
    expect(context7?.target).toEqual({
      kind: 'http',
      url: 'https://mcp.context7.com/mcp',
      headers: { CONTEXT7_API_KEY: 'c7' },
      oauth: {},
    });
  });

  test('VS Code: JSONC with comments and trailing commas, inferred type, numbers in env, and its sandbox carried over', () => {
    const file = fixture('vscode-mcp.json', 'app/.vscode/mcp.json');
    // Its sandbox may write the workspace, which holds this file: refused as the gateway's own config
    // (own-files.test.ts), read here as the host's file, as `gateway init` reads it.
    expect(refusal(() => read(file)).code).toBe('exposed_file');
    const config = read(file, { refuseExposedFiles: false });
    expect(config.dialect).toBe('vscode');
    const [memory, context7, myServer] = config.servers;
    expect(memory?.target).toEqual({
      kind: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-memory'],
      env: {},
    });
    expect(context7?.target).toEqual({
      kind: 'http',
      url: 'https://mcp.context7.com/mcp',
      headers: {},
      oauth: {},
    });
    // A "//" inside a string is text, not a comment.
    expect(myServer?.target).toMatchObject({ env: { PORT: '3000', URL: 'http://localhost//not-a-comment' } });
    // sandboxEnabled: writes to the workspace folder; an allowed domain needs the network.
    expect(myServer?.sandbox).toEqual({ read: [], write: [join(dir, 'app')], network: true });
  });
});

describe('variables', () => {
  test('Claude Code ${VAR:-default} takes the default when VAR is unset or empty, and VAR when set', () => {
    const file = write('.mcp.json', {
      mcpServers: { s: { command: 'server', args: ['${MODE:-fast}', '${EMPTY:-filled}', '${SET:-unused}'] } },
    });
    const config = read(file, { env: { EMPTY: '', SET: 'value' } });
    expect(config.servers[0]?.target).toMatchObject({ args: ['fast', 'filled', 'value'] });
  });

  test('an unset variable without a default names the variable and the JSON path', () => {
    const file = fixture('claude-code.json', '.mcp.json');
    const error = refusal(() => read(file, { env: { AIRTABLE_API_KEY: 'air' } }));
    expect(error.code).toBe('unset_variable');
    expect(error.path).toBe('$.mcpServers.api-server.headers.Authorization');
    expect(error.message).toContain('API_KEY is not set');
    expect(error.message).toContain('${API_KEY:-value}');
  });

  test('an unset ${env:NAME} in Cursor is refused the same way', () => {
    const file = fixture('cursor.json', '.cursor/mcp.json');
    write('.cursor/.env', '');
    const error = refusal(() => read(file, { env: { NOTES_TOKEN: 'x' } }));
    expect(error.code).toBe('unset_variable');
    expect(error.path).toBe('$.mcpServers.context7.headers.CONTEXT7_API_KEY');
    expect(error.message).toContain('CONTEXT7_API_KEY');
  });

  test("VS Code's ${input:…} is refused: the gateway cannot prompt, and the message says to use ${env:…}", () => {
    const file = fixture('vscode-inputs.json', '.vscode/mcp.json');
    const error = refusal(() => read(file));
    expect(error.code).toBe('unsupported_input');
    expect(error.path).toBe('$.servers.perplexity.env.PERPLEXITY_API_KEY');
    expect(error.message).toContain('cannot prompt');
    expect(error.message).toContain('${env:PERPLEXITY_KEY}');
  });

  test.each([
    [
      '.mcp.json',
      { mcpServers: { s: { command: 'x', args: ['${env:TOKEN}'] } } },
      'Claude Code takes ${VAR}',
    ],
    [
      '.cursor/mcp.json',
      { mcpServers: { s: { command: 'x', args: ['${TOKEN}'] } } },
      'Cursor takes ${env:NAME}',
    ],
    [
      '.vscode/mcp.json',
      { servers: { s: { command: 'x', args: ['${file}'] } } },
      'VS Code takes ${env:NAME}',
    ],
    ['.mcp.json', { mcpServers: { s: { command: 'x', args: ['${A:-${B}}'] } } }, 'nested variable'],
  ])('a variable form the host does not expand is refused (%s %j)', (name, content, message) => {
    const error = refusal(() => read(write(name, content), { env: { TOKEN: 't', A: 'a', B: 'b' } }));
    expect(error.code).toBe('invalid_config');
    expect(error.path).toBe(name === '.vscode/mcp.json' ? '$.servers.s.args[0]' : '$.mcpServers.s.args[0]');
    expect(error.message).toContain(message);
  });

  test('~ at the start of command and cwd is the home folder; a relative cwd is relative to the config', () => {
    const file = write('.mcp.json', {
      mcpServers: {
        a: { command: '~/bin/server', cwd: '~/data' },
        b: { command: 'node', args: ['~/literal'], cwd: 'sub' },
      },
    });
    const [a, b] = read(file).servers;
    expect(a?.target).toMatchObject({ command: join(home, 'bin/server'), cwd: join(home, 'data') });
    expect(b?.target).toMatchObject({ args: ['~/literal'], cwd: join(dir, 'sub') });
  });

  test('a missing envFile is unreadable_file at its path', () => {
    const file = write('.vscode/mcp.json', {
      servers: { s: { type: 'stdio', command: 'x', envFile: 'missing.env' } },
    });
    const error = refusal(() => read(file));
    expect(error.code).toBe('unreadable_file');
    expect(error.path).toBe('$.servers.s.envFile');
    expect(error.message).toContain('does not exist');
  });

  test('dotenv: comments, export, quotes, escapes, inline comments; a bad line is refused with its number', () => {
    expect(
      parseDotenv(
        '# comment\n\nexport A=1\nB = two words # note\nC="line\\nbreak"\nD=\'# not a comment\'\nE=\nF=x#y\nA=again\n',
      ),
    ).toEqual({ A: 'again', B: 'two words', C: 'line\nbreak', D: '# not a comment', E: '', F: 'x#y' });
    expect(() => parseDotenv('OK=1\nnot an assignment\n')).toThrow('line 2 is not KEY=VALUE');
  });
});

describe('dialect', () => {
  test('toolpact.host wins over the file name; a top-level "servers" is VS Code; a bare mcpServers is Claude Code', () => {
    const declared = write('Claude/claude_desktop_config.json', {
      mcpServers: { api: { type: 'http', url: 'https://example.com/mcp' } },
      toolpact: { host: 'claude-code' },
    });
    expect(read(declared).dialect).toBe('claude-code');
    expect(read(write('gateway.json', { servers: { s: { type: 'stdio', command: 'x' } } })).dialect).toBe(
      'vscode',
    );
    expect(read(write('config.json', { mcpServers: {} })).dialect).toBe('claude-code');
    expect(read(write('.cursor/mcp.json', { mcpServers: {} })).dialect).toBe('cursor');
  });

  test('an unknown toolpact.host lists the hosts', () => {
    const error = refusal(() => read(write('config.json', { mcpServers: {}, toolpact: { host: 'zed' } })));
    expect(error.path).toBe('$.toolpact.host');
    expect(error.message).toContain('"claude-desktop", "claude-code", "cursor", "vscode"');
  });

  test('a Claude Desktop file with an http entry says Claude Desktop takes stdio entries only', () => {
    const file = write('claude_desktop_config.json', {
      mcpServers: { api: { type: 'http', url: 'https://example.com/mcp' } },
    });
    const error = refusal(() => read(file));
    expect(error.code).toBe('invalid_config');
    expect(error.path).toBe('$.mcpServers.api');
    expect(error.message).toContain('Claude Desktop takes stdio entries only');
  });

  test("~/.claude.json keeps Claude Code's own settings beside mcpServers", () => {
    const file = write('.claude.json', {
      numStartups: 3,
      projects: { '/home/me/app': { mcpServers: {} } },
      mcpServers: {
        memory: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
      },
    });
    expect(read(file).servers.map((server) => server.name)).toEqual(['memory']);
  });
});

describe('keys and types', () => {
  test('an unknown key names the file, the path, the key, a near match and every allowed key', () => {
    const file = write('.mcp.json', { mcpServers: { github: { comand: 'npx' } } });
    const error = refusal(() => read(file));
    expect(error.code).toBe('invalid_config');
    expect(error.file).toBe(file);
    expect(error.path).toBe('$.mcpServers.github');
    // No "command" and no "url", but a key one edit away: the typo is named, not a missing "command".
    expect(error.message).toContain('unknown key "comand". Did you mean "command"?');
    const bare = refusal(() => read(write('.mcp.json', { mcpServers: { github: { args: [] } } })));
    expect(bare.message).toContain('needs a "command"');

    const typo = write('.mcp.json', { mcpServers: { github: { command: 'npx', arg: [] } } });
    const second = refusal(() => read(typo));
    expect(second.message).toBe(
      `${typo}: $.mcpServers.github has an unknown key "arg". Did you mean "args"? A Claude Code stdio entry has: type, command, args, env, cwd.`,
    );
  });

  test('a wrong type says what came and what is allowed, down to the array index', () => {
    const file = write('.mcp.json', { mcpServers: { s: { command: 'npx', args: ['-y', 'pkg', 3] } } });
    const error = refusal(() => read(file));
    expect(error.path).toBe('$.mcpServers.s.args[2]');
    expect(error.message).toContain('must be a string, received number 3');

    const notArray = refusal(() =>
      read(write('.mcp.json', { mcpServers: { s: { command: 'npx', args: '-y pkg' } } })),
    );
    expect(notArray.path).toBe('$.mcpServers.s.args');
    expect(notArray.message).toContain('must be an array of strings, received "-y pkg"');
  });

  test.each([
    [
      { s: { type: 'stdio', args: [] } },
      '$.mcpServers.s.command',
      'must be the command that starts the server',
    ],
    [{ s: { type: 'http' } }, '$.mcpServers.s.url', "must be the server's URL"],
    [
      { s: { type: 'websocket', url: 'ws://x' } },
      '$.mcpServers.s.type',
      'must be one of "stdio", "http", "sse"',
    ],
    [{ s: { url: 'ftp://example.com' } }, '$.mcpServers.s.url', 'must be an http:// or https:// URL'],
    [{ s: { command: 'x', url: 'https://example.com' } }, '$.mcpServers.s', 'has both "command" and "url"'],
    [{ s: 'npx server' }, '$.mcpServers.s', 'must be an object'],
  ])('a missing command or url, or a bad type, is refused with its path (%j)', (servers, path, message) => {
    const error = refusal(() => read(write('.mcp.json', { mcpServers: servers })));
    expect(error.code).toBe('invalid_config');
    expect(error.path).toBe(path);
    expect(error.message).toContain(message);
  });

  test('an unknown top-level key and a missing servers section are refused', () => {
    const top = refusal(() => read(write('.mcp.json', { mcpServers: {}, servres: {} })));
    expect(top.path).toBe('$');
    expect(top.message).toContain('"servres"');
    const missing = refusal(() => read(write('.vscode/mcp.json', { toolpact: {} })));
    expect(missing.path).toBe('$.servers');
    expect(missing.message).toContain('top-level "servers"');
  });
});

describe('file and syntax errors', () => {
  test('a missing file is unreadable_file naming the path', () => {
    const file = join(dir, 'nowhere', '.mcp.json');
    const error = refusal(() => read(file));
    expect(error.code).toBe('unreadable_file');
    expect(error.message).toContain(file);
  });

  test('JSON that does not parse gives the line and the column', () => {
    const file = write(
      '.mcp.json',
      '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": { "command": "y" }\n  }\n}\n',
    );
    const error = refusal(() => read(file));
    expect(error.code).toBe('invalid_json');
    expect([error.line, error.column]).toEqual([4, 5]);
    expect(error.message).toContain('line 4, column 5');
  });

  test('comments outside VS Code are refused where the first one starts', () => {
    const file = write('.mcp.json', '{\n  // servers\n  "mcpServers": {}\n}\n');
    const error = refusal(() => read(file));
    expect(error.code).toBe('invalid_json');
    expect([error.line, error.column]).toEqual([2, 3]);
    expect(error.message).toContain("allowed in VS Code's mcp.json only");
  });

  test('a syntax error in VS Code JSONC is placed in the original text, comments counted', () => {
    const file = write(
      '.vscode/mcp.json',
      '{\n  /* one\n     two */ "servers": {\n    "a": { "command": "x" },,\n  }\n}\n',
    );
    const error = refusal(() => read(file));
    expect(error.code).toBe('invalid_json');
    expect([error.line, error.column]).toEqual([4, 29]);
    expect(error.message).toContain('(JSONC) at line 4, column 29');
  });

  test('stripJsonc keeps strings and offsets', () => {
    const text = '{"a": "/* no */ // no", /* c */ "b": [1, 2,], // end\n}';
    const stripped = stripJsonc(text);
    expect(stripped).toHaveLength(text.length);
    expect(JSON.parse(stripped)).toEqual({ a: '/* no */ // no', b: [1, 2] });
  });

  test('readHostText gives the entries as written, variables unexpanded', () => {
    const file = fixture('vscode-mcp.json', '.vscode/mcp.json');
    const raw = readHostText(file) as {
      servers: { myServer: { sandbox: { filesystem: { allowWrite: string[] } } } };
    };
    expect(raw.servers.myServer.sandbox.filesystem.allowWrite).toEqual(['${workspaceFolder}']);
  });
});

describe('an entry that starts this same gateway', () => {
  test('is skipped with a reason, while a gateway over another config is kept', () => {
    const file = write('project/.mcp.json', {
      mcpServers: {
        self: { command: 'npx', args: ['-y', 'toolpact@latest', 'gateway', '--config', '.mcp.json'] },
        selfByPath: {
          command: 'node',
          args: [join(dir, 'tp/bin/toolpact.js'), 'gateway', `--config=${join(dir, 'project/.mcp.json')}`],
        },
        selfFromCwd: { command: 'toolpact', args: ['gateway', '--config', 'project/.mcp.json'], cwd: dir },
        inner: { command: 'npx', args: ['-y', 'toolpact', 'gateway', '--config', 'inner/.mcp.json'] },
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
      },
    });
    write('project/inner/.mcp.json', { mcpServers: {} });
    const config = read(file);
    expect(config.skipped.map((entry) => entry.name)).toEqual(['self', 'selfByPath', 'selfFromCwd']);
    expect(config.skipped[0]?.reason).toContain('starts this same gateway');
    expect(config.servers.map((server) => server.name)).toEqual(['inner', 'memory']);
  });

  test('is recognised through a symbolic link to the config', () => {
    const file = write('real/.mcp.json', {
      mcpServers: { loop: { command: 'toolpact', args: ['gateway', '--config', join(dir, 'link.json')] } },
    });
    symlinkSync(file, join(dir, 'link.json'));
    expect(read(file).skipped.map((entry) => entry.name)).toEqual(['loop']);
  });
});

describe('the toolpact section', () => {
  test('server settings and tool overrides apply; servers without settings keep the defaults', () => {
    const file = write('.mcp.json', {
      mcpServers: {
        fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] },
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
      },
      toolpact: {
        servers: {
          fs: {
            enabled: false,
            prefix: 'always',
            timeoutMs: 5000,
            alwaysLoaded: ['read_file'],
            sandbox: { read: ['~/notes', 'docs'], write: ['~/notes/out'] },
            tools: {
              read_file: {
                description: 'Reads one file under the granted folders.',
                title: 'Read file',
                category: 'read',
                parameters: {
                  path: 'The file, relative to a granted folder.',
                  'options.encoding': 'Text encoding.',
                },
              },
              write_file: { hidden: true },
            },
          },
        },
        search: { maxLoaded: 20 },
        newTools: 'withhold',
        lock: 'gateway.lock.json',
      },
    });
    const config = read(file);
    const [fs, memory] = config.servers;
    expect(fs).toMatchObject({
      enabled: false,
      prefix: 'always',
      timeoutMs: 5000,
      alwaysLoaded: ['read_file'],
      sandbox: {
        read: [join(home, 'notes'), join(dir, 'docs')],
        write: [join(home, 'notes/out')],
        network: false,
      },
      tools: {
        read_file: {
          description: 'Reads one file under the granted folders.',
          title: 'Read file',
          category: 'read',
          parameters: {
            path: 'The file, relative to a granted folder.',
            'options.encoding': 'Text encoding.',
          },
        },
        write_file: { hidden: true },
      },
    });
    expect(memory).toEqual({
      name: 'memory',
      target: { kind: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: {} },
      enabled: true,
      prefix: 'auto',
      alwaysLoaded: false,
      roots: [dirname(file)],
      rootsFrom: 'working folder',
      rootsAnswer: 'none',
      tools: {},
    });
    expect(config.search).toEqual({ maxLoaded: 20 });
    expect(config.newTools).toBe('withhold');
    expect(config.lock).toBe(join(dir, 'gateway.lock.json'));
    expect(Object.isFrozen(config.servers[0]?.target)).toBe(true);
  });

  test('maxBinaryBytes is a whole number of bytes, 0 or more; anything else is refused at its path', () => {
    expect(read(write('a.json', { mcpServers: {}, toolpact: { maxBinaryBytes: 0 } })).maxBinaryBytes).toBe(0);
    expect(read(write('b.json', { mcpServers: {}, toolpact: {} })).maxBinaryBytes).toBeUndefined();
    for (const value of [-1, 1.5, '10MB', null]) {
      const error = refusal(() =>
        read(write('bad.json', { mcpServers: {}, toolpact: { maxBinaryBytes: value } })),
      );
      expect(error.path).toBe('$.toolpact.maxBinaryBytes');
      expect(error.message).toContain('must be a whole number of bytes, 0 or more (default 10485760');
    }
  });

  test('search: true turns search on with no limit; false leaves it off', () => {
    expect(read(write('a.json', { mcpServers: {}, toolpact: { search: true } })).search).toEqual({});
    expect(read(write('b.json', { mcpServers: {}, toolpact: { search: false } })).search).toBeUndefined();
  });

  test('an allow rule by tool name alone is refused: behind the gateway every tool is imported', () => {
    const file = write('byname.json', {
      mcpServers: {},
      toolpact: { policy: { rules: [{ id: 'notes', action: 'allow', tool: 'read_note' }] } },
    });
    const error = refusal(() => read(file));
    expect(error.message).toContain('rule #0 ("notes") allows "read_note" by name alone');
    expect(error.message).toContain('"source": "mcp:<server>"');
    // Named with its server, or with any server on purpose, it loads; a deny by name alone is fine.
    for (const rule of [
      { id: 'notes', action: 'allow', tool: 'read_note', source: 'mcp:notes' },
      { id: 'notes', action: 'allow', tool: 'read_note', source: '*' },
      { id: 'notes', action: 'deny', tool: 'delete_*' },
    ]) {
      const ok = write(`ok-${rule.action}-${rule.source ?? 'none'}.json`, {
        mcpServers: {},
        toolpact: { policy: { rules: [rule] } },
      });
      expect(read(ok).policy?.rules[0]).toMatchObject({ id: 'notes' });
    }
  });

  test('a policy path is loaded relative to the config; a policy object is checked in place', () => {
    write('policies/imported.json', {
      rules: [{ id: 'reads', action: 'allow', category: 'read' }],
      importedDefault: 'ask',
    });
    const byPath = read(
      write('.mcp.json', { mcpServers: {}, toolpact: { policy: 'policies/imported.json' } }),
    );
    expect(byPath.policy).toMatchObject({
      rules: [{ id: 'reads', action: 'allow' }],
      importedDefault: 'ask',
    });
    const inline = read(
      write('inline.json', {
        mcpServers: {},
        toolpact: { policy: { rules: [{ id: 'no-writes', action: 'deny', category: 'write' }] } },
      }),
    );
    expect(inline.policy?.rules[0]).toMatchObject({ id: 'no-writes', action: 'deny', category: ['write'] });
  });

  test('a bad policy object or a missing policy file is refused at $.toolpact.policy', () => {
    const file = write('.mcp.json', {
      mcpServers: {},
      toolpact: { policy: { rules: [{ id: 'x', action: 'permit' }] } },
    });
    const bad = refusal(() => read(file));
    expect(bad.code).toBe('invalid_config');
    expect(bad.path).toBe('$.toolpact.policy');
    expect(bad.message).toContain(`${file}#toolpact.policy: rule #0 ("x")`);
    const missing = refusal(() =>
      read(write('.mcp.json', { mcpServers: {}, toolpact: { policy: 'nope.json' } })),
    );
    expect(missing.code).toBe('unreadable_file');
    expect(missing.message).toContain('nope.json does not exist');
  });

  test('settings for a server that is not in the host section list the servers that are', () => {
    const file = write('.mcp.json', {
      mcpServers: { github: { command: 'x' }, memory: { command: 'y' } },
      toolpact: { servers: { gihtub: { enabled: false } } },
    });
    const error = refusal(() => read(file));
    expect(error.path).toBe('$.toolpact.servers.gihtub');
    expect(error.message).toContain('The servers there: "github", "memory".');
  });

  test.each([
    [{ timeoutMs: 0 }, '$.toolpact.servers.s.timeoutMs', 'positive whole number, received number 0'],
    [{ prefix: 'sometimes' }, '$.toolpact.servers.s.prefix', 'must be "auto", "always" or "never"'],
    [
      { tools: { t: { category: 'exec' } } },
      '$.toolpact.servers.s.tools.t.category',
      'read, search, write, execute, delegate',
    ],
    [{ tools: { t: { hiden: true } } }, '$.toolpact.servers.s.tools.t', 'Did you mean "hidden"?'],
    [
      { tools: { t: { parameters: { 'a..b': 'x' } } } },
      '$.toolpact.servers.s.tools.t.parameters["a..b"]',
      'dotted path',
    ],
    [{ sandbox: { read: '~/notes' } }, '$.toolpact.servers.s.sandbox.read', 'array of strings'],
    [{ alwaysLoaded: 'yes' }, '$.toolpact.servers.s.alwaysLoaded', 'true, false or an array of strings'],
  ])('a bad server setting is refused with its path (%j)', (settings, path, message) => {
    const file = write('.mcp.json', {
      mcpServers: { s: { command: 'x' } },
      toolpact: { servers: { s: settings } },
    });
    const error = refusal(() => read(file));
    expect(error.code).toBe('invalid_config');
    expect(error.path).toBe(path);
    expect(error.message).toContain(message);
  });

  test('a sandbox on an http server is refused: the gateway does not start it', () => {
    const file = write('.mcp.json', {
      mcpServers: { api: { type: 'http', url: 'https://example.com/mcp' } },
      toolpact: { servers: { api: { sandbox: { network: true } } } },
    });
    const error = refusal(() => read(file));
    expect(error.path).toBe('$.toolpact.servers.api.sandbox');
    expect(error.message).toContain('stdio servers only');
  });
});

describe('entries an unattended gateway cannot run', () => {
  test('a headersHelper entry is skipped; an OAuth entry without a token header signs in; with a token it is kept as it is', () => {
    const file = write('.mcp.json', {
      mcpServers: {
        helper: { type: 'http', url: 'https://example.com/mcp', headersHelper: './get-token.sh' },
        browser: {
          type: 'http',
          url: 'https://example.com/mcp',
          oauth: { clientId: 'id', callbackPort: 8080 },
        },
        token: {
          type: 'http',
          url: 'https://example.com/mcp',
          oauth: { clientId: 'id' },
          headers: { Authorization: 'Bearer ${TOKEN}' },
        },
      },
    });
    const config = read(file, { env: { TOKEN: 't' } });
    expect(config.skipped.map((entry) => entry.name)).toEqual(['helper']);
    expect(config.skipped[0]?.reason).toContain('headersHelper');
    expect(config.servers.map((server) => server.target)).toEqual([
      {
        kind: 'http',
        url: 'https://example.com/mcp',
        headers: {},
        oauth: { clientId: 'id', callbackPort: 8080 },
      },
      { kind: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer t' } },
    ]);
  });
});

test('parseGatewayConfig takes a value already parsed, and refuses one that is not an object', () => {
  const config = parseGatewayConfig(
    { servers: { s: { type: 'sse', url: 'https://example.com/sse' } } },
    { file: join(dir, 'gateway.json'), env: {}, home },
  );
  expect(config.servers[0]?.target.kind).toBe('sse');
  const error = refusal(() => parseGatewayConfig([], { file: 'x.json' }));
  expect(error.path).toBe('$');
  expect(error.message).toBe(
    'x.json: $ must be a JSON object such as { "mcpServers": { ... } }, received an array.',
  );
});
