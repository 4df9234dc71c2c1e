// Pi-hole's valid_domain() (reference §5, §7.2): the one definition of a syntactically valid name,
// shared by the API (exact entries) and the list parser.

/** [A-Za-z0-9._-], labels of 1..63, name ≤ 255, no label ending in '-', last label not starting with it. */
export function validDomain(name: string, fqdnOnly = false): boolean {
  if (name.length === 0 || name.length > 255) return false;
  if (!/^[a-z0-9._-]+$/i.test(name)) return false;
  const labels = name.split(".");
  if (fqdnOnly && labels.length < 2) return false;
  for (const l of labels) if (l.length === 0 || l.length > 63 || l.endsWith("-")) return false;
  return !labels[labels.length - 1]!.startsWith("-");
}
