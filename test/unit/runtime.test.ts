/** Every `npm run` (this suite included) runs on the pinned Node 22 from node_modules/.bin, not the machine's Node. */
test('the test suite runs on Node >= 22.18 (Artillery 2.0.34 requires it)', () => {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  expect(major > 22 || (major === 22 && minor >= 18)).toBe(true);
  expect(process.execPath).toContain('node_modules');
});
