/**
 * The header, and its value, that every response of a server serving the network without
 * authentication carries (`--insecure-no-auth`): the MCP endpoint's and the studio's alike.
 */
export const INSECURE_WARNING_HEADER = 'Toolpact-Warning';
export const INSECURE_WARNING = 'no-auth: reachable from the network and authenticates no one';
