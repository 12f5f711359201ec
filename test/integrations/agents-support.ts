import type {
  AgentInputItem,
  AgentOutputItem,
  Model,
  ModelRequest,
  ModelResponse,
  StreamEvent,
} from '@openai/agents';
import { Usage } from '@openai/agents';

/** One function call the scripted model makes. */
export interface Call {
  readonly id: string;
  readonly name: string;
  readonly arguments: unknown;
}

/** What the model answers on each turn: function calls, or text. */
export type Turn = readonly Call[] | string;

/** A turn as the model's output items. */
export function outputOf(turn: Turn): AgentOutputItem[] {
  if (typeof turn === 'string') {
    return [
      {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: turn }],
      },
    ];
  }
  return turn.map((call) => ({
    type: 'function_call',
    callId: call.id,
    name: call.name,
    status: 'completed',
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
}

/** The SDK's `Model` seam: answers turn after turn and keeps every request it was sent. */
export class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  #index = 0;
  constructor(private readonly turns: readonly Turn[]) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const turn = this.turns[this.#index++] ?? 'done';
    return { usage: new Usage(), output: outputOf(turn), responseId: `r${this.#index}` };
  }

  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    const response = await this.getResponse(request);
    const text =
      typeof this.turns[this.#index - 1] === 'string' ? (this.turns[this.#index - 1] as string) : '';
    if (text) yield { type: 'output_text_delta', delta: text };
    yield {
      type: 'response_done',
      response: {
        id: response.responseId ?? 'r',
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        output: response.output as Extract<StreamEvent, { type: 'response_done' }>['response']['output'],
      },
    };
  }
}

/**
 * The function call outputs the model was sent in its last request, by call id: an envelope parsed,
 * or the text itself when it is not JSON (the SDK's own words for a rejected call).
 */
export function outputsSent(model: ScriptedModel): Map<string, unknown> {
  const input = model.requests.at(-1)?.input;
  const outputs = new Map<string, unknown>();
  for (const item of (Array.isArray(input) ? input : []) as AgentInputItem[]) {
    if (item.type !== 'function_call_result') continue;
    const output = item.output as { type?: string; text?: string } | string;
    const text = typeof output === 'string' ? output : output.text;
    outputs.set(item.callId, parsedOrText(text ?? 'null'));
  }
  return outputs;
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
