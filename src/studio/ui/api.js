// Every request goes to this page's own path, which carries the run's token.

/** GETs JSON from the studio; a failure throws with the server's message. */
export async function getJson(path) {
  const response = await fetch(path, { headers: { Accept: 'application/json' } });
  return readResponse(response);
}

/** POSTs a JSON body and reads the JSON answer. */
export async function postJson(path, body) {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(body),
  });
  return readResponse(response);
}

async function readResponse(response) {
  const text = await response.text();
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error(text.trim() || `The studio answered ${response.status}.`);
  }
  if (!response.ok) throw new Error(data?.error?.message ?? `The studio answered ${response.status}.`);
  return data;
}

/** Follows the studio's event stream; returns a function that closes it. */
export function followEvents(handlers) {
  const source = new EventSource('./api/events');
  for (const [event, handler] of Object.entries(handlers)) {
    source.addEventListener(event, (message) => handler(JSON.parse(message.data)));
  }
  source.onopen = () => handlers.connection?.(true);
  source.onerror = () => handlers.connection?.(false);
  return () => source.close();
}

/** The provider formats' short column titles. */
export const FORMAT_TITLES = {
  openai: 'OpenAI chat',
  'openai-responses': 'OpenAI responses',
  anthropic: 'Anthropic',
  gemini: 'Gemini',
  mcp: 'MCP',
};

/** The provider formats' shortest labels, for the token figures of a list row. */
export const FORMAT_SHORT = {
  openai: 'oai',
  'openai-responses': 'resp',
  anthropic: 'ant',
  gemini: 'gem',
  mcp: 'mcp',
};
