import type { ToolContract } from '../contract/index.js';
import type { ToolMeta } from '../contract/tool.js';
import { digestOf } from '../util/digest.js';
import { brandedContextOf } from './context-brand.js';
import { asPrincipal, type Principal, principalKey } from './principal.js';

/**
 * What an approval is bound to: where the tool comes from, its name there, the digest of the
 * definition the approver was shown, and who is calling. A different server behind the same served
 * name, a changed definition or another caller is another identity, and needs its own approval.
 */
export interface ToolIdentity {
  /** `meta.source`, or `local`. */
  readonly source: string;
  /** The tool's name at its source (`meta.remoteName` for an imported tool), else the registered name. */
  readonly name: string;
  /** SHA-256 of the canonical JSON of the definition shown: name, title, description, input schema. */
  readonly definition: string;
  /** The authenticated caller's key (`principalKeyOf`), where the transport says who it is; undefined for the local process. */
  readonly principal: string | undefined;
  /** All of the above as one string, for keys. */
  readonly key: string;
}

const definitions = new WeakMap<ToolContract, string>();

/**
 * The identity a call's approval binds to (see {@link ToolIdentity}). The definition's digest is
 * computed once per contract.
 *
 * @example
 * toolIdentity(contract, { source: 'mcp:fs', remoteName: 'read_file' }, state).key;
 */
export function toolIdentity(contract: ToolContract, meta: ToolMeta, state: unknown): ToolIdentity {
  let definition = definitions.get(contract);
  if (definition === undefined) {
    definition = digestOf({
      name: contract.name,
      title: contract.title,
      description: contract.description,
      input: contract.parameters,
    });
    definitions.set(contract, definition);
  }
  const source = typeof meta.source === 'string' && meta.source !== '' ? meta.source : 'local';
  const name =
    typeof meta.remoteName === 'string' && meta.remoteName !== '' ? meta.remoteName : contract.name;
  const caller = principalOf(state);
  const principal = caller === undefined ? undefined : principalKey(caller);
  return {
    source,
    name,
    definition,
    principal,
    key: [source, name, definition, principal ?? ''].join('\u0000'),
  };
}

/**
 * Who is calling: the one definition the policy, the approval session, the request-state sealer, the
 * store's approval queue, the audit and `toolIdentity` all use. It trusts only what the transport
 * established: the principal toolpact's authentication built (or, from an authenticator of your own,
 * the client id of the transport's `authInfo`), carried by the call's MCP request context. Anything
 * else is the local process, answered as undefined: a call made in this process, over stdio, or over
 * HTTP that nothing authenticated. A name a client reports about itself (`clientInfo.name`) is never
 * a principal, whatever it says.
 *
 * @example
 * principalOf(undefined); // undefined: the local process
 * principalOf(mcpContextOf(state))?.subject; // 'alice', when the transport authenticated alice
 */
export function principalOf(state: unknown): Principal | undefined {
  return asPrincipal(brandedContextOf<{ readonly principal?: unknown }>(state)?.principal);
}

/**
 * Who is calling as the approvals table, request states and the audit log spell it:
 * `auth:<subject>@<issuer>` (or `auth:<subject>` when no issuer is known) for a caller the transport
 * authenticated, else `local` (see {@link principalOf}, the one definition).
 *
 * @example
 * principalKeyOf(undefined); // 'local'
 * principalKeyOf(mcpContextOf(state)); // 'auth:alice@https://id.example', when the transport authenticated alice
 */
export function principalKeyOf(state: unknown): string {
  const principal = principalOf(state);
  return principal === undefined ? 'local' : principalKey(principal);
}
