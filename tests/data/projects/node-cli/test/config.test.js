'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { loadConfig } = require('../lib/config');

test('config loads defaults', async () => {
  const options = await loadConfig('/nonexistent');
  assert.strictEqual(options.maxDepth, 3);
});

test('config error on an unknown option', async () => {
  await assert.rejects(loadConfig(__dirname + '/fixtures/bad-config'), /unknown option|config/);
});
