'use strict';

const { parseHeadings } = require('./headings');
const { renderToc, insertToc } = require('./toc');

module.exports = { parseHeadings, renderToc, insertToc };
