import * as z from 'zod';
import { defineTool, Registry } from '../../src/index.js';

/** A small catalog: one tool the model always sees, and three it must search for. */
export function catalog() {
  const ran: string[] = [];
  const weather = defineTool({
    name: 'get_weather',
    category: 'read',
    description: 'The current weather in one city. Use it for today only; it knows no forecast.',
    input: z.object({ city: z.string().min(1).describe('The city name, e.g. "Paris"') }),
    execute: ({ city }) => {
      ran.push(`get_weather:${city}`);
      return { city, temperature: 18 };
    },
  });
  const convert = defineTool({
    name: 'convert_currency',
    category: 'read',
    description: 'Convert an amount of money from one currency to another at today’s rate.',
    input: z.object({
      amount: z.number().describe('The amount to convert, e.g. 100'),
      from: z.string().length(3).describe('The ISO code of the currency held, e.g. "EUR"'),
      to: z.string().length(3).describe('The ISO code of the currency wanted, e.g. "USD"'),
    }),
    execute: ({ amount, from, to }) => {
      ran.push(`convert_currency:${amount}${from}`);
      return { amount: Math.round(amount * 110) / 100, currency: to };
    },
  });
  const translate = defineTool({
    name: 'translate_text',
    category: 'read',
    description: 'Translate a short text into another language.',
    input: z.object({
      text: z.string().describe('The text to translate'),
      language: z.string().describe('The target language, e.g. "German"'),
    }),
    execute: ({ text }) => {
      ran.push(`translate_text:${text}`);
      return { text: `[de] ${text}` };
    },
  });
  const email = defineTool({
    name: 'send_email',
    category: 'write',
    description: 'Send an email to one address. It sends at once; repeating it sends the email twice.',
    input: z.object({
      to: z.string().describe('The recipient address'),
      body: z.string().describe('The message text'),
    }),
    execute: ({ to }) => {
      ran.push(`send_email:${to}`);
      return 'sent';
    },
  });
  const registry = new Registry().register(weather, convert, translate, email);
  return { registry, ran };
}

/** A `chat.completion` answering with `message` (text, or `tool_calls`), as the OpenAI API documents it. */
export const completion = (message: object) => ({
  id: 'chatcmpl-J1',
  object: 'chat.completion',
  created: 1_764_000_000,
  model: 'gpt-5-mini-2025-08-07',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: null, refusal: null, ...message },
      finish_reason: 'tool_calls' in message ? 'tool_calls' : 'stop',
    },
  ],
  usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
});
