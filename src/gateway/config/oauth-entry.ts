// How a remote entry signs in with OAuth: the host's own fields, then toolpact's. The hosts document:
// - Claude Code: `oauth` with `clientId`, `callbackPort`, `scopes`, `authServerMetadataUrl`
//   (https://code.claude.com/docs/en/mcp)
// - VS Code:     `oauth` with `clientId`
//   (https://code.visualstudio.com/docs/copilot/reference/mcp-configuration)
// - Cursor:      `auth` with `CLIENT_ID`, `CLIENT_SECRET`, `scopes` (https://cursor.com/docs/mcp)

import { checkKeys, describe, type ErrorScope, GatewayConfigError, invalid, isRecord } from './error.js';
import type { GatewayOAuth, HostDialect } from './types.js';
import { expandVariables, type VariableScope } from './variables.js';

/** The keys of `toolpact.servers.<name>.oauth`. */
const TOOLPACT_KEYS = ['clientId', 'clientSecretEnv', 'clientMetadataUrl', 'issuer', 'scope'];

/** Where each host keeps an entry's OAuth settings, and the keys it documents there. */
const HOST_OAUTH: {
  readonly [D in HostDialect]: { readonly key: string; readonly keys: string[] } | undefined;
} = {
  'claude-desktop': undefined,
  'claude-code': { key: 'oauth', keys: ['clientId', 'callbackPort', 'scopes', 'authServerMetadataUrl'] },
  vscode: { key: 'oauth', keys: ['clientId'] },
  cursor: { key: 'auth', keys: ['CLIENT_ID', 'CLIENT_SECRET', 'scopes'] },
};

/**
 * The OAuth settings of a remote host entry, checked and with variables expanded; an empty object when
 * it gives none. `{ skip }` for what the gateway cannot honour (Claude Code's `authServerMetadataUrl`).
 */
export function hostOAuth(
  raw: Record<string, unknown>,
  path: string,
  scope: VariableScope,
): GatewayOAuth | { readonly skip: string } {
  const host = HOST_OAUTH[scope.dialect];
  if (host === undefined || raw[host.key] === undefined) return {};
  const at = `${path}.${host.key}`;
  const value = raw[host.key];
  if (!isRecord(value)) {
    return invalid(
      scope,
      at,
      `must be an object such as ${exampleOf(scope.dialect)}, received ${describe(value)}.`,
    );
  }
  checkKeys(scope, at, value, host.keys, `The ${host.key} setting of this host`);
  const text = (key: string) => {
    const entry = value[key];
    if (entry === undefined) return undefined;
    if (typeof entry !== 'string' || entry.trim() === '')
      invalid(scope, `${at}.${key}`, `must be a non-empty string, received ${describe(entry)}.`);
    return expandVariables(entry, `${at}.${key}`, scope);
  };
  const oauth: { -readonly [K in keyof GatewayOAuth]: GatewayOAuth[K] } = {};
  switch (scope.dialect) {
    case 'claude-code': {
      if (value.authServerMetadataUrl !== undefined) {
        return {
          skip: `it names its authorization server's metadata in "oauth.authServerMetadataUrl", which the gateway does not take: it finds the authorization server from the server's own metadata (RFC 9728). Remove the key to let the gateway sign in to it.`,
        };
      }
      const clientId = text('clientId');
      if (clientId !== undefined) oauth.clientId = clientId;
      const scopes = text('scopes');
      if (scopes !== undefined) oauth.scope = scopes;
      if (value.callbackPort !== undefined) {
        const port = value.callbackPort;
        if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65_535) {
          invalid(scope, `${at}.callbackPort`, `must be a port from 1 to 65535, received ${describe(port)}.`);
        }
        oauth.callbackPort = port;
      }
      break;
    }
    case 'vscode': {
      const clientId = text('clientId');
      if (clientId !== undefined) oauth.clientId = clientId;
      break;
    }
    case 'cursor': {
      const clientId = text('CLIENT_ID');
      if (clientId !== undefined) oauth.clientId = clientId;
      const secret = text('CLIENT_SECRET');
      if (secret !== undefined) oauth.clientSecret = secret;
      if (value.scopes !== undefined) {
        const scopes = value.scopes;
        if (
          !Array.isArray(scopes) ||
          scopes.some((entry) => typeof entry !== 'string' || entry.trim() === '')
        ) {
          invalid(
            scope,
            `${at}.scopes`,
            `must be an array of scopes such as ["read", "write"], received ${describe(scopes)}.`,
          );
        }
        if (scopes.length > 0) oauth.scope = scopes.join(' ');
      }
      break;
    }
    case 'claude-desktop':
      break;
  }
  return oauth;
}

/**
 * `toolpact.servers.<name>.oauth`: `clientId`, `clientSecretEnv` (the name of the environment variable
 * holding the secret, read here), `clientMetadataUrl` (https, with a path), `issuer` (the
 * authorization server that registered the client) and `scope`.
 */
export function parseOAuthSettings(raw: unknown, path: string, scope: VariableScope): GatewayOAuth {
  if (!isRecord(raw)) {
    return invalid(
      scope,
      path,
      `must be an object such as { "clientId": "my-app", "clientSecretEnv": "MY_APP_SECRET" }, received ${describe(raw)}.`,
    );
  }
  checkKeys(scope, path, raw, TOOLPACT_KEYS, 'The oauth setting');
  const text = (key: string) => {
    const entry = raw[key];
    if (entry === undefined) return undefined;
    if (typeof entry !== 'string' || entry.trim() === '')
      invalid(scope, `${path}.${key}`, `must be a non-empty string, received ${describe(entry)}.`);
    return entry;
  };
  const oauth: { -readonly [K in keyof GatewayOAuth]: GatewayOAuth[K] } = {};
  const clientId = text('clientId');
  if (clientId !== undefined) oauth.clientId = clientId;
  const variable = text('clientSecretEnv');
  if (variable !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable)) {
      invalid(
        scope,
        `${path}.clientSecretEnv`,
        `must name an environment variable, such as "MY_APP_SECRET", received ${describe(variable)}. Never write the secret itself in the config.`,
      );
    }
    const secret = scope.env[variable];
    if (secret === undefined || secret === '') {
      throw new GatewayConfigError(
        'unset_variable',
        `${scope.file}: ${path}.clientSecretEnv names the environment variable ${variable}, which is not set. Set it to the client's secret before starting the gateway.`,
        { file: scope.file, path: `${path}.clientSecretEnv` },
      );
    }
    oauth.clientSecret = secret;
  }
  const metadata = text('clientMetadataUrl');
  if (metadata !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(metadata);
    } catch {
      url = undefined;
    }
    if (url?.protocol !== 'https:' || url.pathname === '/') {
      invalid(
        scope,
        `${path}.clientMetadataUrl`,
        `must be the https URL, with a path, where this client's metadata document is served, such as "https://example.com/toolpact-client.json", received ${describe(metadata)}.`,
      );
    }
    oauth.clientMetadataUrl = metadata;
  }
  const issuer = text('issuer');
  if (issuer !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(issuer);
    } catch {
      url = undefined;
    }
    if (url?.protocol !== 'https:' && url?.protocol !== 'http:') {
      invalid(
        scope,
        `${path}.issuer`,
        `must be the issuer URL of the authorization server that registered the client, such as "https://github.com/login/oauth", received ${describe(issuer)}.`,
      );
    }
    oauth.issuer = issuer;
  }
  const scopes = text('scope');
  if (scopes !== undefined) oauth.scope = scopes;
  return oauth;
}

/** Refuses a client secret or an issuer without its client id, naming where it came from. */
export function checkClientPair(oauth: GatewayOAuth, path: string, scope: ErrorScope): void {
  if (oauth.clientSecret !== undefined && oauth.clientId === undefined) {
    invalid(
      scope,
      path,
      'gives a client secret without a client id. Give the id of the client the secret belongs to ("clientId"), or leave the secret out.',
    );
  }
  if (oauth.issuer !== undefined && oauth.clientId === undefined) {
    invalid(
      scope,
      path,
      'gives an issuer without a client id: "issuer" names the authorization server that registered "clientId". Give the client id too, or leave the issuer out.',
    );
  }
}

function exampleOf(dialect: HostDialect): string {
  return dialect === 'cursor'
    ? '{ "CLIENT_ID": "my-app", "scopes": ["read"] }'
    : dialect === 'claude-code'
      ? '{ "clientId": "my-app", "callbackPort": 8080 }'
      : '{ "clientId": "my-app" }';
}
