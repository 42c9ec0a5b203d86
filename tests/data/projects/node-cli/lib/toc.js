'use strict';

function slug(title) {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/** The table of contents as Markdown list lines. */
function renderToc(headings, options) {
  return headings
    .filter((h) => h.depth <= options.maxDepth)
    .map((h) => `${'  '.repeat(h.depth - 1)}${options.bullet} [${h.title}](#${slug(h.title)})`)
    .join('\n');
}

/** The text with its table of contents between the markers. */
function insertToc(text, headings, options) {
  const toc = renderToc(headings, options);
  return text.replace(/<!-- toc -->[\s\S]*?<!-- tocstop -->/, `<!-- toc -->\n${toc}\n<!-- tocstop -->`);
}

module.exports = { renderToc, insertToc };
