'use strict';

const { ParseError } = require('./errors');

/** The ATX headings of a Markdown text, outside code fences. */
function parseHeadings(text) {
  const headings = [];
  let fenced = false;
  text.split('\n').forEach((line, i) => {
    if (line.startsWith('```')) fenced = !fenced;
    const match = !fenced && /^(#{1,6})\s+(.*)$/.exec(line);
    if (!match) return;
    if (!match[2].trim()) throw new ParseError('empty heading', i + 1);
    headings.push({ depth: match[1].length, title: match[2].trim(), line: i + 1 });
  });
  return headings;
}

module.exports = { parseHeadings };
