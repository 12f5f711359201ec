/** What `toolpact run` shows on stderr while it runs: a spinner, each call, its decision and its result. */
import type { AgentEvent } from '../agent/index.js';
import type { GateDecision } from '../dispatch/gate.js';
import type { PolicyDecision } from '../policy/policy-gate.js';
import { redactValue } from '../util/redact.js';
import type { CliIo } from './io.js';

const SHORT = 160;

/** A spinner on stderr while the model thinks, only on a terminal. */
export class Spinner {
  static readonly FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  readonly #io: CliIo;
  #timer: ReturnType<typeof setInterval> | undefined;
  #frame = 0;
  constructor(io: CliIo) {
    this.#io = io;
  }
  start(label: string): void {
    if (!this.#io.interactive) return;
    this.stop();
    const draw = () => {
      this.#io.stderr(`\r${Spinner.FRAMES[this.#frame++ % Spinner.FRAMES.length]} ${label}`);
    };
    draw();
    this.#timer = setInterval(draw, 80);
    this.#timer.unref?.();
  }
  stop(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#io.stderr('\r\x1b[K');
  }
}

export function report(
  event: AgentEvent<unknown>,
  io: CliIo,
  spinner: Spinner,
  decisions: Map<string, GateDecision | undefined>,
): void {
  switch (event.type) {
    case 'model_request':
      spinner.start(`step ${event.step + 1}: the model is thinking…`);
      return;
    case 'model_response':
      spinner.stop();
      if (event.turn.calls.length > 0 && event.turn.text.trim() !== '')
        io.stderr(`step ${event.step + 1}  ${shorten(event.turn.text.trim())}\n`);
      return;
    case 'tool_call':
      io.stderr(`step ${event.step + 1}  → ${event.tool} ${shownArguments(event.call.arguments)}\n`);
      return;
    case 'tool_result': {
      const { outcome } = event;
      const id = outcome.call.id;
      const decision = id === undefined ? undefined : describeDecision(decisions.get(id));
      const envelope = outcome.envelope;
      const shown = envelope.ok
        ? `ok ${shorten(JSON.stringify(envelope.result) ?? 'null')}`
        : `${envelope.error.type}: ${shorten(envelope.error.message)}`;
      io.stderr(`        ← ${outcome.tool}${decision ? ` [${decision}]` : ''} ${shown}\n`);
      return;
    }
    case 'step':
    case 'done':
      return;
    default:
      event satisfies never;
  }
}

function describeDecision(decision: GateDecision | undefined): string | undefined {
  if (!decision) return undefined;
  const { approval } = decision as PolicyDecision;
  const rule = decision.rule ? ` by ${decision.rule}` : '';
  if (decision.action === 'allow')
    return approval && approval !== 'remembered' ? `approved ${approval}${rule}` : `allowed${rule}`;
  if (decision.action === 'deny') return approval === 'declined' ? `declined${rule}` : `denied${rule}`;
  return `asked${rule}, no one to answer`;
}

function shownArguments(value: unknown): string {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return `${shorten(value)} (not JSON)`;
    }
  }
  return shorten(JSON.stringify(redactValue(parsed)) ?? '{}');
}

/**
 * What a model or a tool wrote, made safe for a terminal: control characters (an escape sequence could
 * move the cursor, rewrite earlier lines or retitle the window) become visible `\u` escapes.
 */
export function printable(text: string): string {
  return text.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function shorten(text: string): string {
  const line = printable(text).replace(/\s+/g, ' ');
  return line.length > SHORT ? `${line.slice(0, SHORT)}…` : line;
}
