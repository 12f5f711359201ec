'use strict';
module.exports = require('./require-esm.cjs')('ai-sdk');
