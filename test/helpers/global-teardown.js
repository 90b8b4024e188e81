module.exports = require('./global-tmp').teardown;
