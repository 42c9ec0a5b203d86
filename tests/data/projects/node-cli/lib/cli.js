'use strict';

const fs = require('fs/promises');
const { loadConfig } = require('./config');
const { MdtocError } = require('./errors');
const { parseHeadings } = require('./headings');
const { insertToc } = require('./toc');

function parseArgs(argv) {
  const args = { files: [], maxDepth: undefined };
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--max-depth') {
      args.maxDepth = Number(argv[i += 1]);
    } else {
      args.files.push(argv[i]);
    }
  }
  return args;
}

async function run(argv) {
  const args = parseArgs(argv);
  try {
    const options = await loadConfig(process.cwd(), args);
    for (const file of args.files) {
      const text = await fs.readFile(file, 'utf8');
      await fs.writeFile(file, insertToc(text, parseHeadings(text), options));
    }
    return 0;
  } catch (err) {
    if (err instanceof MdtocError) {
      console.error(`mdtoc: ${err.message}`);
      return 1;
    }
    throw err;
  }
}

module.exports = { run, parseArgs };
