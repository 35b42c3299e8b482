import { test, describe } from 'node:test';
import assert from 'node:assert';
describe('math', () => {
  test('adds', () => { assert.strictEqual(1 + 1, 2); });
  test('subtracts', () => { assert.strictEqual(2 - 1, 0); });
  test('later', { skip: 'not yet' }, () => {});
});
test('top level passes', () => {});
test('todo one', { todo: true }, () => { throw new Error('x'); });
