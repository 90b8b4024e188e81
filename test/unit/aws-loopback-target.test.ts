/**
 * An AWS run aimed at this machine's loopback (`--target http://localhost:3000`, or a script's config.target) is
 * refused before anything starts: from a generator, loopback is the generator itself, so the preflight on the
 * first generator failed only after that instance had started (exit 3).
 */
import { loopbackHost, loopbackTargetProblem } from '../../scripts/platforms/aws/select';

test('loopback hosts: localhost, *.localhost, 127.0.0.0/8, ::1 and the unspecified addresses; nothing else', () => {
  for (const url of ['http://localhost:3000', 'http://LOCALHOST', 'ws://app.localhost/ws', 'http://127.0.0.1:3000', 'https://127.8.9.10', 'http://[::1]:3000', 'http://0.0.0.0:80', 'http://[::]/']) expect([url, loopbackHost(url)]).toEqual([url, true]);
  for (const url of ['http://10.0.1.5', 'https://example.com', 'http://128.0.0.1', 'http://localhost.example.com', 'not a url']) expect([url, loopbackHost(url)]).toEqual([url, false]);
  // IPv4-mapped IPv6 and the other spellings of 127.0.0.0/8 (was: not seen as loopback).
  for (const url of ['http://[::ffff:127.0.0.1]:3000', 'http://[::FFFF:7f00:1]', 'http://[0:0:0:0:0:ffff:127.1.2.3]', 'http://[::ffff:0.0.0.0]', 'http://[0:0:0:0:0:0:0:1]', 'http://2130706433', 'http://0x7f.1', 'http://0']) expect([url, loopbackHost(url)]).toEqual([url, true]);
  for (const url of ['http://[::ffff:10.0.0.1]', 'http://[2001:db8::1]', 'http://[fe80::1]']) expect([url, loopbackHost(url)]).toEqual([url, false]);
});

test('refused on AWS with the way out; allowed when AWS itself is an emulator on this machine; no target: nothing to judge', () => {
  expect(loopbackTargetProblem('http://127.0.0.1:3000', {})).toMatch(/^target http:\/\/127\.0\.0\.1:3000 is this machine's loopback; on AWS each generator would reach itself\. .*--platform local$/);
  expect(loopbackTargetProblem('http://user:secret@localhost:3000', {})).not.toContain('secret');
  expect(loopbackTargetProblem('http://127.0.0.1:3000', { AWS_ENDPOINT_URL: 'http://127.0.0.1:5000' })).toBeUndefined();
  expect(loopbackTargetProblem('http://127.0.0.1:3000', { AWS_ENDPOINT_URL: 'https://vpce.example.com' })).toMatch(/loopback/);
  expect(loopbackTargetProblem('https://example.com', {})).toBeUndefined();
  expect(loopbackTargetProblem(undefined, {})).toBeUndefined();
});
