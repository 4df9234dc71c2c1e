// Is another DHCP server on the network? Moat asks each time its own DHCP server starts (the finding
// is a message in /api/info/messages) and, through POST /api/dhcp/detect, whenever the page asks:
// before the switch is turned on, for the range in the form. Two DHCP servers on one network hand
// out conflicting addresses, so the person is told before, not after.
import { api } from "../api.ts";
import { Button } from "../components.tsx";
import { dateTime } from "../format.ts";
import { t } from "../i18n.ts";
import { isIPv4 } from "./dhcp-common.ts";

export type Message = { id: number; timestamp: number; type: string; plain: string };
export type Detected = {
  interfaces: string[];
  servers: Array<{ interface: string; address: string }>;
  problem: string | null;
};

/** src/dhcp/service.ts words the rival-server message so */
const RIVAL = /^Another DHCP server answers on /;

/** the newest rival warning among the messages */
export const newestRival = (list: Message[]) =>
  list.filter((m) => RIVAL.test(m.plain)).sort((a, b) => b.timestamp - a.timestamp)[0];

/** asks the network of the range in the form (the saved one when the form's is not a range yet) */
export const detectServers = (start: string, end: string) =>
  api<Detected>("POST", "/dhcp/detect", isIPv4(start) && isIPv4(end) ? { start, end } : {});

export function describeCheck(d: Detected): string {
  if (d.problem) return t("Moat could not look for another DHCP server: {problem}.", { problem: d.problem });
  if (!d.servers.length)
    return t("No other DHCP server answered on {interfaces}.", { interfaces: d.interfaces.join(", ") });
  const servers = d.servers.map((s) => t("{address} on {interface}", { address: s.address, interface: s.interface }));
  return t("Another DHCP server answers: {servers}.", { servers: servers.join(", ") });
}

/** the message as a finding with its time (raised at a DHCP start or by a check from this page) */
export const lastFound = (rival: Message) =>
  t("Moat last found another DHCP server {time}: {finding}", {
    time: dateTime(rival.timestamp),
    finding: rival.plain.replace(RIVAL, "on "),
  });

export function RivalNote({
  rival,
  turningOn,
  checked,
  checking,
  onCheck,
}: {
  rival: Message | undefined;
  turningOn: boolean;
  checked: Detected | null;
  checking: boolean;
  onCheck: () => void;
}) {
  const alarm = (checked ? checked.servers.length > 0 : !!rival) && turningOn;
  return (
    <div class={`note rival ${alarm ? "error" : ""}`} role={alarm ? "alert" : "status"} data-testid="dhcp-rival">
      {checked && <p data-testid="dhcp-check">{describeCheck(checked)}</p>}
      {rival ? (
        <p>{lastFound(rival)}</p>
      ) : (
        !checked && <p>{t("Moat looks for another DHCP server each time its own starts; it has found none so far.")}</p>
      )}
      {turningOn && (
        <p>{t("Turn off your router's DHCP server first: two on one network hand out conflicting addresses.")}</p>
      )}
      <Button busy={checking} onClick={onCheck}>
        {checking ? t("Looking (5 s)…") : t("Look for another DHCP server now")}
      </Button>
    </div>
  );
}
