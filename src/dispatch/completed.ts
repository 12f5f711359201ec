import type { Envelope, FailureEnvelope } from './envelope.js';
import type { JsonValue } from './serialize.js';

/** The result of one call as a value and as the JSON text the model reads. */
export interface Completed {
  readonly envelope: Envelope;
  readonly text: string;
}

/** A success as the call path makes it: the text at once, the envelope object only when it is read. */
export class Delivered implements Completed {
  readonly result: JsonValue;
  readonly text: string;
  #envelope: Envelope | undefined;

  constructor(result: JsonValue, text: string) {
    this.result = result;
    this.text = text;
    this.#envelope = undefined;
  }

  get envelope(): Envelope {
    this.#envelope ??= { ok: true, result: this.result };
    return this.#envelope;
  }
}

/** A call that ended in a failure envelope. */
export function failed(envelope: FailureEnvelope): Completed {
  return { envelope, text: JSON.stringify(envelope) };
}
