'use strict';

class MdtocError extends Error {
  constructor(message) {
    super(message);
    this.name = 'MdtocError';
  }
}

class ConfigError extends MdtocError {}

class ParseError extends MdtocError {
  constructor(message, line) {
    super(`line ${line}: ${message}`);
    this.line = line;
  }
}

module.exports = { MdtocError, ConfigError, ParseError };
