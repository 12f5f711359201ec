// The shapes of the gateway's config, apart from the code that reads it.
import type { ToolCategory } from '../../contract/index.js';
import type { Policy } from '../../policy/policy.js';

/** The host whose file the config is, which decides its keys and its variables. */
export type HostDialect = 'claude-desktop' | 'claude-code' | 'cursor' | 'vscode';

/** `toolpact.servers.<name>.sandbox`: what a stdio server may touch, paths absolute. */
export interface GatewaySandbox {
  readonly read: readonly string[];
  readonly write: readonly string[];
  /** Default false: the network is unshared. */
  readonly network: boolean;
}

/** `toolpact.servers.<name>.tools.<remote tool name>`: what the model sees in place of the upstream's own. */
export interface ToolOverride {
  readonly description?: string;
  readonly title?: string;
  readonly category?: ToolCategory;
  /** Parameter descriptions by dotted path, e.g. `"path"`, `"options.depth"`. */
  readonly parameters?: { readonly [dottedPath: string]: string };
  readonly hidden?: boolean;
}

/** A server the gateway starts: its command line, variables expanded, `envFile` merged under `env`. */
export type StdioTarget = {
  readonly kind: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  readonly env: { readonly [k: string]: string };
  readonly cwd?: string;
};

/**
 * How the gateway signs in to a remote server with OAuth: the host entry's own fields (Claude Code's
 * and VS Code's `oauth`, Cursor's `auth`) under `toolpact.servers.<name>.oauth`. Every field is
 * optional: without a client id the authorization server's metadata decides (a Client ID Metadata
 * Document, or dynamic registration).
 */
export interface GatewayOAuth {
  /** A pre-registered client id. */
  readonly clientId?: string;
  /** Its secret, read from the environment variable the config names (never written in the file). */
  readonly clientSecret?: string;
  /** The https URL of this client's Client ID Metadata Document. */
  readonly clientMetadataUrl?: string;
  /**
   * The authorization server that registered `clientId`: its credentials go there only. Without it, a
   * client with a secret is bound to the first authorization server the MCP server sends it to.
   */
  readonly issuer?: string;
  /** The scopes to ask for, space-separated; by default those of the server's challenge or metadata. */
  readonly scope?: string;
  /** The loopback port `gateway login` listens on for the redirect (default: a free one). */
  readonly callbackPort?: number;
}

/** A running server the gateway connects to. */
export type RemoteTarget = {
  readonly kind: 'http' | 'sse';
  readonly url: string;
  readonly headers: { readonly [k: string]: string };
  /** Present when the entry gives no `Authorization` header: the server may ask for a sign-in. */
  readonly oauth?: GatewayOAuth;
};

/** One of the host's servers, with toolpact's settings for it applied. */
export interface GatewayServer {
  /** The key in `mcpServers` (or VS Code's `servers`). */
  readonly name: string;
  readonly target: StdioTarget | RemoteTarget;
  /** Default true. */
  readonly enabled: boolean;
  /** Default `auto` (prefix the server's name only on a collision). */
  readonly prefix: 'auto' | 'always' | 'never';
  /** Per call. */
  readonly timeoutMs?: number;
  /** Stdio servers only. */
  readonly sandbox?: GatewaySandbox;
  /** For tool search: the whole server, or the named tools. */
  readonly alwaysLoaded: boolean | readonly string[];
  /**
   * The folders the server's relative paths are read against, for the gate's path rules: the
   * config's `roots`, else the folders named in the server's arguments that exist (such as the
   * filesystem server's allowed directories), else its working folder. Absolute.
   */
  readonly roots: readonly string[];
  /** Whether `roots` was given in the config, or found in the server's arguments. */
  readonly rootsFrom: 'config' | 'arguments' | 'working folder';
  /**
   * What the server is answered when it asks `roots/list`: the config's `roots` (`config`), the
   * client's own roots (`roots: "client"`), or nothing, in which case the gateway offers it no roots.
   */
  readonly rootsAnswer: 'config' | 'client' | 'none';
  readonly tools: { readonly [remoteName: string]: ToolOverride };
}

/** A host's MCP file read as the gateway's config. */
export interface GatewayConfig {
  /** Absolute path of the config. */
  readonly file: string;
  readonly dialect: HostDialect;
  /** In file order, entries that cannot run here left out. */
  readonly servers: readonly GatewayServer[];
  /** Entries left out, each with the reason (e.g. an entry that starts this same gateway). */
  readonly skipped: readonly { readonly name: string; readonly reason: string }[];
  /** `toolpact.policy`: a policy file (relative to the config's folder) or an object. */
  readonly policy?: Policy;
  /** The policy file `toolpact.policy` names, absolute; absent when the policy is written inline. */
  readonly policyFile?: string;
  /** `toolpact.search`: present when search is on. */
  readonly search?: { readonly maxLoaded?: number };
  /** `toolpact.newTools`, default `allow`. */
  readonly newTools: 'allow' | 'withhold';
  /** `toolpact.lock`: the lock file, absolute. */
  readonly lock?: string;
  /** `toolpact.startTimeoutMs`: the longest wait for a server's first start (see `GatewayOptions`). */
  readonly startTimeoutMs?: number;
  /**
   * `toolpact.maxBinaryBytes`: most decoded bytes of binary content (images, audio, embedded blobs) in
   * one result passed on to the client (default 10 MiB); read when the gateway starts.
   */
  readonly maxBinaryBytes?: number;
  /** `toolpact.auth`: the auth file of `gateway --http` (relative to the config's folder), absolute. */
  readonly auth?: string;
  /**
   * Where sign-ins to remote servers are kept, absolute: `toolpact.tokens`, else `defaultTokenFile()`.
   * Present when a server may sign in.
   */
  readonly tokens?: string;
}
