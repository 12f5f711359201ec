import { describe, expect, it } from 'vitest';
import { createTool, Registry } from '../../src/index.js';
import {
  analyze,
  createToolIndex,
  DEFAULT_FIELD_WEIGHTS,
  queryClauses,
  splitWords,
  TOOL_FIELDS,
} from '../../src/search/index.js';

function tool(
  name: string,
  description: string,
  properties: Record<string, unknown> = {},
  category = 'read',
) {
  return createTool(
    { name, description, category: category as 'read', parameters: { type: 'object', properties } },
    { execute: () => name },
  );
}

const weather = tool('getWeatherForecast', 'Returns the weather forecast for a city.', {
  city: { type: 'string', description: 'The city name' },
  units: { type: 'string', enum: ['celsius', 'fahrenheit'], description: 'Temperature unit' },
});
const convert = tool('currency.convert', 'Converts an amount of money between currencies.', {
  amount: { type: 'number', description: 'How much money' },
  to_currency: { type: 'string', description: 'ISO 4217 code of the target currency' },
});
const deleteFile = tool(
  'delete_file',
  'Deletes one file from the workspace.',
  { path: { type: 'string', description: 'Relative path' } },
  'write',
);
const chinese = tool('query_train_tickets', '查询火车票的余票和价格。', {
  出发城市: { type: 'string', description: '出发的城市' },
});

describe('analysis', () => {
  it('splits identifiers at _ . - and camelCase, keeping acronyms and digits apart', () => {
    expect(splitWords('getHTTPResponse_code')).toEqual(['get', 'http', 'response', 'code']);
    expect(splitWords('currency.convert-v2')).toEqual(['currency', 'convert', 'v', '2']);
    expect(splitWords('IPv6Address')).toEqual(['i', 'pv', '6', 'address']);
  });
  it('segments Chinese and mixed text with Intl.Segmenter', () => {
    const words = splitWords('查询火车票 train tickets');
    expect(words).toContain('train');
    expect(words).toContain('查询');
    expect(words.join('')).toBe('查询火车票traintickets');
  });
  it('drops stop-words and reduces inflections to one stem', () => {
    expect(analyze('Retrieves the reports of users')).toEqual(analyze('retrieve report user'));
    expect(analyze('the of a')).toEqual([]);
    expect(analyze('the of', { stopWords: false, stem: false })).toEqual(['the', 'of']);
  });
  it('splits a request into its steps', () => {
    expect(
      queryClauses('Find flights to Rome. Then book the cheapest one, and finally email the receipt.'),
    ).toEqual(['Find flights to Rome.', 'book the cheapest one, and', 'email the receipt.']);
    expect(queryClauses('What is 47.5 in euros')).toEqual(['What is 47.5 in euros']);
    expect(queryClauses('先查询天气，然后预订酒店')).toHaveLength(2);
  });
});

describe('createToolIndex', () => {
  const registry = new Registry().register(weather, convert, deleteFile, chinese);
  const index = createToolIndex(registry);

  it('ranks by name, description and parameters, and says which fields matched', () => {
    const [best] = index.search('weather forecast in Paris');
    expect(best?.name).toBe('getWeatherForecast');
    expect(best?.fields).toEqual(expect.arrayContaining(['name', 'description']));
    expect(best?.terms).toEqual(expect.arrayContaining(['weather']));
    expect(index.search('convert dollars to another currency')[0]?.name).toBe('currency.convert');
  });
  it('matches enum values and parameter descriptions', () => {
    const [hit] = index.search('fahrenheit');
    expect(hit?.name).toBe('getWeatherForecast');
    expect(hit?.fields).toEqual(['enums']);
    expect(index.search('ISO 4217')[0]?.fields).toEqual(['parameterText']);
  });
  it('answers Chinese and mixed queries', () => {
    expect(index.search('我想查询火车票')[0]?.name).toBe('query_train_tickets');
    expect(index.search('火车票 price')[0]?.name).toBe('query_train_tickets');
  });
  it('filters by category and by predicate, and bounds the answer by k', () => {
    expect(index.search('file', { categories: ['read'] })).toEqual([]);
    expect(index.search('file', { categories: ['write'] }).map((hit) => hit.name)).toEqual(['delete_file']);
    expect(
      index
        .search('weather currency', { filter: (contract) => contract.name.startsWith('currency') })
        .map((hit) => hit.name),
    ).toEqual(['currency.convert']);
    expect(index.search('weather currency file', { k: 1 })).toHaveLength(1);
    expect(index.search('   ')).toEqual([]);
    expect(() => index.search('x', { k: 0 })).toThrow(/k is 0/);
  });
  it('a filter that throws excludes the tool instead of failing the search', () => {
    expect(
      index.search('weather', {
        filter: () => {
          throw new Error('boom');
        },
      }),
    ).toEqual([]);
  });
  it('stays current as tools are registered and removed', () => {
    const live = new Registry().register(weather);
    const liveIndex = createToolIndex(live);
    expect(liveIndex.search('currency')).toEqual([]);
    live.register(convert);
    expect(liveIndex.search('currency')[0]?.name).toBe('currency.convert');
    live.unregister('currency.convert');
    expect(liveIndex.search('currency')).toEqual([]);
    expect(liveIndex.size).toBe(1);
    liveIndex.close();
    live.register(convert);
    expect(liveIndex.size).toBe(1);
  });
  it('after tools come and go, scores exactly as an index built afresh', () => {
    const live = new Registry().register(weather, convert, deleteFile, chinese);
    const liveIndex = createToolIndex(live);
    const query = 'Convert the money, then get the weather forecast for a city. Finally delete the file.';
    const first = liveIndex.search(query);
    live.unregister('getWeatherForecast');
    live.unregister('delete_file');
    expect(liveIndex.search(query).map((hit) => hit.name)).not.toContain('getWeatherForecast');
    live.register(weather);
    const fresh = createToolIndex(new Registry().register(convert, chinese, weather));
    const strip = (hits: ReturnType<typeof liveIndex.search>) =>
      hits.map(({ name, score, fields, terms }) => ({ name, score, fields, terms }));
    expect(strip(liveIndex.search(query))).toEqual(strip(fresh.search(query)));
    live.register(deleteFile);
    expect(
      strip(liveIndex.search(query))
        .map((hit) => hit.name)
        .sort(),
    ).toEqual(first.map((hit) => hit.name).sort());
    liveIndex.close();
  });
  it('refuses weights that cannot work, naming the field', () => {
    expect(() => createToolIndex(registry, { weights: { name: -1 } })).toThrow(/"name" is -1/);
    const zero = Object.fromEntries(TOOL_FIELDS.map((field) => [field, 0]));
    expect(() => createToolIndex(registry, { weights: zero })).toThrow(/at least one field/);
    expect(Object.keys(DEFAULT_FIELD_WEIGHTS).sort()).toEqual([...TOOL_FIELDS].sort());
  });
});
