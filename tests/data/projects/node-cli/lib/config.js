'use strict';

const fs = require('fs/promises');
const path = require('path');
const { ConfigError } = require('./errors');

const DEFAULT_OPTIONS = { maxDepth: 3, bullet: '-' };
const KNOWN = new Set(Object.keys(DEFAULT_OPTIONS));

async function readJson(file) {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8'));
  } catch (err) {
    if (err.code === 'ENOENT') return undefined;
    throw new ConfigError(`${file}: ${err.message}`);
  }
}

/** Options from .mdtocrc.json, then package.json's "mdtoc" key, then flags. */
async function loadConfig(dir, flags = {}) {
  const rc = await readJson(path.join(dir, '.mdtocrc.json'));
  const pkg = await readJson(path.join(dir, 'package.json'));
  const options = { ...DEFAULT_OPTIONS, ...(pkg && pkg.mdtoc), ...rc };
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw new ConfigError(`unknown option: ${key}`);
  }
  if (flags.maxDepth !== undefined) options.maxDepth = flags.maxDepth;
  return options;
}

module.exports = { loadConfig, DEFAULT_OPTIONS };
