// No sandbox grant may hold the gateway's own files (config, lock, policy file, audit log): a server
// allowed to write there could make a model's next call allow everything. Refused at load; what the
// servers' arguments reach is reported by exposedGatewayFiles for `gateway check`.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { execute } from '../../src/cli/main.js';
import {
  exposedGatewayFiles,
  GatewayConfigError,
  gatewayFiles,
  parseGatewayConfig,
  readGatewayConfig,
} from '../../src/gateway/config/index.js';

const HINTED = resolve('test/fixtures/gateway/hinted-server.mjs');
let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolpact-own-files-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const server = { command: 'node', args: ['server.js'] };

function refusal(value: unknown, file = join(dir, 'gateway.json')): GatewayConfigError | undefined {
  try {
    parseGatewayConfig(value, { file, env: {} });
    return undefined;
  } catch (error) {
    if (error instanceof GatewayConfigError) return error;
    throw error;
  }
}

function folder(...parts: string[]): string {
  const path = join(dir, ...parts);
  mkdirSync(path, { recursive: true });
  return path;
}

describe('a sandbox grant over the gateway’s files', () => {
  test('a write grant on the config’s folder is refused, naming the grant and the file', () => {
    const error = refusal({
      mcpServers: { files: server },
      toolpact: { servers: { files: { sandbox: { write: [dir] } } } },
    });
    expect(error?.code).toBe('exposed_file');
    expect(error?.path).toBe('$.toolpact.servers.files.sandbox.write');
    expect(error?.message).toContain(`grants ${dir}`);
    expect(error?.message).toContain(`config ${join(dir, 'gateway.json')}`);
  });

  test('a read grant on the lock, a grant on the policy file itself, and one through a symbolic link are refused', () => {
    const locks = folder('locks');
    const lock = refusal({
      mcpServers: { files: server },
      toolpact: { lock: join(locks, 'g.lock.json'), servers: { files: { sandbox: { read: [locks] } } } },
    });
    expect(lock?.code).toBe('exposed_file');
    expect(lock?.message).toContain('lock');

    const policyFile = join(folder('policies'), 'p.json');
    writeFileSync(policyFile, '{"rules":[]}');
    const policy = refusal({
      mcpServers: { files: server },
      toolpact: { policy: policyFile, servers: { files: { sandbox: { write: [policyFile] } } } },
    });
    expect(policy?.code).toBe('exposed_file');
    expect(policy?.message).toContain(`policy ${policyFile}`);

    // A grant on a link to the config's folder is the folder.
    const config = join(folder('conf'), 'gateway.json');
    symlinkSync(join(dir, 'conf'), join(dir, 'link'));
    const linked = refusal(
      {
        mcpServers: { files: server },
        toolpact: { servers: { files: { sandbox: { write: [join(dir, 'link')] } } } },
      },
      config,
    );
    expect(linked?.code).toBe('exposed_file');
  });

  test('VS Code’s own sandbox (allowWrite) is a grant too', () => {
    const workspace = folder('work');
    const error = refusal(
      {
        servers: {
          files: {
            type: 'stdio',
            ...server,
            sandboxEnabled: true,
            sandbox: { filesystem: { allowWrite: [workspace] } },
          },
        },
      },
      join(workspace, '.vscode', 'gateway.json'),
    );
    expect(error?.code).toBe('exposed_file');
    expect(error?.path).toBe('$.servers.files.sandbox.filesystem.allowWrite');
  });

  test('a grant on a sibling whose name starts the same, or on a sub-folder, is accepted', () => {
    const config = join(folder('conf'), 'gateway.json');
    const sibling = folder('conf-b');
    const inner = folder('conf', 'data');
    expect(
      refusal(
        {
          mcpServers: { files: server },
          toolpact: { servers: { files: { sandbox: { write: [sibling, inner], read: [folder('other')] } } } },
        },
        config,
      ),
    ).toBeUndefined();
  });

  test('the gateway refuses --audit, --lock or --policy inside a grant at start, exit 2', async () => {
    const data = folder('data');
    const config = join(folder('conf'), 'gateway.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { files: server },
        toolpact: { servers: { files: { sandbox: { write: [data] } } } },
      }),
    );
    for (const flag of ['--audit', '--lock', '--policy']) {
      let stderr = '';
      const code = await execute(['gateway', '--config', config, flag, join(data, 'file.json')], {
        stdout: () => {},
        stderr: (text) => {
          stderr += text;
        },
        cwd: dir,
        env: {},
        interactive: false,
      });
      expect(code, flag).toBe(2);
      expect(stderr).toContain(`${join(data, 'file.json')} (${flag})`);
      expect(stderr).toContain('$.toolpact.servers.files.sandbox.write');
    }
  });
});

describe('exposedGatewayFiles', () => {
  test('names an unsandboxed server whose arguments name the folder of the config, and not one elsewhere', () => {
    const config = join(folder('conf'), 'gateway.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          files: { command: 'node', args: ['fs.js', join(dir, 'conf')] },
          other: { command: 'node', args: ['fs.js', folder('conf-b')] },
        },
      }),
    );
    const read = readGatewayConfig(config, { env: {} });
    const found = exposedGatewayFiles(
      read,
      gatewayFiles(read, { audit: join(dir, 'conf-b', 'audit.jsonl') }),
    );
    expect(found.map((each) => [each.server, each.via, each.file.role])).toEqual([
      ['files', 'arguments', 'config'],
      ['files', 'arguments', 'lock'],
      ['other', 'arguments', 'audit'],
    ]);
  });
});

describe('gateway check', () => {
  test('names an unsandboxed server whose arguments name the folder holding the gateway’s config', async () => {
    const conf = folder('conf');
    const config = join(conf, 'gateway.json');
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { files: { command: process.execPath, args: [HINTED, conf] } } }),
    );
    let stderr = '';
    await execute(['gateway', 'check', '--config', config], {
      stdout: () => {},
      stderr: (text) => {
        stderr += text;
      },
      cwd: dir,
      env: {},
      interactive: false,
    });
    expect(stderr).toContain(`files can reach the gateway's config ${config} (through arguments ${conf})`);
  }, 60_000);
});
