import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Bm25Index, tokenize } from '../../adapters/mcp/bm25.js';

test('tokens split snake_case, kebab-case and punctuation, lowercased; camelCase counts whole and in parts', () => {
  assert.equal(tokenize('mcp_github_createIssue get-sum: Über-Größe 42'), [
    'mcp',
    'github',
    'createissue',
    'create',
    'issue',
    'get',
    'sum',
    'über',
    'größe',
    '42',
  ]);
});

const docs = [
  { id: 'weather', text: 'get_forecast Weather forecast for a city' },
  { id: 'sum', text: 'get_sum Returns the sum of two numbers' },
  { id: 'issue', text: 'create_issue Create an issue in a GitHub repository' },
  { id: 'pr', text: 'create_pull_request Open a pull request in a GitHub repository' },
];

const searches: Array<[string, number, string[]]> = [
  ['weather', 5, ['weather']],
  ['github issue', 5, ['issue', 'pr']],
  ['pull request', 5, ['pr']],
  ['sum numbers', 5, ['sum']],
  ['create', 1, ['issue']],
  ['nothing here', 5, []],
  ['', 5, []],
];

for (const [query, limit, expected] of searches) {
  test(`search ${JSON.stringify(query)} (limit ${limit}) finds ${expected.join(', ') || 'nothing'}`, () => {
    assert.equal(
      new Bm25Index(docs).search(query, limit).map((hit) => hit.id),
      expected,
    );
  });
}

test('a rarer word weighs more than a common one', () => {
  const [best] = new Bm25Index(docs).search('get forecast', 5);
  assert.is(best?.id, 'weather');
});

test.run();
