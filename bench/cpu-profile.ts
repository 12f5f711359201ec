/**
 * Reads a V8 CPU profile (`node --cpu-prof`) and sums its sampled time into named parts: each sample
 * counts for the time until the next one, and goes to the part its call stack names.
 */
import { readFileSync } from 'node:fs';

/** One frame of a sampled stack, as the profile records it. */
export interface ProfileFrame {
  readonly functionName: string;
  /** The script's URL (`file:///…`, `node:…`), empty for V8's builtins and the pseudo-frames. */
  readonly url: string;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: ProfileFrame;
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  /** µs on the monotonic clock, the one `process.hrtime` reads (in ns) in every process of the machine. */
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/**
 * Milliseconds of sampled time per part. `classify` gets each sample's stack, innermost frame first,
 * and names its part; `(idle)` samples are left out (the process was waiting, not working). With
 * `window` (µs on the monotonic clock: `process.hrtime.bigint() / 1000n` in any process), only the
 * samples taken within it count, so start-up and shutdown stay out.
 *
 * @example
 * const parts = profileParts(file, (stack) => (stack[0]!.url.includes('/ajv/') ? 'ajv' : 'other'));
 */
export function profileParts(
  file: string,
  classify: (stack: readonly ProfileFrame[]) => string,
  window: { readonly from: number; readonly to: number } = { from: 0, to: Number.POSITIVE_INFINITY },
): Map<string, number> {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const partOf = new Map<number, string>();
  const part = (id: number): string => {
    const known = partOf.get(id);
    if (known !== undefined) return known;
    const stack: ProfileFrame[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      stack.push(byId.get(at)!.callFrame);
    }
    const named = classify(stack);
    partOf.set(id, named);
    return named;
  };
  const parts = new Map<string, number>();
  let at = profile.startTime;
  for (let index = 0; index < profile.samples.length - 1; index++) {
    at += profile.timeDeltas[index]!;
    const id = profile.samples[index]!;
    if (at < window.from || at > window.to) continue;
    if (byId.get(id)!.callFrame.functionName === '(idle)') continue;
    const named = part(id);
    parts.set(named, (parts.get(named) ?? 0) + profile.timeDeltas[index + 1]! / 1000);
  }
  return parts;
}
