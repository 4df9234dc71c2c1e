// DHCP counters as dnsmasq keeps them (what /api/info/ftl reports under `dnsmasq` and `dhcp`).
export interface DhcpCounters {
  ack: number;
  nak: number;
  decline: number;
  offer: number;
  discover: number;
  inform: number;
  request: number;
  release: number;
  noanswer: number;
  bootp: number;
  pxe: number;
  leases: { allocated_4: number; pruned_4: number; allocated_6: number; pruned_6: number };
}

export function newCounters(): DhcpCounters {
  return {
    ack: 0,
    nak: 0,
    decline: 0,
    offer: 0,
    discover: 0,
    inform: 0,
    request: 0,
    release: 0,
    noanswer: 0,
    bootp: 0,
    pxe: 0,
    leases: { allocated_4: 0, pruned_4: 0, allocated_6: 0, pruned_6: 0 },
  };
}
