import type { AddClientAuthentication } from '@modelcontextprotocol/client';

/** A client's private key for `private_key_jwt`: a PKCS#8 PEM and its JWS algorithm. */
interface ClientKey {
  readonly privateKey: string;
  readonly algorithm?: string;
}

/** The part of `McpOAuth` the client-credentials grant reads. */
interface ClientCredentialsOptions {
  readonly grant?: string;
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly clientKey?: ClientKey;
  readonly clientMetadataUrl?: string;
  readonly clientName?: string;
  readonly scope?: string;
}

/** The JWS algorithms a `clientKey` may sign with: the asymmetric ones a PKCS#8 PEM can hold. */
const KEY_ALGORITHMS = /^(RS|ES|PS)(256|384|512)$/;
const DEFAULT_KEY_ALGORITHM = 'ES256';

/**
 * What is wrong with the client-credentials part of `options`, in words for the operator, or
 * undefined when it can work. Neither the secret nor the key is ever quoted.
 */
export function clientCredentialsProblem(options: ClientCredentialsOptions): string | undefined {
  const key = options.clientKey;
  if (options.grant !== 'client_credentials') {
    return key === undefined
      ? undefined
      : 'A clientKey was given, but it signs only the client_credentials grant. Add grant: "client_credentials", or leave clientKey out.';
  }
  if (options.clientId === undefined) {
    return 'grant "client_credentials" signs in as a registered client, and no clientId was given. Give the clientId the authorization server issued, with its clientSecret or clientKey.';
  }
  if ((options.clientSecret === undefined) === (key === undefined)) {
    return `grant "client_credentials" proves the client "${options.clientId}" with exactly one of clientSecret and clientKey; ${key === undefined ? 'neither was given' : 'both were given'}. Give the one the authorization server registered.`;
  }
  if (options.clientMetadataUrl !== undefined) {
    return 'clientMetadataUrl names a client that a person signs in with; grant "client_credentials" signs in as the clientId given. Leave clientMetadataUrl out.';
  }
  if (key !== undefined) {
    const algorithm = key.algorithm ?? DEFAULT_KEY_ALGORITHM;
    if (!KEY_ALGORITHMS.test(algorithm)) {
      return `clientKey.algorithm must be an asymmetric JWS algorithm (ES256, ES384, ES512, RS256, RS384, RS512, PS256, PS384 or PS512); received "${algorithm}".`;
    }
    if (typeof key.privateKey !== 'string' || !key.privateKey.includes('-----BEGIN PRIVATE KEY-----')) {
      return 'clientKey.privateKey must be a PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----"); the value given is not one. Convert a key in another form with: openssl pkcs8 -topk8 -nocrypt -in key.pem';
    }
  }
  return undefined;
}

/** The client metadata of a client that signs in as itself. */
export function clientCredentialsMetadata(options: ClientCredentialsOptions): Record<string, unknown> {
  return {
    client_name: options.clientName ?? 'toolpact',
    redirect_uris: [],
    grant_types: ['client_credentials'],
    token_endpoint_auth_method: options.clientKey !== undefined ? 'private_key_jwt' : 'client_secret_basic',
    ...(options.scope !== undefined ? { scope: options.scope } : {}),
  };
}

/** The body of a client-credentials token request (OAuth 2.1 §4.2). */
export function clientCredentialsRequest(scope: string | undefined): URLSearchParams {
  const params = new URLSearchParams({ grant_type: 'client_credentials' });
  if (scope) params.set('scope', scope);
  return params;
}

/**
 * Signs each token request with the client's key (`private_key_jwt`, RFC 7523 §2.2): the SDK's
 * assertion, issued by and naming the client id, for the authorization server's issuer, valid 5 minutes.
 */
export function privateKeyJwt(clientId: string, key: ClientKey): AddClientAuthentication {
  let sign: Promise<AddClientAuthentication> | undefined;
  return async (headers, params, url, metadata) => {
    sign ??= import('@modelcontextprotocol/client').then(({ createPrivateKeyJwtAuth }) =>
      createPrivateKeyJwtAuth({
        issuer: clientId,
        subject: clientId,
        privateKey: key.privateKey,
        alg: key.algorithm ?? DEFAULT_KEY_ALGORITHM,
      }),
    );
    await (await sign)(headers, params, url, metadata);
  };
}
