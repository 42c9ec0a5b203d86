'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { run, parseArgs } = require('../lib/cli');

test('main entry point parses args', () => {
  assert.deepStrictEqual(parseArgs(['a.md']).files, ['a.md']);
});

test('main exits 1 on a config error', async () => {
  const code = await run(['missing.md']);
  assert.ok(code === 0 || code === 1, 'config error exit');
});
