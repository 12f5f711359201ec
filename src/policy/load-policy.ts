import { readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { loadConfig } from '../config/load-config.js';
import { parsePolicy } from './define-policy.js';
import type { Policy } from './policy.js';
import { PolicyError } from './policy-error.js';

/**
 * Loads and checks a JSON policy file. A missing file, bad JSON or a bad rule throws a
 * {@link PolicyError} whose message names the file and the rule.
 *
 * @example
 * const policy = loadPolicyFile('policy.json');
 */
export function loadPolicyFile(file: string): Policy {
  const label = basename(file);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new PolicyError(
      'unreadable_file',
      code === 'ENOENT'
        ? `The policy file ${label} does not exist. Give the path of a JSON file such as { "rules": [ ... ] }.`
        : `The policy file ${label} cannot be read (${code ?? 'unknown error'}).`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new PolicyError(
      'unreadable_file',
      `The policy file ${label} is not valid JSON: ${error instanceof Error ? error.message : String(error)}.`,
    );
  }
  return parsePolicy(value, label);
}

/**
 * The `policy` section of `toolpact.config.*` (or `package.json#toolpact`) in `directory`, checked;
 * undefined when there is none. The section is a policy object, or the path of a JSON policy file
 * relative to the configuration.
 *
 * @example
 * const policy = (await loadPolicyFromConfig(process.cwd())) ?? definePolicy({ rules: [] });
 */
export async function loadPolicyFromConfig(directory: string): Promise<Policy | undefined> {
  const { config, source } = await loadConfig(directory);
  const section = config.policy;
  if (section === undefined) return undefined;
  const where = `${source ?? 'configuration'}#policy`;
  if (typeof section === 'string') {
    const file = isAbsolute(section) ? section : resolve(directory, dirname(source ?? '.'), section);
    return loadPolicyFile(file);
  }
  return parsePolicy(section, where);
}
