// @ts-check
'use strict';
/**
 * How long the target keeps an idle keep-alive connection open. Behind an Application Load Balancer it must be
 * longer than the load balancer's connection idle timeout (3600 s, target-stack/target-stack.ts): the load balancer
 * reuses its connections to a target, and one the target closed first may carry a request before the FIN arrives,
 * which the load balancer answers with 502 Bad Gateway (Elastic Load Balancing User Guide for Application Load
 * Balancers, "Edit attributes": "configure the idle timeout of your application to be larger than the idle timeout
 * configured for the load balancer"). Node's own default is 5 s. test/cdk/target-keepalive.test.ts compares the two.
 */
const KEEP_ALIVE_TIMEOUT_MS = 3_660_000;

/**
 * Applies {@link KEEP_ALIVE_TIMEOUT_MS} to an HTTP server. Node's headersTimeout and requestTimeout time a request
 * being received, not an idle connection between requests, so they stay at their defaults.
 * @param {import('node:http').Server} server
 */
function applyKeepAlive(server) {
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
}

module.exports = { KEEP_ALIVE_TIMEOUT_MS, applyKeepAlive };
