module.exports = require('./global-tmp').setup;
