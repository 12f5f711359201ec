'use strict';
module.exports = require('./require-esm.cjs')('policy');
