/**
 * What a histogram measures, as far as its name says: Artillery records every histogram without a unit, and its
 * own, the engines' and the rig's are milliseconds (`http.response_time`, `vusers.session_length`,
 * `socketio.response_time`, `ws.connect_time`, `pubsub.delivery_latency`, extendedMetrics' `http.dns` … `http.total`,
 * Playwright's `browser.page.FCP` …). A script's own `events.emit('histogram', 'cart.items', 3)` is in whatever
 * unit it records, which the report does not invent. Pure.
 */
/** Names that end in a URL (Playwright's pages, metrics-by-endpoint's requests): their unit is in the prefix alone. */
const BY_PREFIX: ReadonlyArray<readonly [RegExp, boolean]> = [
  // Playwright's bundled engine: step timings, DOM interactive and the page's web vitals (CLS is a score; memory_used_mb MB).
  [/^browser\.(step\.|page\.(dominteractive|FCP|LCP|FID|TTFB|INP)(\.|$))/, true],
  [/^browser\./, false],
  // metrics-by-endpoint: each request's response time and the target's Server-Timing, both ms.
  [/^plugins\.metrics-by-endpoint\.(response_time|server-timing)\./, true],
  [/^plugins\.metrics-by-endpoint\./, false],
];

const TIME_NAME = new RegExp(
  [
    // Artillery's HTTP timings (extendedMetrics: dns, tcp, tls, total), the engines' response times
    '^http\\.(dns|tcp|tls|total)$',
    'response_time',
    '^vusers\\.session_length$',
    // The rig's own: ws.connect_time, *.delivery_latency, broadcast.latency, broadcast.echo_half_rtt
    '_time$',
    'latency',
    '_rtt$',
    // A script's own whose name says it: *_ms, *.ms, *duration*, *delay*
    '[._]ms$',
    'duration',
    'delay',
  ].join('|'),
);

/** `ms` for a histogram whose name says it is a time, else undefined (shown as the script records it). */
export function histogramUnit(name: string): 'ms' | undefined {
  const prefixed = BY_PREFIX.find(([re]) => re.test(name));
  if (prefixed) return prefixed[1] ? 'ms' : undefined;
  return TIME_NAME.test(name) ? 'ms' : undefined;
}
