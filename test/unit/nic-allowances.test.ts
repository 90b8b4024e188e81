/**
 * An EC2 instance queues or drops packets past the network allowances of its size (bandwidth, packets per second,
 * tracked connections, link-local traffic) and counts them in its ENA driver's statistics (Amazon EC2 User Guide,
 * "Monitor network performance for ENA settings on your EC2 instance"). On a generator they are the rig's limit.
 * The driver's counters cannot exist on this machine (no ENA), so `ethtool -S` output is given in its documented form.
 */
import { nicAllowanceMeter, parseEthtoolStats } from '../../load-generators/lib/nic-allowances';

const ena = (c: Partial<Record<'bw_in' | 'bw_out' | 'pps' | 'conntrack' | 'linklocal', number>>) => `NIC statistics:
     tx_timeout: 0
     suspend: 0
     bw_in_allowance_exceeded: ${c.bw_in ?? 0}
     bw_out_allowance_exceeded: ${c.bw_out ?? 0}
     pps_allowance_exceeded: ${c.pps ?? 0}
     conntrack_allowance_exceeded: ${c.conntrack ?? 0}
     linklocal_allowance_exceeded: ${c.linklocal ?? 0}
     conntrack_allowance_available: 136812
     queue_0_tx_cnt: 4329
`;

describe('network allowances of the generator instance (ENA counters)', () => {
  test('parses the five *_allowance_exceeded counters by short name, nothing else; none on an interface that is not ENA', () => {
    expect(parseEthtoolStats(ena({ bw_in: 1, bw_out: 2, pps: 3, conntrack: 4, linklocal: 5 }))).toEqual({ bw_in: 1, bw_out: 2, pps: 3, conntrack: 4, linklocal: 5 });
    expect(parseEthtoolStats('NIC statistics:\n     peer_ifindex: 4\n')).toEqual({});
  });

  test('the first sample is the baseline (drops before the run are not its own); then packets since the previous sample, summed over the interfaces', async () => {
    const counters: Record<string, Parameters<typeof ena>[0]> = { eth0: { conntrack: 100, pps: 5 }, eth1: { conntrack: 1 }, veth9: {} };
    const meter = nicAllowanceMeter({
      interfaces: () => Object.keys(counters),
      ethtool: async (iface) => (iface === 'veth9' ? 'NIC statistics:\n     peer_ifindex: 4\n' : ena(counters[iface] ?? {})),
    });
    expect(await meter.sample()).toEqual({ bw_in: 0, bw_out: 0, pps: 0, conntrack: 0, linklocal: 0 });
    counters.eth0 = { conntrack: 130, pps: 5 };
    counters.eth1 = { conntrack: 3 };
    expect(await meter.sample()).toEqual({ bw_in: 0, bw_out: 0, pps: 0, conntrack: 32, linklocal: 0 });
    // A counter that went down (the driver was reset) counts from zero.
    counters.eth0 = { conntrack: 4, pps: 5 };
    counters.eth1 = { conntrack: 3 };
    expect((await meter.sample())?.conntrack).toBe(7);
  });

  test('no ethtool (every local run): undefined, and it is not asked again; an interface whose statistics fail is skipped', async () => {
    let asked = 0;
    const missing = nicAllowanceMeter({
      interfaces: () => ['eth0'],
      ethtool: async () => {
        asked++;
        throw Object.assign(new Error('spawn ethtool ENOENT'), { code: 'ENOENT' });
      },
    });
    expect(await missing.sample()).toBeUndefined();
    expect(await missing.sample()).toBeUndefined();
    expect(asked).toBe(1);
    const partly = nicAllowanceMeter({
      interfaces: () => ['dummy0', 'eth0'],
      ethtool: async (iface) => {
        if (iface === 'dummy0') throw Object.assign(new Error('Command failed: ethtool -S dummy0'), { code: 94 });
        return ena({ conntrack: 9 });
      },
    });
    expect(await partly.sample()).toMatchObject({ conntrack: 0 });
    // Interfaces without any counter (not an EC2 instance): undefined, not zeros.
    expect(await nicAllowanceMeter({ interfaces: () => ['eth0'], ethtool: async () => 'NIC statistics:\n     rx_queue_0_packets: 12\n' }).sample()).toBeUndefined();
  });
});
