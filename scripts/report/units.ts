/**
 * What a histogram measures, as far as its name says: Artillery records every histogram without a unit, and its
 * own, the engines' and the rig's are milliseconds (`http.response_time`, `vusers.session_length`,
 * `socketio.response_time`, `ws.connect_time`, `pubsub.delivery_latency`, extendedMetrics' `http.dns` … `http.total`,
 * Playwright's `browser.page.FCP` …). A script's own `events.emit('histogram', 'cart.items', 3)` is in whatever
 * unit it records, which the report does not invent. Pure.
 */
const TIME_NAME =
  /(response_time|session_length|latency|_time\b|time_|_ms\b|\.ms\b|duration|delay|\.(dns|tcp|tls|total|firstByte|download|wait)$|\.(FCP|LCP|TTFB|FID|INP|FCP_ms)\b)/;

/** `ms` for a histogram whose name says it is a time, else undefined (shown as the script records it). */
export function histogramUnit(name: string): 'ms' | undefined {
  return TIME_NAME.test(name) ? 'ms' : undefined;
}
