/**
 * What a delivery scenario's run says about delivery itself (pure): a built-in scenario that publishes messages
 * and got none of them delivered tested nothing but a broken service, and a publisher whose publishes the target
 * refused measured less than it was asked to. Both fail the run (exit 1, with a reason line), as a failed vuser
 * does: the vusers themselves did not fail (they connected and subscribed), so `--max-error-rate` cannot catch it.
 * Before, a target that acked every subscribe and delivered nothing PASSED pubsub, presence and broadcast.
 */

/** Counters of the run, by name. */
type Counters = Readonly<Record<string, number>>;

/** A reason for the result: `fails` ones fail the run (exit 1), the others are said next to what held. */
export interface DeliveryReason {
  readonly text: string;
  readonly fails: boolean;
}

/** The built-in scenarios that publish, with the counters of what was sent and what arrived. */
const DELIVERY: Readonly<Record<string, { readonly sent: string; readonly received: string; readonly what: string }>> = {
  pubsub: { sent: 'pubsub.messages_sent', received: 'pubsub.messages_received', what: 'message' },
  rooms: { sent: 'pubsub.messages_sent', received: 'pubsub.messages_received', what: 'message' },
  recovery: { sent: 'pubsub.messages_sent', received: 'pubsub.messages_received', what: 'message' },
  broadcast: { sent: 'broadcast.messages_sent', received: 'broadcast.messages_received', what: 'broadcast' },
};

const count = (c: Counters, name: string): number => c[name] ?? 0;

/** The publisher's refused publishes, with what the target answered (`publish.failed_reason.http_413 = 6`). */
function publishFailures(c: Counters): DeliveryReason[] {
  const failed = count(c, 'publish.failed');
  if (failed === 0) return [];
  const why = Object.entries(c).filter(([k]) => k.startsWith('publish.failed_reason.')).map(([k, v]) => `${k} = ${v}`).join(', ');
  return [{ fails: true, text: `the publisher's POST /publish failed ${failed} time${failed === 1 ? '' : 's'}${why ? ` (${why})` : ''}: those messages were never published, so the delivery figures miss them` }];
}

/** Presence: announcements the target says it sent (its /metrics) and none received; without that count, said only. */
function presenceReasons(c: Counters): DeliveryReason[] {
  if (count(c, 'presence.announcements_received') > 0 || count(c, 'presence.joins') < 2) return [];
  const sent = count(c, 'presence.target_announcements_sent');
  if (sent > 0) return [{ fails: true, text: `no announcement was delivered: the target sent ${sent} (presence.target_announcements_sent), no vuser received one (presence.announcements_received = 0)` }];
  return [{ fails: false, text: `no presence announcement was received (presence.joins = ${count(c, 'presence.joins')}, presence.announcements_received = 0; the target's own count was not read, so the rig cannot tell whether any was due)` }];
}

/**
 * The delivery reasons of a run that made a built-in scenario's measurements (`rigScenario`: the built-in, or a user's
 * copy that runs its processor's sender and receiver, scripts/rig-processor.ts); none for a user's own script (its
 * counters are its own, whatever it is called).
 */
export function deliveryReasons(rigScenario: string | undefined, c: Counters): DeliveryReason[] {
  if (rigScenario === 'presence') return presenceReasons(c);
  const d = rigScenario === undefined ? undefined : DELIVERY[rigScenario];
  if (!d) return [];
  const reasons = publishFailures(c);
  const sent = count(c, d.sent);
  if (sent > 0 && count(c, d.received) === 0) {
    reasons.push({ fails: true, text: `no ${d.what} was delivered: ${sent} published (${d.sent}), none received by any vuser (${d.received} = 0)` });
  }
  return reasons;
}
