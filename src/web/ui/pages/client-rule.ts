// Blocking or unblocking one name for one client from the query log, as AdGuard Home's "Block for this
// client": a `$client` rule in the custom rules (/api/rules/custom, AdGuard's syntax,
// https://adguard-dns.io/kb/general/dns-filtering-syntax/#client-modifier). One line the person can read on
// the Custom rules page, and the same row's button takes it out again; a group would mean a new group and
// a change to the client's memberships, neither of which the row could undo as plainly.

/** whether a rule can name `domain` as it is (a logged name may hold any byte, and `^`, `$` or `|` would change the rule) */
export function ruleCanName(domain: string): boolean {
  return /^[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?$/i.test(domain);
}

/** the rule that blocks `domain` and its subdomains for the client at `ip` (or, with `allow`, unblocks them) */
export function clientRule(domain: string, ip: string, allow = false): string {
  return `${allow ? "@@" : ""}||${domain}^$client=${ip}`;
}

/**
 * The custom rules after blocking (`block`) or unblocking `domain` for `ip`. When the opposite rule is
 * there (this button made it), taking it out is the whole step: an unblock after a block restores the
 * rules as they were, and a block after an unblock of a listed name lets the list block it again.
 * Otherwise the rule is added (once).
 */
export function withClientRule(text: string, domain: string, ip: string, block: boolean): string {
  const mine = clientRule(domain, ip, !block);
  const opposite = clientRule(domain, ip, block);
  const lines = text.split("\n");
  while (lines.length && lines[lines.length - 1]?.trim() === "") lines.pop();
  const kept = lines.filter((l) => l.trim() !== opposite && l.trim() !== mine);
  if (!lines.some((l) => l.trim() === opposite)) kept.push(mine);
  return kept.length ? `${kept.join("\n")}\n` : "";
}
