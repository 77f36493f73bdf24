// Subject tokens of Tern's names (#27): `tokenId` reads back exactly what `idToken` wrote (`tern cluster status` names
// the accounts of waiting texts from their subjects) and nothing else.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { idToken, NO_SESSION, tokenId } from '../../store/cluster/subjects.js';

test('a name written as a token reads back as itself', () => {
  const names = ['tg1', 'ops bot', 'bot.eu', 'a>b*c', '100%', 'Ünïcødé 📦', 'tg:direct@x+y=z'];
  assert.equal(names.map(idToken), [
    'tg1',
    'ops%20bot',
    'bot%2Eeu',
    'a%3Eb%2Ac',
    '100%25',
    '%C3%9Cn%C3%AFc%C3%B8d%C3%A9%20%F0%9F%93%A6',
    'tg:direct@x+y=z',
  ]);
  assert.equal(
    names.map((name) => tokenId(idToken(name))),
    names,
  );
});

test('a token the encoding never makes names nothing', () => {
  // No session; a safe character escaped; lowercase hex; not hex; a cut UTF-8 sequence.
  assert.equal([NO_SESSION, 'a%41', '%c3%9c', '%ZZ', '%C3'].map(tokenId), [
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
});

test.run();
