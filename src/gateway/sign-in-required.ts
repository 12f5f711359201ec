import { ToolError } from '../dispatch/tool-error.js';
import { signInRequiredOf } from '../mcp/oauth/oauth-provider.js';

export { signInRequiredOf };

/**
 * The `auth_required` answer of a gateway call that needs a sign-in, naming the command that makes the
 * right one: through the team gateway (`--gateway <publicUrl>`) for an authenticated caller, whose own
 * sign-in it is; on the gateway machine (`--config`) for the local user, without the config's path, which
 * the model is not shown. Undefined when `error` is not waiting on a sign-in.
 *
 * @example
 * throw gatewaySignInError(error, { server: 'linear', remoteName: 'list_issues', gatewayUrl }) ?? error;
 */
export function gatewaySignInError(
  error: unknown,
  call: { readonly server: string; readonly remoteName: string; readonly gatewayUrl?: string },
): ToolError | undefined {
  const signIn = signInRequiredOf(error);
  if (!signIn) return undefined;
  const base = `toolpact gateway login ${signIn.server}`;
  const login = call.gatewayUrl === undefined ? base : `${base} --gateway ${call.gatewayUrl}`;
  const asked =
    call.gatewayUrl === undefined
      ? `${base} --config <the gateway's config file>, on the machine the gateway runs on`
      : `${login} (with their own token for the gateway in TOOLPACT_TOKEN), then open the link it prints: each person's calls use their own sign-in`;
  return new ToolError(
    `The MCP server "${call.server}" needs the user to sign in before "${call.remoteName}" can run. Ask the user to run: ${asked}. Then call the tool again.`,
    { type: 'auth_required', retryable: false, details: { server: call.server, login } },
  );
}
