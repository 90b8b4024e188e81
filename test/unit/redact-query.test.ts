/**
 * How a URL's query is hidden is one rule, load-generators/lib/redact-query.js: the rig's redaction of target URLs
 * (scripts/core/redact.ts) and the probe's lines (load-generators/lib/preflight.js, which runs on generators and so
 * cannot import the orchestrator's TypeScript) both use it. Before, each had its own copy of the expression.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { redactUrl } from '../../scripts/core/redact';

import { probe } from '../../load-generators/lib/preflight';
import { redactQuery } from '../../load-generators/lib/redact-query';

test('every value hidden, keys kept; a bare segment (maybe the token itself) hidden whole', () => {
  expect(redactQuery('?token=T&SECRET;a=1&b=')).toBe('?token=***&***;a=***&b=***');
  expect(redactQuery('')).toBe('');
});

test('a target URL is redacted by that rule', () => {
  expect(redactUrl('ws://h/feed?token=T&SECRET')).toBe(`ws://h/feed${redactQuery('?token=T&SECRET')}`);
});

test("the probe's line shows a redirect's query by that rule too", async () => {
  const server = http.createServer((_req, res) => {
    res.writeHead(302, { location: '/login?next=secret&SECRET' });
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const result = await probe({ target: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, http: { method: 'GET', path: '/set-cookie' } });
    expect(result).toMatchObject({ ok: false, step: 'http' });
    expect(result.ok ? '' : result.message).toContain(`/login${redactQuery('?next=secret&SECRET')})`);
    expect(result.ok ? '' : result.message).not.toMatch(/secret/i);
  } finally {
    await new Promise((r) => server.close(r));
  }
});
