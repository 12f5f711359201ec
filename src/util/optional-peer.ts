/**
 * Loads an optional peer dependency for one of toolpact's entries, and turns "not installed" into an
 * error that names the entry, the package and the command that installs it (Node's own
 * ERR_MODULE_NOT_FOUND names neither the entry nor the way out). An entry awaits this at its top level,
 * instead of importing the package statically, because a static import fails while the module graph is
 * linked, before any of the entry's code could say why.
 *
 * @example
 * const ai = await loadOptionalPeer(() => import('ai'), 'ai', 'toolpact/ai-sdk');
 */
export async function loadOptionalPeer<Module>(
  load: () => Promise<Module>,
  peer: string,
  entry: string,
): Promise<Module> {
  try {
    return await load();
  } catch (error) {
    if (!isMissing(error, peer)) throw error;
    throw new MissingPeerError(peer, entry, error);
  }
}

/** An optional peer dependency that an entry needs is not installed. */
export class MissingPeerError extends Error {
  override readonly name = 'MissingPeerError';
  readonly code = 'ERR_TOOLPACT_MISSING_PEER';
  constructor(
    readonly peer: string,
    readonly entry: string,
    cause: unknown,
  ) {
    super(
      `${entry} needs the package "${peer}", an optional peer dependency of toolpact that is not installed ` +
        `where toolpact can find it. Install it beside toolpact: npm install ${peer}`,
      { cause },
    );
  }
}

function isMissing(error: unknown, peer: string): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  // Only the peer itself: a peer that is installed but broken (a missing file inside it) keeps its own error.
  return error.message.includes(`'${peer}'`) || error.message.includes(`"${peer}"`);
}
