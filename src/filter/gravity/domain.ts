// Pi-hole's valid_domain() (pi-hole/FTL): the one definition of a syntactically valid name,
// shared by the API (exact entries) and the list parser.

/** [A-Za-z0-9._-], labels of 1..63, name ≤ 255, no label ending in '-', last label not starting with it. */
export function validDomain(name: string, fqdnOnly = false): boolean {
  const n = name.length;
  if (n === 0 || n > 255) return false;
  // one pass over the characters: gravity runs this for every line of every list
  let labelStart = 0;
  let labels = 1;
  for (let i = 0; i < n; i++) {
    const c = name.charCodeAt(i);
    if (c === 46) {
      if (i === labelStart || i - labelStart > 63 || name.charCodeAt(i - 1) === 45) return false;
      labelStart = i + 1;
      labels++;
    } else if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45 || c === 95 || (c >= 65 && c <= 90)))
      return false;
  }
  if (n === labelStart || n - labelStart > 63 || name.charCodeAt(n - 1) === 45) return false;
  if (fqdnOnly && labels < 2) return false;
  return name.charCodeAt(labelStart) !== 45;
}
