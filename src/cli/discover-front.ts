/**
 * `toolpact gateway` over stdio answers a 2026-07-28 client's `server/discover` before it loads its
 * modules. The official v2 client learns a stdio server's era in a process of its own: it starts the
 * command, sends `server/discover`, and ends that process (stdin closed, then SIGTERM) once answered;
 * only then does it start the process of the session. Loading the gateway for that probe cost the
 * client a whole start before its own. This front, run by `bin` before the command loads, answers
 * the probe from `served-identity` (what the full server declares, and nothing that loads the MCP
 * SDK) and hands everything else to the command untouched.
 */
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { discoverResult, MODERN_REVISIONS, SERVED_NAME, SERVED_VERSION } from '../mcp/served-identity.js';

/**
 * What the front did: `probed` when stdin ended after it answered one `server/discover` or more and
 * nothing else came, or when stdout broke (the process has nothing left to do); `handed` when the command is to run, reading
 * {@link afterFront}'s stream; `skipped` when the command line or stdin is not one the front answers for.
 */
export type FrontOutcome = 'probed' | 'handed' | 'skipped';

/** A line the front still reads as the opening: longer, and the command reads it. */
const MAX_FRONT_LINE = 1 << 20;

/** Stdin, as read by the front, and the stream that goes on with what the front did not answer. */
let handover: { readonly from: Readable; readonly rest: Readable } | undefined;

/**
 * Whether the front answers for this command line: `gateway` serving over stdio, with no flag that
 * changes what `server/discover` says (`--name`), and a stdin that is not a terminal (a person typing
 * is told a bad config at once, not at the first line).
 */
export function frontAnswersFor(argv: readonly string[], stdinIsTerminal: boolean): boolean {
  const [command, first] = argv;
  if (command !== 'gateway' || stdinIsTerminal) return false;
  if (first === 'init' || first === 'pin' || first === 'check') return false;
  return !argv.some(
    (arg) =>
      arg === '--help' ||
      arg === '-h' ||
      arg === '--' ||
      ['--http', '--name'].some((flag) => arg === flag || arg.startsWith(`${flag}=`)),
  );
}

/**
 * Reads `stdin` line by line while each line is a `server/discover` it can answer exactly, and answers
 * it on `stdout`. Resolves `probed` when stdin ends after such answers alone; `handed` at the first
 * other line (or at the end of a stdin that sent nothing), from which on {@link afterFront} gives the
 * unanswered bytes and the rest of stdin, in order; `skipped` when {@link frontAnswersFor} says no.
 *
 * @example
 * const outcome = await discoverFront(argv, process.stdin, process.stdout);
 * if (outcome !== 'probed') await execute(argv, io); // its stdio server reads afterFront(process.stdin)
 */
export function discoverFront(
  argv: readonly string[],
  stdin: Readable & { readonly isTTY?: boolean },
  stdout: Writable,
): Promise<FrontOutcome> {
  if (!frontAnswersFor(argv, stdin.isTTY === true)) return Promise.resolve('skipped');
  return new Promise((resolve) => {
    const decoder = new StringDecoder('utf8');
    let pending = '';
    let answered = 0;
    const stop = () => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', onError);
      stdout.off('error', onGone);
    };
    const handOver = (text: string, ended: boolean, error?: Error) => {
      stop();
      const rest = new PassThrough();
      if (text) rest.write(text);
      if (error) rest.destroy(error);
      else if (ended) rest.end();
      else stdin.pipe(rest);
      handover = { from: stdin, rest };
      resolve('handed');
    };
    const onData = (chunk: Buffer | string) => {
      pending += typeof chunk === 'string' ? chunk : decoder.write(chunk);
      for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n')) {
        const id = probeIdOf(pending.slice(0, end));
        if (id === undefined) return handOver(pending, false);
        stdout.write(`${JSON.stringify({ result: discoverResult(IDENTITY), jsonrpc: '2.0', id })}\n`);
        answered++;
        pending = pending.slice(end + 1);
      }
      if (pending.length > MAX_FRONT_LINE) handOver(pending, false);
    };
    const onEnd = () => {
      pending += decoder.end();
      if (answered > 0 && pending === '') {
        stop();
        resolve('probed');
      } else {
        handOver(pending, true);
      }
    };
    const onError = (error: Error) => handOver(pending, false, error);
    // A client that closed its end before reading an answer wants nothing more from this process.
    const onGone = () => {
      stop();
      resolve('probed');
    };
    stdin.on('data', onData);
    stdin.once('end', onEnd);
    stdin.once('error', onError);
    stdout.once('error', onGone);
  });
}

/**
 * The stream a stdio server reads in place of `input`: when `input` is the stdin the front read, what
 * the front did not answer followed by the rest of it; otherwise `input` itself.
 *
 * @example
 * const stdin = openingFirst(afterFront(process.stdin), { begin, ready });
 */
export function afterFront(input: Readable): Readable {
  return handover && handover.from === input ? handover.rest : input;
}

/** What the gateway's server declares, with no `--name` (the front does not answer for one). */
const IDENTITY = { name: SERVED_NAME, version: SERVED_VERSION };

const META = 'io.modelcontextprotocol/';

/**
 * The id of a line that is a `server/discover` request the front answers exactly as the SDK's stdio
 * entry would: a JSON-RPC request with no other member, whose `_meta` envelope names a served
 * revision and carries clientInfo and clientCapabilities of a shape that entry accepts. Anything else
 * (another method, an unsupported revision, an envelope the entry would refuse or that the front is
 * not sure of) answers undefined, and the line goes to the command, whose server answers it.
 */
function probeIdOf(line: string): string | number | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObject(message) || !hasOnly(message, ['jsonrpc', 'id', 'method', 'params'])) return undefined;
  const { jsonrpc, id, method, params } = message;
  if (jsonrpc !== '2.0' || method !== 'server/discover') return undefined;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  if (!isObject(params) || !hasOnly(params, ['_meta']) || !isObject(params._meta)) return undefined;
  const meta = params._meta;
  const keys = ['protocolVersion', 'clientInfo', 'clientCapabilities'].map((key) => `${META}${key}`);
  if (!hasOnly(meta, keys) || Object.keys(meta).length !== keys.length) return undefined;
  const [version, info, capabilities] = keys.map((key) => meta[key]);
  if (typeof version !== 'string' || !MODERN_REVISIONS.includes(version)) return undefined;
  if (!isClientInfo(info) || !isClientCapabilities(capabilities)) return undefined;
  return id as string | number;
}

function isClientInfo(value: unknown): boolean {
  return (
    isObject(value) &&
    hasOnly(value, ['name', 'version', 'title']) &&
    typeof value.name === 'string' &&
    typeof value.version === 'string' &&
    (value.title === undefined || typeof value.title === 'string')
  );
}

/** The capabilities of the v2 client's options, in the shapes the SDK's schema takes; no other key. */
function isClientCapabilities(value: unknown): boolean {
  if (!isObject(value)) return false;
  return Object.entries(value).every(([name, capability]) => {
    if (!isObject(capability)) return false;
    const members = Object.values(capability);
    switch (name) {
      case 'roots':
        return hasOnly(capability, ['listChanged']) && members.every((each) => typeof each === 'boolean');
      case 'sampling':
        return hasOnly(capability, ['context', 'tools']) && members.every(isObject);
      case 'elicitation': {
        const { form } = capability;
        return (
          hasOnly(capability, ['form', 'url']) &&
          members.every(isObject) &&
          (form === undefined ||
            (isObject(form) && (form.applyDefaults === undefined || typeof form.applyDefaults === 'boolean')))
        );
      }
      case 'experimental':
      case 'extensions':
        return members.every(isObject);
      default:
        return false;
    }
  });
}

function isObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasOnly(value: { [key: string]: unknown }, keys: readonly string[]): boolean {
  return Object.keys(value).every((key) => keys.includes(key));
}
